//! `--game`: the reference game's numbers as a setting.

use crate::util::{cfg, run_named, syncbench};
use harness::game::GameSettings;
use harness::runner::RunConfig;

/// The reference game with every length doubled: speeds, accelerations,
/// the player and the room (walls and all).
fn doubled() -> GameSettings {
    let d = GameSettings::default();
    GameSettings {
        name: "doubled".into(),
        max_speed: 2.0 * d.max_speed,
        acceleration: 2.0 * d.acceleration,
        friction: 2.0 * d.friction,
        gravity: 2.0 * d.gravity,
        jump_speed: 2.0 * d.jump_speed,
        player_size: 2.0 * d.player_size,
        shot_range: 2.0 * d.shot_range,
        arena_scale: 2.0,
        ..d
    }
}

#[test]
fn doubling_every_length_doubles_divergence_in_metres_and_keeps_it_in_player_sizes() {
    // Same inputs, same network draws, same timing: the game is the same
    // game drawn at twice the size, so a screen that is a given time behind
    // is twice as far off in metres and equally far in player sizes. (The
    // integer arithmetic rounds a diagonal step to the micrometre, so
    // "twice" is within a few percent, not exact.)
    // Lengths among the options double too (dead-reckoning's threshold).
    // (Peers are judged at the frame they show: lockstep's screens are
    // then exact, rollback's off by mispredictions its lerp's fixed jump
    // threshold shapes — no scale to test.)
    for algo in ["prediction", "snapshot", "dead-reckoning"] {
        let run = |game: GameSettings, threshold: &str| {
            let mut c = RunConfig { game, ..cfg(3, 20, 5) };
            if algo == "dead-reckoning" {
                c.options = harness::contract::Options::parse(&[format!("threshold={threshold}")]).unwrap();
            }
            run_named(algo, "delay 60ms 10ms loss 2%", "random-walk", c)
        };
        let (one, two) = (run(GameSettings::default(), "0.05"), run(doubled(), "0.1"));
        assert_eq!((one.player_size_m, two.player_size_m), (0.8, 1.6));
        for (what, a, b) in [
            ("own", one.divergence_m.own.mean, two.divergence_m.own.mean),
            ("remote", one.divergence_m.remote.mean, two.divergence_m.remote.mean),
        ] {
            assert!(a > 0.01, "{algo} {what}: {a}");
            let ratio = b / a;
            assert!((1.9..=2.1).contains(&ratio), "{algo} {what} divergence {a} m → {b} m: ×{ratio:.3}, expected ×2");
            let (ra, rb) = (one.in_player_sizes(a).unwrap(), two.in_player_sizes(b).unwrap());
            assert!((rb / ra - 1.0).abs() < 0.05, "{algo} {what}: {ra:.3} vs {rb:.3} player sizes");
        }
        // Faster players, not bigger ones: the latency is the same time, so
        // twice the distance, which is twice as many of the same players.
        let fast = GameSettings { max_speed: 12.0, acceleration: 60.0, friction: 40.0, ..GameSettings::default() };
        let f = run(fast, "0.05");
        let ratio = f.divergence_m.remote.mean / one.divergence_m.remote.mean;
        assert!(ratio > 1.4, "{algo}: doubled speed moved remote divergence only ×{ratio:.2}");
    }
}

#[test]
fn the_game_is_recorded_in_the_report_and_a_bad_file_is_named() {
    let dir = std::env::temp_dir().join(format!("syncbench-game-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.toml");
    std::fs::write(&file, "name = \"big\"\nmax_speed = 12.0\nplayer_size = 1.6\narena_scale = 2.0\n").unwrap();
    let file = file.to_str().unwrap();
    let (code, out, err) =
        syncbench(&["run", "--algo", "snapshot", "--duration", "2s", "--format", "json", "--game", file]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run = &report["runs"][0];
    assert_eq!(run["game"]["name"], "big");
    assert_eq!(run["game"]["max_speed"], 12.0);
    assert_eq!(run["metrics"]["player_size_m"], 1.6);
    // A preset sets the tick rate unless --tick-rate does.
    let (_, out, _) =
        syncbench(&["run", "--algo", "snapshot", "--duration", "2s", "--format", "json", "--game", "shooter"]);
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["runs"][0]["tick_hz"], 64);
    std::fs::write(file, "max_speed = 12.0\nplayer_size = -1\n").unwrap();
    let (code, _, err) = syncbench(&["run", "--algo", "snapshot", "--game", file]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("big.toml:2") && err.contains("player_size"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_room_too_small_for_the_game_is_refused_not_a_panic() {
    // The file's own room fits its 20 m players; --arena 10x10 does not.
    let dir = std::env::temp_dir().join(format!("syncbench-room-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("giants.toml");
    std::fs::write(&file, "player_size = 20\narena = \"1000x1000\"\n").unwrap();
    let (code, _, err) = syncbench(&[
        "run",
        "--algo",
        "snapshot",
        "--duration",
        "1s",
        "--arena",
        "10x10",
        "--game",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("do not fit"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
