//! `profile show` and `profile stream`: what a profile does to probe packets and to a message stream through a transport.

use super::*;

pub(super) fn profile_show(
    arg: &str,
    packets: u64,
    spacing: &str,
    payload: usize,
    seed: u64,
    format: ListFormat,
) -> Result<()> {
    use harness::net::netem::LossModel;
    use harness::net::probe::{probe_link, probe_stream, recorded};
    use harness::net::profile::EventKind;
    use harness::net::replay::Replayer;
    let p = harness::net::Profile::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let spacing_us = parse_duration(spacing).map_err(|e| bad(format!("--spacing {e}")))?;
    if spacing_us == 0 || packets == 0 || packets > 10_000_000 {
        return Err(bad("--spacing must be positive and --packets in 1..=10000000"));
    }
    // The base description (events aside) and the recording, if any.
    let measure = |up: bool| {
        let spec = if up { &p.uplink } else { &p.downlink };
        let link = harness::net::Link::new(spec.clone(), p.correlation, probe_stream(seed));
        let link = match &p.replay[usize::from(!up)] {
            Some(r) => link.with_replay(Replayer::new(r.clone(), Replayer::draw(seed, 0xB0B))),
            None => link,
        };
        probe_link(link, packets, spacing_us, payload)
    };
    let (up, down) = (measure(true), measure(false));
    let in_file = |i: usize| p.replay[i].as_ref().and_then(|r| r.delays.as_deref()).map(recorded);
    let events: Vec<String> = p
        .events
        .iter()
        .map(|e| {
            let dir = match e.direction {
                harness::net::profile::Direction::Both => "",
                harness::net::profile::Direction::Up => " (uplink)",
                harness::net::profile::Direction::Down => " (downlink)",
            };
            let what = match &e.kind {
                EventKind::Outage { duration_us } => format!("outage for {}ms", duration_us / 1000),
                EventKind::Spike { duration_us, delay_us } => {
                    format!("+{}ms delay for {}ms", delay_us / 1000, duration_us / 1000)
                }
                EventKind::Bandwidth { duration_us, rate } => {
                    format!("rate {} B/s for {}ms", rate.bytes_per_s, duration_us / 1000)
                }
                EventKind::Handover { outage_us, uplink, downlink } => {
                    format!("handover: {}ms blackout, then uplink `{uplink}`, downlink `{downlink}`", outage_us / 1000)
                }
            };
            format!("at {}: {what}{dir}", e.at)
        })
        .collect();
    if format == ListFormat::Json {
        let v = serde_json::json!({
            "name": p.name, "description": p.description, "source": p.source,
            "correlation": p.correlation.name(), "mtu": p.mtu,
            "uplink": p.uplink.to_string(), "downlink": p.downlink.to_string(),
            "events": events,
            "probe": {"packets": packets, "spacing_us": spacing_us, "payload": payload, "seed": seed},
            "uplink_measured": up, "downlink_measured": down,
            "uplink_replay": p.replay[0].as_ref().map(|r| r.to_string()),
            "downlink_replay": p.replay[1].as_ref().map(|r| r.to_string()),
            "uplink_recorded": in_file(0), "downlink_recorded": in_file(1),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("profile {}", p.name);
    if !p.description.is_empty() {
        println!("  {}", p.description);
    }
    if !p.source.is_empty() {
        println!("  source: {}", p.source);
    }
    println!("  correlation: {}", p.correlation.name());
    println!("  mtu: {} bytes (larger datagrams leave in IP fragments)", p.mtu);
    for note in profile_notes(arg) {
        println!("  note: {note}");
    }
    println!("  probe: {packets} packets of {payload} B every {spacing_us} us per direction, seed {seed}");
    println!();
    println!(
        "{:<9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "mean ms", "sd ms", "p50 ms", "p90 ms", "p99 ms", "loss %", "reord %", "dup %"
    );
    for (i, (name, spec, m)) in [("uplink", &p.uplink, &up), ("downlink", &p.downlink, &down)].into_iter().enumerate() {
        println!(
            "{:<9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            name,
            m.delay_mean_ms,
            m.delay_sd_ms,
            m.delay_p50_ms,
            m.delay_p90_ms,
            m.delay_p99_ms,
            m.loss * 100.0,
            m.reorder * 100.0,
            m.duplicate * 100.0
        );
        println!("          netem: {spec}");
        if let Some(r) = &p.replay[i] {
            println!("          replays: {r}");
        }
        if let Some(f) = in_file(i) {
            println!(
                "{:<9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}   (the recording's own {} samples)",
                "  file",
                f.delay_mean_ms,
                f.delay_sd_ms,
                f.delay_p50_ms,
                f.delay_p90_ms,
                f.delay_p99_ms,
                f.loss * 100.0,
                f.sent
            );
        }
        if let Some(r) = spec.rate {
            // tc's units surprise: `bps` is bytes per second, `bit` bits.
            println!(
                "          rate: {:.3} Mbit/s = {} bytes/s (tc's `kbit`, `mbit` are bits; `kbps`, `mbps` bytes per second)",
                r.bytes_per_s as f64 * 8.0 / 1e6,
                r.bytes_per_s
            );
        }
        if let LossModel::Random { p: lp, corr } = spec.loss {
            if corr.is_set() && p.correlation == harness::net::Correlation::Kernel {
                println!(
                    "          note: with netem-compatible correlation, `loss {:.3}% {:.0}%` loses {:.2}%, not {:.3}% (the kernel's correlation collapses it; use `correlation = \"correct\"` or `loss gemodel` for bursts)",
                    lp.percent(),
                    corr.percent(),
                    m.loss * 100.0,
                    lp.percent()
                );
            }
        }
    }
    if !events.is_empty() {
        println!();
        println!("timed events (not in the probe above):");
        for e in &events {
            println!("  {e}");
        }
    }
    Ok(())
}

/// `profile stream`'s stream: what is sent, for how long, over how many
/// hops.
pub(super) struct Stream<'a> {
    pub(super) rate: u32,
    pub(super) size: usize,
    pub(super) duration: &'a str,
    pub(super) hops: usize,
    pub(super) both: bool,
    pub(super) nagle: bool,
}

/// One transport's messages, pooled over the seeds' runs.
struct Pooled {
    kind: TransportKind,
    /// Every message's latency, µs (`None`: never delivered), both
    /// directions with `--both`.
    latencies: Vec<Option<u64>>,
    segments: u64,
    acks: u64,
    retransmits: u64,
    rtos: u64,
}

pub(super) fn profile_stream(
    arg: &str,
    transports: &str,
    stream: &Stream,
    seeds: &[u64],
    format: StreamFormat,
) -> Result<()> {
    use harness::net::transport::probe::{stream_probe, StreamProbe};
    use harness::net::transport::TcpSettings;
    let p = harness::net::Profile::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let mut kinds = Vec::new();
    for t in harness::net::transport::split_list(transports).iter().filter(|t| !t.is_empty()) {
        let mut kind = TransportKind::parse(t).map_err(|e| bad(format!("--transport: {e}")))?;
        if stream.nagle {
            match kind {
                TransportKind::TcpLike(_) => kind = TransportKind::TcpLike(TcpSettings { nodelay: false }),
                _ => return Err(bad("--nagle applies to --transport tcp-like only")),
            }
        }
        kinds.push(kind);
    }
    if kinds.is_empty() {
        return Err(bad("--transport: no transport named (expected e.g. tcp-like,kcp,quic)"));
    }
    if format == StreamFormat::Json && (kinds.len() > 1 || seeds.len() > 1) {
        return Err(bad("--format json lists every message of one run: give one --transport and one seed"));
    }
    for kind in &kinds {
        super::warn_unvalidated(kind, &[&p]);
    }
    let duration_us = parse_duration(stream.duration).map_err(|e| bad(format!("--duration {e}")))?;
    let (rate, size, hops, both) = (stream.rate, stream.size, stream.hops, stream.both);
    if format == StreamFormat::Json {
        let probe = StreamProbe { rate_hz: rate, size, duration_us, hops, both, seed: seeds[0] };
        let r = stream_probe(kinds[0], &p, &probe).map_err(bad)?;
        let lat = |v: &[Option<u64>]| v.iter().map(|l| l.map_or(-1, |l| l as i64)).collect::<Vec<i64>>();
        let mut j = serde_json::json!({
            "source": "model",
            "profile": p.name,
            "transport": kinds[0].to_string(),
            "nodelay": !matches!(kinds[0], TransportKind::TcpLike(TcpSettings { nodelay: false })),
            "hops": hops,
            "both": both,
            "duration_s": duration_us as f64 / 1e6,
            "messages": r.latencies_us.len(),
            "latencies_us": lat(&r.latencies_us),
            "counters": {
                "segments": r.segments,
                "acks": r.acks,
                "retransmits": r.retransmits,
                "rtos": r.rtos,
            },
        });
        if both {
            j["back_latencies_us"] = lat(&r.back_latencies_us).into();
        }
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    let (mut pooled, mut messages) = (Vec::new(), 0);
    for &kind in &kinds {
        let mut pool = Pooled { kind, latencies: Vec::new(), segments: 0, acks: 0, retransmits: 0, rtos: 0 };
        for &seed in seeds {
            let probe = StreamProbe { rate_hz: rate, size, duration_us, hops, both, seed };
            let r = stream_probe(kind, &p, &probe).map_err(bad)?;
            messages = r.latencies_us.len();
            pool.latencies.extend(r.latencies_us.iter().chain(&r.back_latencies_us));
            pool.segments += r.segments;
            pool.acks += r.acks;
            pool.retransmits += r.retransmits;
            pool.rtos += r.rtos;
        }
        pooled.push(pool);
    }
    let markdown = format == StreamFormat::Md;
    let runs = if seeds.len() == 1 { format!("seed {}", seeds[0]) } else { format!("{} seeds pooled", seeds.len()) };
    let title = format!(
        "`{}`, {hops} hop(s) each way{}: {messages} messages of {size} B at {rate} Hz a run, {runs}",
        p.name,
        if both { ", both directions" } else { "" }
    );
    let title = if both { title.replace(" a run,", " each way a run,") } else { title };
    println!("{}\n", if markdown { format!("**{title}**") } else { title });
    print!("{}", stream_table(&pooled, duration_us as f64 * seeds.len() as f64 / 60e6, markdown));
    Ok(())
}

/// One row per transport: latency percentiles by nearest rank over every
/// message (a lost one ranks last), the share over 200 ms, and what the
/// transport sent per run-minute.
fn stream_table(pooled: &[Pooled], minutes: f64, markdown: bool) -> String {
    let header: Vec<String> = [
        "transport",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "p99.9 ms",
        "max ms",
        "over 200 ms",
        "never delivered",
        "sender datagrams/s",
        "retransmissions/min",
        "timeouts/min",
        "receiver datagrams/s",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = pooled
        .iter()
        .map(|pool| {
            let mut got: Vec<u64> = pool.latencies.iter().flatten().copied().collect();
            got.sort_unstable();
            let n = pool.latencies.len();
            let q = |f: f64| -> String {
                let rank = ((f * n as f64).ceil() as usize).clamp(1, n.max(1));
                got.get(rank - 1).map_or("lost".into(), |v| format!("{:.1}", *v as f64 / 1000.0))
            };
            let over = pool.latencies.iter().filter(|l| l.is_none_or(|l| l > 200_000)).count();
            vec![
                pool.kind.to_string(),
                q(0.5),
                q(0.9),
                q(0.99),
                q(0.999),
                q(1.0),
                format!("{:.2}%", 100.0 * over as f64 / n.max(1) as f64),
                (n - got.len()).to_string(),
                format!("{:.1}", pool.segments as f64 / (minutes * 60.0)),
                format!("{:.1}", pool.retransmits as f64 / minutes),
                format!("{:.1}", pool.rtos as f64 / minutes),
                format!("{:.1}", pool.acks as f64 / (minutes * 60.0)),
            ]
        })
        .collect();
    harness::report::table::render(&header, &rows, markdown)
}
