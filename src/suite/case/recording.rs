//! A recorded agent session: the `session:` section of a plugin's own case
//! file (`docs/session-format.md`), as `agent-conform record` writes it.
//! The host-session replay plays it instead of its generic session.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;

use super::{Fixtures, Source};

/// The `session:` section as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSection {
    /// Literal strings of the recording machine, and the placeholder
    /// (`{{transcript}}`, `{{repo}}`, `{{home}}`, `{{tmp}}`) each becomes.
    #[serde(default)]
    pub paths: BTreeMap<String, String>,
    /// The hooks, in firing order.
    pub hooks: Vec<HookSection>,
    /// Where the transcript was on the recording machine:
    /// `{{session_dir}}/…` (in the plugin's session directory),
    /// `{{repo}}/…` or `{{home}}/…`. Absent (older recordings): in the
    /// plugin's session directory under its recorded name.
    #[serde(default)]
    pub transcript_at: Option<String>,
    /// Where the agent ran (the payloads' `cwd`): `{{repo}}/…` or
    /// `{{home}}/…`.
    #[serde(default)]
    pub cwd: Option<String>,
}

/// One recorded hook as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookSection {
    /// The hook name (`info.hook_names`).
    pub hook: String,
    /// The payload the agent sent.
    pub payload: Source,
    /// The transcript's bytes at that moment.
    #[serde(default)]
    pub transcript: Option<Source>,
    /// The plugin's answer at record time (`null`: no event).
    #[serde(default, deserialize_with = "super::present")]
    pub event: Option<Value>,
}

/// A recorded session, loaded: every payload and snapshot in memory.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The case file it came from.
    pub file: String,
    /// The replacements, longest literal first.
    pub paths: Vec<(String, String)>,
    /// The hooks, in firing order.
    pub hooks: Vec<RecordedHook>,
    /// The extension of the transcript (`.jsonl`), for `{{transcript}}`.
    pub extension: String,
    /// Where the transcript was (`SessionSection::transcript_at`).
    pub transcript_at: Option<Place>,
    /// Where the agent ran (`SessionSection::cwd`).
    pub cwd: Option<Place>,
}

/// A place of the recording machine, relative to one of its folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The folder: `{{session_dir}}`, `{{repo}}` or `{{home}}`.
    pub base: &'static str,
    /// The path below it, `/`-separated, without `.` or `..` (empty: the
    /// folder itself).
    pub rest: String,
}

/// The folders a [`Place`] may start from.
const PLACE_BASES: &[&str] = &["{{session_dir}}", "{{repo}}", "{{home}}"];

impl Place {
    /// Reads `{{repo}}/sub`; `key` names the field in the error.
    fn parse(key: &str, text: &str) -> Result<Place, String> {
        let bad = || {
            format!(
                "session.{key}: {text:?} must start with one of {} and name a path below it                  without . or ..",
                PLACE_BASES.join(", ")
            )
        };
        let base = PLACE_BASES
            .iter()
            .find(|b| text.starts_with(**b))
            .ok_or_else(bad)?;
        let rest = &text[base.len()..];
        if !(rest.is_empty() || rest.starts_with('/')) {
            return Err(bad());
        }
        let rest = rest.trim_start_matches('/');
        if rest
            .split('/')
            .any(|part| matches!(part, "." | "..") || part.contains('\\'))
            || rest.contains("//")
        {
            return Err(bad());
        }
        Ok(Place {
            base,
            rest: rest.to_string(),
        })
    }
}

/// One recorded hook, loaded.
#[derive(Debug, Clone)]
pub struct RecordedHook {
    /// The hook name.
    pub hook: String,
    /// The payload bytes, before the path replacement.
    pub payload: Arc<[u8]>,
    /// The transcript snapshot written before the payload is sent.
    pub transcript: Option<Arc<[u8]>>,
    /// The Event recorded (`Some(Value::Null)`: no event).
    pub event: Option<Value>,
}

/// The placeholders a `paths` value may name.
pub const PLACEHOLDERS: &[&str] = &["{{transcript}}", "{{repo}}", "{{home}}", "{{tmp}}"];

impl SessionSection {
    /// Loads the payloads and snapshots; `dir` is the case file's directory.
    pub fn load(self, file: &str, dir: &str, fixtures: &Fixtures) -> Result<Recording, String> {
        let mut paths: Vec<(String, String)> = self.paths.into_iter().collect();
        if let Some((from, to)) = paths
            .iter()
            .find(|(from, to)| from.is_empty() || !PLACEHOLDERS.iter().any(|p| to.starts_with(p)))
        {
            return Err(format!(
                "session.paths: {from:?} -> {to:?}: each key must be non-empty and each value \
                 start with one of {}",
                PLACEHOLDERS.join(", ")
            ));
        }
        paths.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
        let extension = paths
            .iter()
            .find(|(_, to)| to == "{{transcript}}")
            .and_then(|(from, _)| from.rsplit_once('.').map(|(_, ext)| ext))
            .filter(|ext| !ext.contains('/') && ext.len() <= 12)
            .map_or(String::new(), |ext| format!(".{ext}"));
        let transcript_at = self
            .transcript_at
            .as_deref()
            .map(|t| Place::parse("transcript_at", t))
            .transpose()?;
        let cwd = self
            .cwd
            .as_deref()
            .map(|t| Place::parse("cwd", t))
            .transpose()?;
        if cwd.as_ref().is_some_and(|c| c.base == "{{session_dir}}") {
            return Err("session.cwd: the agent runs in {{repo}} or {{home}}, not in                         {{session_dir}}"
                .to_string());
        }
        let hooks = self
            .hooks
            .into_iter()
            .enumerate()
            .map(|(n, h)| {
                h.load(dir, fixtures)
                    .map_err(|e| format!("session.hooks[{n}]: {e}"))
            })
            .collect::<Result<_, _>>()?;
        Ok(Recording {
            file: file.to_string(),
            paths,
            hooks,
            extension,
            transcript_at,
            cwd,
        })
    }
}

impl HookSection {
    fn load(self, dir: &str, fixtures: &Fixtures) -> Result<RecordedHook, String> {
        let payload = bytes(&self.payload, dir, fixtures).map_err(|e| format!("payload: {e}"))?;
        let transcript = self
            .transcript
            .as_ref()
            .map(|s| bytes(s, dir, fixtures).map_err(|e| format!("transcript: {e}")))
            .transpose()?;
        Ok(RecordedHook {
            hook: self.hook,
            payload,
            transcript,
            event: self.event,
        })
    }
}

/// The bytes of a source of a recording: sent as recorded, so no
/// placeholders are expanded (a prompt may hold `{{`).
fn bytes(source: &Source, dir: &str, fixtures: &Fixtures) -> Result<Arc<[u8]>, String> {
    match source {
        Source::Path(rel) => {
            let path = super::normalize(&format!("{dir}/{rel}"));
            fixtures
                .file(&path)
                .cloned()
                .ok_or_else(|| format!("no file {path} (paths are relative to the case file)"))
        }
        Source::Fixture(name) => fixtures
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no fixture named {name:?}")),
        Source::Text(text) => Ok(Arc::from(text.as_bytes())),
        Source::Json(value) => Ok(Arc::from(value.to_string().into_bytes())),
        _ => Err("only path, fixture, text and json sources are allowed here".to_string()),
    }
}

impl Recording {
    /// Replaces the recording machine's paths in `text` (raw and in their
    /// JSON-escaped form) by the sandbox's: `values` gives each
    /// placeholder's value.
    pub fn localize(&self, text: &[u8], values: &dyn Fn(&str) -> String) -> Vec<u8> {
        let mut out = text.to_vec();
        for (from, to) in &self.paths {
            let to = expand(to, values);
            out = replace(&out, from.as_bytes(), to.as_bytes());
            let (from_json, to_json) = (json_inner(from), json_inner(&to));
            if from_json != *from {
                out = replace(&out, from_json.as_bytes(), to_json.as_bytes());
            }
        }
        out
    }

    /// [`Recording::localize`] on every string of a JSON value.
    pub fn localize_value(&self, value: &Value, values: &dyn Fn(&str) -> String) -> Value {
        match value {
            Value::String(s) => {
                let bytes = self.localize(s.as_bytes(), values);
                Value::String(String::from_utf8_lossy(&bytes).into_owned())
            }
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.localize_value(v, values))
                    .collect(),
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.localize_value(v, values)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// A `paths` value with its placeholder replaced.
fn expand(to: &str, values: &dyn Fn(&str) -> String) -> String {
    PLACEHOLDERS
        .iter()
        .find(|p| to.starts_with(**p))
        .map_or_else(
            || to.to_string(),
            |p| format!("{}{}", values(p), &to[p.len()..]),
        )
}

/// The inside of a JSON string literal of `text` (its escaped form).
fn json_inner(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted.trim_matches('"').to_string()
}

fn replace(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() {
        return haystack.to_vec();
    }
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_replaced_raw_and_json_escaped_longest_first() {
        let rec = Recording {
            file: String::new(),
            paths: vec![
                ("/home/a/src/app".into(), "{{repo}}".into()),
                ("/home/a".into(), "{{home}}".into()),
            ],
            hooks: Vec::new(),
            extension: String::new(),
            transcript_at: None,
            cwd: None,
        };
        let values = |p: &str| match p {
            "{{repo}}" => "/sb/repo".to_string(),
            _ => "/sb/home".to_string(),
        };
        let out = rec.localize(br#"{"cwd":"/home/a/src/app","h":"\/home\/a/x"}"#, &values);
        assert_eq!(
            String::from_utf8_lossy(&out),
            r#"{"cwd":"/sb/repo","h":"\/home\/a/x"}"#
        );
        let out = rec.localize(b"/home/a/.x", &values);
        assert_eq!(out, b"/sb/home/.x");
    }

    #[test]
    fn places_name_a_folder_and_a_path_below_it() {
        let place = Place::parse("cwd", "{{repo}}/sub/dir").expect("a place");
        assert_eq!((place.base, place.rest.as_str()), ("{{repo}}", "sub/dir"));
        assert_eq!(Place::parse("cwd", "{{home}}").expect("home").rest, "");
        for bad in [
            "/abs/x",
            "{{repo}}/../x",
            "{{repo}}x",
            "{{tmp}}/x",
            "{{home}}/a//b",
        ] {
            assert!(Place::parse("cwd", bad).is_err(), "{bad}");
        }
    }
}
