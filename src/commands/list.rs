//! `list`: the algorithms (with their options), profiles, traces and games there are.

use super::*;

pub(super) fn list(what: Option<ListWhat>, format: ListFormat, all: bool) -> Result<()> {
    let show = |w: ListWhat| what.is_none() || what == Some(w);
    let mut json = serde_json::Map::new();
    if show(ListWhat::Algorithms) {
        let mut algos: Vec<&dyn Algorithm> = crate::catalog::all();
        algos.extend(algorithms::registry::under_test().iter().copied());
        if all {
            algos.extend(algorithms::controls::all().iter().map(|(a, _)| *a));
        }
        if format == ListFormat::Json {
            json.insert(
                "algorithms".into(),
                algos
                    .iter()
                    .map(|a| {
                        let caught_by = algorithms::controls::all().iter().find(|(c, _)| c.name() == a.name()).map(|(_, k)| *k);
                        serde_json::json!({
                            "name": a.name(), "topology": a.topology().as_str(), "description": a.description(),
                            "negative_control_caught_by": caught_by,
                            "handles_bots": a.handles_bots(), "filters_by_aoi": a.handles_aoi(), "library": a.library(),
                            "takes_corruption": a.takes_corruption().is_ok(), "corruption_refused_because": a.takes_corruption().err(),
                            "options": a.options().iter().map(|o| serde_json::json!({"name": o.name, "default": o.default, "allowed": o.allowed(), "help": o.help})).collect::<Vec<_>>()
                        })
                    })
                    .collect(),
            );
        } else {
            println!("ALGORITHMS ([real: …]: a third-party library, and its version)");
            for a in &algos {
                let real = a.library().map(|l| format!("[real: {l}] ")).unwrap_or_default();
                println!("  {:<18} {:<14} {real}{}", a.name(), a.topology().as_str(), a.description());
                if a.handles_aoi() {
                    println!("  {:<18} --aoi grid|crosslist  filters what each client is told by area of interest", "");
                }
                if !a.handles_bots() {
                    println!("  {:<18} (no --bots)", "");
                }
                if let Err(why) = a.takes_corruption() {
                    println!("  {:<18} (no --corrupted deliver: {why})", "");
                }
                for o in a.options() {
                    println!("  {:<18} --opt {}={}  {} ({})", "", o.name, o.default, o.help, o.allowed());
                }
            }
        }
    }
    if show(ListWhat::Profiles) {
        let profiles = harness::net::profile::list(&library::dirs("netem-profiles"));
        if format == ListFormat::Json {
            json.insert(
                "profiles".into(),
                profiles
                    .iter()
                    .map(|p| serde_json::json!({"name": p.name, "description": p.description, "source": p.source, "uplink": p.uplink.to_string(), "downlink": p.downlink.to_string(), "recorded": p.is_recorded()}))
                    .collect(),
            );
        } else {
            println!("PROFILES (netem-profiles/, --profile \"<netem string>\" or a recording's path; [real]: a recorded link)");
            for p in &profiles {
                let mark = if p.is_recorded() { "[real] " } else { "" };
                println!("  {:<22} {mark}{}", p.name, p.description);
            }
        }
    }
    if show(ListWhat::Traces) {
        let files = trace::list(&library::dirs("traces"));
        let recorded = |name: &str| resolve_trace(name).is_ok_and(|s| s.recorded_players().is_some());
        if format == ListFormat::Json {
            json.insert("generators".into(), Generator::NAMES.iter().map(|n| serde_json::json!(n)).collect());
            json.insert(
                "traces".into(),
                files
                    .iter()
                    .map(|(n, d)| serde_json::json!({"name": n, "description": d, "recorded": recorded(n)}))
                    .collect(),
            );
        } else {
            println!("TRACES (traces/, a path, or a generator; [real]: recorded play)");
            for (n, d) in &files {
                let mark = if recorded(n) { "[real] " } else { "" };
                println!("  {n:<18} {mark}{d}");
            }
            println!("  generators: {} (e.g. zigzag:period=2s, random-walk:seed=3)", Generator::NAMES.join(", "));
        }
    }
    if format == ListFormat::Json {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(json))?);
    }
    Ok(())
}
