//! `compare` and `ab`: algorithms side by side on one profile; two configurations against each other with a paired test.

use super::*;

/// The matrices `a` describes, one per `--vary` value with its row label,
/// checked; the child of an isolated run plans them again `quiet`ly.
pub(super) fn plan_compare(a: &CompareArgs, quiet: bool) -> Result<Vec<(String, Matrix)>> {
    let variants = match &a.vary {
        None => vec![(String::new(), a.common.clone(), a.profile.clone())],
        Some(vary) => variants(vary, &a.common, &a.profile)?,
    };
    // Each transport, area of interest or profile has its own warnings and
    // notes; an option's variants share the first's.
    let checks_differ = variants.iter().any(|(label, _, _)| {
        label.starts_with("transport=") || label.starts_with("aoi=") || label.starts_with("profile=")
    });
    let mut matrices = Vec::new();
    for (k, (label, common, profile)) in variants.into_iter().enumerate() {
        let mut m = Matrix {
            algos: resolve_algos(&a.algos)?,
            profiles: vec![resolve_profile(&profile)?],
            specs: harness::trace::rejoin_specs(&a.traces)
                .iter()
                .map(|t| resolve_trace(t.trim()))
                .collect::<Result<_>>()?,
            seeds: a.seeds.0.clone(),
            base: run_config(&common, 1, "60s")?,
            origin: isolate::origin(k),
        };
        check_options(&mut m, &a.algos, quiet || (k > 0 && !checks_differ))?;
        matrices.push((label, m));
    }
    check_run_count(matrices.iter().map(|(_, m)| m.runs()).fold(0, u64::saturating_add))?;
    Ok(matrices)
}

pub(super) fn compare(a: CompareArgs) -> Result<()> {
    let known: Vec<&str> = harness::report::table::COLUMNS.iter().map(|c| c.0).collect();
    if let Some(bad_col) = a.metrics.iter().find(|c| !known.contains(&c.as_str())) {
        return Err(bad(format!("--metrics {bad_col}: expected one of {}", known.join(", "))));
    }
    let matrices = plan_compare(&a, a.quiet)?;
    if let Some(dir) = &a.hlog {
        harness::report::hlog::prepare(dir).map_err(bad)?;
    }
    let mut report: Option<Report> = None;
    let mut hlog_error = None;
    let mut first_index = 0;
    for (label, m) in &matrices {
        let target = a.hlog.as_deref().map(|dir| HlogTarget { dir, first_index, variant: label });
        let (mut part, failed_log) = run_matrix(m, a.jobs, None, a.quiet, target.as_ref())?;
        hlog_error = hlog_error.or(failed_log);
        // One index space over every variant's runs; a failed run names
        // its variant.
        for run in &mut part.runs {
            run.variant = label.clone();
            run.index += first_index;
        }
        for failed in &mut part.failed {
            failed.index += first_index;
            if !label.is_empty() {
                failed.what = format!("{} · {label}", failed.what);
            }
        }
        first_index += m.runs() as usize;
        match &mut report {
            None => report = Some(part),
            Some(all) => {
                all.runs.append(&mut part.runs);
                all.failed.append(&mut part.failed);
            }
        }
    }
    let report = report.expect("at least one variant");
    // Failed runs head a table or Markdown report (JSON holds them as a
    // field); stderr names each again at the end.
    if a.format != Format::Json {
        print!("{}", table::failed(&report.failed, a.format == Format::Md));
    }
    match (a.format, a.all_metrics || (a.metrics.is_empty() && a.format == Format::Md)) {
        (Format::Table, false) => {
            // Fit the terminal: $COLUMNS when the shell exports it, else 100.
            let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|w| *w >= 40).unwrap_or(100);
            print!("{}", table::compare_fit(&report.runs, width, &a.metrics).map_err(bad)?);
        }
        (Format::Md, false) => print!("{}", table::compare_columns_md(&report.runs, &a.metrics).map_err(bad)?),
        // The JSON holds the failed runs as its field, as report.json does.
        (Format::Json, _) => {
            let mut json = Report::new(env!("CARGO_PKG_VERSION"), report.runs.clone());
            json.failed = report.failed.clone();
            print!("{}", json.to_json());
        }
        _ => print_runs(&report.runs, a.format, false),
    }
    if let Some(dir) = &a.out {
        write_reports(dir, &report, a.quiet)?;
    }
    hlogs_written(a.hlog.as_deref(), hlog_error, report.runs.len(), a.quiet)?;
    finish(&report)
}

/// A match's settings that are flags of their own: `--vary` does not set
/// them (`--vary seed` is answered on its own: `--seeds`).
const FLAGS: &[&str] = &[
    "algo",
    "algos",
    "trace",
    "traces",
    "clients",
    "duration",
    "tick-rate",
    "render-rate",
    "game",
    "arena",
    "bots",
    "clock",
    "corrupted",
];

/// `--vary NAME=V1,V2,…` as (row label, settings, profile) triples: each
/// value set on a copy of `common` (or, for `profile`, in place of
/// `profile`). A transport's own settings may hold commas
/// (`kcp:resend=2,interval=10`): a piece `key=value` without a `:` goes
/// on with the transport before it.
fn variants(vary: &str, common: &MatchArgs, profile: &str) -> Result<Vec<(String, MatchArgs, String)>> {
    let Some((name, values)) = vary.split_once('=') else {
        return Err(bad(format!("--vary {vary}: expected NAME=V1,V2,… (e.g. transport=unreliable,kcp)")));
    };
    let name = name.trim();
    let list: Vec<String> = if name == "transport" {
        harness::net::transport::split_list(values)
    } else {
        values.split(',').map(|v| v.trim().to_string()).collect()
    };
    if name.is_empty() || list.iter().any(|v| v.is_empty()) {
        return Err(bad(format!("--vary {vary}: expected NAME=V1,V2,… with no empty name or value")));
    }
    if ["seed", "seeds"].contains(&name) {
        return Err(bad(format!(
            "--vary {}: seeds are not varied by --vary: every row runs every seed of --seeds (e.g. --seeds {})",
            harness::error::echo(vary),
            harness::error::echo(values)
        )));
    }
    let is_option = crate::catalog::all()
        .into_iter()
        .chain(algorithms::registry::under_test().iter().copied())
        .any(|a| a.options().iter().any(|o| o.name == name));
    if FLAGS.contains(&name) && !is_option {
        return Err(bad(format!(
            "--vary {name}=…: `{name}` is a flag of its own, not varied by --vary: expected transport, profile, aoi or an algorithm's option (syncbench list algorithms)"
        )));
    }
    if let Some(twice) = list.iter().enumerate().find(|(i, v)| list[..*i].contains(v)) {
        return Err(bad(format!("--vary {vary}: `{}` is named twice", twice.1)));
    }
    let mut out = Vec::new();
    for value in list {
        let mut c = common.clone();
        let mut p = profile.to_string();
        match name {
            "transport" => c.transport = value.clone(),
            "profile" => p = value.clone(),
            "aoi" => {
                if !["none", "grid", "crosslist"].contains(&value.as_str()) {
                    return Err(bad(format!("--vary aoi={value}: expected none, grid or crosslist")));
                }
                c.aoi = Some(value.clone());
            }
            key => {
                if c.opt.iter().any(|o| o.split_once('=').is_some_and(|(k, _)| k.trim() == key)) {
                    return Err(bad(format!("--vary {key}: --opt {key}=… is given too; say the values in one place")));
                }
                c.opt.push(format!("{key}={value}"));
            }
        }
        out.push((format!("{name}={value}"), c, p));
    }
    Ok(out)
}

/// The two sides `a` describes, checked; the child of an isolated run
/// plans them again `quiet`ly.
pub(super) fn plan_ab(a: &AbArgs, quiet: bool) -> Result<(Matrix, Matrix)> {
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
        let m = Matrix {
            algos: vec![algo],
            profiles: vec![resolve_profile(profile.as_deref().unwrap_or(&a.profile))?],
            specs: harness::trace::rejoin_specs(&a.traces)
                .iter()
                .map(|t| resolve_trace(t.trim()))
                .collect::<Result<_>>()?,
            seeds: a.seeds.0.clone(),
            base: run_config(&common, 1, "60s")?,
            origin: None,
        };
        Ok::<Matrix, anyhow::Error>(m)
    };
    let mut ma = side(algo_a, &a.a_opt, &a.a_transport, &a.a_profile)?;
    let mut mb = side(algo_b, &a.b_opt, &a.b_transport, &a.b_profile)?;
    // Side B's warnings are its own when its network or transport is.
    let b_differs = a.b_transport.is_some() || a.b_profile.is_some();
    check_options(&mut ma, &[algo_a.name().to_string()], quiet)?;
    check_options(&mut mb, &[algo_b.name().to_string()], quiet || !b_differs)?;
    check_run_count(ma.runs().saturating_add(mb.runs()))?;
    ma.origin = isolate::origin(0);
    mb.origin = isolate::origin(1);
    Ok((ma, mb))
}

pub(super) fn ab(a: AbArgs) -> Result<()> {
    use harness::report::ab::compare as compare_ab;
    let (ma, mb) = plan_ab(&a, a.quiet)?;
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
    let (ra, rb) = (run_matrix(&ma, a.jobs, None, a.quiet, None)?.0, run_matrix(&mb, a.jobs, None, a.quiet, None)?.0);
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
    print!("{}", harness::report::ab::render(&rows, a.md));
    let worse = harness::report::ab::worse_count(&rows);
    if worse > 0 {
        Err(Violation(format!("B is significantly worse than A on {worse} metric(s)")).into())
    } else {
        Ok(())
    }
}
