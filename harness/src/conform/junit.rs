//! JUnit XML for CI systems (through the `quick-junit` crate, which
//! nextest writes its reports with): one test suite per algorithm, one test
//! case per contract that applies, with its time and properties — the
//! cases run, the seed, and the command that reproduces it. A contract that
//! does not apply is not a test case (a skipped case reads as work left
//! undone); the suite lists them as a property. A negative control's
//! case is named for what it must do — `catches on-map` — and passes
//! when the contract caught it.

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// One row of the conformance table.
pub struct Row<'a> {
    /// Algorithm name (`control:NAME` for a negative control).
    pub algorithm: &'a str,
    /// Contract name.
    pub contract: &'a str,
    /// `None`: passed (a control: caught); `Some(Ok(why))`: not
    /// applicable; `Some(Err(why))`: failed (a control: not caught).
    pub outcome: Option<Result<String, String>>,
    /// Scenario file of a failure (or of a control's catch).
    pub scenario: Option<String>,
    /// Cases run.
    pub cases: u64,
    /// Wall time the contract took.
    pub seconds: f64,
    /// The seed the cases derive from.
    pub seed: u64,
}

/// The XML document.
pub fn render(rows: &[Row<'_>]) -> String {
    let mut report = Report::new("syncbench conform");
    let mut algos: Vec<&str> = Vec::new();
    for r in rows {
        if !algos.contains(&r.algorithm) {
            algos.push(r.algorithm);
        }
    }
    for a in algos {
        let mut suite = TestSuite::new(a);
        let control = a.strip_prefix("control:");
        let mut not_applicable = Vec::new();
        for r in rows.iter().filter(|r| r.algorithm == a) {
            if let Some(Ok(why)) = &r.outcome {
                not_applicable.push(format!("{}: {why}", r.contract));
                continue;
            }
            let name = match control {
                Some(_) => format!("catches {}", r.contract),
                None => r.contract.to_string(),
            };
            let status = match &r.outcome {
                Some(Err(why)) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(why.as_str());
                    if let Some(p) = &r.scenario {
                        s.set_description(format!("replay: syncbench replay {p}"));
                    }
                    s
                }
                _ => TestCaseStatus::success(),
            };
            let mut case = TestCase::new(name, status);
            case.set_classname(a);
            case.set_time(Duration::from_secs_f64(r.seconds.max(0.0)));
            let algo = control.unwrap_or(a);
            let reproduce = match (&r.outcome, &r.scenario) {
                (Some(Err(_)), Some(p)) => format!("syncbench replay {p}"),
                _ if control.is_some() => format!("syncbench conform --controls --cases {} --seed {}", r.cases, r.seed),
                _ => format!("syncbench conform --algo {algo} --cases {} --seed {}", r.cases, r.seed),
            };
            case.add_property(Property::new("cases", r.cases.to_string()));
            case.add_property(Property::new("seed", r.seed.to_string()));
            case.add_property(Property::new("command", reproduce));
            if control.is_some() {
                case.add_property(Property::new("negative-control", format!("must break {}", r.contract)));
                if let (None, Some(p)) = (&r.outcome, &r.scenario) {
                    case.add_property(Property::new("caught-by", p.as_str()));
                }
            }
            suite.add_test_case(case);
        }
        if !not_applicable.is_empty() {
            suite.add_property(Property::new("not-applicable", not_applicable.join("; ")));
        }
        report.add_test_suite(suite);
    }
    report.to_string().unwrap_or_else(|e| format!("<!-- JUnit serialisation failed: {e} -->\n"))
}
