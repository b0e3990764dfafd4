//! Recorded links: the shipped recordings, recordings given by path, and
//! what a replayed link does to packets against what its file says.

use crate::util::{cfg, run_named, syncbench};
use harness::net::link_probe::{probe_link, probe_stream, recorded};
use harness::net::recorded::replay::{Order, Replayer};
use harness::net::{Link, Netem, Profile};
use harness::time::Micros;

fn resolve(name: &str) -> Profile {
    Profile::resolve(name, &harness::library::dirs("netem-profiles")).unwrap()
}

#[test]
fn the_shipped_recordings_are_real_links_with_their_provenance() {
    for name in ["leo-starlink", "5g-urban-drive"] {
        let p = resolve(name);
        assert!(p.is_recorded(), "{name}");
        let built_in = harness::library::shipped_profiles().iter().find(|(n, _)| *n == name).unwrap().1;
        let shipped = Profile::parse(built_in, name, &harness::error::Source::BuiltIn(name.into())).unwrap();
        assert_eq!(shipped.replay, p.replay, "{name}: the built-in copy reads the same recording");
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("netem-profiles/recordings");
    for (file, _) in harness::library::shipped_recordings() {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        for needed in ["# Source:", "commit", "# Licence:", "# Measured:"] {
            assert!(text.contains(needed), "{file}: its header needs `{needed}`");
        }
    }
    assert!(dir.join("licenses/LeoCC-MIT.txt").is_file() && dir.join("licenses/CICV5G-CC-BY-4.0.txt").is_file());
}

/// Probing a delay series once per interval for one period visits every
/// sample once: by arrival, the probe's distribution is the file's; FIFO
/// only ever holds a packet back.
#[test]
fn a_probe_of_a_replayed_series_measures_the_file() {
    let p = resolve("leo-starlink");
    let mut replay = p.replay[1].clone().unwrap();
    let file = recorded(replay.delays.as_deref().unwrap());
    let n = file.sent;
    let probe = |replay, draw| {
        let link = Link::new(Netem::clean(), p.correlation, probe_stream(1)).with_replay(Replayer::new(replay, draw));
        probe_link(link, n, 10_000, 100)
    };
    replay.order = Order::ByArrival;
    for draw in [0, 123_456_789] {
        let got = probe(replay.clone(), draw);
        assert_eq!(
            (got.delay_mean_ms, got.delay_sd_ms, got.delay_p50_ms, got.delay_p90_ms, got.delay_p99_ms, got.loss),
            (file.delay_mean_ms, file.delay_sd_ms, file.delay_p50_ms, file.delay_p90_ms, file.delay_p99_ms, file.loss),
            "draw {draw}"
        );
    }
    replay.order = Order::Fifo;
    let fifo = probe(replay, 7);
    assert!(fifo.delay_mean_ms >= file.delay_mean_ms && fifo.delay_p50_ms >= file.delay_p50_ms, "{fifo:?}");
    assert_eq!(fifo.reorder, 0.0);
}

#[test]
fn a_mahimahi_pair_by_path_is_bandwidth_and_base_delay() {
    let dir = std::env::temp_dir().join(format!("syncbench-mahimahi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Uplink: an opportunity every 10 ms (1.2 Mbit/s); downlink: every ms.
    let lines = |step: u64| (1..=100).map(|i| format!("{}\n", i * step)).collect::<String>();
    std::fs::write(dir.join("cell.up"), lines(10)).unwrap();
    std::fs::write(dir.join("cell.down"), lines(1)).unwrap();
    let arg = format!("{} delay 20ms", dir.join("cell.down").display());
    let p = resolve(&arg);
    assert!(p.is_recorded() && p.uplink.delay_us == 20_000);
    for (up, step_us) in [(true, 10_000), (false, 1_000)] {
        let mut link = p.link(up, 3, 1, probe_stream(3));
        // Ten packets of 1,504 B (one opportunity each; a path MTU to match) at once.
        let arrivals: Vec<Micros> =
            (0..10).map(|_| link.send_on_path(Micros::ZERO, 1_476, 1_504).iter().next().unwrap().time).collect();
        assert!((20_000..=20_000 + step_us).contains(&arrivals[0].0), "up {up}: {arrivals:?}");
        assert!(arrivals.windows(2).all(|w| w[1].0 - w[0].0 == step_us), "up {up}: {arrivals:?}");
    }
    // A run on it: the base delay and the opportunities shape what the
    // players see.
    let m = run_named("server-verified", &arg, "random-walk", cfg(2, 3, 1));
    assert!(m.input_latency_ms.own.p50 > 40.0, "{:?}", m.input_latency_ms.own);
    // `profile fit` fits the pair through its queue: a 100 B probe at
    // 60 Hz waits for the next opportunity (10 ms apart up, 1 ms down),
    // on top of the profile's own 20 ms.
    let (code, text, err) = syncbench(&["profile", "fit", &arg, "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let best = |k: usize| v["directions"][k]["candidates"][0]["delay_us"].as_f64().unwrap();
    assert_eq!(v["directions"][0]["direction"], "uplink");
    assert!((3_000.0..=7_000.0).contains(&best(0)), "up: {}", best(0));
    assert!(best(1) <= 1_000.0, "down: {}", best(1));
    for k in ["uplink", "downlink"] {
        let n = Netem::parse(v[k].as_str().unwrap()).unwrap();
        assert!((20_000..=27_000).contains(&n.delay_us), "{k}: {n}");
    }
    assert!(v["notes"][0].as_str().unwrap().contains("probes of 100 bytes through its queue"), "{}", v["notes"]);
    let missing = dir.join("lonely.up");
    std::fs::write(&missing, "1\n").unwrap();
    let e = Profile::resolve(missing.to_str().unwrap(), &[]).unwrap_err().to_string();
    assert!(e.contains("lonely.down is missing"), "{e}");
}

#[test]
fn a_compare_on_a_recorded_link_is_byte_identical() {
    let args = [
        "compare",
        "--profile",
        "leo-starlink",
        "--algos",
        "snapshot,rollback",
        "--seeds",
        "2",
        "--duration",
        "5s",
        "--format",
        "json",
    ];
    let (code, a, e) = syncbench(&args);
    assert_eq!(code, 0, "{e}");
    let (_, b, _) = syncbench(&args);
    assert_eq!(a, b);
    // A different seed starts each node elsewhere in the recording.
    let (_, one, _) =
        syncbench(&["run", "--algo", "snapshot", "--profile", "leo-starlink", "--duration", "5s", "--format", "json"]);
    let (_, two, _) = syncbench(&[
        "run",
        "--algo",
        "snapshot",
        "--profile",
        "leo-starlink",
        "--duration",
        "5s",
        "--seed",
        "2",
        "--format",
        "json",
    ]);
    assert_ne!(one, two);
}

#[test]
fn bad_replay_tables_name_the_line() {
    let dir = std::env::temp_dir().join(format!("syncbench-replay-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("d.txt"), "10\n-1\n").unwrap();
    std::fs::write(dir.join("ok.txt"), "10\n12\n").unwrap();
    std::fs::write(dir.join("ok.csv"), "time_ms,rtt_ms\n0,20\n10,22\n").unwrap();
    for (toml, line, what) in [
        ("[replay]\ndelays = \"nothere.txt\"\n", 2, "cannot read recording"),
        ("[replay]\ndelays = \"ok.txt\"\nsamples = \"ok.txt\"\n", 3, "not both"),
        ("[replay]\ndelays = \"ok.txt\"\nqueue = \"lots\"\n", 3, "N packets"),
        ("[replay]\ndelays = \"ok.txt\"\norder = \"random\"\n", 3, "by-arrival"),
        ("[replay]\ndelay = \"ok.txt\"\n", 2, "unknown key `delay`"),
        ("[replay.up]\ndelays = \"ok.txt\"\n", 0, "needs `uplink` and `downlink`"),
        ("link = \"slot 10ms\"\n[replay]\ndelays = \"ok.txt\"\n", 2, "cannot take `slot`, jitter"),
        ("link = \"delay 5ms 2ms\"\n[replay]\ndelays = \"ok.txt\"\n", 2, "cannot take `slot`, jitter"),
        ("[replay]\ninterval = \"2m\"\ndelays = \"ok.txt\"\n", 0, "at most 60 s"),
        ("[replay]\ninterval = \"0ms\"\ndelays = \"ok.txt\"\n", 2, "above 0"),
        ("[replay]\nsamples = \"ok.csv\"\ninterval = \"5ms\"\n", 3, "`interval` without `delays`"),
        ("[replay]\ndelays = \"ok.txt\"\ngaps = \"lost\"\n", 3, "`gaps` without `samples`"),
        (
            "[replay.up]\ndelays = \"ok.txt\"\nqueue = \"5 packets\"\n[replay.down]\ndelays = \"ok.txt\"\n",
            3,
            "`queue` without `opportunities`",
        ),
    ] {
        let path = dir.join("p.toml");
        std::fs::write(&path, toml).unwrap();
        let e = Profile::load(&path).unwrap_err().to_string();
        let at = if line == 0 { "p.toml:".to_string() } else { format!("p.toml:{line}:") };
        assert!(e.contains(what) && (line == 0 || e.contains(&at)), "{toml:?}: {e}");
    }
    // A bad value inside the recording names the recording's own line.
    std::fs::write(dir.join("p.toml"), "[replay]\ndelays = \"d.txt\"\n").unwrap();
    let e = Profile::load(&dir.join("p.toml")).unwrap_err().to_string();
    assert!(e.contains("d.txt:2") && e.contains("of 0 or more"), "{e}");
    // Through the binary: exit 2.
    let (code, _, err) = syncbench(&["run", "--algo", "snapshot", "--profile", dir.join("p.toml").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

/// A real link recorded by `scripts/kernel-validation/recording-validate.sh`:
/// the kernel's netem (`delay 20ms 4ms distribution normal loss 1%` out,
/// `delay 5ms 1ms` back) measured by `ping -D` and by IRTT in User-Mode
/// Linux. Imported, it replays to within 0.1 ms of the recording (p50; p99
/// within 0.5 ms), and the
/// fit finds the netem that made it: the delay within 1 ms (UML adds a
/// fraction of one), the jitter within 10%, the normal distribution.
#[test]
fn a_kernel_recording_replays_and_fits_back_to_its_netem() {
    use harness::net::recorded::fit::fit;
    use harness::net::recorded::import::import;
    use harness::net::recorded::{timed_csv, Gaps};
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    // (file, direction, expected delay ms, jitter ms, loss %)
    for (file, up, delay_ms, jitter_ms, loss) in [
        // ping: round trips (20 + 5 ms), halved each way; σ √(4² + 0.58²) / 2.
        ("uml-netem.ping", true, 12.5, 2.02, 1.0),
        // IRTT: one-way, the uplink's netem itself.
        ("uml-netem-irtt.json", true, 20.0, 4.0, 1.0),
    ] {
        let path = data.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let source = harness::error::Source::File(path.display().to_string());
        let rec = import(&text, &source).unwrap();
        let t = timed_csv(&rec.to_csv(&[]), &source, Gaps::Unsent).unwrap();
        let delays = if up { &t.up } else { &t.down };
        let f = fit(delays, 10_000).unwrap();
        let best = &f.candidates[0];
        assert_eq!(best.distribution, harness::net::dist::Distribution::Normal, "{file}: {:?}", f.candidates);
        assert!((best.delay_us as f64 / 1e3 - delay_ms).abs() < 1.0, "{file}: {best:?}");
        assert!((best.jitter_us as f64 / 1e3 / jitter_ms - 1.0).abs() < 0.1, "{file}: {best:?}");
        assert!((f.recorded.loss * 100.0 - loss).abs() < 0.8, "{file}: {:?}", f.recorded);
        assert!((f.fitted.loss - f.recorded.loss).abs() < 0.002, "{file}: {:?} vs {:?}", f.fitted, f.recorded);
        // Replayed by path, probed at the recording's spacing over its length.
        let p = resolve(path.to_str().unwrap());
        let replay = p.replay[0].clone().unwrap();
        let span = replay.delays.as_ref().unwrap().period_us();
        let link = Link::new(Netem::clean(), p.correlation, probe_stream(1)).with_replay(Replayer::new(replay, 0));
        let got = probe_link(link, span / f.spacing_us, f.spacing_us, 100);
        let file_stats = recorded(delays);
        assert!((got.delay_p50_ms - file_stats.delay_p50_ms).abs() <= 0.1, "{file}: {got:?} vs {file_stats:?}");
        // The top 1% is about 20 samples: where probes fall among them moves
        // p99 by a few tenths.
        assert!((got.delay_p99_ms - file_stats.delay_p99_ms).abs() <= 0.5, "{file}: {got:?} vs {file_stats:?}");
        assert!((got.loss - file_stats.loss).abs() < 0.003, "{file}: {got:?} vs {file_stats:?}");
    }
}

#[test]
fn import_then_fit_then_compare_through_the_binary() {
    let dir = std::env::temp_dir().join(format!("syncbench-import-{}", std::process::id()));
    let out = dir.join("my-link.toml");
    let (code, text, err) =
        syncbench(&["profile", "import", "tests/data/uml-netem.ping", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("from ping -D output") && dir.join("my-link.csv").is_file(), "{text}");
    let (code, text, err) = syncbench(&["profile", "fit", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("uplink = \"delay ") && text.contains("distribution normal"), "{text}");
    let fitted = dir.join("fitted.toml");
    let (code, _, err) = syncbench(&["profile", "fit", out.to_str().unwrap(), "--out", fitted.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let both = format!("{},{}", out.display(), fitted.display());
    let (code, _, err) =
        syncbench(&["compare", "--profile", &both, "--algos", "snapshot", "--duration", "2s", "--clients", "2"]);
    assert_eq!(code, 0, "{err}");
    // Bad input: exit 2 naming the file.
    std::fs::write(dir.join("bad.ping"), "[1.0] 64 bytes from x: icmp_seq=1 ttl=1 time=-3 ms\n").unwrap();
    let bad = dir.join("bad.ping");
    let (code, _, err) = syncbench(&["profile", "import", bad.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.ping:1"), "{err}");
    // An --out whose recording would overwrite the file imported.
    std::fs::write(dir.join("link.csv"), "time_ms,rtt_ms\n0,10\n10,11\n").unwrap();
    let (code, _, err) = syncbench(&[
        "profile",
        "import",
        dir.join("link.csv").to_str().unwrap(),
        "--out",
        dir.join("link.toml").to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("the file being imported"), "{err}");
    let (code, _, err) = syncbench(&["profile", "fit", "wifi"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to fit"), "{err}");
}

/// `profile import` into a fresh folder: (exit code, stdout, stderr, the
/// files left in the folder).
fn import_into(dir: &std::path::Path, input: &std::path::Path, out: &str) -> (i32, String, String, Vec<String>) {
    let (code, text, err) = syncbench(&["profile", "import", input.to_str().unwrap(), "--out", out]);
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .map(|r| r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    left.sort();
    (code, text, err, left)
}

/// What `profile import` refuses, it refuses before writing: no file is
/// left behind on exit 2, and no file `--out` did not name is replaced
/// unsaid.
#[test]
fn a_refused_import_writes_nothing() {
    let root = std::env::temp_dir().join(format!("syncbench-import-targets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let input = root.join("link.csv");
    std::fs::write(&input, "time_ms,rtt_ms\n0,10\n10,11\n").unwrap();
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    // --out a folder, a symlink to nothing: refused, and no NAME.csv.
    std::fs::create_dir(dir.join("folder.toml")).unwrap();
    std::os::unix::fs::symlink("nowhere.toml", dir.join("dangling.toml")).unwrap();
    for (name, kind) in [("folder.toml", "a folder is there"), ("dangling.toml", "a symlink to nothing is there")] {
        let (code, _, err, left) = import_into(&dir, &input, &at(name));
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(name) && err.contains(kind), "{name}: {err}");
        assert_eq!(left, ["dangling.toml", "folder.toml"], "{name}: nothing written");
    }
    // A device: refused (where one can be made here).
    let device = dir.join("null.toml");
    let made = std::process::Command::new("mknod").arg(&device).args(["c", "1", "3"]).status();
    if made.is_ok_and(|s| s.success()) {
        let (code, _, err, left) = import_into(&dir, &input, &at("null.toml"));
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("a device, FIFO or socket is there"), "{err}");
        assert!(!left.contains(&"null.csv".to_string()), "{left:?}");
        std::fs::remove_file(&device).unwrap();
    }
    // A NAME.csv beside --out that no import wrote: refused, kept as it was.
    std::fs::write(dir.join("mine.csv"), "my own data\n").unwrap();
    let (code, _, err, _) = import_into(&dir, &input, &at("mine.toml"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mine.csv exists and is not a recording `profile import` wrote"), "{err}");
    assert_eq!(std::fs::read_to_string(dir.join("mine.csv")).unwrap(), "my own data\n");
    assert!(!dir.join("mine.toml").exists());
    // An earlier import's: replaced, and said.
    let (code, text, err, _) = import_into(&dir, &input, &at("again.toml"));
    assert_eq!(code, 0, "{err}");
    let (code, text2, err, _) = import_into(&dir, &input, &at("again.toml"));
    assert_eq!(code, 0, "{err}");
    assert!(
        !text.contains("replacing") && text2.contains("replacing the recording an earlier import wrote"),
        "{text2}"
    );
    // A recording whose CSV would pass the 8 MB a profile's recording may
    // hold (one-way delays write two columns): refused, nothing left, no
    // folder --out named made.
    let big = root.join("big.csv");
    let mut rows = String::from("time_s,delay_ms\n");
    for k in 1..=790_000u32 {
        rows.push_str(&format!("{k},10\n"));
    }
    assert!(rows.len() < 8 << 20);
    std::fs::write(&big, rows).unwrap();
    let fresh = root.join("fresh");
    let out = fresh.join("big.toml");
    let (code, _, err) = syncbench(&["profile", "import", big.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("big.csv") && err.contains("over the 8 MB"), "{err}");
    assert!(!fresh.exists(), "nothing written, no folder made");
    let _ = std::fs::remove_dir_all(&root);
}

/// Every text input drops a leading byte-order mark: a CSV and IRTT's JSON
/// to `profile import`, a timed CSV to `--profile`; and a ping step back
/// in time is refused naming its line.
#[test]
fn imports_read_a_bom_and_keep_time_as_recorded() {
    let dir = std::env::temp_dir().join(format!("syncbench-import-bom-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("bom.csv");
    std::fs::write(&csv, "\u{feff}time_ms,rtt_ms\n0,10\n10,11\n20,12\n").unwrap();
    let json = dir.join("bom.json");
    let trip = |seq: u64| {
        format!(
            r#"{{"seqno": {seq}, "lost": "false", "timestamps": {{"client": {{"send": {{"wall": {}, "monotonic": {}}}}}}}, "delay": {{"rtt": 10000000}}}}"#,
            1_700_000_000_000_000_000u64 + seq * 10_000_000,
            seq * 10_000_000
        )
    };
    std::fs::write(&json, format!("\u{feff}{{\"round_trips\": [{},{}]}}", trip(0), trip(1))).unwrap();
    for input in [&csv, &json] {
        let out = dir.join(format!("from-{}.toml", input.extension().unwrap().to_str().unwrap()));
        let (code, text, err) =
            syncbench(&["profile", "import", input.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{}: {err}", input.display());
        assert!(text.contains("imported"), "{text}");
    }
    let (code, _, err) = syncbench(&["profile", "show", csv.to_str().unwrap(), "--packets", "100"]);
    assert_eq!(code, 0, "--profile FILE.csv with a BOM: {err}");
    // The wall clock steps back 1 s at line 3.
    let ping = dir.join("step.ping");
    std::fs::write(
        &ping,
        "[1000.010000] 64 bytes from x: icmp_seq=1 ttl=1 time=10.0 ms\n\
         [1000.020000] 64 bytes from x: icmp_seq=2 ttl=1 time=10.0 ms\n\
         [999.030000] 64 bytes from x: icmp_seq=3 ttl=1 time=10.0 ms\n",
    )
    .unwrap();
    let out = dir.join("step").join("step.toml");
    let (code, _, err) = syncbench(&["profile", "import", ping.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("step.ping:3: icmp_seq=3 was sent 990.0 ms before icmp_seq=2 (line 2)"), "{err}");
    assert!(!dir.join("step").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The shipped fits are what `profile fit` writes today.
#[test]
fn the_shipped_fits_are_current() {
    let dir = std::env::temp_dir().join(format!("syncbench-fits-{}", std::process::id()));
    for name in ["leo-starlink", "5g-urban-drive"] {
        let out = dir.join(format!("{name}-fit.toml"));
        let (code, _, err) = syncbench(&["profile", "fit", name, "--out", out.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        let shipped = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("netem-profiles/{name}-fit.toml"));
        assert_eq!(
            std::fs::read_to_string(&out).unwrap(),
            std::fs::read_to_string(&shipped).unwrap(),
            "netem-profiles/{name}-fit.toml is stale: syncbench profile fit {name} --out netem-profiles/{name}-fit.toml"
        );
    }
}

/// A report names what a recorded direction replays, and its network
/// fingerprint follows the recording's content, not the file's name: the
/// gate sees an edited recording as a changed input.
#[test]
fn a_report_fingerprints_the_recording_it_replayed() {
    let dir = std::env::temp_dir().join(format!("syncbench-digest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let profile = dir.join("rec.toml");
    std::fs::write(&profile, "uplink = \"loss 1%\"\n[replay]\ndelays = \"d.txt\"\n").unwrap();
    let run = |delays: &str| {
        std::fs::write(dir.join("d.txt"), delays).unwrap();
        let (code, out, err) = syncbench(&[
            "run",
            "--algo",
            "snapshot",
            "--profile",
            profile.to_str().unwrap(),
            "--duration",
            "1s",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let r = &v["runs"][0];
        (r["network_digest"].as_str().unwrap().to_string(), r["uplink"].as_str().unwrap().to_string())
    };
    let (a, up) = run("10\n20\n");
    assert!(up.starts_with("loss 1%, then replay ") && up.ends_with("d.txt"), "{up}");
    let (b, _) = run("10\n21\n");
    assert_ne!(a, b);
    assert_eq!(run("10\n20\n").0, a);
}

/// On both shipped recordings the regime model is nearer the recording
/// than netem's fit in every time structure and in delay, and `fit:` and
/// `model:` run beside the recording.
#[test]
fn the_regime_model_keeps_the_time_structure_netem_loses() {
    for name in ["leo-starlink", "5g-urban-drive"] {
        let (code, text, err) = syncbench(&["profile", "fit", name, "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let m = &v["directions"][0]["regime_model"];
        let (n, r) = (&m["netem_fit_distance"], &m["regimes_model_distance"]);
        let f = |x: &serde_json::Value, k: &str| x[k].as_f64().unwrap_or_else(|| panic!("{k}: {m}"));
        assert!(f(r, "acf_gap") < f(n, "acf_gap") / 3.0, "{name}: {m}");
        assert!(f(r, "delay_w1_ms") < f(n, "delay_w1_ms"), "{name}: {m}");
        assert!(f(r, "slow_run_w1_ms") < f(n, "slow_run_w1_ms"), "{name}: {m}");
        assert!(f(r, "loss_burst_w1_ms") <= f(n, "loss_burst_w1_ms"), "{name}: {m}");
    }
    let (code, out, err) = syncbench(&[
        "compare",
        "--vary",
        "profile=leo-starlink,fit:leo-starlink,model:leo-starlink",
        "--algos",
        "snapshot,lockstep,rollback",
        "--duration",
        "3s",
        "--seeds",
        "2",
        "--format",
        "md",
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("lockstep profile=model:leo-starlink") && out.contains("profile=fit:leo-starlink"), "{out}");
    let (code, _, err) = syncbench(&["compare", "--profile", "model:wifi", "--duration", "1s"]);
    assert_eq!(code, 2);
    assert!(err.contains("`model:` takes a profile that replays a recording"), "{err}");
}
