//! `--redact REGEX`: what must not leave the recording machine.
//!
//! Every match of every pattern, in payloads, transcript snapshots, the
//! events' strings and the `paths` keys, becomes the same fixed token, so a
//! redacted value stays equal to itself everywhere (a session id redacted in
//! a payload is redacted identically in the event that echoes it, and the
//! replay's comparison still holds).

use regex::bytes::Regex;
use serde_json::Value;

use crate::verbs::usage::UsageError;

/// What every match is replaced with.
pub const TOKEN: &str = "REDACTED";

/// The compiled `--redact` patterns (none: nothing is changed).
#[derive(Debug, Default)]
pub struct Redactor {
    patterns: Vec<Regex>,
}

impl Redactor {
    /// Compiles the patterns; a bad one is a usage error naming it.
    pub fn new(patterns: &[String]) -> Result<Redactor, UsageError> {
        let patterns = patterns
            .iter()
            .map(|p| {
                Regex::new(p).map_err(|err| UsageError {
                    message: format!(
                        "--redact {p:?} is not a regular expression: {}",
                        first_line(&err.to_string())
                    ),
                    hint: Some(
                        "use Rust regex syntax (https://docs.rs/regex), e.g. --redact 'sk-[A-Za-z0-9]+'"
                            .into(),
                    ),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Redactor { patterns })
    }

    /// The bytes with every match replaced.
    pub fn bytes(&self, input: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        for pattern in &self.patterns {
            out = pattern.replace_all(&out, TOKEN.as_bytes()).into_owned();
        }
        out
    }

    /// A string with every match replaced.
    pub fn text(&self, input: &str) -> String {
        String::from_utf8_lossy(&self.bytes(input.as_bytes())).into_owned()
    }

    /// A JSON value with every match replaced in its strings and keys.
    pub fn json(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.text(text)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.json(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.text(k), self.json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or(text)
        .trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_match_becomes_the_token_everywhere() {
        let r = Redactor::new(&["alice".into(), "sk-[0-9]+".into()]).expect("compiles");
        assert_eq!(
            r.bytes(b"/home/alice key sk-123 alice"),
            b"/home/REDACTED key REDACTED REDACTED"
        );
        let v = serde_json::json!({"alice": ["sk-9", 1, {"p": "/home/alice"}]});
        assert_eq!(
            r.json(&v),
            serde_json::json!({"REDACTED": ["REDACTED", 1, {"p": "/home/REDACTED"}]})
        );
    }

    #[test]
    fn a_bad_pattern_is_a_usage_error() {
        let err = Redactor::new(&["(".into()]).expect_err("refused");
        assert!(err.message.starts_with("--redact \"(\""), "{}", err.message);
    }
}
