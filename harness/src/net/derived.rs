//! Profiles derived from a recorded one, so that a recording, its netem
//! fit and its regime model run side by side from one name:
//!
//! - `fit:ITEM`: the netem description closest to ITEM's recordings
//!   ([`super::recorded::fit`]) in their place;
//! - `model:ITEM`: their regime model ([`super::recorded::regimes`]),
//!   its generated series replayed in their place.
//!
//! ITEM is any `--profile` item that replays a recording (a name, a
//! `.toml`, a recording's path with netem extras); both fit it for
//! [`PACKET_HZ`] packets a second, as `profile fit` does by default. The
//! profile's own netem extras, events and MTU are kept. A direction pair
//! that replays one recording both ways shares one generated series, so
//! an outage hits both at once as it does in the recording.
//!
//! ```text
//! syncbench compare --vary profile=leo-starlink,fit:leo-starlink,model:leo-starlink
//! ```

use super::profile::Profile;
use super::recorded::fit::ProfileFit;
use super::recorded::regimes::RegimeModel;
use super::recorded::replay::Replay;
use crate::error::{echo, InputError, Source};
use std::path::PathBuf;

/// The packet rate derived profiles are fitted for, per second.
pub const PACKET_HZ: u32 = 60;

/// The seed a regime model's series is drawn from: the series is fixed, and
/// each run's seed picks where every node starts reading it, as for a
/// recording.
pub const MODEL_SEED: u64 = 1;

/// Resolves one `--profile` item: `fit:ITEM` or `model:ITEM` (see the
/// module docs), else [`Profile::resolve`].
pub fn resolve(arg: &str, dirs: &[PathBuf]) -> Result<Profile, InputError> {
    let arg = arg.trim();
    let (kind, item) = match arg.split_once(':') {
        Some((k @ ("fit" | "model"), item)) => (k, item.trim()),
        _ => return Profile::resolve(arg, dirs),
    };
    let p = Profile::resolve(item, dirs)?;
    let fit = ProfileFit::new(&p, PACKET_HZ).map_err(|e| {
        InputError::at(
            &Source::Inline(format!("--profile {}", echo(arg))),
            None,
            format!("`{kind}:` takes a profile that replays a recording: {e}"),
        )
    })?;
    Ok(if kind == "fit" { fitted(arg, &p, &fit) } else { modelled(arg, &p, &fit) })
}

fn fitted(name: &str, p: &Profile, fit: &ProfileFit<'_>) -> Profile {
    Profile {
        name: name.to_string(),
        description: format!("netem fitted to the recording of {} for {PACKET_HZ} packets a second", p.name),
        source: format!("syncbench profile fit {} --packet-hz {PACKET_HZ}", p.name),
        uplink: fit.netem[0].clone(),
        downlink: fit.netem[1].clone(),
        replay: [None, None],
        ..p.clone()
    }
}

fn modelled(name: &str, p: &Profile, fit: &ProfileFit<'_>) -> Profile {
    let mut replay = p.replay.clone();
    let mut drawn: Vec<(&RegimeModel, Replay)> = Vec::new();
    for ((dir, _, _), m) in fit.directions.iter().zip(&fit.models) {
        let i = usize::from(*dir != "uplink");
        let like = p.replay[i].as_ref().expect("a fitted direction replays");
        let r = match drawn.iter().find(|(d, _)| **d == m.model) {
            Some((_, r)) => r.clone(),
            None => {
                let r = m.model.replay(MODEL_SEED, i as u64, like);
                drawn.push((&m.model, r.clone()));
                r
            }
        };
        replay[i] = Some(r);
    }
    Profile {
        name: name.to_string(),
        description: format!("regime model of the recording of {}", p.name),
        source: format!("syncbench profile fit {}: its regime model, drawn from seed {MODEL_SEED}", p.name),
        replay,
        ..p.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn recording() -> String {
        let dir = std::env::temp_dir().join(format!("syncbench-derived-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("switching.txt");
        let text: String = (0..6_000).map(|i| if (i / 300) % 2 == 0 { "10\n" } else { "60\n" }).collect();
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// `fit:` replaces the recording by netem; `model:` by a generated
    /// series shared by both directions (the recording is shared too),
    /// keeping the profile's netem extras.
    #[test]
    fn fit_and_model_replace_the_recording() {
        let path = recording();
        let fit = resolve(&format!("fit:{path} delay 5ms"), &[]).unwrap();
        assert!(fit.replay.iter().all(Option::is_none));
        assert!(fit.uplink.delay_us > 5_000 && fit.uplink.jitter_us > 0, "{}", fit.uplink);
        let model = resolve(&format!("model:{path} delay 5ms"), &[]).unwrap();
        assert_eq!(model.uplink.delay_us, 5_000);
        let (up, down) = (model.replay[0].as_ref().unwrap(), model.replay[1].as_ref().unwrap());
        assert!(Arc::ptr_eq(up.delays.as_ref().unwrap(), down.delays.as_ref().unwrap()));
        assert!(up.from.starts_with("regime model of"), "{}", up.from);
        let e = resolve("model:delay 5ms", &[]).unwrap_err();
        assert!(e.message.contains("takes a profile that replays a recording"), "{e}");
        assert!(resolve("delay 5ms", &[]).is_ok());
    }
}
