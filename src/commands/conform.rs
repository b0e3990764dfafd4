//! `conform` and `replay`: the conformance contracts on generated scenarios, and a written scenario re-run.

use super::*;

pub(super) fn conform(a: ConformArgs) -> Result<()> {
    use harness::conform::table::{self, Row};
    use harness::conform::{contracts, Verdict};
    let algos: Vec<&'static dyn Algorithm> =
        if a.algo == "all" { crate::catalog::all() } else { vec![find_algo(&a.algo)?] };
    if !(1..=harness::limits::MAX_CONFORM_CASES).contains(&a.cases) {
        return Err(bad(format!("--cases {}: expected 1..={}", a.cases, harness::limits::MAX_CONFORM_CASES)));
    }
    let mut rows: Vec<Row> = Vec::new();
    let write_case = |name: &str, contract: &str, s: &harness::conform::Scenario, why: &str| -> Result<String> {
        let path = a.out.join(format!("{name}.{contract}.toml"));
        write_output(&path, &for_this_program(&s.to_toml(&format!("{name} broke `{contract}`: {why}"))))?;
        Ok(path.display().to_string())
    };
    // Progress on a terminal: cases done of all, with an estimate of what
    // is left (cases take about as long as each other).
    let total = (algos.len() * contracts::all().len()) as u64 * a.cases
        + if a.controls { algorithms::controls::all().len() as u64 * a.cases } else { 0 };
    let started = std::time::Instant::now();
    let finished_before = std::sync::atomic::AtomicU64::new(0);
    let show = std::io::stderr().is_terminal();
    let progress = |label: &str, done: u64| {
        if !show {
            return;
        }
        let all = finished_before.load(std::sync::atomic::Ordering::Relaxed) + done;
        let secs = started.elapsed().as_secs_f64();
        let eta = if all > 0 { secs * (total.saturating_sub(all)) as f64 / all as f64 } else { 0.0 };
        eprint!("\r\x1b[2Kconform: {label}: {all}/{total} cases, {secs:.0} s, about {eta:.0} s left");
    };
    let run_contract = |algo: &dyn Algorithm, c: &harness::conform::contracts::Contract| {
        let label = format!("{} / {}", algo.name(), c.name);
        // Wall time, for JUnit's `time` only: no result depends on it.
        let t0 = std::time::Instant::now();
        let r = harness::conform::check_one_with_progress(algo, c, a.cases, a.seed, &|d, _| progress(&label, d));
        finished_before.fetch_add(a.cases, std::sync::atomic::Ordering::Relaxed);
        (r, t0.elapsed().as_secs_f64())
    };
    for algo in &algos {
        let results: Vec<_> = contracts::all().iter().map(|c| run_contract(*algo, c)).collect();
        for (r, seconds) in results {
            let file = match (&r.verdict, &r.counterexample) {
                (Verdict::Fail(why), Some(s)) => Some(write_case(algo.name(), r.contract, s, why)?),
                _ => None,
            };
            let outcome = table::outcome(&r.verdict);
            let algorithm = algo.name().to_string();
            rows.push(Row { algorithm, contract: r.contract, outcome, file, cases: r.cases, seconds });
        }
    }
    if a.controls {
        for (control, contract) in algorithms::controls::all() {
            let c = contracts::all().iter().find(|c| c.name == *contract).expect("controls name real contracts");
            let (r, seconds) = run_contract(*control, c);
            // A control's catch is written too: the scenario that caught it.
            let file = match (&r.verdict, &r.counterexample) {
                (Verdict::Fail(why), Some(s)) => Some(write_case(control.name(), contract, s, why)?),
                _ => None,
            };
            let outcome = table::control_outcome(&r.verdict);
            let algorithm = format!("control:{}", control.name());
            rows.push(Row { algorithm, contract, outcome, file, cases: r.cases, seconds });
        }
    }
    if show {
        eprintln!();
    }
    print!("{}", table::render(&rows, a.cases, a.seed, a.controls));
    if let Some(path) = &a.junit {
        let jrows: Vec<_> = rows.iter().map(|r| r.junit(a.seed)).collect();
        write_output(path, &for_this_program(&harness::conform::junit::render(&jrows)))?;
    }
    let failed = table::failures(&rows);
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("conformance failures:\n  {}", failed.join("\n  "))).into())
    }
}

pub(super) fn replay(file: &std::path::Path) -> Result<()> {
    use harness::conform::{replay as replay_scenario, Scenario, Verdict};
    use harness::error::Source;
    let source = Source::File(file.display().to_string());
    let text = harness::limits::read_text(file, harness::limits::MAX_SCENARIO_FILE, "scenario")
        .map_err(|e| bad(e.to_string()))?;
    let s = Scenario::parse(&text, &source).map_err(|e| bad(e.to_string()))?;
    let algo = find_algo(&s.algorithm).map_err(|e| bad(format!("{}: {e}", file.display())))?;
    println!(
        "replaying {} on `{}` / `{}`, {} clients, {} s, seed {}, contract {}",
        s.algorithm,
        s.uplink,
        s.downlink,
        s.clients,
        s.duration_us as f64 / 1e6,
        s.seed,
        s.contract
    );
    match replay_scenario(algo, &s).map_err(|e| bad(format!("{}: {e}", file.display())))? {
        Verdict::Pass => {
            println!("pass: the contract holds on this scenario");
            Ok(())
        }
        Verdict::NotApplicable(why) => {
            println!("not applicable: {why}");
            Ok(())
        }
        Verdict::Fail(why) => {
            println!("FAIL: {why}");
            if let Some(f) = why
                .split("first at frame ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
            {
                let dt = 1_000_000 / s.tick_hz as u64;
                println!("inputs around frame {f} (per player, by tick):");
                for k in f.saturating_sub(3)..=f + 1 {
                    let row: Vec<String> =
                        (0..s.clients).map(|p| s.trace.input_at(p, k.saturating_sub(1) * dt).to_string()).collect();
                    println!("  frame {k:>5}: {}", row.join("  "));
                }
            }
            if let Some(at) = harness::conform::located_in(&why) {
                print_renders_around(algo, &s, &at)?;
            }
            Err(Violation("the scenario's failure reproduced".into()).into())
        }
    }
}

/// How far either side of a failure's instant `replay` shows renders, µs.
const AROUND_US: u64 = 50_000;

/// The renders of the screen and entity a failure names, around its
/// instant: drawn position, names, and where the authority and the ideal
/// world had the entity.
fn print_renders_around(
    algo: &dyn Algorithm,
    s: &harness::conform::Scenario,
    located: &(harness::metrics::Located, Option<u32>),
) -> Result<()> {
    let kept = harness::conform::renders_around(algo, s, located, AROUND_US).map_err(bad)?;
    let (at, hz) = located;
    println!(
        "client {}'s renders of entity {} within {} ms of {:.4} s{} (positions in m; off: drawn to authority):",
        at.client,
        at.entity,
        AROUND_US / 1000,
        at.t_s,
        hz.map_or(String::new(), |hz| format!(" at {hz} Hz"))
    );
    println!(
        "  {:>8}  {:>24}  {:>6}  {:>6}  {:>24}  {:>6}  {:>24}",
        "t s", "drawn", "frame", "seq", "authority", "off", "ideal"
    );
    let m = |p: [i32; 3]| format!("({:.3}, {:.3}, {:.3})", p[0] as f64 / 1e6, p[1] as f64 / 1e6, p[2] as f64 / 1e6);
    // The message rounds its instant to the millisecond: the nearest render is the one.
    let gap = |k: &harness::metrics::kept_renders::Probed| (k.t_us as f64 / 1e6 - at.t_s).abs();
    let nearest = kept.iter().map(gap).fold(f64::INFINITY, f64::min);
    for k in &kept {
        let v = &k.view;
        let drawn = [v.x, v.y, v.z];
        let (auth, off) = match k.authority {
            Some(a) => (m(a), format!("{:.3}", harness::math::distance(drawn, a) as f64 / 1e6)),
            None => ("–".into(), "–".into()),
        };
        let mark = if gap(k) == nearest { "▶" } else { " " };
        println!(
            "{mark} {:>8.4}  {:>24}  {:>6}  {:>6}  {:>24}  {:>6}  {:>24}",
            k.t_us as f64 / 1e6,
            m(drawn),
            v.frame,
            v.seq,
            auth,
            off,
            k.ideal.map_or("–".into(), m)
        );
    }
    if kept.is_empty() {
        println!("  (no render of that entity on that screen in the window)");
    }
    Ok(())
}

/// `text` with its `syncbench replay` / `syncbench conform` hints naming
/// the program actually running (a netcode crate's own binary knows its
/// algorithms; plain `syncbench` does not).
fn for_this_program(text: &str) -> String {
    let (program, _) = crate::invocation();
    if program == "syncbench" {
        return text.to_string();
    }
    text.replace("syncbench replay", &format!("{program} replay"))
        .replace("syncbench conform", &format!("{program} conform"))
}
