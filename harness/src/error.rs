//! Input errors: every bad profile, trace or scenario is reported with the
//! file (or inline source), the line, the offending token and what was
//! expected. The CLI turns these into exit code 2.

use std::fmt;

/// Where a piece of input came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A file on disk.
    File(String),
    /// A string given on the command line, e.g. `--profile "delay 50ms"`.
    Inline(String),
    /// A built-in (generator name, default).
    BuiltIn(String),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::File(p) => write!(f, "{p}"),
            Source::Inline(what) => write!(f, "{what}"),
            Source::BuiltIn(what) => write!(f, "built-in {what}"),
        }
    }
}

/// A malformed input: file, line, token and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct InputError {
    /// The file or inline source.
    pub source_name: Source,
    /// 1-based line, where it applies.
    pub line: Option<usize>,
    /// What was wrong and what was expected.
    pub message: String,
}

impl InputError {
    /// An error at `line` of `source`.
    pub fn at(source: &Source, line: Option<usize>, message: impl Into<String>) -> InputError {
        InputError { source_name: source.clone(), line, message: message.into() }
    }

    /// Several errors of one input as one, in the order of their lines,
    /// each on a line of its own, so one run reports every mistake. `None`
    /// if there are none.
    pub fn all(mut errors: Vec<InputError>) -> Option<InputError> {
        errors.sort_by_key(|e| e.line.unwrap_or(usize::MAX));
        let mut it = errors.into_iter();
        let mut first = it.next()?;
        for e in it {
            first.message.push_str(&format!("\n{e}"));
        }
        Some(first)
    }
}

/// The one of `names` nearest `typo`, when near enough to be what was
/// meant: "did you mean" for a misspelt key.
pub fn nearest<'a>(typo: &str, names: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    names
        .into_iter()
        .map(|n| (strsim::jaro_winkler(typo, n), n))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, n)| n)
}

/// The 1-based line of byte `at` in `text` (where a parser's error span
/// starts; past the end: the last line).
pub fn line_at(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// The 1-based line of the first `key =` (or `[key]`) at or after line
/// `from` of a TOML `text` — where a value's error is reported; `from`
/// itself when there is none after it (0: none).
pub fn line_of_key(text: &str, key: &str, from: usize) -> Option<usize> {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find_map(|(i, l)| {
            let l = l.trim_start();
            (l.starts_with(key) && l[key.len()..].trim_start().starts_with(['=', ']'])).then_some(i + 1)
        })
        .or_else(|| (from > 0).then_some(from))
}

/// `text` as it may be printed to a terminal: control characters (an ANSI
/// escape, a carriage return) shown escaped, newlines and tabs kept.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A piece of the user's input quoted in a message: escaped, and cut after
/// 200 characters with "…".
pub fn echo(text: &str) -> String {
    let mut cut: String = text.chars().take(200).collect();
    if cut.len() < text.len() {
        cut.push('…');
    }
    escape(&cut)
}

#[cfg(test)]
mod tests {
    #[test]
    fn escape_shows_control_characters_and_cuts_long_input() {
        assert_eq!(super::escape("a\u{1b}[31mb\r\n"), "a\\u{1b}[31mb\\r\n");
        assert_eq!(super::echo(&"x".repeat(500)).chars().count(), 201);
    }
}
