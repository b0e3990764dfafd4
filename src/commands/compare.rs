//! `compare` and `ab`: algorithms side by side on one profile; two configurations against each other with a paired test.

use super::*;

pub(super) fn compare(a: CompareArgs) -> Result<()> {
    let mut m = Matrix {
        algos: resolve_algos(&a.algos)?,
        profiles: vec![resolve_profile(&a.profile)?],
        specs: a.traces.iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?,
        seeds: a.seeds.0.clone(),
        base: run_config(&a.common, 1, "60s")?,
    };
    check_options(&mut m, &a.algos, a.quiet)?;
    let known: Vec<&str> = harness::report::table::COLUMNS.iter().map(|c| c.0).collect();
    if let Some(bad_col) = a.metrics.iter().find(|c| !known.contains(&c.as_str())) {
        return Err(bad(format!("--metrics {bad_col}: expected one of {}", known.join(", "))));
    }
    let report = run_matrix(&m, a.jobs, None, a.quiet)?;
    if a.format == Format::Table && !a.all_metrics {
        // Fit the terminal: $COLUMNS when the shell exports it, else 100.
        let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|w| *w >= 40).unwrap_or(100);
        print!("{}", table::compare_fit(&report.runs, width, &a.metrics).map_err(bad)?);
    } else {
        print_runs(&report.runs, a.format, false);
    }
    if let Some(dir) = &a.out {
        write_reports(dir, &report, a.quiet)?;
    }
    finish(&report)
}

pub(super) fn ab(a: AbArgs) -> Result<()> {
    use harness::report::ab::{compare as compare_ab, Verdict};
    let pick = |side: &Option<String>, what: &str| -> Result<&'static dyn Algorithm> {
        match side.as_ref().or(a.algo.as_ref()) {
            Some(n) => find_algo(n),
            None => Err(bad(format!("--algo or --{what}-algo: which algorithm does side {what} run?"))),
        }
    };
    let (algo_a, algo_b) = (pick(&a.a_algo, "a")?, pick(&a.b_algo, "b")?);
    let side = |algo: &'static dyn Algorithm, opt: &[String], transport: &Option<String>, profile: &Option<String>| {
        let mut common = a.common.clone();
        common.opt.extend(opt.iter().cloned());
        if let Some(t) = transport {
            common.transport = t.clone();
        }
        let mut m = Matrix {
            algos: vec![algo],
            profiles: vec![resolve_profile(profile.as_deref().unwrap_or(&a.profile))?],
            specs: a.traces.iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?,
            seeds: a.seeds.0.clone(),
            base: run_config(&common, 1, "60s")?,
        };
        check_options(&mut m, &[algo.name().to_string()], true)?;
        Ok::<Matrix, anyhow::Error>(m)
    };
    let ma = side(algo_a, &a.a_opt, &a.a_transport, &a.a_profile)?;
    let mb = side(algo_b, &a.b_opt, &a.b_transport, &a.b_profile)?;
    let describe = |m: &Matrix| {
        let r = &m.base;
        let opts: Vec<String> =
            r.options.for_algorithm(m.algos[0].name()).0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "{} on {} · {}{}",
            m.algos[0].name(),
            m.profiles[0].name(),
            r.transport,
            if opts.is_empty() { String::new() } else { format!(" · {}", opts.join(" ")) }
        )
    };
    let (ra, rb) = (run_matrix(&ma, a.jobs, None, a.quiet)?, run_matrix(&mb, a.jobs, None, a.quiet)?);
    if !ra.failed.is_empty() || !rb.failed.is_empty() {
        return finish(if ra.failed.is_empty() { &rb } else { &ra });
    }
    let rows = compare_ab(&ra.runs, &rb.runs);
    let pairs = ra.runs.len().min(rb.runs.len());
    println!("A: {}\nB: {}", describe(&ma), describe(&mb));
    println!(
        "{pairs} pairs ({} trace(s) × {} seeds, paired by seed), {} clients, {}s; B − A with its 95% interval (Student's t on the paired differences); lower is better for every metric",
        a.traces.len(),
        a.seeds.0.len(),
        ma.base.clients,
        ma.base.duration_us as f64 / 1e6
    );
    let (same, rows): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.diff == 0.0 && r.ci.is_none_or(|h| h == 0.0));
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let rel = if r.a.abs() > 1e-12 { format!(" ({:+.1}%)", 100.0 * r.diff / r.a) } else { String::new() };
            let ci = r.ci.map_or(String::new(), |h| format!("±{h:.3}"));
            [
                r.metric.to_string(),
                format!("{:.3}", r.a),
                format!("{:.3}", r.b),
                format!("{:+.3}{ci}{rel}", r.diff),
                r.verdict.as_str().to_string(),
            ]
        })
        .collect();
    let header = ["metric", "A", "B", "B − A", "verdict"];
    if a.md {
        println!("\n| {} |\n|:--|--:|--:|--:|:--|", header.join(" | "));
        for c in &cells {
            println!("| {} |", c.join(" | "));
        }
    } else {
        let w: Vec<usize> = (0..5)
            .map(|i| cells.iter().map(|c| c[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
            .collect();
        println!();
        let line = |c: [&str; 5]| {
            println!(
                "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {}",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            );
        };
        line(header);
        for c in &cells {
            line([&c[0], &c[1], &c[2], &c[3], &c[4]]);
        }
    }
    if !same.is_empty() {
        let names: Vec<&str> = same.iter().map(|r| r.metric).collect();
        println!("\nidentical on every pair: {}", names.join(", "));
    }
    let worse = rows.iter().filter(|r| r.verdict == Verdict::BWorse).count();
    let better = rows.iter().filter(|r| r.verdict == Verdict::BBetter).count();
    println!("\nB is significantly better on {better} metric(s), worse on {worse}.");
    if worse > 0 {
        Err(Violation(format!("B is significantly worse than A on {worse} metric(s)")).into())
    } else {
        Ok(())
    }
}
