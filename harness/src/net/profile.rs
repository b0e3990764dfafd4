//! Network profiles: an uplink and a downlink, each a netem string, with a
//! description and the source of the numbers.
//!
//! A profile file in `netem-profiles/NAME.toml`:
//!
//! ```toml
//! description = "Home Wi-Fi, 2.4 GHz, moderate contention"
//! source = "where the numbers come from"
//! uplink = "delay 20ms 6ms loss 0.5%"
//! downlink = "delay 18ms 5ms loss 0.3%"
//! ```
//!
//! (`link = "..."` sets both directions at once.) `--profile` takes a name
//! from the profile directories, a path to such a file, or an inline netem
//! string used for both directions: `--profile "delay 50ms 10ms loss 2%"`.

use super::netem::{Netem, KEYWORDS};
use crate::error::{InputError, Source};
use std::path::{Path, PathBuf};

/// A resolved network profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Name (file stem, or the inline string).
    pub name: String,
    /// One line on what network this is.
    pub description: String,
    /// Where its numbers come from.
    pub source: String,
    /// Node → network.
    pub uplink: Netem,
    /// Network → node.
    pub downlink: Netem,
}

impl Profile {
    /// A profile with no impairment at all.
    pub fn clean() -> Profile {
        Profile {
            name: "clean".into(),
            description: "no delay, no loss".into(),
            source: "built in".into(),
            uplink: Netem::clean(),
            downlink: Netem::clean(),
        }
    }

    /// Resolves a `--profile` argument (see the module docs).
    pub fn resolve(arg: &str, dirs: &[PathBuf]) -> Result<Profile, InputError> {
        let first = arg.split_whitespace().next().unwrap_or("");
        if KEYWORDS.contains(&first) {
            let source = Source::Inline(format!("--profile \"{arg}\""));
            let n = Netem::parse(arg).map_err(|e| InputError::at(&source, None, e.to_string()))?;
            return Ok(Profile {
                name: arg.to_string(),
                description: "inline netem string, both directions".into(),
                source: "command line".into(),
                uplink: n.clone(),
                downlink: n,
            });
        }
        if arg.ends_with(".toml") || arg.contains('/') {
            return Self::load(Path::new(arg));
        }
        for d in dirs {
            let p = d.join(format!("{arg}.toml"));
            if p.is_file() {
                return Self::load(&p);
            }
        }
        let known: Vec<String> = list(dirs).into_iter().map(|p| p.name).collect();
        Err(InputError::at(
            &Source::Inline(format!("--profile {arg}")),
            None,
            format!(
                "unknown profile `{arg}`: expected a name ({}), a path to a .toml file, or a netem string such as \"delay 50ms 10ms loss 1%\"",
                if known.is_empty() { "none found".to_string() } else { known.join(", ") }
            ),
        ))
    }

    /// Loads a profile file.
    pub fn load(path: &Path) -> Result<Profile, InputError> {
        let source = Source::File(path.display().to_string());
        let text = std::fs::read_to_string(path)
            .map_err(|e| InputError::at(&source, None, format!("cannot read profile: {e}")))?;
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("profile");
        Self::parse(&text, name, &source)
    }

    /// Parses the text of a profile file.
    pub fn parse(text: &str, name: &str, source: &Source) -> Result<Profile, InputError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
            InputError::at(source, line, format!("invalid TOML: {}", e.message()))
        })?;
        let line_of = |key: &str| {
            text.lines()
                .position(|l| l.trim_start().starts_with(key))
                .map(|i| i + 1)
        };
        let mut p = Profile {
            name: name.to_string(),
            description: String::new(),
            source: String::new(),
            uplink: Netem::clean(),
            downlink: Netem::clean(),
        };
        let mut have = (false, false);
        for (key, value) in &table {
            let line = line_of(key);
            let s = value
                .as_str()
                .ok_or_else(|| InputError::at(source, line, format!("`{key}` must be a string")))?;
            let netem = |s: &str| {
                Netem::parse(s).map_err(|e| InputError::at(source, line, format!("`{key}`: {e}")))
            };
            match key.as_str() {
                "description" => p.description = s.to_string(),
                "source" => p.source = s.to_string(),
                "uplink" => {
                    p.uplink = netem(s)?;
                    have.0 = true;
                }
                "downlink" => {
                    p.downlink = netem(s)?;
                    have.1 = true;
                }
                "link" => {
                    p.uplink = netem(s)?;
                    p.downlink = p.uplink.clone();
                    have = (true, true);
                }
                _ => {
                    return Err(InputError::at(
                        source,
                        line,
                        format!("unknown key `{key}`: expected description, source, uplink, downlink or link"),
                    ))
                }
            }
        }
        if !(have.0 && have.1) {
            return Err(InputError::at(
                source,
                None,
                "a profile needs `uplink` and `downlink` (or `link` for both)",
            ));
        }
        Ok(p)
    }
}

/// The profiles found in `dirs`, sorted by name (first directory wins);
/// files that fail to parse are skipped here and reported when used.
pub fn list(dirs: &[PathBuf]) -> Vec<Profile> {
    let mut out: Vec<Profile> = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "toml"))
        {
            if let Ok(p) = Profile::load(f) {
                if !out.iter().any(|q| q.name == p.name) {
                    out.push(p);
                }
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("p.toml".into())
    }

    #[test]
    fn parses_a_profile_file() {
        let p = Profile::parse("description = \"x\"\nsource = \"y\"\nuplink = \"delay 20ms\"\ndownlink = \"delay 10ms loss 1%\"\n", "wifi", &src()).unwrap();
        assert_eq!(p.uplink.delay_us, 20_000);
        assert_eq!(p.downlink.delay_us, 10_000);
        let both = Profile::parse("link = \"delay 5ms\"\n", "l", &src()).unwrap();
        assert_eq!(both.uplink, both.downlink);
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = Profile::parse(
            "description = \"x\"\nuplink = \"delay banana\"\ndownlink = \"\"\n",
            "p",
            &src(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("banana"), "{e}");
        let e = Profile::parse(
            "uplink = \"\"\ndownlink = \"\"\nlatency = \"1\"\n",
            "p",
            &src(),
        )
        .unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = Profile::parse("uplink = \n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(Profile::parse("uplink = \"delay 1ms\"\n", "p", &src()).is_err());
    }

    #[test]
    fn inline_strings_and_unknown_names() {
        let p = Profile::resolve("delay 50ms loss 2%", &[]).unwrap();
        assert_eq!(p.uplink.delay_us, 50_000);
        assert_eq!(p.uplink, p.downlink);
        let e = Profile::resolve("delay banana", &[]).unwrap_err();
        assert!(e.to_string().contains("banana"), "{e}");
        let e = Profile::resolve("marsnet", &[]).unwrap_err();
        assert!(e.message.contains("unknown profile"), "{e}");
    }
}
