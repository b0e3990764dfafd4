//! `--hlog`: the interval logs a run writes decode, with the `hdrhistogram`
//! crate's reader and with a reader written here from the format's
//! description (HdrHistogram's `EncodableHistogram` V2 layout), to the
//! quantiles the run's report prints.

use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use std::io::Read;
use std::process::Command;

/// The report's `{mean, p50, p90, p99, max, n}` at `field` (`divergence_m.own`,
/// `per_client[2].own_input_latency_ms`).
fn field<'a>(metrics: &'a serde_json::Value, field: &str) -> &'a serde_json::Value {
    field.split('.').fold(metrics, |v, part| match part.split_once('[') {
        Some((name, index)) => &v[name][index.trim_end_matches(']').parse::<usize>().unwrap()],
        None => &v[part],
    })
}

/// Each tagged interval of `log`: (tag, histogram) by the crate's reader.
fn by_the_crate(log: &[u8]) -> Vec<(String, Histogram<u64>)> {
    let mut out = Vec::new();
    for entry in IntervalLogIterator::new(log) {
        if let LogEntry::Interval(i) = entry.expect("the crate parses every line") {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD.decode(i.encoded_histogram()).unwrap();
            let h: Histogram<u64> = Deserializer::new().deserialize(&mut bytes.as_slice()).unwrap();
            out.push((i.tag().expect("every interval is tagged").to_string(), h));
        }
    }
    out
}

/// A reader of the format written from its description, sharing no code
/// with the crate: base64, the zlib-compressed V2 layout (cookie, payload
/// length, normalizing offset, significant digits, lowest and highest
/// trackable value, conversion ratio, then counts as ZigZag LEB128 with
/// negative numbers for runs of zeros), and the bucket layout that maps a
/// count's index to its values.
mod independent {
    /// A decoded histogram: its significant digits and per-index counts.
    pub struct Decoded {
        pub digits: u32,
        pub counts: Vec<u64>,
    }

    fn base64(text: &str) -> Vec<u8> {
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut bits = 0u32;
        let mut held = 0;
        let mut out = Vec::new();
        for c in text.bytes().filter(|&c| c != b'=') {
            let v = alphabet.iter().position(|&a| a == c).expect("a base64 character") as u32;
            bits = (bits << 6) | v;
            held += 6;
            if held >= 8 {
                held -= 8;
                out.push((bits >> held) as u8);
                bits &= (1 << held) - 1;
            }
        }
        out
    }

    fn be32(b: &[u8]) -> u32 {
        u32::from_be_bytes(b[..4].try_into().unwrap())
    }

    pub fn decode(text: &str) -> Decoded {
        let bytes = base64(text);
        // V2 cookies carry the word size in bits 4-7 (Java writes 0x10).
        assert_eq!(be32(&bytes) & !0xf0, 0x1c84_9304, "V2 compressed cookie");
        let length = be32(&bytes[4..]) as usize;
        let mut inner = Vec::new();
        super::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(&bytes[8..8 + length]), &mut inner).unwrap();
        assert_eq!(be32(&inner) & !0xf0, 0x1c84_9303, "V2 cookie");
        let payload = be32(&inner[4..]) as usize;
        assert_eq!(be32(&inner[8..]), 0, "no normalizing offset");
        let digits = be32(&inner[12..]);
        let lowest = u64::from_be_bytes(inner[16..24].try_into().unwrap());
        assert_eq!(lowest, 1, "values in whole units");
        let mut counts = Vec::new();
        let mut rest = &inner[40..40 + payload];
        while !rest.is_empty() {
            // LEB128 of at most 9 bytes: 8 of 7 bits, then a 9th whole.
            let mut raw = 0u64;
            for i in 0..9 {
                let b = rest[0];
                rest = &rest[1..];
                if i == 8 {
                    raw |= (b as u64) << 56;
                    break;
                }
                raw |= ((b & 0x7f) as u64) << (7 * i);
                if b & 0x80 == 0 {
                    break;
                }
            }
            let n = ((raw >> 1) as i64) ^ -((raw & 1) as i64);
            if n < 0 {
                counts.extend(std::iter::repeat_n(0, (-n) as usize));
            } else {
                counts.push(n as u64);
            }
        }
        Decoded { digits, counts }
    }

    impl Decoded {
        /// (lowest value, values in the bucket) of count index `i`.
        fn range(&self, i: usize) -> (u64, u64) {
            let largest_single = 2 * 10u64.pow(self.digits);
            let sub_buckets = largest_single.next_power_of_two();
            let half = sub_buckets / 2;
            let i = i as u64;
            if i < sub_buckets {
                (i, 1)
            } else {
                let bucket = (i - sub_buckets) / half + 1;
                let sub = (i - sub_buckets) % half + half;
                (sub << bucket, 1 << bucket)
            }
        }

        pub fn total(&self) -> u64 {
            self.counts.iter().sum()
        }

        /// The value at quantile `q` as HdrHistogram defines it: the
        /// highest value of the first bucket where the running count
        /// reaches ⌈q·n⌉ (at least 1).
        /// HdrHistogram_py's `get_value_at_percentile`: the count at the
        /// quantile rounded half up (`int(q·n + 0.5)`), at least 1.
        pub fn at(&self, q: f64) -> u64 {
            let target = ((q * self.total() as f64 + 0.5).floor() as u64).max(1);
            let mut seen = 0;
            for (i, &c) in self.counts.iter().enumerate() {
                seen += c;
                if seen >= target {
                    let (low, width) = self.range(i);
                    return low + width - 1;
                }
            }
            panic!("quantile past the counts");
        }

        /// Mean of each bucket's middle value, weighted by its count.
        pub fn mean(&self) -> f64 {
            let n = self.total() as f64;
            self.counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let (low, width) = self.range(i);
                    (low + width / 2) as f64 * c as f64 / n
                })
                .sum()
        }
    }
}

/// `syncbench ARGS --hlog DIR`, from the repository's root.
fn with_hlog(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_syncbench"))
        .args(args)
        .arg("--hlog")
        .arg(dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap()
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

#[test]
fn a_runs_interval_log_decodes_to_its_reports_quantiles() {
    let dir = std::env::temp_dir().join(format!("syncbench-hlog-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out =
        with_hlog(&["run", "--algo", "prediction", "--profile", "wifi", "--duration", "10s", "--format", "json"], &dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let metrics = &report["runs"][0]["metrics"];
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let log = std::fs::read(&files[0]).unwrap();
    let text = String::from_utf8(log.clone()).unwrap();
    assert!(text.contains("#[StartTime: 0.000"), "the start time in the header");
    assert!(text.contains("µs (microseconds): latency-own") && text.contains("µm (micrometres): divergence-own"));

    let crate_read = by_the_crate(&log);
    // 2 latencies, 4 divergences, clock error, 4 clients' own latency.
    assert_eq!(crate_read.len(), 11, "{:?}", crate_read.iter().map(|(t, _)| t).collect::<Vec<_>>());
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("Tag=")).collect();
    // Whether the crate's own rank rule (the count rounded up) gives
    // another value somewhere: the check below tells the rules apart.
    let mut rules_differ = false;
    assert!(crate_read.iter().any(|(t, _)| t.contains("client")), "per-client tags are checked too");
    for ((tag, h), line) in crate_read.iter().zip(&lines) {
        // Which report field a tag summarises, as the header says.
        let header = format!("#[Tag {tag}: the report's ");
        let at = text.find(&header).unwrap_or_else(|| panic!("{tag} in the header")) + header.len();
        let name = text[at..].split(' ').next().unwrap();
        let scale = if tag.contains("divergence") { 1e6 } else { 1e3 };
        let want = field(metrics, name);
        assert!(want.is_object(), "{tag}: {name} in the report");
        let ind = independent::decode(line.rsplit(',').next().unwrap());
        assert_eq!(want["n"].as_u64().unwrap(), h.len(), "{tag}: count");
        assert_eq!(ind.total(), h.len(), "{tag}: the independent reader's count");
        assert!(!h.is_empty(), "{tag}: values recorded");
        for (q, key) in [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (1.0, "max")] {
            let reported = want[key].as_f64().unwrap();
            // The crate rounds the count up: asked for k − ½ of n, it
            // gives the k-th value, with k the count rounded as Python does.
            let n = h.len() as f64;
            let k = ((q * n + 0.5).floor()).max(1.0);
            let (by_crate, by_hand) = (h.value_at_quantile((k - 0.5) / n), ind.at(q));
            assert_eq!(by_crate, by_hand, "{tag} {key}: the two readers");
            assert_eq!(round4(by_crate as f64 / scale), reported, "{tag} {key}");
            rules_differ |= h.value_at_quantile(q) != by_crate;
        }
        assert_eq!(round4(h.mean() / scale), want["mean"].as_f64().unwrap(), "{tag} mean");
        assert_eq!(round4(ind.mean() / scale), want["mean"].as_f64().unwrap(), "{tag} mean, by hand");
    }
    assert!(rules_differ, "no quantile where the rank rules differ: the check cannot tell them apart");
    // The report's own copy of the latency histograms is the log's.
    let own = metrics["latency_histograms"]["own"].as_str().unwrap();
    assert!(lines[0].starts_with("Tag=latency-own,") && lines[0].ends_with(own));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_hlog_folder_that_cannot_be_made_is_an_error_naming_it() {
    let file = std::env::temp_dir().join(format!("syncbench-hlog-file-{}", std::process::id()));
    std::fs::write(&file, "not a folder").unwrap();
    let out = with_hlog(&["run", "--algo", "lockstep", "--duration", "2s"], &file);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&*file.to_string_lossy()) && err.contains("--hlog"), "{err}");
    assert!(err.contains("a file is there") && !err.contains("os error"), "{err}");
    // A symlink to nothing, and `-`, are named for what they are; no
    // folder called `-` is made.
    let dangling = std::env::temp_dir().join(format!("syncbench-hlog-dangling-{}", std::process::id()));
    let _ = std::fs::remove_file(&dangling);
    std::os::unix::fs::symlink("/nonexistent/syncbench-hlog", &dangling).unwrap();
    for (target, needle) in
        [(dangling.as_path(), "symlink to nothing"), (std::path::Path::new("-"), "not standard output")]
    {
        let out = with_hlog(&["run", "--algo", "lockstep", "--duration", "2s"], target);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(needle) && !err.contains("os error"), "{err}");
    }
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("-").exists());
    let _ = std::fs::remove_file(&dangling);
    let _ = std::fs::remove_file(&file);
}

#[test]
fn compare_writes_one_log_per_run_and_the_same_bytes_twice() {
    let base = std::env::temp_dir().join(format!("syncbench-hlog-cmp-{}", std::process::id()));
    let run = |d: &str| {
        let dir = base.join(d);
        let out = with_hlog(
            &["compare", "--algos", "lockstep,snapshot", "--seeds", "2", "--duration", "3s", "--quiet"],
            &dir,
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        files
    };
    let (a, b) = (run("a"), run("b"));
    assert_eq!(a.len(), 4, "{a:?}");
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.file_name(), y.file_name());
        assert_eq!(std::fs::read(x).unwrap(), std::fs::read(y).unwrap(), "{x:?}");
    }
    let _ = std::fs::remove_dir_all(&base);
}
