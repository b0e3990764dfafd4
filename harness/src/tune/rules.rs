//! Published rules of thumb, as settings of the options they speak about,
//! so that `tune` places each on the same front as its search. Sources in
//! the book's references (Valve's Source SDK, lightyear, Mirror, Photon
//! Quantum, GGPO/GGRS, fishfolk/bones).
//!
//! A rule applies to an algorithm that has the option it sets: `interp`
//! (ms behind the newest snapshot), `delay` (input delay, frames),
//! `window` (prediction window, frames), `max-ahead` (frames of input in
//! flight). The network enters as its measured round trip and the
//! standard deviation of its one-way delay; the send interval is the
//! tick's (the algorithms here send a state every tick).

/// What a rule reads of the network and the game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// Round trip, ms (median up + median down).
    pub rtt_ms: f64,
    /// Standard deviation of the one-way delay (downlink), ms.
    pub jitter_sd_ms: f64,
    /// The game's tick rate, Hz.
    pub tick_hz: u32,
}

/// A rule: its name and the options it sets.
pub type Rule = (String, Vec<(String, String)>);

/// The rules that apply to an algorithm with options `has`.
pub fn rules(has: &[&str], n: &Network) -> Vec<Rule> {
    let tick_ms = 1000.0 / n.tick_hz.max(1) as f64;
    let send_ms = tick_ms;
    let ticks = |ms: f64| (ms.max(0.0) / tick_ms).ceil() as u64;
    let ms = |v: f64| format!("{}", (v * 10.0).round() / 10.0);
    let mut out: Vec<Rule> = Vec::new();
    let mut add = |name: &str, opts: Vec<(&str, String)>| {
        if opts.iter().all(|(k, _)| has.contains(k)) {
            out.push((name.to_string(), opts.into_iter().map(|(k, v)| (k.to_string(), v)).collect()));
        }
    };
    // Valve Source: max(cl_interp, cl_interp_ratio / cl_updaterate).
    add("Source defaults (cl_interp 0.1, ratio 2)", vec![("interp", ms((100.0f64).max(2.0 * send_ms)))]);
    add("Source cl_interp 0, ratio 2", vec![("interp", ms(2.0 * send_ms))]);
    // lightyear: max(5 ms, 1.7 × send interval).
    add("lightyear (1.7 send intervals)", vec![("interp", ms((5.0f64).max(1.7 * send_ms)))]);
    // Mirror: send interval × ((send + σ) / send + 1).
    add(
        "Mirror dynamic ((send + σ)/send + 1)",
        vec![("interp", ms(send_ms * ((send_ms + n.jitter_sd_ms) / send_ms + 1.0)))],
    );
    // Photon Quantum: Min 0 + ceil(max(0, (RTT − 100) · 0.5) / tick), window 60.
    add(
        "Photon Quantum (ping start 100 ms)",
        vec![("delay", ticks((n.rtt_ms - 100.0) * 0.5).to_string()), ("window", "60".into())],
    );
    // lightyear balanced: delay covers up to 3 ticks of latency, prediction
    // 7 more, then more delay.
    let latency = ticks(n.rtt_ms);
    let delay = if latency <= 3 {
        latency
    } else if latency <= 10 {
        3
    } else {
        latency - 7
    };
    add("lightyear balanced (3 + 7 ticks)", vec![("delay", delay.to_string()), ("window", "7".into())]);
    // GGPO / GGRS: delay "typically 2–4", max prediction 8.
    add("GGRS docs (delay 2, prediction 8)", vec![("delay", "2".into()), ("window", "8".into())]);
    // fishfolk/bones#354: 2 frames of delay, 7 of prediction.
    add("bones (delay 2, prediction 7)", vec![("delay", "2".into()), ("window", "7".into())]);
    // DOOM: BACKUPTICS / 2.
    add("DOOM (BACKUPTICS/2)", vec![("max-ahead", "6".into())]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 60 Hz and 120 ms round trip, 5 ms σ: the numbers the sources give.
    #[test]
    fn rules_at_sixty_hertz() {
        let n = Network { rtt_ms: 120.0, jitter_sd_ms: 5.0, tick_hz: 60 };
        let interp: Vec<Rule> = rules(&["interp"], &n);
        let get = |name: &str| interp.iter().find(|r| r.0.starts_with(name)).unwrap().1[0].1.clone();
        assert_eq!(get("Source defaults"), "100");
        assert_eq!(get("Source cl_interp 0"), "33.3");
        assert_eq!(get("lightyear"), "28.3");
        assert_eq!(get("Mirror"), "38.3");
        assert!(interp.iter().all(|r| r.1[0].0 == "interp"));
        let frames = rules(&["delay", "window"], &n);
        let get = |name: &str| frames.iter().find(|r| r.0.starts_with(name)).unwrap().1.clone();
        // (120 − 100) · 0.5 = 10 ms: one tick.
        assert_eq!(get("Photon")[0].1, "1");
        // 120 ms is 8 ticks: 3 of delay, the rest predicted.
        assert_eq!(get("lightyear balanced")[0].1, "3");
        // 200 ms is 12 ticks: 5 of delay, 7 predicted.
        let far = rules(&["delay", "window"], &Network { rtt_ms: 200.0, ..n });
        assert_eq!(far.iter().find(|r| r.0.starts_with("lightyear")).unwrap().1[0].1, "5");
        assert!(rules(&["redundancy"], &n).is_empty(), "no rule for an option none speaks of");
    }
}
