//! Documented properties: invariants an algorithm is known to break on a
//! family of links, with why — read from a TOML file of `[[known]]`
//! entries, so a campaign lists them apart instead of failing on them.
//!
//! ```toml
//! [[known]]
//! algorithm = "bucket"
//! invariant = "accounting"
//! family = "outage"
//! why = "a bucket's slot passes while its inputs are held up: they are dropped"
//! ```

use super::links::Family;
use super::Invariant;
use crate::error::{InputError, Source};
use std::path::Path;

/// One documented property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    /// The algorithm's name.
    pub algorithm: String,
    /// The invariant's name ([`Invariant::name`]).
    pub invariant: String,
    /// The family's name ([`Family::name`]).
    pub family: String,
    /// Why the algorithm breaks it.
    pub why: String,
}

/// The entries of `path`; `is_algorithm` says whether a name is one. An
/// entry naming no algorithm, invariant or family there is is an error
/// naming the file and the entry.
pub fn read(path: &Path, is_algorithm: &dyn Fn(&str) -> bool) -> Result<Vec<Known>, InputError> {
    let source = Source::File(path.display().to_string());
    let text = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "a known-properties file")?;
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| InputError::at(&source, None, format!("invalid TOML: {}", e.message())))?;
    let entries = match table.get("known") {
        None => return Ok(Vec::new()),
        Some(v) => v
            .as_array()
            .ok_or_else(|| InputError::at(&source, None, "`known` must be an array of tables ([[known]])"))?,
    };
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let err = |msg: String| InputError::at(&source, None, format!("entry {}: {msg}", i + 1));
        let get = |key: &str| {
            e.get(key)
                .and_then(|v| v.as_str())
                .map(str::to_string)
                .ok_or_else(|| err(format!("expected a `{key}` string")))
        };
        let k = Known {
            algorithm: get("algorithm")?,
            invariant: get("invariant")?,
            family: get("family")?,
            why: get("why")?,
        };
        if !is_algorithm(&k.algorithm) {
            return Err(err(format!("unknown algorithm `{}`", k.algorithm)));
        }
        if !Invariant::ALL.iter().any(|inv| inv.name() == k.invariant) {
            let names: Vec<&str> = Invariant::ALL.iter().map(|inv| inv.name()).collect();
            return Err(err(format!("invariant `{}`: expected one of {}", k.invariant, names.join(", "))));
        }
        if Family::from_name(&k.family).is_none() {
            let names: Vec<&str> = Family::ALL.iter().map(|f| f.name()).collect();
            return Err(err(format!("family `{}`: expected one of {}", k.family, names.join(", "))));
        }
        out.push(k);
    }
    Ok(out)
}
