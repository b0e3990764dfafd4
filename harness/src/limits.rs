//! The bounds every input and every run configuration is held to before
//! anything is allocated for it, so no argument — however short — can make
//! syncbench read, allocate or run without end. Each limit is named in the
//! message that refuses it.

use crate::error::{InputError, Source};
use std::io::Read;
use std::path::Path;

/// Profile and trace files, at most (a profile with 10,000 timed events is
/// under 1 MB).
pub const MAX_INPUT_FILE: u64 = 8 << 20;
/// Scenario files (they embed a per-tick trace), at most.
pub const MAX_SCENARIO_FILE: u64 = 64 << 20;
/// Report files, at most.
pub const MAX_REPORT_FILE: u64 = 512 << 20;
/// Longest simulated run. (The recorder keeps every frame's authoritative
/// and ideal state to score late renders against: a 4-player match needs
/// about 55 MB per simulated hour.)
pub const MAX_DURATION_US: u64 = 4 * 3_600_000_000;
/// Entities (players + bots) × simulated seconds, at most: 4 players for
/// the full 4 h, 16 for 1.7 h, 2,200 entities for 45 s.
pub const MAX_ENTITY_SECONDS: u64 = 100_000;
/// Input changes across all tracks of a trace, at most (~16 bytes each).
pub const MAX_TRACE_CHANGES: u64 = 10_000_000;

/// Runs in one matrix, at most: the report holds every run's timeline
/// and CDF points, about 10 KB of JSON a run.
pub const MAX_MATRIX_RUNS: u64 = 20_000;
/// Conformance cases per contract, at most.
pub const MAX_CONFORM_CASES: u64 = 1_000_000;

/// Reads `path` as UTF-8 text of at most `cap` bytes; `what` names it in
/// errors ("profile", "trace file", …). `/dev/zero` and friends stop at the
/// cap.
///
/// Every text input is read here, so one rule holds for all of them: a
/// UTF-8 byte-order mark at the start (spreadsheets and Windows editors
/// write one) is not part of the text ([`without_bom`]).
pub fn read_text(path: &Path, cap: u64, what: &str) -> Result<String, InputError> {
    let bytes = read_bytes(path, cap, what)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        InputError::at(
            &Source::File(path.display().to_string()),
            None,
            format!("{what} is not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })?;
    Ok(match without_bom(&text) {
        rest if rest.len() < text.len() => rest.to_string(),
        _ => text,
    })
}

/// `text` without the one UTF-8 byte-order mark it may start with (a
/// second is text, and shows in a message).
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Reads `path`, at most `cap` bytes; `what` names it in errors.
pub fn read_bytes(path: &Path, cap: u64, what: &str) -> Result<Vec<u8>, InputError> {
    let source = Source::File(path.display().to_string());
    let err = |m: String| InputError::at(&source, None, m);
    let f = std::fs::File::open(path).map_err(|e| err(format!("cannot read {what}: {e}")))?;
    let mut bytes = Vec::new();
    f.take(cap + 1).read_to_end(&mut bytes).map_err(|e| err(format!("cannot read {what}: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(err(format!("{what} larger than the limit of {} MB", cap >> 20)));
    }
    Ok(bytes)
}

/// The most entity-renders a run may judge: every client's screen checks
/// every entity it shows on every render. Here 200 clients × 2,200
/// entities × 60 Hz × 20 s (5.3·10⁸) ran in 14 s and 1,000 × 1,000 × 60 Hz
/// × 2 s (1.2·10⁸, a server sending every client every player) in 24 s:
/// 2·10⁹ is minutes, not hours.
pub const MAX_ENTITY_RENDERS: u64 = 2_000_000_000;

/// The most client × entity pairs a run may keep: each screen remembers
/// every entity it has seen, and each client is sent them (1,000 × 1,000
/// peaked at 634 MB here).
pub const MAX_CLIENT_ENTITIES: u64 = 2_000_000;

/// Checks the work a run will do, before it starts: `clients` screens
/// showing up to `entities` entities each, rendering at up to `render_hz`
/// for `duration_us`.
pub fn check_work(clients: usize, entities: usize, render_hz: u32, duration_us: u64) -> Result<(), String> {
    let pairs = (clients as u64).saturating_mul(entities as u64);
    if pairs > MAX_CLIENT_ENTITIES {
        return Err(format!(
            "{clients} clients × {entities} entities = {pairs} screen entries to keep: the limit is {MAX_CLIENT_ENTITIES} (about 1.3 GB; fewer clients or bots)"
        ));
    }
    let renders = pairs.saturating_mul(render_hz as u64).saturating_mul(duration_us) / 1_000_000;
    if renders > MAX_ENTITY_RENDERS {
        return Err(format!(
            "{clients} clients × {entities} entities × {render_hz} renders/s × {:.1} s = {renders:.3e} entity-renders to judge: the limit is {MAX_ENTITY_RENDERS:.0e} (minutes of work; a shorter run, fewer clients or a lower --render-rate)",
            duration_us as f64 / 1e6
        ));
    }
    Ok(())
}

/// Checks a run's size before anything is built for it.
pub fn check_run(entities: usize, duration_us: u64) -> Result<(), String> {
    if duration_us > MAX_DURATION_US {
        return Err(format!(
            "duration {} s: the limit is {} h",
            duration_us / 1_000_000,
            MAX_DURATION_US / 3_600_000_000
        ));
    }
    let cost = (entities as u64).saturating_mul(duration_us.div_ceil(1_000_000));
    if cost > MAX_ENTITY_SECONDS {
        return Err(format!(
            "{entities} entities × {} s = {cost} entity-seconds: the limit is {MAX_ENTITY_SECONDS} (shorten the run or the world)",
            duration_us.div_ceil(1_000_000)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endless_files_stop_at_the_cap() {
        let e = read_text(Path::new("/dev/zero"), 1 << 20, "profile").unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("limit of 1 MB"), "{e}");
    }

    #[test]
    fn run_sizes_are_bounded_without_overflow() {
        assert!(check_run(4, 60_000_000).is_ok());
        assert!(check_run(usize::MAX, 60_000_000).unwrap_err().contains("entity-seconds"));
        assert!(check_run(4, u64::MAX).unwrap_err().contains("limit is 4 h"));
        assert!(check_run(2_200, 20_000_000).is_ok());
    }

    #[test]
    fn the_work_of_many_clients_is_bounded() {
        // The guide's large world (Large worlds), and a thousand players for two seconds.
        assert!(check_work(200, 2_200, 60, 20_000_000).is_ok());
        assert!(check_work(1_000, 1_000, 60, 2_000_000).is_ok());
        let e = check_work(4_096, 4_096, 60, 2_000_000).unwrap_err();
        assert!(e.contains("4096 clients × 4096 entities") && e.contains("limit"), "{e}");
        let e = check_work(1_400, 1_400, 60, 45_000_000).unwrap_err();
        assert!(e.contains("entity-renders"), "{e}");
        assert!(check_work(usize::MAX, usize::MAX, u32::MAX, u64::MAX).is_err());
    }
}
