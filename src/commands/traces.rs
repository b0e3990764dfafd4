//! `trace convert`: a CSV recording of play as a trace script.

use super::*;

/// `trace convert`: a CSV recording of play as a trace script.
pub(super) fn trace_convert(file: &std::path::Path, out: Option<&std::path::Path>) -> Result<()> {
    let script = harness::trace::csv::load(file).map_err(|e| bad(e.to_string()))?;
    let changes: usize = script
        .sections
        .iter()
        .map(|(_, b)| match b {
            harness::trace::script::Body::Segments(t) => t.segments.len(),
            harness::trace::script::Body::Generate(_) => 0,
        })
        .sum();
    let note = format!(
        "converted from {} by `syncbench trace convert`: {} players, {changes} input changes",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("a recording"),
        script.sections.len()
    );
    let text = harness::trace::csv::to_script_text(&script, &note);
    match out {
        Some(path) => {
            write_output(path, &text)?;
            if path.as_os_str() != "-" {
                eprintln!("wrote {} ({note})", path.display());
            }
        }
        None => print!("{text}"),
    }
    Ok(())
}
