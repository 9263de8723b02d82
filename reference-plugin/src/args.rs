//! Flag parsing for the subcommands.
//!
//! The host passes flags as separate `--name value` arguments after the
//! subcommand (it executes the binary directly, with no shell). Each subcommand
//! declares the flags it takes; everything else is refused, because a flag the
//! plugin silently ignores is a request it silently misreads.
//!
//! - value flags (`--max-size 5`) are all required by the protocol;
//! - switches (`--force`) take no value and are optional.
//!
//! The value is simply the next argument, even when it starts with `--`: a
//! `--message` may legitimately begin with dashes.

use std::collections::BTreeMap;

use crate::error::{Error, Result};

/// The flags one subcommand accepts.
#[derive(Debug, Clone, Copy)]
pub struct FlagSpec {
    /// Flags that take a value; every one of them is required.
    pub values: &'static [&'static str],
    /// Flags without a value; each is optional.
    pub switches: &'static [&'static str],
}

/// The parsed flags of one invocation.
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<&'static str, String>,
    switches: Vec<&'static str>,
    /// Required value flags that were missing and taken as "" (only ever
    /// non-empty under the `missing-flag-ok` fault).
    missing: Vec<&'static str>,
}

impl Args {
    /// Parse `raw` (the arguments after the subcommand) against `spec`.
    ///
    /// With `missing_ok` (only ever set by the `missing-flag-ok` fault) a missing
    /// required flag is taken as the empty string instead of being an error.
    pub fn parse(raw: &[String], spec: &FlagSpec, missing_ok: bool) -> Result<Args> {
        let mut args = Args::default();
        let mut rest = raw.iter();
        while let Some(arg) = rest.next() {
            if let Some(&name) = spec.switches.iter().find(|s| **s == arg.as_str()) {
                if args.switches.contains(&name) {
                    return Err(Error::failed(format!("flag {name} given twice")));
                }
                args.switches.push(name);
            } else if let Some(&name) = spec.values.iter().find(|v| **v == arg.as_str()) {
                let value = rest
                    .next()
                    .ok_or_else(|| Error::failed(format!("flag {name} needs a value")))?;
                if args.values.insert(name, value.clone()).is_some() {
                    return Err(Error::failed(format!("flag {name} given twice")));
                }
            } else if arg.starts_with("--") {
                return Err(Error::failed(format!("unknown flag {arg}")));
            } else {
                return Err(Error::failed(format!("unexpected argument {arg:?}")));
            }
        }
        for &name in spec.values {
            if !args.values.contains_key(name) {
                if !missing_ok {
                    return Err(Error::failed(format!("missing required flag {name}")));
                }
                args.values.insert(name, String::new());
                args.missing.push(name);
            }
        }
        Ok(args)
    }

    /// The value of a declared value flag. `parse` guarantees every declared flag
    /// is present; an undeclared name yields "".
    pub fn value(&self, name: &str) -> &str {
        self.values.get(name).map_or("", String::as_str)
    }

    /// Whether a required value flag was missing and taken as "" (only ever true
    /// under the `missing-flag-ok` fault, whose handlers then guess a default).
    pub fn missing(&self, name: &str) -> bool {
        self.missing.contains(&name)
    }

    /// Whether a switch was given.
    pub fn switch(&self, name: &str) -> bool {
        self.switches.contains(&name)
    }
}

/// Parse a signed decimal integer flag, with a message naming the flag.
pub fn parse_integer(name: &str, raw: &str) -> Result<i64> {
    raw.parse::<i64>()
        .map_err(|err| Error::failed(format!("{name} must be an integer, got {raw:?} ({err})")))
}

/// Parse `--offset`: an integer >= 0 (a line index into the transcript).
pub fn parse_offset(raw: &str) -> Result<usize> {
    let offset = parse_integer("--offset", raw)?;
    usize::try_from(offset)
        .map_err(|_| Error::failed(format!("--offset must be >= 0, got {offset}")))
}

/// Parse `--max-size`: an integer > 0 (a byte count).
pub fn parse_max_size(raw: &str) -> Result<usize> {
    let size = parse_integer("--max-size", raw)?;
    match usize::try_from(size) {
        Ok(size) if size > 0 => Ok(size),
        _ => Err(Error::failed(format!("--max-size must be > 0, got {size}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: FlagSpec = FlagSpec {
        values: &["--path", "--offset"],
        switches: &["--force"],
    };

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn parses_values_and_switches() {
        let args = Args::parse(
            &strings(&["--offset", "3", "--force", "--path", "--odd"]),
            &SPEC,
            false,
        )
        .expect("valid flags");
        assert_eq!(args.value("--offset"), "3");
        assert_eq!(args.value("--path"), "--odd");
        assert!(args.switch("--force"));
    }

    #[test]
    fn rejects_bad_flags() {
        for bad in [
            &["--path", "p"][..],
            &["--path", "p", "--offset"],
            &["--path", "p", "--offset", "1", "--bogus", "x"],
            &["--path", "p", "--offset", "1", "stray"],
            &["--path", "p", "--path", "q", "--offset", "1"],
        ] {
            assert!(Args::parse(&strings(bad), &SPEC, false).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn missing_ok_defaults_to_empty() {
        let args =
            Args::parse(&["--offset".to_owned(), "1".to_owned()], &SPEC, true).expect("lenient");
        assert_eq!(args.value("--path"), "");
        assert!(args.missing("--path"));
        assert!(!args.missing("--offset"));
    }

    #[test]
    fn integers() {
        assert_eq!(parse_offset("0").ok(), Some(0));
        assert!(parse_offset("-1").is_err());
        assert!(parse_offset("1.5").is_err());
        assert_eq!(parse_max_size("10").ok(), Some(10));
        assert!(parse_max_size("0").is_err());
        assert!(parse_max_size("-3").is_err());
        assert!(parse_max_size("ten").is_err());
    }
}
