//! Placeholders in case files: `{{repo}}`, `{{capture:sid}}` and friends.
//!
//! Arguments, stdin text, JSON strings and file paths in a case may refer to
//! the sandbox and to values learnt during the run. Templates are parsed when
//! the case file loads, so a typo in a placeholder is an error of the case
//! file (exit 2), never a confusing failure of the plugin.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::Value;

/// One placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Var {
    /// `{{repo}}`: the sandbox's git work tree (cwd and `ENTIRE_REPO_ROOT`).
    Repo,
    /// `{{cwd}}`: where the agent runs, the payloads' working directory:
    /// the repository's root, or the directory of it its world names.
    Cwd,
    /// `{{home}}`: the sandbox's HOME.
    Home,
    /// `{{tmp}}`: a scratch directory outside the repository.
    Tmp,
    /// `{{info:/pointer}}`: a value from the plugin's `info` output.
    Info(String),
    /// `{{capture:name}}`: a value captured by an earlier step.
    Capture(String),
    /// `{{base64:fixture}}`: a fixture's bytes as standard padded base64.
    Base64(String),
    /// `{{item}}`: the current element of the step's `for_each`.
    Item,
    /// `{{transcript}}`: the path of the current transcript of a
    /// `for_each_transcript` case.
    Transcript,
    /// `{{transcript_name}}`: its file name.
    TranscriptName,
    /// `{{fragment_start}}`: the host's line count where a checkpoint's
    /// fragment of the current transcript starts (the lines before
    /// `current_transcript_fragment`; 0 for one JSON document), as the host
    /// passes it to `--offset`.
    FragmentStart,
}

/// The names accepted before the colon, for error messages.
const KNOWN: &str = "repo, cwd, home, tmp, item, transcript, transcript_name, fragment_start, info:/POINTER, capture:NAME, base64:FIXTURE";

/// A parsed template: literal text and placeholders.
#[derive(Debug, Clone)]
pub struct Template {
    parts: Vec<Part>,
}

#[derive(Debug, Clone)]
enum Part {
    Lit(String),
    Var(Var),
}

/// What templates expand against.
pub struct Bindings<'a> {
    /// `{{repo}}`.
    pub repo: String,
    /// `{{cwd}}`.
    pub cwd: String,
    /// `{{home}}`.
    pub home: String,
    /// `{{tmp}}`.
    pub tmp: String,
    /// The plugin's `info` output.
    pub info: &'a Value,
    /// Values captured so far in this case.
    pub captures: &'a BTreeMap<String, Value>,
    /// Fixture files by name.
    pub fixtures: &'a crate::suite::fixtures::Fixtures,
    /// The current `for_each` element, if any.
    pub item: Option<&'a Value>,
    /// The current transcript's path and file name, in a
    /// `for_each_transcript` case.
    pub transcript: Option<(String, String)>,
    /// `{{fragment_start}}`, in a `for_each_transcript` case.
    pub fragment_start: Option<u64>,
}

impl Template {
    /// Parses `text`; the error names the offending placeholder.
    pub fn parse(text: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                parts.push(Part::Lit(rest[..open].to_string()));
            }
            let after = &rest[open + 2..];
            let close = after
                .find("}}")
                .ok_or_else(|| format!("unclosed placeholder in {text:?}"))?;
            parts.push(Part::Var(parse_var(after[..close].trim())?));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Lit(rest.to_string()));
        }
        Ok(Template { parts })
    }

    /// The placeholders used, in order.
    pub fn vars(&self) -> impl Iterator<Item = &Var> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(v) => Some(v),
            Part::Lit(_) => None,
        })
    }

    /// The typed value when the template is a single value placeholder.
    fn sole_value(&self, b: &Bindings<'_>) -> Result<Option<Value>, String> {
        let [Part::Var(var)] = self.parts.as_slice() else {
            return Ok(None);
        };
        let value = match var {
            Var::Info(pointer) => b.info.pointer(pointer),
            Var::Capture(name) => b.captures.get(name),
            Var::Item => b.item,
            _ => return Ok(None),
        };
        match value {
            Some(v) => Ok(Some(v.clone())),
            None => expand_var(var, b).map(|_| None),
        }
    }

    /// Expands every placeholder; fails when a value is missing at run time
    /// (an `info` field the plugin did not print, say).
    pub fn expand(&self, b: &Bindings<'_>) -> Result<String, String> {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Lit(text) => out.push_str(text),
                Part::Var(var) => out.push_str(&expand_var(var, b)?),
            }
        }
        Ok(out)
    }
}

fn parse_var(inner: &str) -> Result<Var, String> {
    let (kind, arg) = match inner.split_once(':') {
        Some((k, a)) => (k.trim(), Some(a.trim())),
        None => (inner, None),
    };
    let var = match (kind, arg) {
        ("repo", None) => Var::Repo,
        ("cwd", None) => Var::Cwd,
        ("home", None) => Var::Home,
        ("tmp", None) => Var::Tmp,
        ("item", None) => Var::Item,
        ("transcript", None) => Var::Transcript,
        ("transcript_name", None) => Var::TranscriptName,
        ("fragment_start", None) => Var::FragmentStart,
        ("info", Some(p)) if p.is_empty() || p.starts_with('/') => Var::Info(p.to_string()),
        ("capture", Some(n)) if !n.is_empty() => Var::Capture(n.to_string()),
        ("base64", Some(f)) if !f.is_empty() => Var::Base64(f.to_string()),
        _ => {
            return Err(format!(
                "unknown placeholder {{{{{inner}}}}}; known placeholders: {KNOWN}"
            ));
        }
    };
    Ok(var)
}

fn expand_var(var: &Var, b: &Bindings<'_>) -> Result<String, String> {
    Ok(match var {
        Var::Repo => b.repo.clone(),
        Var::Cwd => b.cwd.clone(),
        Var::Home => b.home.clone(),
        Var::Tmp => b.tmp.clone(),
        Var::Info(pointer) => match b.info.pointer(pointer) {
            Some(value) => value_text(value),
            None => return Err(format!("info output has no value at {pointer}")),
        },
        Var::Capture(name) => match b.captures.get(name) {
            Some(value) => value_text(value),
            None => return Err(format!("no value was captured as {name:?}")),
        },
        Var::Item => match b.item {
            Some(value) => value_text(value),
            None => return Err("{{item}} is used outside a for_each step".to_string()),
        },
        Var::Transcript | Var::TranscriptName => match &b.transcript {
            Some((path, _)) if *var == Var::Transcript => path.clone(),
            Some((_, name)) => name.clone(),
            None => return Err("{{transcript}} is used outside a for_each_transcript case".into()),
        },
        Var::FragmentStart => match b.fragment_start {
            Some(start) => start.to_string(),
            None => {
                return Err("{{fragment_start}} is used outside a for_each_transcript case".into());
            }
        },
        Var::Base64(name) => match b.fixtures.get(name) {
            Some(bytes) => base64::engine::general_purpose::STANDARD.encode(bytes),
            None => return Err(format!("no fixture named {name:?}")),
        },
    })
}

/// A JSON value as template text: strings without their quotes.
pub fn value_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Expands the placeholders in every string of a JSON value (keys stay).
///
/// A string that is exactly one `{{info:...}}`, `{{capture:...}}` or
/// `{{item}}` placeholder becomes that value itself, with its JSON type, so
/// that `equals: "{{capture:pos}}"` compares a number with a number.
pub fn expand_json(value: &Value, b: &Bindings<'_>) -> Result<Value, String> {
    Ok(match value {
        Value::String(s) => {
            let template = Template::parse(s)?;
            match template.sole_value(b)? {
                Some(typed) => typed,
                None => Value::String(template.expand(b)?),
            }
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| expand_json(v, b))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), expand_json(v, b)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

/// Every template string inside a JSON value, for load-time checks.
pub fn json_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| json_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| json_strings(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_literals_and_vars() {
        let t = Template::parse("{{repo}}/x-{{capture:sid}}").unwrap();
        let vars: Vec<_> = t.vars().cloned().collect();
        assert_eq!(vars, vec![Var::Repo, Var::Capture("sid".into())]);
    }

    #[test]
    fn rejects_unknown_and_unclosed() {
        assert!(
            Template::parse("{{rep}}")
                .unwrap_err()
                .contains("unknown placeholder")
        );
        assert!(Template::parse("{{repo").unwrap_err().contains("unclosed"));
        assert!(Template::parse("{{info:name}}").is_err());
    }
}
