//! Text and Markdown tables: one run as a list, several side by side.

use super::{FailedRun, RunReport};
use crate::metrics::Metrics;

pub(crate) type Getter = fn(&Metrics) -> Option<f64>;

/// A distribution's statistic, or none when it has no samples.
fn stat(s: &crate::metrics::Stats, f: fn(&crate::metrics::Stats) -> f64) -> Option<f64> {
    (s.n > 0).then(|| f(s))
}

/// The rows of a comparison: label, getter, decimals. A getter returns
/// `None` for a metric without samples (printed "–", never 0).
pub const ROWS: &[(&str, Getter, usize)] = &[
    ("own input latency p50 (ms)", |m| stat(&m.input_latency_ms.own, |s| s.p50), 1),
    ("own input latency p99 (ms)", |m| stat(&m.input_latency_ms.own, |s| s.p99), 1),
    ("remote input latency p50 (ms)", |m| stat(&m.input_latency_ms.remote, |s| s.p50), 1),
    ("remote input latency p99 (ms)", |m| stat(&m.input_latency_ms.remote, |s| s.p99), 1),
    ("own input changes never shown (%)", |m| Some(m.input_changes_unshown_pct.own), 2),
    ("remote input changes never shown (%)", |m| Some(m.input_changes_unshown_pct.remote), 2),
    ("own input changes in flight (%)", |m| Some(m.input_changes_in_flight_pct.own), 2),
    ("remote input changes in flight (%)", |m| Some(m.input_changes_in_flight_pct.remote), 2),
    ("own divergence mean (m)", |m| stat(&m.divergence_m.own, |s| s.mean), 3),
    ("own divergence p99 (m)", |m| stat(&m.divergence_m.own, |s| s.p99), 3),
    ("remote divergence mean (m)", |m| stat(&m.divergence_m.remote, |s| s.mean), 3),
    ("remote divergence p99 (m)", |m| stat(&m.divergence_m.remote, |s| s.p99), 3),
    (
        "own divergence mean (player sizes)",
        |m| stat(&m.divergence_m.own, |s| s.mean).and_then(|v| m.in_player_sizes(v)),
        2,
    ),
    (
        "remote divergence mean (player sizes)",
        |m| stat(&m.divergence_m.remote, |s| s.mean).and_then(|v| m.in_player_sizes(v)),
        2,
    ),
    ("own vs ideal mean (m)", |m| stat(&m.ideal_divergence_m.own, |s| s.mean), 3),
    ("remote vs ideal mean (m)", |m| stat(&m.ideal_divergence_m.remote, |s| s.mean), 3),
    ("snap events per client-minute", |m| m.rate(m.snaps.per_client_per_min), 1),
    ("largest jump (m)", |m| Some(m.snaps.largest_jump_m), 2),
    ("impossible screens (%)", |m| Some(m.impossible.share * 100.0), 2),
    ("deepest off-map (m)", |m| Some(m.impossible.deepest_m), 2),
    ("corrections", |m| Some(m.corrections as f64), 0),
    ("rollbacks", |m| Some(m.rollbacks as f64), 0),
    ("re-simulated frames", |m| Some(m.resimulated_frames as f64), 0),
    ("frozen ≥100 ms per client (ms)", |m| Some(m.stalls.freeze_ms_per_client), 0),
    ("freezes per client", |m| Some(m.stalls.freezes_per_client), 1),
    ("longest stall (ms)", |m| Some(m.stalls.longest_ms), 0),
    ("stalls per client (all)", |m| Some(m.stalls.stalls_per_client), 0),
    ("inputs repeated per client-minute", |m| m.rate(m.input_fidelity.repeated_per_min), 1),
    ("inputs dropped per client-minute", |m| m.rate(m.input_fidelity.dropped_per_min), 1),
    ("inputs late per client-minute (none lost)", |m| m.rate(m.input_fidelity.late_per_min), 1),
    ("time to connect mean (ms)", |m| m.warmup.as_ref().and_then(|w| stat(&w.connect_ms, |s| s.mean)), 0),
    ("desyncs", |m| Some(m.desyncs as f64), 0),
    ("up per client (B/s)", |m| Some(m.bandwidth.up_bytes_per_s), 0),
    ("down per client (B/s)", |m| Some(m.bandwidth.down_bytes_per_s), 0),
    ("up per client (pkt/s)", |m| Some(m.bandwidth.up_packets_per_s), 1),
    ("down per client (pkt/s)", |m| Some(m.bandwidth.down_packets_per_s), 1),
    ("sim steps per s", |m| Some(m.sim_steps_per_s), 0),
    ("final own divergence (m)", |m| Some(m.final_divergence_m.own), 3),
    ("final remote divergence (m)", |m| Some(m.final_divergence_m.remote), 3),
    ("hit agreement on hits (%)", |m| m.hit_agreement.as_ref().and_then(|h| h.share).map(|s| s * 100.0), 1),
    ("shots hit on either side", |m| m.hit_agreement.as_ref().map(|h| h.hit_shots as f64), 0),
    ("clock offset error mean (ms)", |m| m.clock_offset_error.as_ref().map(|c| c.mean_signed_ms), 2),
];

/// Rows added after the stalls when a run measured a peer's lag behind
/// the schedule (peer-to-peer and relay).
pub const LAG_ROWS: &[(&str, Getter, usize)] = &[
    ("lag behind schedule mean (ms)", |m| m.lag_ms.as_ref().map(|l| l.behind_ms.mean), 0),
    ("lag behind schedule max (ms)", |m| m.lag_ms.as_ref().map(|l| l.behind_ms.max), 0),
    ("lag at end (ms)", |m| m.lag_ms.as_ref().map(|l| l.at_end_ms), 0),
];

/// Rows added when a run measured an area of interest (`--aoi`).
pub const INTEREST_ROWS: &[(&str, Getter, usize)] = &[
    ("within radius (%)", |m| m.interest.as_ref().map(|i| i.visible_share * 100.0), 2),
    ("remote entities shown per render", |m| m.interest.as_ref().map(|i| i.shown_per_render), 1),
    ("awareness p50 (ms)", |m| m.interest.as_ref().map(|i| i.awareness_ms.p50), 1),
    ("longest unaware (ms)", |m| m.interest.as_ref().map(|i| i.longest_unaware_ms), 1),
    ("leak share (%)", |m| m.interest.as_ref().map(|i| i.leak_share * 100.0), 2),
    ("index work per tick (entities)", |m| m.interest.as_ref().and_then(|i| i.index_examined_per_tick), 0),
];

/// The rows for `runs`: the lag and interest rows only when one
/// measured them.
fn rows_for<'a>(runs: impl IntoIterator<Item = &'a RunReport> + Clone) -> Vec<&'static (&'static str, Getter, usize)> {
    let interest = runs.clone().into_iter().any(|r| r.metrics.interest.is_some());
    let lag = runs.into_iter().any(|r| r.metrics.lag_ms.is_some());
    let after_stalls = ROWS.iter().position(|r| r.0 == "stalls per client (all)").map_or(ROWS.len(), |i| i + 1);
    ROWS[..after_stalls]
        .iter()
        .chain(if lag { LAG_ROWS } else { &[] })
        .chain(&ROWS[after_stalls..])
        .chain(if interest { INTEREST_ROWS } else { &[] })
        .collect()
}

/// At most this many clients are listed one by one in a single run's table.
const CLIENTS_LISTED: usize = 16;

/// A table of `rows` under `header`: aligned text, or Markdown.
pub fn render(header: &[String], rows: &[Vec<String>], markdown: bool) -> String {
    render_spaced(header, rows, markdown, 2)
}

/// [`render`] with `gap` spaces between a text table's columns.
fn render_spaced(header: &[String], rows: &[Vec<String>], markdown: bool, gap: usize) -> String {
    let cols = header.len();
    let mut width = vec![0; cols];
    for r in std::iter::once(header).chain(rows.iter().map(|r| r.as_slice())) {
        for (i, c) in r.iter().enumerate() {
            width[i] = width[i].max(c.chars().count());
        }
    }
    let line = |r: &[String]| -> String {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 0 { format!("{c:<w$}", w = width[i]) } else { format!("{c:>w$}", w = width[i]) })
            .collect();
        if markdown {
            format!("| {} |", cells.join(" | "))
        } else {
            cells.join(&" ".repeat(gap)).trim_end().to_string()
        }
    };
    let mut out = line(header);
    out.push('\n');
    if markdown {
        let sep: Vec<String> = (0..cols)
            .map(|i| {
                if i == 0 {
                    format!(":{}", "-".repeat(width[i] - 1))
                } else {
                    format!("{}:", "-".repeat(width[i] - 1))
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", sep.join(" | ")));
    } else {
        out.push_str(&"-".repeat(width.iter().sum::<usize>() + gap * (cols - 1)));
        out.push('\n');
    }
    for r in rows {
        out.push_str(&line(r));
        out.push('\n');
    }
    out
}

/// Two-sided 95% quantiles of Student's t for 1–30 degrees of freedom.
const T95: [f64; 30] = [
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
    2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/// The mean of `vals` and, with two or more, the half-width of its 95%
/// confidence interval (Student's t; the normal 1.96 past 30 values).
pub fn spread(vals: &[f64]) -> Option<(f64, Option<f64>)> {
    let n = vals.len();
    if n == 0 {
        return None;
    }
    let mean = vals.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return Some((mean, None));
    }
    let var = vals.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / (n - 1) as f64;
    let t = T95.get(n - 2).copied().unwrap_or(1.96);
    Some((mean, Some(t * (var / n as f64).sqrt())))
}

/// Which way a row or column is better: `Some(true)` higher, `Some(false)`
/// lower, `None` neither (counts of work, signed errors).
pub fn better_higher(label: &str) -> Option<bool> {
    match label {
        "hit agreement on hits (%)" | "hit-agreement" => Some(true),
        "shots hit on either side"
        | "clock offset error mean (ms)"
        | "sim steps per s"
        | "rollbacks"
        | "re-simulated frames"
        | "up per client (pkt/s)"
        | "down per client (pkt/s)"
        | "down-packets"
        | "visible"
        | "shown" => None,
        _ => Some(false),
    }
}

/// How much worse than the best a value may be and still be marked with
/// it, as a share of the best's mean (never less than the table's last
/// shown digit).
pub const EQUIVALENCE_SHARE: f64 = 0.05;

/// For one metric, each algorithm's `(seed, value)` runs: which are the
/// best (by mean, `higher` or lower) or shown to be as good — the whole
/// two-sided 95% interval of the paired differences from the best
/// (Student's t on the seeds they share, as `ab`) lies within
/// [`EQUIVALENCE_SHARE`] of the best's mean, or within `resolution` (the
/// table's last digit) if that is wider. A difference the seeds disagree on
/// is not a tie: a wide interval is unknown, never "as good". One shared
/// seed: only an equal value ties. A column where every value ties marks
/// every one; one where the seeds cannot tell whether some value is as
/// good as the best or worse marks none, not even the best by mean (see
/// [`UNDECIDED_NOTE`]). `None` when there is nothing to rank (fewer than
/// two algorithms with values).
pub fn tied_best(per_algo: &[Vec<(u64, f64)>], higher: bool, resolution: f64) -> Option<Vec<bool>> {
    let means: Vec<Option<f64>> =
        per_algo.iter().map(|v| (!v.is_empty()).then(|| v.iter().map(|x| x.1).sum::<f64>() / v.len() as f64)).collect();
    let best = (0..per_algo.len()).filter(|&i| means[i].is_some()).reduce(|a, b| {
        let (ma, mb) = (means[a].unwrap_or(0.0), means[b].unwrap_or(0.0));
        if (higher && mb > ma) || (!higher && mb < ma) {
            b
        } else {
            a
        }
    })?;
    let margin = (EQUIVALENCE_SHARE * means[best].unwrap_or(0.0).abs()).max(resolution);
    let tied: Vec<Option<bool>> = per_algo
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if i == best {
                return Some(true);
            }
            let d: Vec<f64> = v
                .iter()
                .filter_map(|&(seed, x)| per_algo[best].iter().find(|b| b.0 == seed).map(|b| x - b.1))
                .collect();
            match spread(&d) {
                None => Some(false),
                Some((m, None)) => Some(m == 0.0),
                // (A hair of slack: the values are rounded decimals.)
                Some((m, Some(h))) if m.abs() + h <= margin * (1.0 + 1e-9) => Some(true),
                // Worse on every draw the interval allows, or undecided.
                Some((m, Some(h))) => (m.abs() > h).then_some(false),
            }
        })
        .collect();
    let ranked = means.iter().filter(|m| m.is_some()).count();
    if ranked < 2 {
        return None;
    }
    Some(match tied.into_iter().collect::<Option<Vec<bool>>>() {
        Some(t) => t,
        None => vec![false; per_algo.len()],
    })
}

/// Under a table with a line whose seeds could not order its best.
pub const UNDECIDED_NOTE: &str = "(a line with no mark: the seeds cannot tell which is best; more seeds decide it)\n";

/// Under a table with marked cells: what the mark means.
fn ties_note(mark: &str, line: &str) -> String {
    format!("({mark}: the best of its {line}, or within 5% of it over the whole 95% interval of the same seeds)\n")
}

/// The marks of one metric over a group's algorithms (see [`tied_best`]):
/// none with one seed, one algorithm, or no direction.
/// Values are compared as shown, rounded to `dec` decimals: a difference
/// the table cannot show is no difference.
fn marks(runs: &[&RunReport], algos: &[String], (label, get, dec): (&str, Getter, usize), seeds: usize) -> Vec<bool> {
    let none = vec![false; algos.len()];
    let Some(higher) = better_higher(label) else { return none };
    if seeds < 2 || algos.len() < 2 {
        return none;
    }
    let per: Vec<Vec<(u64, f64)>> = algos
        .iter()
        .map(|a| {
            runs.iter()
                .filter(|r| r.label() == *a)
                .filter_map(|r| get(&r.metrics).map(|v| (r.seed, shown(v, dec))))
                .collect()
        })
        .collect();
    tied_best(&per, higher, 10f64.powi(-(dec as i32))).unwrap_or(none)
}

/// Whether a column ranks (it has a direction and seeds) yet marks none:
/// its seeds could not order its best (see [`tied_best`]).
fn undecided(runs: &[&RunReport], algos: &[String], col: &(&str, &str, Getter, usize), seeds: usize) -> bool {
    better_higher(col.0).is_some()
        && seeds >= 2
        && algos.len() >= 2
        && marks(runs, algos, (col.0, col.2, col.3), seeds).iter().all(|&m| !m)
        && algos.iter().filter(|a| runs.iter().any(|r| r.label() == **a && (col.2)(&r.metrics).is_some())).count() >= 2
}

/// `v` rounded to `dec` decimals, as a table shows it.
pub fn shown(v: f64, dec: usize) -> f64 {
    let k = 10f64.powi(dec as i32);
    (v * k).round() / k
}

fn fmt(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$}");
    // A small negative rounds to zero: no "-0.00".
    match s.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => s,
    }
}

/// The runs of one (profile, trace): its rows in order (an algorithm, or
/// an algorithm and what `compare --vary` set), seeds each.
struct Group<'a> {
    profile: String,
    trace: String,
    runs: Vec<&'a RunReport>,
    algos: Vec<String>,
    seeds: usize,
}

impl Group<'_> {
    /// The group's transport, or that its rows differ in it.
    fn transport(&self) -> String {
        let first = &self.runs[0].transport;
        if self.runs.iter().all(|r| r.transport == *first) {
            first.clone()
        } else {
            "transport per row".into()
        }
    }

    /// The rows that ran fewer of the group's seeds than the others (their
    /// other runs failed), as ` · ROW: 1 of 3 seeds`; empty when every
    /// row ran every seed.
    fn short_rows(&self) -> String {
        let mut out = String::new();
        for a in &self.algos {
            let n = self.runs.iter().filter(|r| r.label() == *a).count();
            if n < self.seeds {
                out.push_str(&format!(" · {a}: {n} of {} seeds", self.seeds));
            }
        }
        out
    }

    /// The world settings the rows share (see [`RunReport::world_suffix`]).
    fn world_suffix(&self) -> String {
        let first = self.runs[0];
        if self.runs.iter().all(|r| r.aoi == first.aoi) {
            first.world_suffix()
        } else {
            RunReport { aoi: None, ..first.clone() }.world_suffix() + " · aoi per row"
        }
    }
}

/// Runs grouped by (profile, trace), in report order.
fn groups(runs: &[RunReport]) -> Vec<Group<'_>> {
    let mut keys: Vec<(&str, &str)> = Vec::new();
    for r in runs {
        let k = (r.profile.as_str(), r.trace.as_str());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .map(|(profile, trace)| {
            let in_group: Vec<&RunReport> = runs.iter().filter(|r| r.profile == profile && r.trace == trace).collect();
            let mut algos: Vec<String> = Vec::new();
            for r in &in_group {
                if !algos.contains(&r.label()) {
                    algos.push(r.label());
                }
            }
            // Every seed any row ran: a row whose runs failed on some
            // seeds does not shrink the group's count (it is named by
            // `Group::short_rows`).
            let seeds = in_group.iter().map(|r| r.seed).collect::<std::collections::BTreeSet<u64>>().len();
            Group { profile: profile.to_string(), trace: trace.to_string(), runs: in_group, algos, seeds }
        })
        .collect()
}

/// How a cell shows the spread across seeds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Spread {
    /// `mean±half` at the column's decimals.
    Full,
    /// `mean±half` with the half-width to two significant figures and the
    /// mean to the same place (`777.5±1889.8` → `800±1900`): the usual way
    /// to write a measurement with its uncertainty, and narrower.
    Rounded,
    /// The mean only.
    None,
}

/// `mean±half` rounded as [`Spread::Rounded`] says.
fn rounded_cell(mean: f64, half: f64, dec: usize) -> String {
    if !(half.is_finite() && half > 0.0) {
        return fmt(mean, dec);
    }
    // The place of the half-width's second significant figure.
    let place = half.log10().floor() as i32 - 1;
    if place >= 0 {
        let unit = 10f64.powi(place);
        let r = |v: f64| fmt((v / unit).round() * unit, 0);
        format!("{}±{}", r(mean), r(half))
    } else {
        let d = ((-place) as usize).min(dec);
        format!("{}±{}", fmt(mean, d), fmt(half, d))
    }
}

fn spread_cell(vals: &[f64], dec: usize, how: Spread) -> String {
    match (how, spread(vals)) {
        (Spread::Rounded, Some((mean, Some(ci)))) if !fmt(ci, dec).trim_start_matches(['0', '.']).is_empty() => {
            rounded_cell(mean, ci, dec)
        }
        _ => cell(vals, dec, how == Spread::Full),
    }
}

/// A cell: the mean of `vals`, with its 95% interval when `with_spread`
/// and it does not round to nothing; "–" without values.
fn cell(vals: &[f64], dec: usize, with_spread: bool) -> String {
    match spread(vals) {
        None => "–".to_string(),
        Some((mean, None)) => fmt(mean, dec),
        Some((mean, Some(ci))) => {
            let half = fmt(ci, dec);
            if !with_spread || half.trim_start_matches(['0', '.']).is_empty() {
                fmt(mean, dec)
            } else {
                format!("{}±{half}", fmt(mean, dec))
            }
        }
    }
}

/// Runs side by side: one column per algorithm, one table per (profile,
/// trace). Over several seeds each cell is the mean and the half-width of
/// its 95% confidence interval (`0.155±0.041`); the title says whether
/// players touched in the trace's ideal world (with contact, `vs ideal` is
/// chaotic).
pub fn compare(runs: &[RunReport], markdown: bool) -> String {
    let mut out = String::new();
    for group in groups(runs) {
        let Group { profile, trace, runs: in_group, algos, seeds } = &group;
        let first = in_group[0];
        let touch = in_group.iter().any(|r| r.metrics.trace_facts.contact_frames > 0);
        let contact = if touch { "players touch" } else { "contact-free" };
        let title = format!(
            "profile {profile} · trace {trace} ({contact}) · {} · {} clients · {}s · {} Hz · {} seed{}{}",
            group.transport(),
            first.clients,
            first.duration_s,
            first.tick_hz,
            seeds,
            if *seeds == 1 { "" } else { "s: mean ±95% confidence interval" },
            group.world_suffix() + &group.short_rows()
        );
        if markdown {
            out.push_str(&format!("**{title}**\n\n"));
        } else {
            out.push_str(&format!("{title}\n"));
        }
        let mut header = vec!["metric".to_string()];
        header.extend(algos.iter().cloned());
        let (mut marked, mut unmarked) = (false, false);
        let rows: Vec<Vec<String>> = rows_for(in_group.iter().copied())
            .into_iter()
            .map(|(label, get, dec)| {
                let mut row = vec![label.to_string()];
                let tied = marks(in_group, algos, (label, *get, *dec), *seeds);
                unmarked |= undecided(in_group, algos, &(label, label, *get, *dec), *seeds);
                for (a, &t) in algos.iter().zip(&tied) {
                    let vals: Vec<f64> =
                        in_group.iter().filter(|r| r.label() == *a).filter_map(|r| get(&r.metrics)).collect();
                    let c = cell(&vals, *dec, true);
                    marked |= t;
                    row.push(match (t, markdown) {
                        (false, _) => c,
                        (true, true) => format!("**{c}**"),
                        (true, false) => format!("{c}*"),
                    });
                }
                row
            })
            .collect();
        out.push_str(&render(&header, &rows, markdown));
        if marked {
            if markdown {
                out.push('\n');
            }
            out.push_str(&ties_note(if markdown { "bold" } else { "*" }, "row"));
        }
        if unmarked {
            out.push_str(UNDECIDED_NOTE);
        }
        if markdown {
            out.push_str(&options_taken(in_group, algos));
        } else {
            out.push_str(&options_set(in_group, algos));
        }
        out.push('\n');
    }
    out
}

/// The runs that did not complete, each with why, as a section of a
/// report (Markdown or text); empty when every run completed.
pub fn failed(failed: &[FailedRun], markdown: bool) -> String {
    if failed.is_empty() {
        return String::new();
    }
    let n = failed.len();
    let mut out = if markdown {
        format!("**Failed runs ({n}): not in the tables below**\n\n")
    } else {
        format!("failed runs ({n}): not in the tables below\n")
    };
    for f in failed {
        // One line each, whatever the error holds.
        let error = f.error.split_whitespace().collect::<Vec<_>>().join(" ");
        let what = if markdown { format!("`{}`", f.what.replace('`', "'")) } else { f.what.clone() };
        out.push_str(&format!("- {what}: {error}\n"));
    }
    out.push('\n');
    out
}

/// Under a Markdown table, for provenance: every option as it took
/// effect, defaults filled, per row.
fn options_taken(runs: &[&RunReport], algos: &[String]) -> String {
    let mut out = "\nOptions as they took effect:\n\n".to_string();
    for a in algos {
        let r = runs.iter().find(|r| r.label() == *a).expect("a row of the group has a run");
        let opts: Vec<String> = r.effective_options.iter().map(|(k, v)| format!("`{k}={v}`")).collect();
        out.push_str(&format!("- {a}: {}\n", if opts.is_empty() { "–".into() } else { opts.join(" ") }));
    }
    out
}

/// Under a text table: the options given on the command line, per
/// row (the rest are the defaults `list algorithms` shows; JSON,
/// CSV, Markdown and HTML carry every effective option).
fn options_set(runs: &[&RunReport], algos: &[String]) -> String {
    let mut parts = Vec::new();
    for a in algos {
        // What `--vary` set is in the row's name already.
        if let Some(r) = runs.iter().find(|r| r.label() == *a) {
            let opts: Vec<String> =
                r.options.iter().map(|(k, v)| format!("{k}={v}")).filter(|o| *o != r.variant).collect();
            if !opts.is_empty() {
                parts.push(format!("{a} {}", opts.join(" ")));
            }
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("options set: {} (the others at their defaults)\n", parts.join("; "))
    }
}

/// The columns of the algorithms-as-rows table: the name `--metrics` takes,
/// the header, the getter, decimals.
pub const COLUMNS: &[(&str, &str, Getter, usize)] = &[
    ("own-lat", "own lat ms", |m| stat(&m.input_latency_ms.own, |s| s.p50), 1),
    ("remote-lat", "rem lat ms", |m| stat(&m.input_latency_ms.remote, |s| s.p50), 1),
    ("own-lat-p99", "own p99 ms", |m| stat(&m.input_latency_ms.own, |s| s.p99), 1),
    ("remote-lat-p99", "rem p99 ms", |m| stat(&m.input_latency_ms.remote, |s| s.p99), 1),
    ("own-div", "own div m", |m| stat(&m.divergence_m.own, |s| s.mean), 3),
    ("remote-div", "rem div m", |m| stat(&m.divergence_m.remote, |s| s.mean), 3),
    ("own-div-p99", "own div p99", |m| stat(&m.divergence_m.own, |s| s.p99), 3),
    ("remote-div-p99", "rem div p99", |m| stat(&m.divergence_m.remote, |s| s.p99), 3),
    ("own-div-size", "own div sz", |m| stat(&m.divergence_m.own, |s| s.mean).and_then(|v| m.in_player_sizes(v)), 2),
    (
        "remote-div-size",
        "rem div sz",
        |m| stat(&m.divergence_m.remote, |s| s.mean).and_then(|v| m.in_player_sizes(v)),
        2,
    ),
    ("own-ideal", "own vs ideal m", |m| stat(&m.ideal_divergence_m.own, |s| s.mean), 3),
    ("remote-ideal", "rem vs ideal m", |m| stat(&m.ideal_divergence_m.remote, |s| s.mean), 3),
    ("frozen", "frozen ms", |m| Some(m.stalls.freeze_ms_per_client), 0),
    ("freezes", "freezes", |m| Some(m.stalls.freezes_per_client), 1),
    ("longest-stall", "longest stall ms", |m| Some(m.stalls.longest_ms), 0),
    ("lag", "lag ms", |m| m.lag_ms.as_ref().map(|l| l.behind_ms.mean), 0),
    ("snaps", "snaps/min", |m| m.rate(m.snaps.per_client_per_min), 1),
    ("jump", "largest jump m", |m| Some(m.snaps.largest_jump_m), 2),
    ("down", "down B/s", |m| Some(m.bandwidth.down_bytes_per_s), 0),
    ("up", "up B/s", |m| Some(m.bandwidth.up_bytes_per_s), 0),
    ("down-packets", "down pkt/s", |m| Some(m.bandwidth.down_packets_per_s), 1),
    ("server-up", "server up B/s", |m| m.server_bandwidth.as_ref().map(|b| b.up_bytes_per_s), 0),
    ("retransmissions", "retransmissions", |m| Some(m.network.retransmissions as f64), 0),
    ("corrections", "corrections", |m| Some(m.corrections as f64), 0),
    ("unshown", "unshown %", |m| Some(m.input_changes_unshown_pct.remote.max(m.input_changes_unshown_pct.own)), 2),
    ("desyncs", "desyncs", |m| Some(m.desyncs as f64), 0),
    ("dropped", "drop/min", |m| m.rate(m.input_fidelity.dropped_per_min), 1),
    ("late", "late/min", |m| m.rate(m.input_fidelity.late_per_min), 1),
    ("repeated", "rep/min", |m| m.rate(m.input_fidelity.repeated_per_min), 1),
    ("connect", "connect ms", |m| m.warmup.as_ref().and_then(|w| stat(&w.connect_ms, |s| s.mean)), 0),
    ("visible", "within radius %", |m| m.interest.as_ref().map(|i| 100.0 * i.visible_share), 2),
    ("shown", "shown per render", |m| m.interest.as_ref().map(|i| i.shown_per_render), 1),
    ("awareness", "awareness p50 ms", |m| m.interest.as_ref().and_then(|i| stat(&i.awareness_ms, |s| s.p50)), 0),
    ("awareness-max", "awareness max ms", |m| m.interest.as_ref().and_then(|i| stat(&i.awareness_ms, |s| s.max)), 0),
    ("leaks", "leak %", |m| m.interest.as_ref().map(|i| 100.0 * i.leak_share), 1),
];

/// The columns shown by default: the metrics that decide.
/// (Inputs dropped, when the table leaves them out, are said under it.)
pub const DEFAULT_COLUMNS: &[&str] = &["own-lat", "remote-lat", "own-div", "remote-div", "frozen", "snaps", "down"];

/// `compare`'s table for a terminal `width` columns wide: the full
/// metrics-as-rows table when it fits and no `columns` were asked for,
/// else algorithms as rows with `columns` (default [`DEFAULT_COLUMNS`]),
/// each cell the mean over seeds ± its 95% interval. `Err` names an unknown
/// column.
pub fn compare_fit(runs: &[RunReport], width: usize, columns: &[String]) -> Result<String, String> {
    if columns.is_empty() {
        let full = compare(runs, false);
        // (Titles may run long; the table must fit.)
        if full.lines().filter(|l| !l.contains(" · ")).all(|l| l.chars().count() <= width) {
            return Ok(full);
        }
    }
    by_row(runs, Some(width), columns, false)
}

/// Algorithms as rows with `columns` in Markdown, every cell the mean
/// over seeds ± its 95% interval: `compare --format md --metrics …`.
pub fn compare_columns_md(runs: &[RunReport], columns: &[String]) -> Result<String, String> {
    by_row(runs, None, columns, true)
}

/// Algorithms as rows with `columns` (default [`DEFAULT_COLUMNS`]); in
/// text fitted to `width` if given, each step said under the table.
fn by_row(runs: &[RunReport], width: Option<usize>, columns: &[String], markdown: bool) -> Result<String, String> {
    let names: Vec<&str> =
        if columns.is_empty() { DEFAULT_COLUMNS.to_vec() } else { columns.iter().map(String::as_str).collect() };
    let mut cols = Vec::new();
    for n in names {
        match COLUMNS.iter().find(|c| c.0 == n) {
            Some(c) => cols.push(c),
            None => {
                let known: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
                return Err(format!("--metrics {n}: expected one of {}", known.join(", ")));
            }
        }
    }
    let mut out = String::new();
    for group in groups(runs) {
        let Group { profile, trace, runs: in_group, algos, seeds } = &group;
        let first = in_group[0];
        let title = format!(
            "{profile} · {trace} · {} · {} clients · {}s · {} seed{}{}",
            group.transport(),
            first.clients,
            first.duration_s,
            seeds,
            if *seeds == 1 { "" } else { "s, mean ±95% CI" },
            group.world_suffix() + &group.short_rows()
        );
        out.push_str(&if markdown { format!("**{title}**\n\n") } else { format!("{title}\n") });
        // Fit: with the spread if it fits, else means only, else fewer
        // columns — each step said under the table.
        let column = |a: &str, get: Getter, dec: usize, how: Spread| {
            let vals: Vec<f64> = in_group.iter().filter(|r| r.label() == a).filter_map(|r| get(&r.metrics)).collect();
            spread_cell(&vals, dec, how)
        };
        let tied: Vec<Vec<bool>> =
            cols.iter().map(|(name, _, get, dec)| marks(in_group, algos, (name, *get, *dec), *seeds)).collect();
        let mut shown = cols.len();
        let mut how = Spread::Full;
        let mut gap = 2;
        let mark = |c: String| if markdown { format!("**{c}**") } else { format!("{c}*") };
        let table = loop {
            let mut header = vec!["algorithm".to_string()];
            header.extend(cols[..shown].iter().map(|c| c.1.to_string()));
            let rows: Vec<Vec<String>> = algos
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    let mut row = vec![a.to_string()];
                    row.extend(cols[..shown].iter().zip(&tied).map(|((name, _, get, dec), t)| {
                        let mut c = column(a, *get, *dec, how);
                        if t.get(k).copied().unwrap_or(false) {
                            c = mark(c);
                        }
                        if survivors_only(in_group, a, name).is_some() {
                            c.push_str(" †");
                        }
                        c
                    }));
                    row
                })
                .collect();
            let t = render_spaced(&header, &rows, markdown, gap);
            let Some(width) = width else { break t };
            if t.lines().all(|l| l.chars().count() <= width) || shown == 1 {
                break t;
            }
            // Rounded spreads fit one space apart before they go.
            match (how, gap) {
                (Spread::Full, _) => how = Spread::Rounded,
                (Spread::Rounded, 2) => gap = 1,
                (Spread::Rounded, _) => (how, gap) = (Spread::None, 2),
                (Spread::None, _) => shown -= 1,
            }
        };
        out.push_str(&table);
        if markdown {
            out.push('\n');
        }
        if tied[..shown].iter().flatten().any(|&t| t) {
            out.push_str(&ties_note(if markdown { "bold" } else { "*" }, "column"));
        }
        if cols[..shown].iter().any(|c| undecided(in_group, algos, c, *seeds)) {
            out.push_str(UNDECIDED_NOTE);
        }
        out.push_str(&survivors_note(in_group, algos, &cols[..shown]));
        out.push_str(&options_set(in_group, algos));
        if how == Spread::Rounded && *seeds > 1 {
            out.push_str(
                "(±95% intervals to two significant figures to fit the terminal; --format md shows them in full)\n",
            );
        }
        if how == Spread::None && *seeds > 1 {
            out.push_str("(the ±95% intervals did not fit the terminal: --format md or a wider $COLUMNS shows them)\n");
        }
        if shown < cols.len() {
            let left: Vec<&str> = cols[shown..].iter().map(|c| c.0).collect();
            out.push_str(&format!("(left out to fit: {}; pick columns with --metrics)\n", left.join(", ")));
        }
        let without_drops = !markdown && !cols[..shown].iter().any(|c| c.0 == "dropped");
        if without_drops {
            out.push_str(&dropped_note(in_group, algos));
        }
        let rates = ["snaps", "dropped", "late", "repeated"];
        if without_drops || cols[..shown].iter().any(|c| rates.contains(&c.0)) {
            out.push_str(&warmup_note(in_group, algos));
        }
        out.push('\n');
    }
    out.push_str(&rank_agreement(runs, &cols, markdown));
    Ok(out)
}

/// Under a `compare --vary profile=A,B,…`: per metric, Spearman's ρ
/// between the algorithms' means on A and on each other profile (see
/// [`super::ranks`]); nothing otherwise.
fn rank_agreement(runs: &[RunReport], cols: &[&(&str, &str, Getter, usize)], markdown: bool) -> String {
    let variants = super::ranks::profile_variants(runs);
    if variants.is_empty() {
        return String::new();
    }
    let mut header = vec!["metric".to_string(), "its seeds split".to_string()];
    header.extend(variants[1..].iter().map(|v| v.to_string()));
    let mut algos = 0;
    let rows: Vec<Vec<String>> = cols
        .iter()
        .map(|(_, label, get, _)| {
            let mut row = vec![label.to_string()];
            let (own, _) = super::ranks::split_half(runs, variants[0], *get);
            row.push(own.map_or("–".into(), |r| format!("{r:.2}")));
            for (rho, n) in super::ranks::against_first(runs, &variants, *get) {
                algos = algos.max(n);
                row.push(rho.map_or("–".into(), |r| format!("{r:.2}")));
            }
            row
        })
        .collect();
    let title = format!(
        "ranks against {}: Spearman's ρ over the algorithms' means ({algos} algorithms; 1: the same order)",
        variants[0]
    );
    let mut out = if markdown { format!("**{title}**\n\n") } else { format!("{title}\n") };
    out.push_str(&render_spaced(&header, &rows, markdown, 2));
    out.push_str("\n(its seeds split: the first profile's odd seeds against its even ones, the agreement its own runs allow)\n(–: fewer than three algorithms with a value on both, or one side all equal)\n\n");
    out
}

/// A latency column's changes left out: the mean share (%) of the own
/// (`own-lat…`) or remote changes algorithm `a` never showed, when over
/// [`SURVIVORS_PCT`] — its latency cell is over the changes shown only.
fn survivors_only(runs: &[&RunReport], a: &str, column: &str) -> Option<f64> {
    let own = match column {
        "own-lat" | "own-lat-p99" => true,
        "remote-lat" | "remote-lat-p99" => false,
        _ => return None,
    };
    let v: Vec<f64> = runs
        .iter()
        .filter(|r| r.label() == a)
        .map(|r| {
            let u = &r.metrics.input_changes_unshown_pct;
            if own {
                u.own
            } else {
                u.remote
            }
        })
        .collect();
    let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
    (mean > SURVIVORS_PCT).then_some(mean)
}

/// A latency cell over changes of which more than this share (%) were
/// never shown is marked: it describes the survivors only.
pub const SURVIVORS_PCT: f64 = 1.0;

/// Under a table with latency cells marked †: what each leaves out.
fn survivors_note(runs: &[&RunReport], algos: &[String], cols: &[&(&str, &str, Getter, usize)]) -> String {
    let mut left = Vec::new();
    for a in algos {
        for side in ["own", "remote"] {
            let column = if side == "own" { "own-lat" } else { "remote-lat" };
            let in_table = cols.iter().any(|c| c.0.starts_with(column));
            if let Some(pct) = survivors_only(runs, a, column).filter(|_| in_table) {
                left.push(format!("{a} {pct:.1}% of {side} changes"));
            }
        }
    }
    if left.is_empty() {
        return String::new();
    }
    format!("(†: latency of the shown changes only; never shown: {})\n", left.join(", "))
}

/// Under a table without the columns: the algorithms whose authority
/// never ran some of the inputs the harness sampled, with how many a
/// client-minute after the warm-ups (mean over seeds) were dropped (the
/// network lost a packet that may have carried them) and how many were
/// late (it lost nothing), or that none were.
fn dropped_note(runs: &[&RunReport], algos: &[String]) -> String {
    let listed = |f: &dyn Fn(&RunReport) -> f64, digits: usize| listed_means(runs, algos, f, digits);
    let dropped = listed(&|r| r.metrics.input_fidelity.dropped_per_min, 1);
    let late = listed(&|r| r.metrics.input_fidelity.late_per_min, 1);
    let mut out = String::new();
    let mut push = |line: String| out.push_str(&wrapped(&line, NOTE_WIDTH));
    if dropped.is_empty() && late.is_empty() {
        push("(after the warm-ups every algorithm ran every input it was given)".into());
    } else {
        if !dropped.is_empty() {
            push(format!("(inputs dropped a client-minute, a packet lost: {})", dropped.join(", ")));
        }
        if !late.is_empty() {
            push(format!("(inputs late a client-minute, nothing lost: {})", late.join(", ")));
        }
        push("(every other algorithm ran every input)".into());
    }
    out
}

/// "algorithm mean" for each of `algos` whose mean of `f` over its runs
/// (its seeds) is over 0, to `digits` decimals.
fn listed_means(runs: &[&RunReport], algos: &[String], f: &dyn Fn(&RunReport) -> f64, digits: usize) -> Vec<String> {
    algos
        .iter()
        .filter_map(|a| {
            let v: Vec<f64> = runs.iter().filter(|r| r.label() == *a).map(|r| f(r)).collect();
            let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
            (mean > 0.0).then(|| format!("{a} {mean:.digits$}"))
        })
        .collect()
}

/// Under a table with rates: what the warm-ups they leave out held, a run
/// (mean over seeds; see [`crate::metrics::WARMUP_US`]).
fn warmup_note(runs: &[&RunReport], algos: &[String]) -> String {
    let listed = |f: &dyn Fn(&RunReport) -> f64| listed_means(runs, algos, f, 1);
    let warm =
        |r: &RunReport, f: fn(&crate::metrics::Warmup) -> u64| r.metrics.warmup.as_ref().map_or(0.0, |w| f(w) as f64);
    let warm_unrun = listed(&|r| warm(r, |w| w.inputs_dropped + w.inputs_late));
    let warm_snaps = listed(&|r| warm(r, |w| w.snaps));
    let mut out = String::new();
    let mut push = |line: String| out.push_str(&wrapped(&line, NOTE_WIDTH));
    let after = runs.iter().find_map(|r| r.metrics.warmup.as_ref()).map(|w| w.after_connect_s);
    if let Some(after) = after {
        let mut held = Vec::new();
        if !warm_unrun.is_empty() {
            held.push(format!("inputs never run: {}", warm_unrun.join(", ")));
        }
        if !warm_snaps.is_empty() {
            held.push(format!("snap events: {}", warm_snaps.join(", ")));
        }
        let held = if held.is_empty() { "nothing".to_string() } else { held.join("; ") };
        push(format!(
            "(rates leave out each client's warm-up, up to {after:.0} s after it connected; in them, a run: {held})"
        ));
    }
    out
}

/// The width notes under a table are folded to.
const NOTE_WIDTH: usize = 100;

/// `line` folded at spaces into lines of at most `width` characters (a
/// word longer than that stands alone), the later ones indented by one,
/// each ending in a newline.
fn wrapped(line: &str, width: usize) -> String {
    let mut out = String::new();
    let mut current = String::new();
    for word in line.split(' ') {
        let len = current.chars().count();
        if len > 0 && len + 1 + word.chars().count() > width {
            out.push_str(&current);
            out.push('\n');
            current = " ".to_string();
        } else if len > 0 {
            current.push(' ');
        }
        current.push_str(word);
    }
    out.push_str(&current);
    out.push('\n');
    out
}

/// A simulated run and the same match live, side by side with the ratio
/// live / simulated (– where either is missing or the simulated value is 0).
pub fn against_sim(sim: &RunReport, live: &RunReport, markdown: bool) -> String {
    let mut out = String::new();
    let title = format!(
        "{} on {} · trace {} · seed {} · {} clients · {}s · {} Hz{} — simulated vs live",
        live.algorithm,
        live.profile,
        live.trace,
        live.seed,
        live.clients,
        live.duration_s,
        live.tick_hz,
        live.world_suffix()
    );
    if markdown {
        out.push_str(&format!("**{title}**\n\n"));
    } else {
        out.push_str(&format!("{title}\n"));
    }
    let header = ["metric", "simulated", "live", "live / sim"].map(String::from).to_vec();
    let rows: Vec<Vec<String>> = rows_for([sim, live])
        .into_iter()
        .map(|(l, g, d)| {
            let (a, b) = (g(&sim.metrics), g(&live.metrics));
            let show = |v: Option<f64>| v.map_or("–".to_string(), |v| fmt(v, *d));
            let ratio = match (a, b) {
                (Some(a), Some(b)) if a != 0.0 => format!("{:.2}", b / a),
                _ => "–".to_string(),
            };
            vec![l.to_string(), show(a), show(b), ratio]
        })
        .collect();
    out.push_str(&render(&header, &rows, markdown));
    out.push_str(&live_counters(live));
    out
}

fn live_counters(r: &RunReport) -> String {
    let Some(c) = &r.live else { return String::new() };
    let mut out = format!("relay: {} datagrams delivered, {} refused\n", c.relay_delivered, c.relay_refused);
    for (node, d) in c.dropped.iter().enumerate().filter(|(_, d)| d.total() > 0) {
        out.push_str(&format!(
            "node {node} dropped: {} from unknown addresses, {} oversized, {} truncated, {} garbage, {} forged, {} replayed, {} stale\n",
            d.unknown_address, d.oversized, d.truncated, d.garbage, d.forged, d.replayed, d.stale
        ));
        if d.stale > 0 {
            out.push_str(&format!(
                "warning: node {node} refused {} authentic datagrams as too old for its anti-replay window: a peer is being locked out or its datagrams arrive over 64 late\n",
                d.stale
            ));
        }
    }
    if let Some(h) = &c.hostile_sent {
        out.push_str(&format!(
            "hostile datagrams sent at node 0: {} from an unknown address, {} oversized, {} truncated, {} garbage, {} forged, {} replayed\n",
            h.unknown_address, h.oversized, h.truncated, h.garbage, h.forged, h.replayed
        ));
    }
    for (node, s) in c.sockets.iter().enumerate() {
        out.push_str(&socket_line(node, s, c.dropped.get(node).map_or(0, |d| d.total())));
    }
    if let Some(k) = c.relay_kernel_dropped.filter(|k| *k > 0) {
        out.push_str(&format!("relay sockets: {k} datagrams dropped by the kernel (receive buffers full)\n"));
    }
    out
}

/// `node N socket: S sent to it = R read (G dropped by its gate, A
/// admitted) + K dropped by the kernel (receive buffer full) + U unread`.
fn socket_line(node: usize, s: &crate::live::SocketCounts, gated: u64) -> String {
    let read = format!("{} read ({gated} dropped by its gate, {} admitted)", s.read, s.read.saturating_sub(gated));
    let kernel = match s.kernel_dropped {
        Some(k) => format!("{k} dropped by the kernel (receive buffer full)"),
        None => "kernel drops unknown (no /proc/net/udp)".into(),
    };
    match (s.sent_to, s.kernel_dropped) {
        (Some(sent), Some(k)) => {
            let unread = sent as i128 - s.read as i128 - k as i128;
            format!("node {node} socket: {sent} sent to it = {read} + {kernel} + {unread} unread at the end\n")
        }
        (Some(sent), None) => format!("node {node} socket: {sent} sent to it, {read}; {kernel}\n"),
        (None, _) => format!("node {node} socket: {read}, {kernel}\n"),
    }
}

/// One run as a two-column list, with its configuration on top.
pub fn single(r: &RunReport, markdown: bool) -> String {
    let mut out = String::new();
    let title = format!(
        "{} on {} · trace {} · seed {} · {} clients · {}s · {} Hz{}",
        r.algorithm,
        r.profile,
        r.trace,
        r.seed,
        r.clients,
        r.duration_s,
        r.tick_hz,
        r.world_suffix()
    );
    if markdown {
        out.push_str(&format!("**{title}**\n\n"));
    } else {
        out.push_str(&format!("{title}\nuplink: {}   downlink: {}\n", r.uplink, r.downlink));
    }
    let header = vec!["metric".to_string(), "value".to_string()];
    let rows: Vec<Vec<String>> = rows_for([r])
        .into_iter()
        .map(|(l, g, d)| vec![l.to_string(), g(&r.metrics).map_or("–".to_string(), |v| fmt(v, *d))])
        .collect();
    out.push_str(&render(&header, &rows, markdown));
    if r.metrics.per_client.len() > 1 {
        out.push('\n');
        let header = vec![
            "client".to_string(),
            "own latency p50 (ms)".into(),
            "own latency p99 (ms)".into(),
            "stalled (ms)".into(),
            "frozen (ms)".into(),
            "longest stall (ms)".into(),
            "snap events".into(),
            "inputs repeated".into(),
            "inputs dropped".into(),
            "inputs late".into(),
        ];
        let rows: Vec<Vec<String>> = r
            .metrics
            .per_client
            .iter()
            .take(CLIENTS_LISTED)
            .map(|c| {
                vec![
                    format!("player {}", c.player),
                    stat(&c.own_input_latency_ms, |s| s.p50).map_or("–".into(), |v| fmt(v, 1)),
                    stat(&c.own_input_latency_ms, |s| s.p99).map_or("–".into(), |v| fmt(v, 1)),
                    fmt(c.stall_ms, 0),
                    fmt(c.freeze_ms, 0),
                    fmt(c.longest_stall_ms, 0),
                    c.snap_events.to_string(),
                    c.inputs_repeated.to_string(),
                    c.inputs_dropped.to_string(),
                    c.inputs_late.to_string(),
                ]
            })
            .collect();
        out.push_str(&render(&header, &rows, markdown));
        if r.metrics.per_client.len() > CLIENTS_LISTED {
            out.push_str(&format!(
                "(and {} more clients: `--format json` lists every one)\n",
                r.metrics.per_client.len() - CLIENTS_LISTED
            ));
        }
    }
    if let Some(d) = &r.metrics.first_desync {
        out.push_str(&format!("\nfirst desync: frame {} on node {}: {}\n", d.frame, d.node, d.differences.join("; ")));
    }
    out.push_str(&live_counters(r));
    for v in &r.metrics.violations {
        out.push_str(&format!("violation: {v}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::wrapped;

    #[test]
    fn a_note_folds_at_spaces_within_its_width() {
        assert_eq!(wrapped("(a bb ccc)", 100), "(a bb ccc)\n");
        assert_eq!(wrapped("(a bb ccc dd)", 6), "(a bb\n ccc\n dd)\n");
        // A word longer than the width stands alone.
        assert_eq!(wrapped("(a abcdefgh b)", 4), "(a\n abcdefgh\n b)\n");
        for line in wrapped(&"word ".repeat(60), 30).lines() {
            assert!(line.chars().count() <= 30, "{line}");
        }
    }
    use super::*;

    #[test]
    fn rounded_spread_keeps_two_significant_figures() {
        assert_eq!(rounded_cell(777.5, 1889.8, 1), "800±1900");
        assert_eq!(rounded_cell(70.2, 7.7, 1), "70.2±7.7");
        assert_eq!(rounded_cell(153.9, 41.5, 1), "154±42");
        assert_eq!(rounded_cell(0.154, 0.580, 3), "0.15±0.58");
        assert_eq!(rounded_cell(0.1234, 0.0042, 3), "0.123±0.004");
        assert_eq!(rounded_cell(5.0, 0.0, 1), "5.0");
        assert_eq!(rounded_cell(-3.0, 1889.8, 1), "0±1900");
        assert_eq!(fmt(-0.001, 2), "0.00");
        assert_eq!(fmt(-0.5, 1), "-0.5");
    }

    /// `(seed, value)` runs of seeds 1.. .
    fn seeds(v: &[f64]) -> Vec<(u64, f64)> {
        v.iter().enumerate().map(|(i, &x)| (i as u64 + 1, x)).collect()
    }

    #[test]
    fn a_difference_every_seed_agrees_on_is_no_tie_past_the_margin() {
        // B is 1 higher than A on every seed (2% of A's mean, under the
        // 5% margin): as good. C is 10 higher on every seed: worse.
        let a = seeds(&[10.0, 50.0, 90.0]);
        let b = seeds(&[11.0, 51.0, 91.0]);
        let c = seeds(&[20.0, 60.0, 100.0]);
        assert_eq!(tied_best(&[a.clone(), b.clone(), c.clone()], false, 0.1), Some(vec![true, true, false]));
        // Higher is better: C is the best, A and B more than 5% below it.
        assert_eq!(tied_best(&[a, b, c], true, 0.1), Some(vec![false, false, true]));
    }

    #[test]
    fn a_wide_interval_is_never_as_good_as_the_best() {
        // 327 ± 470 ms beside 45.9 ± 1.7 ms: the seeds disagree, so the
        // difference is unknown, not small.
        let best = seeds(&[45.0, 46.5, 46.2]);
        let wide = seeds(&[40.0, 900.0, 41.0]);
        // Nor can the seeds say 45.9 is the best: the line marks none.
        assert_eq!(tied_best(&[wide, best.clone()], false, 0.1), Some(vec![false, false]));
        // +5, −6, +2 around a mean of 20: an interval of ±14, not a tie.
        let mid = seeds(&[10.0, 20.0, 30.0]);
        let noisy = seeds(&[15.0, 14.0, 32.0]);
        assert_eq!(tied_best(&[noisy, mid.clone()], false, 0.1), Some(vec![false, false]));
        // Beside one clearly worse, the clear best is marked alone.
        let worse = seeds(&[20.0, 30.0, 40.0]);
        assert_eq!(tied_best(&[worse, mid.clone()], false, 0.1), Some(vec![false, true]));
        // Within the margin on every seed, with an interval inside it: a tie.
        let close = seeds(&[10.1, 20.2, 30.1]);
        assert_eq!(tied_best(&[close, mid.clone()], false, 0.1), Some(vec![true, true]));
        // Nothing but ties: every one marked, none left unexplained.
        assert_eq!(tied_best(&[mid.clone(), mid.clone()], false, 0.1), Some(vec![true, true]));
        // Seeds not shared with the best are not compared.
        let elsewhere: Vec<(u64, f64)> = mid.iter().map(|&(s, v)| (s + 10, v)).collect();
        assert_eq!(tied_best(&[mid, elsewhere], false, 0.1), Some(vec![true, false]));
        assert_eq!(tied_best(&[vec![], vec![]], false, 0.1), None);
    }

    /// A run of `algo` on seed `seed`, its own latency `ms`.
    fn toy_run(algo: &str, seed: u64, ms: f64) -> RunReport {
        let v = serde_json::json!({
            "algorithm": algo, "profile": "lan", "trace": "zigzag", "seed": seed, "clients": 2,
            "duration_s": 1.0, "tick_hz": 60, "render_hz": [60, 60], "topology": "client-server",
            "uplink": "", "downlink": "", "options": {}, "transport": "unreliable",
            "metrics": serde_json::to_value(Metrics::default()).unwrap(),
        });
        let mut r: RunReport = serde_json::from_value(v).unwrap();
        r.metrics.input_latency_ms.own.mean = ms;
        r
    }

    /// Split in two, seeds that order four algorithms one way on the odd
    /// seeds and the other way on the even ones agree at ρ = −1.
    #[test]
    fn a_profile_split_by_its_seeds_ranks_against_itself() {
        let runs: Vec<RunReport> = (0..4)
            .flat_map(|k| {
                (1..=4u64).map(move |seed| {
                    let ms = if seed % 2 == 1 { k as f64 } else { 10.0 - k as f64 };
                    RunReport { variant: "profile=a".into(), ..toy_run(&format!("algo{k}"), seed, ms) }
                })
            })
            .collect();
        let own = |m: &Metrics| Some(m.input_latency_ms.own.mean);
        assert_eq!(crate::report::ranks::split_half(&runs, "profile=a", own), (Some(-1.0), 4));
        let same: Vec<RunReport> = runs
            .iter()
            .map(|r| RunReport { variant: r.variant.clone(), ..toy_run(&r.algorithm, r.seed, 1.0) })
            .collect();
        assert_eq!(crate::report::ranks::split_half(&same, "profile=a", own).0, None, "all equal: no order");
    }

    #[test]
    fn a_header_counts_every_seed_and_names_a_row_short_of_them() {
        // Three seeds; `naia` failed on two of them (its runs are absent).
        let mut runs: Vec<RunReport> = (1..=3).map(|s| toy_run("lockstep", s, 10.0)).collect();
        runs.insert(0, toy_run("naia", 2, 5.0));
        for text in [compare(&runs, true), compare(&runs, false), compare_columns_md(&runs, &[]).unwrap()] {
            let title = text.lines().next().unwrap();
            assert!(title.contains("3 seeds") && !title.contains("1 seed "), "{title}");
            assert!(title.contains("naia: 1 of 3 seeds"), "{title}");
            assert!(!title.contains("lockstep:"), "{title}");
        }
    }

    #[test]
    fn failed_runs_are_listed_one_line_each() {
        assert_eq!(failed(&[], true), "");
        let f = FailedRun { index: 1, what: "naia · lan · zigzag · seed 2".into(), error: "panic:\nunwrap".into() };
        let md = failed(std::slice::from_ref(&f), true);
        assert!(md.starts_with("**Failed runs (1)"), "{md}");
        assert!(md.contains("- `naia · lan · zigzag · seed 2`: panic: unwrap\n"), "{md}");
        assert!(failed(&[f], false).contains("- naia · lan · zigzag · seed 2: panic: unwrap"));
    }

    #[test]
    fn values_are_compared_as_the_table_shows_them() {
        assert_eq!(shown(0.00049, 3), 0.0);
        assert_eq!(shown(61.25, 1), 61.3);
        assert_eq!(better_higher("hit agreement on hits (%)"), Some(true));
        assert_eq!(better_higher("own input latency p50 (ms)"), Some(false));
        assert_eq!(better_higher("rollbacks"), None);
    }
}
