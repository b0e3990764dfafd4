//! Assembling a run's [`Metrics`] from what the recorder observed: the
//! tallies merged, the claims still waiting settled, shares, rates and
//! per-client numbers computed once, at the end.

use super::*;

impl Recorder {
    /// The metrics of the run, after `duration_us` of simulated time.
    pub fn finish(self, duration_us: u64, algorithm_steps: u64, links: &[LinkStats], delivered: u64) -> Metrics {
        self.finish_with_distributions(duration_us, algorithm_steps, links, delivered).0
    }

    /// The metrics of the run, and the distributions they summarise.
    pub fn finish_with_distributions(
        mut self,
        duration_us: u64,
        algorithm_steps: u64,
        links: &[LinkStats],
        delivered: u64,
    ) -> (Metrics, RunDistributions) {
        self.unscored = self.pending.len() as u64;
        let waiting = self.settle_claims();
        let tally = self.merged_tally();
        let trace_facts = self.trace_facts();
        let secs = duration_us as f64 / 1e6;
        for r in &mut self.stalls {
            r.close();
        }
        let first_client = self.topology.has_server() as usize;
        let snap_events: u64 = self.screens.iter().map(|s| s.snap_events).sum();
        let connected = self.ever_connected();
        let warmup = self.warmup(duration_us, &connected);
        let [inputs_unrun, inputs_repeated] = [0, 1].map(|k| self.second_series(tally.seconds.len(), k));
        let fidelity = self.fidelity.finish(warmup.counted_client_s, &connected);

        let split = |h: &[Distribution; 2], scale: f64| OwnRemote { own: h[1].stats(scale), remote: h[0].stats(scale) };
        let (stalls, (unshown, in_flight), network) =
            (self.stalls(), self.unshown(duration_us, &waiting), self.network_counts(links, delivered));
        let (checks, per_client) =
            (self.checks.as_ref().map(|c| self.checks_found(c, &tally)), self.per_client(&fidelity));
        let metrics = Metrics {
            divergence_m: split(&tally.div, 1e6),
            player_size_m: round4(2.0 * self.game.config().half_size as f64 / 1e6),
            ideal_divergence_m: split(&tally.ideal_div, 1e6),
            desyncs: self.desynced_frames.iter().filter(|d| **d).count() as u64,
            corrections: self.corrections,
            rollbacks: self.rollbacks,
            resimulated_frames: self.resimulated,
            snaps: Snaps {
                events: snap_events,
                per_client_per_min: crate::metrics::per_client_minute(
                    snap_events - warmup.snaps,
                    warmup.counted_client_s,
                ),
                largest_jump_m: round4(tally.largest_jump as f64 / 1e6),
                renders: tally.snap_renders,
            },
            stalls,
            lag_ms: (!tally.lag.is_empty()).then(|| Lag {
                behind_ms: tally.lag.stats(1e3),
                at_end_ms: round4(self.screens.iter().filter_map(|s| s.last_lag).max().unwrap_or(0) as f64 / 1e3),
            }),
            input_fidelity: fidelity.clone(),
            warmup: Some(warmup),
            impossible: Impossible {
                renders: tally.impossible.0,
                share: round4(tally.impossible.0 as f64 / tally.impossible.1.max(1) as f64),
                deepest_m: round4(tally.impossible.2 as f64 / 1e6),
                deepest_at: tally.deepest_at.map(located),
            },
            trace_facts,
            input_changes_unshown_pct: unshown,
            input_changes_in_flight_pct: in_flight,
            bandwidth: bandwidth(&self.traffic[first_client..], secs),
            server_bandwidth: self.topology.has_server().then(|| bandwidth(&self.traffic[..1], secs)),
            input_latency_ms: split(&tally.latency, 1e3),
            sim_steps_per_s: round4(algorithm_steps as f64 / secs),
            unscored_samples: self.unscored,
            input_mismatches: self.input_mismatches,
            first_desync: self.first_desync,
            violations: self.violations,
            network,
            clock_offset_error: (!self.clock_err.is_empty()).then(|| ClockError {
                mean_signed_ms: round4(self.clock_err_sum as f64 / self.clock_err.len() as f64 / 1e3),
                abs_ms: self.clock_err.stats(1e3),
            }),
            checks,
            timeline: Timeline {
                own_divergence_m: tally.seconds.iter().map(|s| mean_m(s.own)).collect(),
                remote_divergence_m: tally.seconds.iter().map(|s| mean_m(s.remote)).collect(),
                corrections: self.seconds.iter().map(|s| s.corrections).collect(),
                snaps: tally.seconds.iter().map(|s| s.snaps).collect(),
                inputs_unrun,
                inputs_repeated,
                lag_ms: match self.topology.confirms() {
                    true => tally
                        .seconds
                        .iter()
                        .map(|s| (s.lag.1 > 0).then(|| round4(s.lag.0 as f64 / 1e3 / s.lag.1 as f64)))
                        .collect(),
                    false => Vec::new(),
                },
            },
            latency_cdf_ms: LatencyCdf { own: tally.latency[1].cdf(1e3), remote: tally.latency[0].cdf(1e3) },
            latency_histograms: None,
            per_client,
            final_divergence_m: FinalDivergence {
                own: round4(self.screens.iter().map(|s| s.last_div[1]).max().unwrap_or(0) as f64 / 1e6),
                remote: round4(self.screens.iter().map(|s| s.last_div[0]).max().unwrap_or(0) as f64 / 1e6),
            },
            hit_agreement: (self.hits.shots > 0).then(|| HitAgreement {
                share: (self.hits.hit_shots > 0)
                    .then(|| round4(self.hits.agreed_hits as f64 / self.hits.hit_shots as f64)),
                ..self.hits.clone()
            }),
            interest: self.interest.take().map(|i| {
                let mut m = i.finish(Micros(duration_us));
                let (sum, ticks) = self.index_work;
                m.index_examined_per_tick = (ticks > 0).then(|| round4(sum as f64 / ticks as f64));
                m
            }),
        };
        // The recorder ends here: its histograms move into the
        // distributions (none is copied or rebuilt).
        let mut d = RunDistributions::default();
        let [latency_remote, latency_own] = tally.latency;
        let [div_remote, div_own] = tally.div;
        let [ideal_remote, ideal_own] = tally.ideal_div;
        d.push("latency-own", "input_latency_ms.own", Unit::Micros, latency_own);
        d.push("latency-remote", "input_latency_ms.remote", Unit::Micros, latency_remote);
        d.push("divergence-own", "divergence_m.own", Unit::Micrometres, div_own);
        d.push("divergence-remote", "divergence_m.remote", Unit::Micrometres, div_remote);
        d.push("ideal-divergence-own", "ideal_divergence_m.own", Unit::Micrometres, ideal_own);
        d.push("ideal-divergence-remote", "ideal_divergence_m.remote", Unit::Micrometres, ideal_remote);
        if !tally.lag.is_empty() {
            d.push("lag", "lag_ms.behind_ms", Unit::Micros, tally.lag);
        }
        if !self.clock_err.is_empty() {
            d.push("clock-error", "clock_offset_error.abs_ms", Unit::Micros, self.clock_err);
        }
        d.per_client = self.screens.into_iter().take(self.players).map(|s| s.own_latency).collect();
        (metrics, d)
    }

    /// Per player, whether its client ever connected.
    fn ever_connected(&self) -> Vec<bool> {
        (0..self.players).map(|p| self.screens.get(p).is_some_and(|s| s.connected.is_some())).collect()
    }

    /// The warm-ups: each client's from the start to
    /// [`crate::metrics::WARMUP_US`] after it connected (a client that
    /// never connected, as one that connected at the start), what happened
    /// in them, and the client-seconds after them.
    /// `connected`: per player, whether its client ever connected.
    fn warmup(&self, duration_us: u64, connected: &[bool]) -> crate::metrics::Warmup {
        let clients = &self.screens[..self.players.min(self.screens.len())];
        let mut connect: Distribution = Distribution::default();
        let mut counted_us = 0u64;
        for s in clients {
            if let Some(c) = s.connected {
                connect.record(c);
            }
            counted_us += duration_us.saturating_sub(s.connected.unwrap_or(0) + crate::metrics::WARMUP_US);
        }
        let [repeated, dropped, late] = self.fidelity.warmup(connected);
        crate::metrics::Warmup {
            after_connect_s: round4(crate::metrics::WARMUP_US as f64 / 1e6),
            connect_ms: connect.stats(1e3),
            never_connected: clients.iter().filter(|s| s.connected.is_none()).count() as u64,
            counted_client_s: round4(counted_us as f64 / 1e6),
            snaps: clients
                .iter()
                .map(|s| s.warmup_snaps[0] + if s.connected.is_some() { s.warmup_snaps[1] } else { 0 })
                .sum(),
            inputs_dropped: dropped,
            inputs_late: late,
            inputs_repeated: repeated,
        }
    }

    /// The input-fidelity series `k` (0 never run, 1 repeated), `len`
    /// seconds long at least.
    fn second_series(&self, len: usize, k: usize) -> Vec<u32> {
        let s = self.fidelity.seconds();
        (0..len.max(s.len())).map(|i| s.get(i).map_or(0, |v| v[k])).collect()
    }

    /// Every part's tally as one, handed on to the conformance checks and
    /// the interest tracker, its timeline as long as the recorder's.
    fn merged_tally(&mut self) -> Tally {
        // Moved out, not taken: a default tally would build histograms
        // only to drop them.
        let mut parts = std::mem::take(&mut self.tallies).into_iter();
        let mut tally = parts.next().unwrap_or_default();
        for t in parts {
            tally.merge(&t);
        }
        if let Some(c) = self.checks.as_mut() {
            c.off_path_max = c.off_path_max.max(tally.off_path.0);
            c.overclaim = tally.overclaim;
            c.located = tally.located;
            c.named_ahead = tally.named_ahead;
            c.stepped = tally.stepped;
            c.first_step = tally.first_step;
            c.off_path_at = tally.off_path_at;
            c.own_ideal_far = tally.own_ideal_far;
            c.far = tally.far;
            c.snap_at = tally.snap_at;
            c.path_samples += tally.off_path.1;
        }
        if let Some(i) = self.interest.as_mut() {
            i.absorb(&tally.shown);
        }
        // The timeline covers every second a correction or a score touched.
        let seconds = self.seconds.len().max(tally.seconds.len());
        self.seconds.resize(seconds, Second::default());
        tally.seconds.resize(seconds, SecondSums::default());
        tally
    }

    /// The ideal world run to the trace's end: its facts are the whole
    /// trace's.
    fn trace_facts(&mut self) -> TraceFacts {
        self.ideal.advance(&self.game, &self.trace, usize::MAX);
        TraceFacts {
            effective_changes: self.ideal.changes.iter().map(|c| c.len() as u64).sum(),
            ineffective_changes: self.ideal.ineffective,
            contact_frames: self.ideal.contact_frames,
        }
    }

    /// Judges the renders still waiting for the authority against the
    /// frames it published (see [`Judge::settle`]); per screen and player,
    /// the newest input the renders left waiting name.
    fn settle_claims(&mut self) -> Vec<Vec<u32>> {
        let judge = judge!(self, false);
        let tally = &mut self.tallies[0];
        self.screens.iter_mut().enumerate().map(|(viewer, screen)| judge.settle(screen, tally, viewer)).collect()
    }

    /// The shares of input changes a screen still showing the player never
    /// showed, and had in flight at the end (`waiting`: per screen and
    /// player, the newest input its waiting renders name). A change counts
    /// as never shown once the run outlasted it by the grace: a fixed span
    /// (a horizon that followed the run's own latency would let a worse
    /// run count fewer changes) — unless a render drew it and waits for
    /// the authority to apply it.
    fn unshown(&self, duration_us: u64, waiting: &[Vec<u32>]) -> (OwnRemotePct, OwnRemotePct) {
        // [remote, own] × [unshown, eligible, in flight, all]
        let mut counts = [[0u64; 4]; 2];
        let horizon = duration_us.saturating_sub(UNSHOWN_GRACE_US);
        for (viewer, screen) in self.screens.iter().enumerate() {
            for e in screen.last_view.iter().filter(|e| (e.id as usize) < self.players) {
                let id = e.id as usize;
                let own = (id == viewer) as usize;
                let changes = &self.ideal.changes[id];
                let all = changes.partition_point(|&c| c <= duration_us);
                let shown = screen.memory.shown_changes(id).min(all);
                // Changes up to the newest input a waiting render names.
                let named = match waiting.get(viewer).and_then(|w| w.get(id)) {
                    Some(&seq) if seq > 0 => {
                        let sampled = self.samples[id].get(seq as usize - 1).map_or(u64::MAX, |s| s.0 .0);
                        changes.partition_point(|&c| c <= sampled).max(shown)
                    }
                    _ => shown,
                };
                // Made before the horizon: never shown, or in flight.
                let before = changes.partition_point(|&c| c <= horizon);
                let never = before.saturating_sub(named);
                let waits = named.min(before) - shown.min(before);
                counts[own][0] += never as u64;
                counts[own][1] += (before - waits) as u64;
                counts[own][2] += (all - shown - never) as u64;
                counts[own][3] += all as u64;
            }
        }
        let pct = |part: u64, whole: u64| if whole == 0 { 0.0 } else { round4(100.0 * part as f64 / whole as f64) };
        let share = |i: usize, j: usize| OwnRemotePct {
            own: pct(counts[1][i], counts[1][j]),
            remote: pct(counts[0][i], counts[0][j]),
        };
        (share(0, 1), share(2, 3))
    }

    /// The clients' stalls (closed), per client.
    fn client_stalls(&self) -> &[Runs] {
        &self.stalls[self.topology.has_server() as usize..]
    }

    /// Stalls and freezes per client.
    fn stalls(&self) -> Stalls {
        let tick_ms = self.node_tick_us as f64 / 1e3;
        let client_stalls = self.client_stalls();
        let n = self.players.max(1) as f64;
        let total = |f: fn(&Runs) -> u64| client_stalls.iter().map(f).sum::<u64>() as f64;
        Stalls {
            stalls_per_client: round4(total(|r| r.count) / n),
            stalled_ms_per_client: round4(total(|r| r.marked) * tick_ms / n),
            freezes_per_client: round4(total(|r| r.long_count) / n),
            freeze_ms_per_client: round4(total(|r| r.long_marked) * tick_ms / n),
            freezes: total(|r| r.long_count) as u64,
            longest_ms: round4(client_stalls.iter().map(|r| r.longest).max().unwrap_or(0) as f64 * tick_ms),
        }
    }

    /// What the links did to the packets, summed.
    fn network_counts(&self, links: &[LinkStats], delivered: u64) -> NetworkCounts {
        let mut net = NetworkCounts { packets_delivered: delivered, ..Default::default() };
        for l in links {
            net.lost += l.lost;
            net.duplicated += l.duplicated;
            net.reordered += l.reordered;
            net.corrupted += l.corrupted;
            net.limit_dropped += l.limit_dropped;
            net.fragmented += l.fragmented;
            net.fragment_lost += l.fragment_lost;
        }
        net.packets_sent = self.traffic.iter().map(|t| t.up_packets).sum();
        net
    }

    /// What the conformance checks found.
    fn checks_found(&self, c: &CheckState, tally: &Tally) -> Checks {
        let first_client = self.topology.has_server() as usize;
        Checks {
            off_path_max_m: (c.path_samples > 0).then(|| round4(c.off_path_max as f64 / 1e6)),
            off_path_at: c.off_path_at.map(located),
            frames_after_mark: c
                .mark_us
                .map(|_| c.last[first_client..].iter().zip(&c.at_mark[first_client..]).map(|(l, m)| l - m).collect()),
            own_named_ahead: c.named_ahead,
            behind_share: (c.located.0 > 0).then(|| round4(c.located.1 as f64 / c.located.0 as f64)),
            overclaim: c.overclaim.map(|o| Overclaim {
                at: located(o.spot),
                named_frame: o.named as u64,
                shown_frame: round4(o.shown),
                behind_ms: round4(o.spot.measure as f64 * self.dt_us as f64 / 1e6),
            }),
            stepped_share: (!self.topology.confirms() && c.stepped.1 > 0)
                .then(|| round4(c.stepped.0 as f64 / (c.stepped.0 + c.stepped.1) as f64)),
            first_step: c.first_step.map(located),
            own_ideal_farthest: c.own_ideal_far.map(farthest),
            own_farthest: c.far[1].map(farthest),
            remote_farthest: c.far[0].map(farthest),
            final_farthest: self.screens.iter().flat_map(|s| s.last_far).fold(None, Spot::worse).map(farthest),
            largest_snap: c.snap_at.map(farthest),
            divergence_grid_m: {
                let q = QuantileGrid::quantiles();
                QuantileGrid { own: tally.div[1].values_at(&q, 1e6), remote: tally.div[0].values_at(&q, 1e6) }
            },
        }
    }

    /// Each player's own numbers.
    fn per_client(&self, fidelity: &InputFidelity) -> Vec<ClientMetrics> {
        let tick_ms = self.node_tick_us as f64 / 1e3;
        let client_stalls = self.client_stalls();
        (0..self.players)
            .map(|p| {
                let r = client_stalls.get(p).cloned().unwrap_or_else(|| Runs::new(1));
                let [repeated, dropped] = fidelity.per_client.get(p).copied().unwrap_or_default();
                let late = fidelity.late_per_client.get(p).copied().unwrap_or_default();
                ClientMetrics {
                    player: p,
                    own_input_latency_ms: self.screens[p].own_latency.stats(1e3),
                    stall_ms: round4(r.marked as f64 * tick_ms),
                    freeze_ms: round4(r.long_marked as f64 * tick_ms),
                    freezes: r.long_count,
                    longest_stall_ms: round4(r.longest as f64 * tick_ms),
                    snap_events: self.screens[p].snap_events,
                    inputs_repeated: repeated,
                    inputs_dropped: dropped,
                    inputs_late: late,
                    lag_at_end_ms: self.screens[p].last_lag.map(|l| round4(l as f64 / 1e3)),
                    connected_ms: self.screens[p].connected.map(|c| round4(c as f64 / 1e3)),
                }
            })
            .collect()
    }
}

/// Bytes and packets per second, up and down, the mean of `traffic`'s
/// nodes over `secs`.
fn bandwidth(traffic: &[Traffic], secs: f64) -> Bandwidth {
    let n = traffic.len().max(1) as f64;
    let sum = |f: fn(&Traffic) -> u64| traffic.iter().map(f).sum::<u64>() as f64 / n / secs;
    Bandwidth {
        up_bytes_per_s: round4(sum(|t| t.up_bytes)),
        down_bytes_per_s: round4(sum(|t| t.down_bytes)),
        up_packets_per_s: round4(sum(|t| t.up_packets)),
        down_packets_per_s: round4(sum(|t| t.down_packets)),
    }
}

fn located(s: Spot) -> Located {
    Located {
        client: s.viewer,
        entity: s.entity,
        t_s: round4(s.t as f64 / 1e6),
        position_m: s.at.map(|v| round4(v as f64 / 1e6)),
    }
}

/// A located render and its distance (a [`Spot`] of µm).
fn farthest(s: Spot) -> Farthest {
    Farthest { at: located(s), distance_m: round4(s.measure as f64 / 1e6) }
}

fn mean_m((sum, n): (u128, u64)) -> f64 {
    round4(sum as f64 / 1e6 / n.max(1) as f64)
}
