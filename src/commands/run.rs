//! `run` and `live`: one algorithm, one profile and trace, in simulation or over real sockets.

use super::*;

pub(super) fn run_cmd(a: RunArgs) -> Result<()> {
    let algo = find_algo(&a.algo)?;
    let profile = resolve_profile(&a.profile)?;
    let spec = resolve_trace(&a.trace)?;
    let cfg = options_for_one(algo, run_config(&a.common, a.seed, "60s")?)?;
    check_corruption(algo, &cfg)?;
    if let Some(dir) = &a.hlog {
        harness::report::hlog::prepare(dir).map_err(bad)?;
    }
    warn_unvalidated(&cfg.transport, &profile.clients.iter().collect::<Vec<_>>());
    note_players(std::slice::from_ref(&spec), cfg.clients);
    // On a terminal: the simulated clock while it runs, then the speed
    // (stderr only; the report never holds wall time).
    let show = std::io::stderr().is_terminal() && !cfg.paced;
    let started = std::time::Instant::now();
    let total = cfg.duration_us as f64 / 1e6;
    let mut progress = |t: harness::time::Micros| {
        if show && started.elapsed().as_secs_f64() > 1.0 {
            let done = t.0 as f64 / 1e6;
            eprint!("\r{}: {done:.0} of {total:.0} simulated s…", algo.name());
        }
    };
    // One run: if its screens split over cores, it runs on the pool itself.
    let big = harness::runner::runs_on_pool(&cfg);
    let r = harness::parallel::on_pool(big, || run_one_observed(algo, &profile, &spec, &cfg, &mut progress));
    if show && r.is_err() {
        eprintln!(); // end the progress line before the error
    }
    let r = r?;
    if show {
        let wall = started.elapsed().as_secs_f64();
        let speed = total / wall.max(1e-9);
        let speed = if speed < 10.0 { format!("{speed:.1}") } else { format!("{speed:.0}") };
        eprintln!("\r{}: {total:.1} simulated s in {wall:.2} s of wall time ({speed}× real time)", algo.name());
    }
    let runs = vec![r];
    print_runs(&runs, a.format, true);
    if let Some(dir) = &a.hlog {
        let written = harness::report::hlog::write(dir, &runs[0], 0).map_err(bad)?;
        hlogs_written(Some(dir), None, written.map_or(0, |_| 1), false)?;
    }
    check_violations(&runs)
}

pub(super) fn live_cmd(a: LiveArgs) -> Result<()> {
    let algo = find_algo(&a.run.algo)?;
    let plan = resolve_profile(&a.run.profile)?;
    let spec = resolve_trace(&a.run.trace)?;
    let cfg = options_for_one(algo, run_config(&a.run.common, a.run.seed, "10s")?)?;
    check_corruption(algo, &cfg)?;
    if cfg.paced {
        return Err(bad("--paced: a live run is already in real time"));
    }
    if a.run.hlog.is_some() {
        return Err(bad("--hlog: interval logs are written by simulated runs (run, compare, matrix), not live ones"));
    }
    note_players(std::slice::from_ref(&spec), cfg.clients);
    let trace = spec.instantiate(cfg.clients, cfg.duration_us, cfg.seed).map_err(|e| bad(e.to_string()))?;
    let sim = if a.against_sim {
        let result = run_plan(algo, &plan, &trace, &cfg).map_err(|e| bad(e.to_string()))?;
        Some(report_of(algo, &plan, &spec, &trace, &cfg, result.metrics, "simulated"))
    } else {
        None
    };
    if std::io::stderr().is_terminal() {
        eprintln!("live: {} on {} for {:.1} s of wall time…", algo.name(), plan.name(), cfg.duration_us as f64 / 1e6);
    }
    let relay = match a.relay.as_str() {
        "userspace" => harness::live::Relay::Userspace,
        "none" => harness::live::Relay::None,
        addr => harness::live::Relay::External(addr.parse().map_err(|_| {
            bad(format!("--relay `{addr}`: expected userspace, none or a forwarder's IP:PORT (e.g. 10.0.0.2:9000)"))
        })?),
    };
    let bind = a.bind.parse().map_err(|_| bad(format!("--bind `{}`: expected an IP address", a.bind)))?;
    let opts = harness::live::LiveOptions { hostile: a.hostile, relay, bind };
    let result = harness::live::run_live(algo, &plan, &trace, &cfg, opts).map_err(|e| match e {
        harness::live::LiveError::Config(m) => bad(m),
        other => anyhow::anyhow!(other),
    })?;
    let mut live = report_of(algo, &plan, &spec, &trace, &cfg, result.metrics, "live");
    if relay != harness::live::Relay::Userspace {
        // Whatever impaired the path was outside syncbench.
        let outside = format!("not applied by syncbench (--relay {})", a.relay);
        (live.uplink, live.downlink) = (outside.clone(), outside);
    }
    let silent = result.counters.sockets.iter().all(|s| s.read == 0);
    live.live = Some(result.counters);
    let runs: Vec<RunReport> = sim.into_iter().chain([live]).collect();
    match a.run.format {
        Format::Json => print!("{}", Report::new(env!("CARGO_PKG_VERSION"), runs.clone()).to_json()),
        f if runs.len() == 2 => print!("{}", table::against_sim(&runs[0], &runs[1], f == Format::Md)),
        f => print!("{}", table::single(&runs[0], f == Format::Md)),
    }
    if silent {
        let via = match relay {
            harness::live::Relay::External(addr) => format!(
                "from the forwarder at {addr}: is one running there, sending each datagram on to the address in its envelope?"
            ),
            _ => "to any node.".into(),
        };
        return Err(
            Violation(format!("live: no datagram came back {via} The numbers above measured no network.")).into()
        );
    }
    check_violations(&runs)
}
