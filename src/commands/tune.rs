//! `tune`: an algorithm's numeric options searched on the user's networks,
//! every setting on the same seeds; the front, a recommendation under a
//! goal, and the published rules on the same front ([`harness::tune`]).

use super::*;
use crate::cli::TuneArgs;
use harness::tune::front::{front, recommend, Origin, Point};
use harness::tune::goal::Goal;
use harness::tune::{network, rules, Space};

/// One network of the population: its name, its weight (a share) and
/// its plan.
struct Network {
    name: String,
    weight: f64,
    plan: NetworkPlan,
}

/// `--profile a:0.6,b:0.4`: each item a network, weighted by its
/// trailing `:W` (equal weights when none says).
fn networks(arg: &str) -> Result<Vec<Network>> {
    let mut out = Vec::new();
    for item in arg.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (name, weight) = match item.rsplit_once(':') {
            Some((n, w)) if w.trim().parse::<f64>().is_ok() => {
                let w: f64 = w.trim().parse().expect("checked");
                if !(w.is_finite() && w > 0.0) {
                    return Err(bad(format!("--profile {item}: a weight is a number above 0")));
                }
                (n.trim(), Some(w))
            }
            _ => (item, None),
        };
        out.push((name.to_string(), weight));
    }
    if out.is_empty() {
        return Err(bad("--profile: expected one or more networks, e.g. wifi:0.6,4g:0.4"));
    }
    if out.iter().any(|n| n.1.is_some()) && out.iter().any(|n| n.1.is_none()) {
        return Err(bad("--profile: weight every network or none (wifi:0.6,4g:0.4)"));
    }
    let total: f64 = out.iter().map(|n| n.1.unwrap_or(1.0)).sum();
    out.into_iter()
        .map(|(name, w)| Ok(Network { plan: resolve_profile(&name)?, weight: w.unwrap_or(1.0) / total, name }))
        .collect()
}

/// A setting to run: where it came from and, per network, its options.
struct Setting {
    origin: Origin,
    per_network: Vec<Vec<(String, String)>>,
}

pub(super) fn tune(a: TuneArgs) -> Result<()> {
    let algo = find_algo(&a.algo)?;
    let space = Space::new(&a.opts, algo.options()).map_err(bad)?;
    let goal = Goal::parse(&a.goal).map_err(|e| bad(format!("--goal {e}")))?;
    let nets = networks(&a.profile)?;
    let base = run_config(&a.common, 1, "30s")?;
    let columns: Vec<&str> = goal.columns();
    let has: Vec<&str> = algo.options().iter().map(|o| o.name).collect();
    // Defaults, the grid, then every rule that applies (its options per network).
    let mut settings = vec![Setting { origin: Origin::Defaults, per_network: vec![Vec::new(); nets.len()] }];
    for s in space.settings() {
        settings.push(Setting { origin: Origin::Search, per_network: vec![s; nets.len()] });
    }
    let measured: Vec<rules::Network> = nets.iter().map(|n| network(n.plan.client(0), base.tick_hz)).collect();
    let per_net: Vec<Vec<rules::Rule>> = measured.iter().map(|m| rules::rules(&has, m)).collect();
    for (k, (name, _)) in per_net[0].iter().enumerate() {
        settings.push(Setting {
            origin: Origin::Rule(name.clone()),
            per_network: per_net.iter().map(|r| r[k].1.clone()).collect(),
        });
    }
    let traces: Vec<TraceSpec> =
        harness::trace::rejoin_specs(&a.traces).iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?;
    let runs_each = (traces.len() * a.seeds.0.len() * nets.len()) as u64;
    check_run_count(runs_each.saturating_mul(settings.len() as u64))?;
    let searched = settings.iter().filter(|s| s.origin == Origin::Search).count();
    // Runs `s` on `seeds`: per network, per column, the runs' values in job order.
    let measure = |s: &Setting, seeds: &[u64]| -> Result<Vec<Vec<Vec<f64>>>> {
        let mut per_network = Vec::new();
        for (n, net) in nets.iter().enumerate() {
            let mut common = a.common.clone();
            common.opt.extend(s.per_network[n].iter().map(|(k, v)| format!("{k}={v}")));
            let mut m = Matrix {
                algos: vec![algo],
                profiles: vec![net.plan.clone()],
                specs: traces.clone(),
                seeds: seeds.to_vec(),
                base: run_config(&common, 1, "30s")?,
                origin: None,
            };
            check_options(&mut m, &[algo.name().to_string()], true)?;
            let (report, _) = run_matrix(&m, a.jobs, None, true, None)?;
            finish(&report)?;
            per_network.push(
                columns
                    .iter()
                    .map(|c| {
                        let get = table::COLUMNS.iter().find(|x| x.0 == *c).expect("a goal's column").2;
                        report.runs.iter().map(|r| get(&r.metrics).unwrap_or(f64::NAN)).collect()
                    })
                    .collect(),
            );
        }
        Ok(per_network)
    };
    // The population's value per (trace, seed): the networks' weighted sum.
    let point = |s: &Setting, v: &[Vec<Vec<f64>>]| Point {
        options: s.per_network[0].clone(),
        origin: s.origin.clone(),
        values: (0..columns.len())
            .map(|c| {
                let n = v[0][c].len();
                let mixed: Vec<f64> =
                    (0..n).map(|k| nets.iter().enumerate().map(|(i, net)| net.weight * v[i][c][k]).sum()).collect();
                finite(&mixed)
            })
            .collect(),
    };
    let seeds = &a.seeds.0;
    let search: Vec<usize> = (0..settings.len()).filter(|&i| settings[i].origin == Origin::Search).collect();
    // One or two options: every setting on every seed. More: successive
    // halving over the seeds, a third kept at each rung.
    let rungs = if space.dims.len() <= 2 { vec![seeds.len()] } else { harness::tune::rungs(seeds.len()) };
    let mut values: Vec<Option<Vec<Vec<Vec<f64>>>>> = vec![None; settings.len()];
    let (mut alive, mut measured_to, mut halving) = (search, 0usize, Vec::new());
    let mut runs = 0u64;
    for (r, &upto) in rungs.iter().enumerate() {
        for (k, &i) in alive.iter().enumerate() {
            if !a.quiet {
                eprintln!(
                    "{}: tune: rung {}/{}, setting {}/{}",
                    crate::program(),
                    r + 1,
                    rungs.len(),
                    k + 1,
                    alive.len()
                );
            }
            let more = measure(&settings[i], &seeds[measured_to..upto])?;
            runs += (more.len() * more[0][0].len()) as u64;
            match &mut values[i] {
                None => values[i] = Some(more),
                Some(v) => v.iter_mut().zip(more).for_each(|(a, b)| a.iter_mut().zip(b).for_each(|(x, y)| x.extend(y))),
            }
        }
        halving.push((alive.len(), upto));
        measured_to = upto;
        if r + 1 < rungs.len() {
            let pts: Vec<Point> =
                alive.iter().map(|&i| point(&settings[i], values[i].as_ref().expect("measured"))).collect();
            alive = harness::tune::front::best_share(&pts, &goal, &columns, 3).into_iter().map(|k| alive[k]).collect();
        }
    }
    for (i, s) in settings.iter().enumerate().filter(|(_, s)| s.origin != Origin::Search) {
        if !a.quiet {
            eprintln!(
                "{}: tune: {}",
                crate::program(),
                if s.origin == Origin::Defaults { "the defaults" } else { "a rule" }
            );
        }
        let v = measure(s, seeds)?;
        runs += (v.len() * v[0][0].len()) as u64;
        values[i] = Some(v);
    }
    // The settings measured on every seed, in order: the defaults, the search's survivors, the rules.
    let kept: Vec<usize> =
        (0..settings.len()).filter(|&i| settings[i].origin != Origin::Search || alive.contains(&i)).collect();
    let settings: Vec<&Setting> = kept.iter().map(|&i| &settings[i]).collect();
    let values: Vec<&Vec<Vec<Vec<f64>>>> = kept.iter().map(|&i| values[i].as_ref().expect("measured")).collect();
    let points: Vec<Point> = settings.iter().zip(&values).map(|(s, v)| point(s, v)).collect();
    let on_front = front(&points);
    let best = recommend(&points, &vec![true; points.len()], &goal, &columns).expect("at least the defaults");
    // Per network: the recommendation against that network's own best.
    let regrets: Vec<(f64, f64)> = (0..nets.len())
        .map(|i| {
            let alone: Vec<Point> = settings
                .iter()
                .zip(&values)
                .map(|(s, v)| Point {
                    options: s.per_network[i].clone(),
                    origin: s.origin.clone(),
                    values: (0..columns.len()).map(|c| finite(&v[i][c])).collect(),
                })
                .collect();
            let own = recommend(&alone, &vec![true; alone.len()], &goal, &columns).expect("at least the defaults");
            let mean = |p: &Point| p.values[0].map_or(f64::NAN, |v| v.0);
            (mean(&alone[best]), mean(&alone[best]) - mean(&alone[own]))
        })
        .collect();
    let doc = Tuned {
        a: &a,
        algo: algo.name(),
        goal: &goal,
        columns: &columns,
        points: &points,
        on_front: &on_front,
        best,
        nets: &nets,
        measured: &measured,
        regrets: &regrets,
        runs,
        searched,
        halving: &halving,
    };
    if let Some(path) = &a.html {
        let labels: Vec<String> = columns.iter().map(|c| label(c)).collect();
        let title = format!("tune {} on {} · goal: {}", algo.name(), a.profile, goal);
        write_output(path, &harness::tune::picture::html(&title, &columns, &labels, &points, &on_front, best))?;
    }
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&doc.json())?),
        f => print!("{}", doc.text(f == Format::Md)),
    }
    Ok(())
}

/// A column's table label (`rem lat ms` for `remote-lat`).
fn label(column: &str) -> String {
    table::COLUMNS.iter().find(|x| x.0 == column).map_or(column.to_string(), |x| x.1.to_string())
}

/// The mean and 95% half-width of the finite values.
fn finite(v: &[f64]) -> Option<(f64, Option<f64>)> {
    let f: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    table::spread(&f)
}

/// What `tune` found, to print.
struct Tuned<'a> {
    a: &'a TuneArgs,
    algo: &'a str,
    goal: &'a Goal,
    columns: &'a [&'a str],
    points: &'a [Point],
    on_front: &'a [bool],
    best: usize,
    nets: &'a [Network],
    measured: &'a [rules::Network],
    regrets: &'a [(f64, f64)],
    runs: u64,
    /// Settings the search tried.
    searched: usize,
    /// Per rung of the search: settings alive and the seeds they ran.
    halving: &'a [(usize, usize)],
}

impl Tuned<'_> {
    fn decimals(c: &str) -> usize {
        table::COLUMNS.iter().find(|x| x.0 == c).map_or(1, |x| x.3)
    }

    fn cell(v: Option<(f64, Option<f64>)>, dec: usize) -> String {
        match v {
            None => "–".into(),
            Some((m, None)) => format!("{m:.dec$}"),
            Some((m, Some(h))) => format!("{m:.dec$}±{h:.dec$}"),
        }
    }

    fn name(p: &Point) -> String {
        match &p.origin {
            Origin::Defaults => "defaults".into(),
            Origin::Search => p.label(),
            Origin::Rule(r) => format!("rule: {r} ({})", p.label()),
        }
    }

    fn meets(&self, p: &Point) -> bool {
        harness::tune::front::excess(p, self.goal, self.columns) == 0.0
    }

    fn text(&self, md: bool) -> String {
        let a = self.a;
        let nets: Vec<String> = self
            .nets
            .iter()
            .zip(self.measured)
            .map(|(n, m)| {
                let w = if self.nets.len() > 1 { format!(" ×{:.2}", n.weight) } else { String::new() };
                format!("{}{w} (rtt {:.0} ms, σ {:.1} ms)", n.name, m.rtt_ms, m.jitter_sd_ms)
            })
            .collect();
        let mut out = format!(
            "tune {} on {} · {} · {} seeds paired · goal: {}\n{} settings, {} runs\n\n",
            self.algo,
            nets.join(", "),
            a.traces.join(","),
            a.seeds.0.len(),
            self.goal,
            self.points.len(),
            self.runs
        );
        if self.halving.len() > 1 {
            let rungs: Vec<String> = self.halving.iter().map(|(n, seeds)| format!("{n} on {seeds} seeds")).collect();
            out = format!(
                "{}searched {} settings by successive halving over the seeds, a third kept a rung: {}\n\n",
                out.trim_end_matches('\n').to_string() + "\n",
                self.searched,
                rungs.join(" → ")
            );
        }
        if md {
            out = format!("**{}**\n\n", out.trim_end().replace("\n\n", "\n").replace('\n', " · "));
        }
        let labels: Vec<String> = self.columns.iter().map(|c| label(c)).collect();
        let mut header = vec!["setting".to_string()];
        header.extend(labels);
        header.push("front".into());
        header.push("goal".into());
        let rows: Vec<Vec<String>> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut row = vec![if i == self.best { format!("{} ◀", Self::name(p)) } else { Self::name(p) }];
                row.extend(p.values.iter().zip(self.columns).map(|(v, c)| Self::cell(*v, Self::decimals(c))));
                row.push(if self.on_front[i] { "yes".into() } else { "".into() });
                row.push(if self.meets(p) { "meets".into() } else { "".into() });
                row
            })
            .collect();
        out.push_str(&table::render(&header, &rows, md));
        out.push('\n');
        let mut notes: Vec<String> = Vec::new();
        let (best, defaults) = (&self.points[self.best], &self.points[0]);
        let k = 0;
        let (b, d) = (best.values[k].map_or(f64::NAN, |v| v.0), defaults.values[k].map_or(f64::NAN, |v| v.0));
        notes.push(format!(
            "recommended: {} — {} {:.1} against the defaults' {:.1} ({:+.0}%){}",
            Self::name(best),
            self.goal.minimise,
            b,
            d,
            if d != 0.0 { 100.0 * (b - d) / d } else { 0.0 },
            if self.meets(best) {
                ", meeting the goal"
            } else {
                "; no setting tried meets the goal, this is the nearest"
            }
        ));
        let unjudged: Vec<&str> = self
            .goal
            .limits
            .iter()
            .filter(|l| {
                let k = self.columns.iter().position(|c| *c == l.column).expect("a goal column");
                best.values[k].is_none()
            })
            .map(|l| l.column.as_str())
            .collect();
        if !unjudged.is_empty() {
            notes.push(format!("not judged, no value on any seed: {}", unjudged.join(", ")));
        }
        if self.best == 0 || (self.on_front[0] && self.meets(defaults)) {
            notes.push("the defaults are on the front".into());
        }
        let rules = |front: bool| -> Vec<&Point> {
            self.points
                .iter()
                .zip(self.on_front)
                .filter(|(p, on)| matches!(p.origin, Origin::Rule(_)) && **on == front)
                .map(|(p, _)| p)
                .collect()
        };
        let (on, off) = (rules(true), rules(false));
        let names = |v: &[&Point]| v.iter().map(|p| Self::name(p)).collect::<Vec<_>>().join("; ");
        if !on.is_empty() {
            notes.push(format!("rules on the front: {}", names(&on)));
        }
        if !off.is_empty() {
            notes.push(format!("rules off it: {}", names(&off)));
        }
        if self.nets.len() > 1 {
            for (n, (v, regret)) in self.nets.iter().zip(self.regrets) {
                notes.push(format!(
                    "on {}: {} {v:.1} with the recommendation, {regret:+.1} against its own best",
                    n.name, self.goal.minimise
                ));
            }
        }
        notes.push("(front: no other setting is as good on every metric and better on one, by mean over the same seeds; ◀: the recommendation)".into());
        for n in notes {
            out.push_str(if md { "- " } else { "" });
            out.push_str(&n);
            out.push('\n');
        }
        out
    }

    fn json(&self) -> serde_json::Value {
        let points: Vec<serde_json::Value> = self
            .points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                serde_json::json!({
                    "setting": Self::name(p),
                    "options": p.options.iter().map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect::<serde_json::Map<_, _>>(),
                    "origin": match &p.origin { Origin::Defaults => "defaults".to_string(), Origin::Search => "search".into(), Origin::Rule(r) => format!("rule: {r}") },
                    "metrics": self.columns.iter().zip(&p.values).map(|(c, v)| (c.to_string(), match v {
                        None => serde_json::Value::Null,
                        Some((m, h)) => serde_json::json!({"mean": m, "ci95": h}),
                    })).collect::<serde_json::Map<_, _>>(),
                    "on_front": self.on_front[i], "meets_goal": self.meets(p), "recommended": i == self.best,
                })
            })
            .collect();
        serde_json::json!({
            "algorithm": self.algo, "goal": self.goal.to_string(), "runs": self.runs, "searched": self.searched,
            "halving": self.halving.iter().map(|(n, seeds)| serde_json::json!({"settings": n, "seeds": seeds})).collect::<Vec<_>>(),
            "networks": self.nets.iter().zip(self.measured).zip(self.regrets).map(|((n, m), (v, r))| serde_json::json!({
                "profile": n.name, "weight": n.weight, "rtt_ms": m.rtt_ms, "jitter_sd_ms": m.jitter_sd_ms,
                "recommended_value": v, "regret": r,
            })).collect::<Vec<_>>(),
            "points": points,
        })
    }
}
