//! `stress`: the adversarial link campaign (`harness::stress`), its table,
//! and the shrunk failures written as profiles.

use super::*;
use harness::stress::links::Family;
use harness::stress::{self as campaign, Campaign, Invariant, Outcome};

pub(super) fn stress(a: StressArgs) -> Result<()> {
    let algos: Vec<&'static dyn Algorithm> = if a.algos == "all" {
        crate::catalog::all()
    } else {
        a.algos.split(',').map(|n| find_algo(n.trim())).collect::<Result<_>>()?
    };
    let families = parse_families(&a.families)?;
    let duration_us = parse_duration(&a.duration).map_err(|e| bad(format!("--duration {e}")))?;
    if !(10_000_000..=3_600_000_000).contains(&duration_us) {
        return Err(bad(format!("--duration {}: expected 10s to 1h (a disturbance needs time to pass)", a.duration)));
    }
    if !(1..=100).contains(&a.links) {
        return Err(bad(format!("--links {}: expected 1 to 100", a.links)));
    }
    if !(2..=64).contains(&a.clients) {
        return Err(bad(format!("--clients {}: expected 2 to 64", a.clients)));
    }
    let known = match &a.known {
        Some(path) => harness::stress::known::read(path, &|n| crate::catalog::find(n).is_some())
            .map_err(|e| bad(format!("--known {e}")))?,
        None => Vec::new(),
    };
    // The links are written once, before any run reads them, in a folder
    // of the campaign's own under --out.
    let work = a.out.join("links");
    std::fs::create_dir_all(&work).map_err(|e| bad(format!("--out {}: {e}", a.out.display())))?;
    let c = Campaign { seed: a.seed, links: a.links, families, duration_us, clients: a.clients, work };
    let links = campaign::links_of(&c);
    for l in &links {
        campaign::write_link(l, &c.work, &l.summary).map_err(bad)?;
    }
    let jobs: Vec<(&'static dyn Algorithm, usize)> =
        algos.iter().flat_map(|&algo| (0..links.len()).map(move |k| (algo, k))).collect();
    let done = AtomicUsize::new(0);
    let show = !a.quiet && std::io::stderr().is_terminal();
    let parts = std::thread::available_parallelism().map_or(1, |n| n.get()).min(jobs.len().max(1));
    let outcomes: Vec<Outcome> = harness::parallel::map(&jobs, parts, |&(algo, k)| {
        let o = campaign::check(algo, &links[k], &c);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if show {
            eprint!("\r\x1b[2Kstress: {n}/{} runs", jobs.len());
        }
        o
    });
    if show {
        eprintln!();
    }
    // Shrink each failure, one algorithm and invariant at a time, in order.
    let (mut failures, mut expected) = (Vec::new(), Vec::new());
    for ((algo, _), o) in jobs.iter().zip(&outcomes) {
        let checks = match &o.checks {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{} on {}: the run failed: {e}", algo.name(), o.link.name()));
                continue;
            }
        };
        for k in checks.iter().filter(|k| k.failure.is_some()) {
            let broke =
                format!("{} broke {} on {} ({})", algo.name(), k.invariant.name(), o.link.name(), o.link.summary);
            let property = known.iter().find(|p| {
                p.algorithm == algo.name() && p.invariant == k.invariant.name() && p.family == o.link.family.name()
            });
            if let Some(p) = property {
                let why = k.failure.as_deref().unwrap_or_default();
                expected.push(format!("{broke}: {why} — known: {}", p.why));
                continue;
            }
            // (A shrunk link keeps its family and index: only its scale moves.)
            let (small, why) = campaign::shrink(*algo, &o.link, k.invariant, &c, 3);
            let description = format!(
                "{} broke `{}` on {}: {why}. Replay: syncbench run --algo {} --profile THIS_FILE --seed {} --duration {}s --clients {}",
                algo.name(),
                k.invariant.name(),
                small.summary,
                algo.name(),
                c.seed,
                c.duration_us / 1_000_000,
                c.clients
            );
            let dir = a.out.join(format!("{}.{}", algo.name(), k.invariant.name()));
            std::fs::create_dir_all(&dir).map_err(|e| bad(format!("{}: {e}", dir.display())))?;
            let file = campaign::write_link(&small, &dir, &description).map_err(bad)?;
            failures.push(format!("{broke}: {why} → {}", file.display()));
        }
    }
    let md = a.format == Format::Md;
    print!("{}", table_of(&algos, &jobs, &outcomes, &c, md));
    print!("{}", campaign::findings(&expected, &failures, md));
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("{} invariant failures (files under {})", failures.len(), a.out.display())).into())
    }
}

/// `--families`: `all`, or names separated by commas.
fn parse_families(arg: &str) -> Result<Vec<Family>> {
    if arg == "all" {
        return Ok(Family::ALL.to_vec());
    }
    arg.split(',')
        .map(|n| {
            Family::from_name(n.trim()).ok_or_else(|| {
                let known: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
                bad(format!("--families {}: expected one of {} or all", n.trim(), known.join(", ")))
            })
        })
        .collect()
}

/// Per algorithm and invariant: links held of links checked.
fn table_of(
    algos: &[&'static dyn Algorithm],
    jobs: &[(&'static dyn Algorithm, usize)],
    outcomes: &[Outcome],
    c: &Campaign,
    markdown: bool,
) -> String {
    let families: Vec<&str> = c.families.iter().map(|f| f.name()).collect();
    let title = format!(
        "stress · seed {} · {} link{} of each of {} · {} clients · {}s",
        c.seed,
        c.links,
        if c.links == 1 { "" } else { "s" },
        families.join(", "),
        c.clients,
        c.duration_us / 1_000_000
    );
    let mut header = vec!["algorithm".to_string()];
    header.extend(Invariant::ALL.iter().map(|i| i.name().to_string()));
    let rows: Vec<Vec<String>> = algos
        .iter()
        .map(|algo| {
            let mine: Vec<&Outcome> =
                jobs.iter().zip(outcomes).filter(|((a, _), _)| a.name() == algo.name()).map(|(_, o)| o).collect();
            let mut row = vec![algo.name().to_string()];
            for inv in Invariant::ALL {
                let (mut held, mut checked) = (0, 0);
                for o in &mine {
                    let Ok(checks) = &o.checks else { continue };
                    for k in checks.iter().filter(|k| k.invariant == inv) {
                        checked += 1;
                        held += k.failure.is_none() as usize;
                    }
                }
                row.push(if checked == 0 { "–".into() } else { format!("{held}/{checked}") });
            }
            row
        })
        .collect();
    let table = table::render(&header, &rows, markdown);
    let note = "(links on which the invariant held, of those it applies to: real-time to games that name their frames, recovery to disturbed links, stationarity to the others)\n";
    if markdown {
        format!("**{title}**\n\n{table}\n{note}\n")
    } else {
        format!("{title}\n{table}{note}\n")
    }
}
