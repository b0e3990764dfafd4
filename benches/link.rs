//! Criterion benchmarks of one link direction's cost per packet: the netem
//! model alone, and with a recorded link replayed after it.
//!
//! - `link/netem-fit`: the netem fitted to Starlink (`leo-starlink-fit`'s
//!   uplink, `delay 10668us 1645us distribution normal loss 0.2%`).
//! - `link/recorded`: the recorded Starlink link itself (`leo-starlink`'s
//!   uplink: netem's `loss 0.2%`, then the delay series replayed, FIFO).
//! - `link/recorded-opportunities`: `loss 0.2%`, then a Mahimahi
//!   delivery-opportunity trace of one opportunity per millisecond.
//!
//! Each iteration sends 10,000 packets of 100 bytes, one every 2 ms, through
//! a fresh link (throughput is in packets). `cargo bench --bench link`; the
//! goal is that a recorded link costs no more per packet than the netem
//! model fitted to it.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use harness::net::recorded::replay::{Order, QueueLimit, Replay, Replayer};
use harness::net::{Link, Netem, Profile};
use harness::rng::{Purpose, Stream};
use harness::time::Micros;
use std::sync::Arc;

const PACKETS: u64 = 10_000;

fn send_all(mut link: Link) -> u64 {
    let mut arrived = 0;
    for i in 0..PACKETS {
        arrived += link.send(Micros(i * 2_000), 100).len() as u64;
    }
    arrived
}

fn links(c: &mut Criterion) {
    let dirs = harness::library::dirs("netem-profiles");
    let fit = Profile::resolve("leo-starlink-fit", &dirs).unwrap();
    let starlink = Profile::resolve("leo-starlink", &dirs).unwrap();
    let delays = starlink.replay[0].clone().unwrap();
    let opportunities: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    let source = harness::error::Source::Inline("bench".into());
    let opps = Replay {
        delays: None,
        opportunities: Some(Arc::new(harness::net::recorded::Opportunities::parse(&opportunities, &source).unwrap())),
        queue: QueueLimit::Unlimited,
        order: Order::Fifo,
        aligned: false,
        from: "bench".into(),
    };
    let link = |spec: &Netem| Link::new(spec.clone(), Default::default(), Stream::new(1, Purpose::Uplink, 0));
    let mut g = c.benchmark_group("link");
    g.throughput(Throughput::Elements(PACKETS));
    g.bench_function("netem-fit", |b| b.iter(|| send_all(link(&fit.uplink))));
    g.bench_function("recorded", |b| {
        b.iter(|| send_all(link(&starlink.uplink).with_replay(Replayer::new(delays.clone(), Replayer::draw(1, 0)))))
    });
    g.bench_function("recorded-opportunities", |b| {
        b.iter(|| send_all(link(&starlink.uplink).with_replay(Replayer::new(opps.clone(), Replayer::draw(1, 0)))))
    });
    g.finish();
}

criterion_group!(benches, links);
criterion_main!(benches);
