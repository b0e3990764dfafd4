//! `report.csv`: one row per run, flat columns, for spreadsheets and
//! scripts.

use super::RunReport;

/// Column names and how to read each from a run.
type Column = (&'static str, fn(&RunReport) -> String);

fn num(x: f64) -> String {
    format!("{x}")
}

const COLUMNS: &[Column] = &[
    ("index", |r| r.index.to_string()),
    ("algorithm", |r| r.algorithm.clone()),
    ("profile", |r| r.profile.clone()),
    ("trace", |r| r.trace.clone()),
    ("seed", |r| r.seed.to_string()),
    ("clients", |r| r.clients.to_string()),
    ("duration_s", |r| num(r.duration_s)),
    ("tick_hz", |r| r.tick_hz.to_string()),
    ("transport", |r| r.transport.clone()),
    ("topology", |r| r.topology.clone()),
    ("options", |r| {
        let o = if r.effective_options.is_empty() { &r.options } else { &r.effective_options };
        o.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" ")
    }),
    ("render_hz", |r| r.render_hz.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(" ")),
    ("own_latency_p50_ms", |r| num(r.metrics.input_latency_ms.own.p50)),
    ("own_latency_p99_ms", |r| num(r.metrics.input_latency_ms.own.p99)),
    ("remote_latency_p50_ms", |r| num(r.metrics.input_latency_ms.remote.p50)),
    ("remote_latency_p99_ms", |r| num(r.metrics.input_latency_ms.remote.p99)),
    ("own_changes_unshown_pct", |r| num(r.metrics.input_changes_unshown_pct.own)),
    ("remote_changes_unshown_pct", |r| num(r.metrics.input_changes_unshown_pct.remote)),
    ("own_divergence_mean_m", |r| num(r.metrics.divergence_m.own.mean)),
    ("own_divergence_p99_m", |r| num(r.metrics.divergence_m.own.p99)),
    ("remote_divergence_mean_m", |r| num(r.metrics.divergence_m.remote.mean)),
    ("remote_divergence_p99_m", |r| num(r.metrics.divergence_m.remote.p99)),
    ("own_ideal_divergence_mean_m", |r| num(r.metrics.ideal_divergence_m.own.mean)),
    ("remote_ideal_divergence_mean_m", |r| num(r.metrics.ideal_divergence_m.remote.mean)),
    ("snap_events_per_client_min", |r| num(r.metrics.snaps.per_client_per_min)),
    ("largest_jump_m", |r| num(r.metrics.snaps.largest_jump_m)),
    ("impossible_share", |r| num(r.metrics.impossible.share)),
    ("impossible_deepest_m", |r| num(r.metrics.impossible.deepest_m)),
    ("corrections", |r| r.metrics.corrections.to_string()),
    ("rollbacks", |r| r.metrics.rollbacks.to_string()),
    ("resimulated_frames", |r| r.metrics.resimulated_frames.to_string()),
    ("stalled_ms_per_client", |r| num(r.metrics.stalls.stalled_ms_per_client)),
    ("frozen_ms_per_client", |r| num(r.metrics.stalls.freeze_ms_per_client)),
    ("freezes", |r| r.metrics.stalls.freezes.to_string()),
    ("longest_stall_ms", |r| num(r.metrics.stalls.longest_ms)),
    ("lag_mean_ms", |r| r.metrics.lag_ms.as_ref().map_or(String::new(), |l| num(l.behind_ms.mean))),
    ("lag_max_ms", |r| r.metrics.lag_ms.as_ref().map_or(String::new(), |l| num(l.behind_ms.max))),
    ("lag_at_end_ms", |r| r.metrics.lag_ms.as_ref().map_or(String::new(), |l| num(l.at_end_ms))),
    ("inputs_repeated", |r| r.metrics.input_fidelity.repeated.to_string()),
    ("inputs_dropped", |r| r.metrics.input_fidelity.dropped.to_string()),
    ("inputs_late", |r| r.metrics.input_fidelity.late.to_string()),
    ("desyncs", |r| r.metrics.desyncs.to_string()),
    ("up_bytes_per_s", |r| num(r.metrics.bandwidth.up_bytes_per_s)),
    ("down_bytes_per_s", |r| num(r.metrics.bandwidth.down_bytes_per_s)),
    ("up_packets_per_s", |r| num(r.metrics.bandwidth.up_packets_per_s)),
    ("down_packets_per_s", |r| num(r.metrics.bandwidth.down_packets_per_s)),
    ("retransmissions", |r| r.metrics.network.retransmissions.to_string()),
    ("fragmented", |r| r.metrics.network.fragmented.to_string()),
    ("fragment_lost", |r| r.metrics.network.fragment_lost.to_string()),
    ("sim_steps_per_s", |r| num(r.metrics.sim_steps_per_s)),
    ("hit_agreement", |r| r.metrics.hit_agreement.as_ref().and_then(|h| h.share).map_or(String::new(), num)),
    ("hit_shots", |r| r.metrics.hit_agreement.as_ref().map_or(String::new(), |h| h.hit_shots.to_string())),
    ("contact_frames", |r| r.metrics.trace_facts.contact_frames.to_string()),
    ("clock_error_mean_ms", |r| r.metrics.clock_offset_error.as_ref().map_or(String::new(), |c| num(c.mean_signed_ms))),
    ("arena", |r| r.arena.clone()),
    ("arena_scale", |r| num(r.game.arena_scale)),
    ("game", |r| r.game.name.clone()),
    ("max_speed_m_s", |r| num(r.game.max_speed)),
    ("player_size_m", |r| num(r.game.player_size)),
    ("remote_divergence_mean_player_sizes", |r| {
        r.metrics.in_player_sizes(r.metrics.divergence_m.remote.mean).map_or(String::new(), num)
    }),
    ("corrupted", |r| if r.deliver_corrupted { "delivered" } else { "dropped" }.to_string()),
    ("bots", |r| r.bots.to_string()),
    ("aoi", |r| r.aoi.as_ref().map_or(String::new(), |a| a.method.clone())),
    ("aoi_radius_m", |r| r.aoi.as_ref().map_or(String::new(), |a| num(a.radius_m))),
    ("visible_share", |r| r.metrics.interest.as_ref().map_or(String::new(), |i| num(i.visible_share))),
    ("awareness_p50_ms", |r| r.metrics.interest.as_ref().map_or(String::new(), |i| num(i.awareness_ms.p50))),
    ("longest_unaware_ms", |r| r.metrics.interest.as_ref().map_or(String::new(), |i| num(i.longest_unaware_ms))),
    ("leak_share", |r| r.metrics.interest.as_ref().map_or(String::new(), |i| num(i.leak_share))),
];

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The CSV document (RFC 4180 quoting).
pub fn render(runs: &[RunReport]) -> String {
    let mut out = COLUMNS.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(",");
    out.push('\n');
    for r in runs {
        out += &COLUMNS.iter().map(|(_, get)| field(&get(r))).collect::<Vec<_>>().join(",");
        out.push('\n');
    }
    out
}
