//! What a tune looks for: one metric to minimise under limits on others,
//! `"min remote-lat; snaps<=1; frozen<=50ms; up<=20kB/s"`.
//!
//! Metrics are the columns of `compare --metrics` (lower is better for
//! every one a goal may name); a limit's value is in the column's unit,
//! with `ms`, `B/s`, `kB/s`, `/min`, `%` or `m` allowed after it (`kB/s`
//! is 1,000 B/s).

use crate::report::table::{better_higher, COLUMNS};

/// The goal `tune` uses unless told otherwise.
pub const DEFAULT: &str = "min remote-lat; snaps<=1; frozen<=50ms; up<=20kB/s";

/// One limit: a column's mean over the seeds at most this.
#[derive(Clone, Debug, PartialEq)]
pub struct Limit {
    /// The column.
    pub column: String,
    /// The most it may be, in the column's unit.
    pub at_most: f64,
}

/// A parsed goal.
#[derive(Clone, Debug, PartialEq)]
pub struct Goal {
    /// The column to minimise.
    pub minimise: String,
    /// The limits.
    pub limits: Vec<Limit>,
}

impl Goal {
    /// Parses `min COLUMN; COLUMN<=VALUE; …`. `Err` says what was
    /// expected.
    pub fn parse(text: &str) -> Result<Goal, String> {
        let mut minimise = None;
        let mut limits = Vec::new();
        for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
            if let Some(col) = part.strip_prefix("min ") {
                if minimise.is_some() {
                    return Err(format!("`{part}`: a goal minimises one metric"));
                }
                minimise = Some(column(col.trim())?);
            } else if let Some((col, value)) = part.split_once("<=") {
                let column = column(col.trim())?;
                let at_most = number(value.trim())
                    .ok_or_else(|| format!("`{part}`: expected a number after <= (units ms, B/s, kB/s, /min, %, m)"))?;
                limits.push(Limit { column, at_most });
            } else {
                return Err(format!("`{part}`: expected `min METRIC` or `METRIC<=VALUE`"));
            }
        }
        let minimise = minimise.ok_or("a goal needs `min METRIC` (e.g. \"min remote-lat; snaps<=1\")")?;
        Ok(Goal { minimise, limits })
    }

    /// Every column the goal names, the minimised one first.
    pub fn columns(&self) -> Vec<&str> {
        let mut c = vec![self.minimise.as_str()];
        for l in &self.limits {
            if !c.contains(&l.column.as_str()) {
                c.push(&l.column);
            }
        }
        c
    }
}

impl std::fmt::Display for Goal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "min {}", self.minimise)?;
        for l in &self.limits {
            write!(f, "; {}<={}", l.column, l.at_most)?;
        }
        Ok(())
    }
}

/// A column a goal may name: known, and lower is better.
fn column(name: &str) -> Result<String, String> {
    let Some(c) = COLUMNS.iter().find(|c| c.0 == name) else {
        let known: Vec<&str> = COLUMNS.iter().filter(|c| better_higher(c.0) == Some(false)).map(|c| c.0).collect();
        return Err(format!("unknown metric `{}`: expected one of {}", crate::error::echo(name), known.join(", ")));
    };
    if better_higher(c.0) != Some(false) {
        return Err(format!("`{name}`: a goal names metrics where lower is better"));
    }
    Ok(name.to_string())
}

fn number(text: &str) -> Option<f64> {
    let (digits, scale) = [("kB/s", 1000.0), ("B/s", 1.0), ("ms", 1.0), ("/min", 1.0), ("%", 1.0), ("m", 1.0)]
        .iter()
        .find_map(|(unit, scale)| text.strip_suffix(unit).map(|d| (d.trim(), *scale)))
        .unwrap_or((text, 1.0));
    digits.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).map(|v| v * scale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_default_and_names_what_is_wrong() {
        let g = Goal::parse(DEFAULT).unwrap();
        assert_eq!(g.minimise, "remote-lat");
        assert_eq!(g.columns(), ["remote-lat", "snaps", "frozen", "up"]);
        assert_eq!(g.limits[2], Limit { column: "up".into(), at_most: 20_000.0 });
        assert_eq!(Goal::parse(&g.to_string()).unwrap(), g);
        for (bad, says) in [
            ("snaps<=1", "needs `min METRIC`"),
            ("min banana", "unknown metric `banana`"),
            ("min own-lat; min remote-lat", "minimises one metric"),
            ("min own-lat; snaps<=lots", "expected a number"),
            ("min own-lat; snaps>=1", "expected `min METRIC`"),
            ("min visible", "lower is better"),
        ] {
            let e = Goal::parse(bad).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
