//! JUnit XML for CI systems: one test suite per algorithm, one test case
//! per contract; a failure carries its message and the scenario file.

/// One row of the conformance table.
pub struct Row<'a> {
    /// Algorithm name.
    pub algorithm: &'a str,
    /// Contract name.
    pub contract: &'a str,
    /// `None`: passed; `Some(Ok(why))`: not applicable; `Some(Err(why))`: failed.
    pub outcome: Option<Result<String, String>>,
    /// Scenario file of a failure.
    pub scenario: Option<String>,
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The XML document.
pub fn render(rows: &[Row<'_>]) -> String {
    let mut algos: Vec<&str> = Vec::new();
    for r in rows {
        if !algos.contains(&r.algorithm) {
            algos.push(r.algorithm);
        }
    }
    let failures = rows.iter().filter(|r| matches!(r.outcome, Some(Err(_)))).count();
    let mut out = format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"syncbench conform\" tests=\"{}\" failures=\"{failures}\">\n", rows.len());
    for a in algos {
        let mine: Vec<&Row<'_>> = rows.iter().filter(|r| r.algorithm == a).collect();
        let f = mine.iter().filter(|r| matches!(r.outcome, Some(Err(_)))).count();
        let skipped = mine.iter().filter(|r| matches!(r.outcome, Some(Ok(_)))).count();
        out += &format!(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{f}\" skipped=\"{skipped}\">\n",
            esc(a),
            mine.len()
        );
        for r in mine {
            out += &format!("    <testcase classname=\"{}\" name=\"{}\"", esc(a), esc(r.contract));
            match &r.outcome {
                None => out += "/>\n",
                Some(Ok(why)) => out += &format!(">\n      <skipped message=\"{}\"/>\n    </testcase>\n", esc(why)),
                Some(Err(why)) => {
                    let detail =
                        r.scenario.as_deref().map(|p| format!("replay: syncbench replay {p}")).unwrap_or_default();
                    out += &format!(
                        ">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n",
                        esc(why),
                        esc(&detail)
                    );
                }
            }
        }
        out += "  </testsuite>\n";
    }
    out += "</testsuites>\n";
    out
}
