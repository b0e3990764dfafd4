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
        .find_map(|(i, l)| names_key(l, key).then_some(i + 1))
        .or_else(|| (from > 0).then_some(from))
}

/// Whether a TOML line assigns `key` (bare, `"quoted"` or `'literal'`) or
/// opens a `[key]` / `[[key]]` table.
fn names_key(line: &str, key: &str) -> bool {
    let l = line.trim_start();
    let l = l.strip_prefix("[[").or_else(|| l.strip_prefix('[')).unwrap_or(l).trim_start();
    [("", ""), ("\"", "\""), ("'", "'")].iter().any(|(open, close)| {
        let rest = l.strip_prefix(open).and_then(|r| r.strip_prefix(key)).and_then(|r| r.strip_prefix(close));
        // `=` or `]` right after the name (so `gap` is not `gravity`).
        rest.is_some_and(|r| r.trim_start().starts_with(['=', ']']))
    })
}

/// `text` as it may be printed to a terminal: control characters (an ANSI
/// escape, a carriage return) and invisible format characters (a
/// byte-order mark, zero-width spaces, bidirectional overrides) shown
/// escaped, newlines and tabs kept.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || invisible(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A message as it is printed: [`escape`]d, and every `quoted` piece and
/// every word over 200 characters cut with "…" — whatever part of the
/// program wrote the message, a 100,000-character argument is not echoed
/// whole.
pub fn printable(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4_096));
    for (i, piece) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        // Odd pieces sit between backticks; elsewhere a long word (a
        // 309-digit number) is cut.
        if i % 2 == 1 {
            out.push_str(&echo(piece));
        } else {
            let mut word = String::new();
            for c in piece.chars().chain(['\n']) {
                if c.is_whitespace() {
                    out.push_str(&echo(&word));
                    out.push_str(&escape(c.encode_utf8(&mut [0; 4])));
                    word.clear();
                } else {
                    word.push(c);
                }
            }
            out.pop(); // the '\n' chained on
        }
    }
    out
}

/// A number from the user's input as a message quotes it: as Rust prints
/// it, or in scientific notation where that would run past 20 characters
/// (`1e308`, not 309 digits).
pub fn number(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() <= 20 {
        plain
    } else {
        format!("{v:e}")
    }
}

/// Unicode format characters that print as nothing (or reorder what
/// follows them).
fn invisible(c: char) -> bool {
    matches!(c, '\u{ad}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
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
        let long = super::printable(&format!("unknown trace `{}`: expected a generator", "y".repeat(100_000)));
        assert_eq!(long, format!("unknown trace `{}…`: expected a generator", "y".repeat(200)));
        let digits = super::printable(&format!("--seeds {}: expected a list", "9".repeat(309)));
        assert_eq!(digits, format!("--seeds {}… expected a list", "9".repeat(200)));
        assert_eq!(super::escape("\u{feff}time_ms\u{202e}"), "\\u{feff}time_ms\\u{202e}");
        assert_eq!(
            (super::number(1e308), super::number(-2.5), super::number(1e-30)),
            ("1e308".into(), "-2.5".into(), "1e-30".into())
        );
    }

    #[test]
    fn a_key_is_found_on_its_own_line_however_it_is_written() {
        let text = "tolerance = 5\n[metrics]\n\"latency.own.p99\" = 3\n\"\" = 5\n'lit' = 1\n[[event]]\n";
        let at = |k: &str| super::line_of_key(text, k, 0);
        assert_eq!(at("tolerance"), Some(1));
        assert_eq!(at("metrics"), Some(2));
        assert_eq!(at("latency.own.p99"), Some(3));
        assert_eq!(at(""), Some(4));
        assert_eq!(at("lit"), Some(5));
        assert_eq!(at("event"), Some(6));
        assert_eq!(at("tol"), None);
    }
}
