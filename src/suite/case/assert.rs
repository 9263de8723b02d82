//! One assertion of a step's `expect.json`: a pointer, exactly one check,
//! and what any check may carry (a condition, a severity, a reason).
//!
//! The check is one enum, [`Check`], flattened into the assertion's map as
//! case files have always written it (`- pointer: /x` then `equals: 1`), so
//! that the judge and the reports match on it exhaustively. Its
//! deserialiser reads the keys left over by [`JsonAssert`]'s own and
//! refuses none, two, or an unknown one with a sentence that names the
//! checks; `schemas/case-file.json` lists the same keys ([`Check::KEYS`]).

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, de::Error as _};
use serde_json::Value;

use super::{Severity, Source};

/// One assertion on a value of the stdout JSON.
#[derive(Debug, Clone, Deserialize)]
pub struct JsonAssert {
    /// JSON pointer; a `*` segment means every element of an array.
    pub pointer: String,
    /// What must hold of the value (every other key of the assertion).
    #[serde(flatten)]
    pub check: Check,
    /// Only check when this other value of the same document matches.
    #[serde(default)]
    pub when: Option<Precondition>,
    /// Overrides the case's severity for this assertion.
    #[serde(default)]
    pub severity: Option<Severity>,
    /// Why, shown with a failure of this assertion.
    #[serde(default)]
    pub because: Option<String>,
}

/// The one check of an assertion, by its key in the case file.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    /// `equals`: the value must equal this (strings take placeholders;
    /// `equals: null` checks for null).
    Equals(Value),
    /// `not_equals`: the value must not equal this.
    NotEquals(Value),
    /// `not_empty: true`: a non-empty string or array.
    NotEmpty,
    /// `empty: true`: null, an empty string, array or object.
    Empty,
    /// `min`: a number of at least this.
    Min(i64),
    /// `contains`: a string containing this text (a template).
    Contains(String),
    /// `type`: the value has this JSON type.
    Type(JsonType),
    /// `absolute_path: true`: a string that is an absolute path.
    AbsolutePath,
    /// `inside`: a string that is a path inside this directory (a
    /// template), after resolving `.` and `..` lexically.
    Inside(String),
    /// `base64_max_len`: a base64 string decoding to at most this many
    /// bytes (a template).
    Base64MaxLen(String),
    /// `base64_equals`: a base64 string decoding to exactly these bytes.
    Base64Equals(Source),
    /// `schema`: the value matches this schema of `schemas/` (with the
    /// assertion's severity: the host's rules as failures, the guide's as
    /// warnings).
    Schema(String),
    /// `file_exists: true`: a string naming an existing file (a TurnEnd's
    /// session_ref: the host reads it at once).
    FileExists,
    /// `own_session_dir: true`: a session directory of the plugin's own:
    /// the host's owner lookup gives it no other agent's transcripts
    /// (`host::ownership`; each finding has the host's weight, capped by
    /// the assertion's severity).
    OwnSessionDir,
    /// `host_lines`: the number is the host's line count of this transcript
    /// file (a template, usually `{{transcript}}`): a failure for a JSONL
    /// transcript, a note for one JSON document
    /// ([`crate::host::positions::judge`]).
    HostLines(String),
    /// `host_session_file`: the string is a session file the newest hosts
    /// accept under this session directory (a template): no path component
    /// below it refused before `write-session`, no symlink
    /// ([`crate::host::session_path`]).
    HostSessionFile(String),
    /// `setup_detect: true`: `detect`'s answer in an empty sandbox, as
    /// setup uses it: "present" where the agent has never been enables the
    /// agent in every repository, and aborts a non-interactive `entire
    /// enable` for a plugin without hooks ([`crate::host::project`]).
    SetupDetect,
    /// `installed_detect: true`: `detect`'s answer where the agent is
    /// installed (the case file's `agent:`), as setup uses it: present for
    /// a plugin with hooks, absent for one without
    /// ([`crate::host::project::detect_installed`]).
    InstalledDetect,
}

/// A JSON type, as `type:` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JsonType {
    /// `null`.
    Null,
    /// `true` or `false`.
    Boolean,
    /// Any number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

impl JsonType {
    /// The type of a value.
    pub fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Number(_) => JsonType::Number,
            Value::String(_) => JsonType::String,
            Value::Array(_) => JsonType::Array,
            Value::Object(_) => JsonType::Object,
        }
    }

    /// Its name, as written in a case file.
    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Array => "array",
            JsonType::Object => "object",
        }
    }
}

/// A precondition of an assertion.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Precondition {
    /// JSON pointer in the same document.
    pub pointer: String,
    /// The value it must have for the assertion to apply.
    pub equals: Value,
}

impl JsonAssert {
    /// "The whole stdout matches `schema`", at `severity`.
    pub fn schema(schema: &str, severity: Severity, because: &str) -> JsonAssert {
        JsonAssert {
            pointer: String::new(),
            check: Check::Schema(schema.to_string()),
            when: None,
            severity: Some(severity),
            because: Some(because.to_string()),
        }
    }
}

impl Check {
    /// The keys of the checks, as case files write them.
    pub const KEYS: &[&str] = &[
        "equals",
        "not_equals",
        "not_empty",
        "empty",
        "min",
        "contains",
        "type",
        "absolute_path",
        "inside",
        "base64_max_len",
        "base64_equals",
        "schema",
        "file_exists",
        "own_session_dir",
        "host_lines",
        "host_session_file",
        "setup_detect",
        "installed_detect",
    ];

    /// The check's key in a case file.
    pub fn key(&self) -> &'static str {
        match self {
            Check::Equals(_) => "equals",
            Check::NotEquals(_) => "not_equals",
            Check::NotEmpty => "not_empty",
            Check::Empty => "empty",
            Check::Min(_) => "min",
            Check::Contains(_) => "contains",
            Check::Type(_) => "type",
            Check::AbsolutePath => "absolute_path",
            Check::Inside(_) => "inside",
            Check::Base64MaxLen(_) => "base64_max_len",
            Check::Base64Equals(_) => "base64_equals",
            Check::Schema(_) => "schema",
            Check::FileExists => "file_exists",
            Check::OwnSessionDir => "own_session_dir",
            Check::HostLines(_) => "host_lines",
            Check::HostSessionFile(_) => "host_session_file",
            Check::SetupDetect => "setup_detect",
            Check::InstalledDetect => "installed_detect",
        }
    }

    /// The check of `key`, its value read from `map`.
    fn read<'de, A: MapAccess<'de>>(key: &str, map: &mut A) -> Result<Check, A::Error> {
        Ok(match key {
            "equals" => Check::Equals(map.next_value()?),
            "not_equals" => Check::NotEquals(map.next_value()?),
            "not_empty" => on(key, map, Check::NotEmpty)?,
            "empty" => on(key, map, Check::Empty)?,
            "min" => Check::Min(map.next_value()?),
            "contains" => Check::Contains(map.next_value()?),
            "type" => Check::Type(map.next_value()?),
            "absolute_path" => on(key, map, Check::AbsolutePath)?,
            "inside" => Check::Inside(map.next_value()?),
            "base64_max_len" => Check::Base64MaxLen(map.next_value()?),
            "base64_equals" => Check::Base64Equals(map.next_value()?),
            "schema" => Check::Schema(map.next_value()?),
            "file_exists" => on(key, map, Check::FileExists)?,
            "own_session_dir" => on(key, map, Check::OwnSessionDir)?,
            "host_lines" => Check::HostLines(map.next_value()?),
            "host_session_file" => Check::HostSessionFile(map.next_value()?),
            "setup_detect" => on(key, map, Check::SetupDetect)?,
            "installed_detect" => on(key, map, Check::InstalledDetect)?,
            other => {
                return Err(A::Error::custom(format!(
                    "unknown key `{other}` in a JSON assertion; besides pointer, when, severity \
                     and because it takes one check: {}",
                    Check::KEYS.join(", ")
                )));
            }
        })
    }
}

/// A check written `key: true`; `false` would check nothing, so it is refused.
fn on<'de, A: MapAccess<'de>>(key: &str, map: &mut A, check: Check) -> Result<Check, A::Error> {
    if map.next_value::<bool>()? {
        Ok(check)
    } else {
        Err(A::Error::custom(format!(
            "`{key}: false` checks nothing; write `{key}: true`, or leave the key out"
        )))
    }
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Check, D::Error> {
        deserializer.deserialize_map(OneCheck)
    }
}

/// Reads the keys [`JsonAssert`] leaves over: exactly one check.
struct OneCheck;

impl<'de> Visitor<'de> for OneCheck {
    type Value = Check;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one check: {}", Check::KEYS.join(", "))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Check, A::Error> {
        let mut found: Option<Check> = None;
        while let Some(key) = map.next_key::<String>()? {
            let check = Check::read(&key, &mut map)?;
            if let Some(first) = &found {
                return Err(A::Error::custom(format!(
                    "a JSON assertion has exactly one check, this one has `{}` and `{key}`; \
                     write two assertions on the same pointer",
                    first.key()
                )));
            }
            found = Some(check);
        }
        found.ok_or_else(|| {
            de::Error::custom(format!(
                "a JSON assertion needs one check besides its pointer: {}",
                Check::KEYS.join(", ")
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> Result<JsonAssert, String> {
        serde_saphyr::from_str(yaml).map_err(|e| e.to_string())
    }

    #[test]
    fn each_key_reads_as_its_check() {
        let a = parse("pointer: /x\nequals: null\nseverity: warning\n").expect("loads");
        assert_eq!(a.check, Check::Equals(Value::Null));
        assert_eq!(a.severity, Some(Severity::Warning));
        let a = parse("pointer: /x\nnot_empty: true\n").expect("loads");
        assert_eq!(a.check, Check::NotEmpty);
        let a = parse("{pointer: /x, type: array, when: {pointer: /y, equals: 1}}").expect("loads");
        assert_eq!(a.check, Check::Type(JsonType::Array));
        assert!(a.when.is_some());
        let a = parse("pointer: /x\nmin: 3\n").expect("loads");
        assert_eq!(a.check, Check::Min(3));
    }

    #[test]
    fn none_two_or_an_unknown_check_is_refused_in_a_sentence() {
        let none = parse("pointer: /x\nbecause: why\n").expect_err("no check");
        assert!(none.contains("needs one check"), "{none}");
        let two = parse("pointer: /x\nequals: 1\ncontains: a\n").expect_err("two checks");
        assert!(two.contains("`equals` and `contains`"), "{two}");
        let typo = parse("pointer: /x\nequal: 1\n").expect_err("unknown key");
        assert!(typo.contains("unknown key `equal`"), "{typo}");
        let off = parse("pointer: /x\nnot_empty: false\n").expect_err("false");
        assert!(off.contains("checks nothing"), "{off}");
        let bad = parse("pointer: /x\ntype: list\n").expect_err("unknown type");
        assert!(bad.contains("list"), "{bad}");
    }

    #[test]
    fn every_check_has_its_key_listed() {
        let read = |key: &str| {
            let value = match key {
                "not_empty" | "empty" | "absolute_path" | "file_exists" | "own_session_dir"
                | "setup_detect" | "installed_detect" => "true",
                "min" => "1",
                "type" => "string",
                "base64_equals" => "{text: a}",
                _ => "\"a\"",
            };
            parse(&format!("pointer: /x\n{key}: {value}\n"))
                .unwrap_or_else(|e| panic!("{key}: {e}"))
        };
        for key in Check::KEYS {
            assert_eq!(read(key).check.key(), *key);
        }
    }
}
