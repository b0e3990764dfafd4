//! The algorithms a command can name: the built-in registry, plus the ones
//! a user's own binary adds with [`crate::Cli::algorithm`] — listed, run,
//! compared, gated and conformance-checked exactly like the built-in ones.
//!
//! The harness names no algorithm; this is the one place the command line
//! learns which exist.

use harness::contract::Algorithm;
use std::sync::OnceLock;

static ADDED: OnceLock<Vec<&'static dyn Algorithm>> = OnceLock::new();

/// Adds `algorithms` beside the built-in ones (once per process; adding
/// the same names again is allowed, so tests may run the CLI repeatedly).
/// Refuses a name that is empty, not a single word, already built in, or
/// given twice.
pub(crate) fn add(algorithms: Vec<&'static dyn Algorithm>) -> Result<(), String> {
    for (i, a) in algorithms.iter().enumerate() {
        let name = a.name();
        if name.is_empty() || name == "all" || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
            return Err(format!("algorithm name `{name}`: expected letters, digits, `-`, `_` or `.` (and not `all`)"));
        }
        if algorithms::registry::find(name).is_some() {
            return Err(format!("algorithm name `{name}` is taken by a built-in algorithm: choose another"));
        }
        if algorithms[..i].iter().any(|b| b.name() == name) {
            return Err(format!("algorithm `{name}` is added twice"));
        }
    }
    let names = |v: &[&'static dyn Algorithm]| v.iter().map(|a| a.name()).collect::<Vec<_>>();
    let wanted = names(&algorithms);
    let set = ADDED.get_or_init(|| algorithms);
    if names(set) != wanted {
        return Err("the added algorithms were already set differently in this process".into());
    }
    Ok(())
}

/// The algorithms added by the binary, in the order given.
pub fn added() -> &'static [&'static dyn Algorithm] {
    ADDED.get().map_or(&[], Vec::as_slice)
}

/// The algorithm called `name`: built in, under test, a negative control,
/// or added.
pub fn find(name: &str) -> Option<&'static dyn Algorithm> {
    algorithms::registry::find(name).or_else(|| added().iter().copied().find(|a| a.name() == name))
}

/// What `all` means: the built-in algorithms, then the added ones.
pub fn all() -> Vec<&'static dyn Algorithm> {
    algorithms::registry::all().iter().chain(added()).copied().collect()
}

/// The names `all` stands for.
pub fn names() -> Vec<&'static str> {
    all().iter().map(|a| a.name()).collect()
}
