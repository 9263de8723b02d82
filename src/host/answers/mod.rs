//! How the host decodes each JSON answer, and what the zero value of each
//! field then costs the user.
//!
//! The host decodes stdout with Go's `encoding/json` into typed structs
//! (docs/host.md, "How output is decoded"): unknown fields are ignored,
//! a missing field or `null` is the field's zero value, and only a wrong
//! type, bad base64 or a bad RFC 3339 time fails the decoding. What matters
//! next is what the host does with the value it got
//! (docs/host.md, "What each answer costs the user, from the host's
//! source"): an empty `session_dir` breaks resume, a missing
//! `hooks_installed` only changes a message.
//!
//! The schemas in `schemas/` keep describing the documented shape. This
//! module is the separate, explicit host layer that the checks ask first:
//! [`judge`] returns the decoding failures, the consequences of zero values,
//! and the document as the host sees it (missing fields filled with their
//! zero values), against which the documented schema and the case's
//! assertions then run.

use base64::Engine;
use serde_json::{Map, Value};

use crate::host::Severity;

pub mod go;
mod table;

use GoType::*;
use Zero::*;
pub use table::{EVENT, fields};

/// A Go type of a decoded field.
#[derive(Debug, Clone, Copy)]
pub enum GoType {
    /// `string`.
    Str,
    /// `int` (no fraction, no exponent).
    Int,
    /// `bool`.
    Bool,
    /// `[]byte`: standard padded base64.
    Bytes,
    /// `[][]byte`: a list of standard padded base64 strings.
    BytesList,
    /// A time, parsed as RFC 3339 when non-empty.
    Time,
    /// `[]string`.
    Strings,
    /// A `map[string]any` or raw JSON object.
    Object,
    /// A pointer to a nested struct (`null` allowed).
    Struct(&'static [Field]),
    /// A slice of structs.
    Structs(&'static [Field]),
    /// A `json.RawMessage`: any JSON value, kept as written (`null` too).
    Raw,
}

/// What the host does with a field's zero value.
#[derive(Debug, Clone, Copy)]
pub enum Zero {
    /// Nothing a user notices by itself: the value is data that the cases
    /// judge (expected files, prompts, counts) on the answer as the host
    /// holds it, with this field at its zero value.
    Fine,
    /// The user loses a message or optional data: a warning when missing.
    Degrades(&'static str),
    /// A user command breaks: a failure when missing or zero.
    Breaks(&'static str),
}

/// One field of an answer.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The JSON key.
    pub name: &'static str,
    /// Its Go type.
    pub ty: GoType,
    /// The consequence of its zero value.
    pub zero: Zero,
}

/// One thing the host's decoding or the zero values say about an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Consequence {
    /// Failure (the decoding fails or a command breaks), warning (degrades).
    pub severity: Severity,
    /// The JSON pointer of the value.
    pub pointer: String,
    /// What happens, for the report.
    pub message: String,
    /// The host's decoder itself fails (the answer is not used at all).
    pub undecodable: bool,
}

/// The host's view of an answer.
#[derive(Debug, Clone)]
pub struct Judged {
    /// Decoding failures and consequences of zero values.
    pub consequences: Vec<Consequence>,
    /// The document with missing fields filled with their zero values (the
    /// struct the host holds), or the document itself when it did not decode.
    pub seen: Value,
}

impl Judged {
    /// Whether the host's decoding failed.
    pub fn undecodable(&self) -> bool {
        self.consequences.iter().any(|c| c.undecodable)
    }
}

/// Decodes `doc` as the host decodes the answer with these fields, and
/// judges the zero values.
pub fn judge(fields: &[Field], doc: &Value) -> Judged {
    judge_ordered(fields, &crate::host::decoding::Ordered::from(doc))
}

/// [`judge`] of a document read with its members in document order
/// ([`crate::host::decoding::decode_ordered`]): duplicate keys and keys of
/// another case are resolved as Go resolves them ([`go::normalise`]).
pub fn judge_ordered(fields: &[Field], doc: &crate::host::decoding::Ordered) -> Judged {
    let (doc, failures) = go::normalise_checked(fields, doc);
    let doc = &doc;
    let mut out = Vec::new();
    let seen = match doc {
        Value::Null => {
            let mut seen = Map::new();
            fill(fields, &Map::new(), "", &mut seen, &mut out);
            Value::Object(seen)
        }
        Value::Object(map) => {
            let mut seen = map.clone();
            fill(fields, map, "", &mut seen, &mut out);
            Value::Object(seen)
        }
        other => {
            out.push(decode_error(
                "",
                &format!("{} is not a JSON object", kind(other)),
            ));
            other.clone()
        }
    };
    // What the document no longer shows (a number no float64 holds, a
    // member replaced by a later one) still failed Go's decoding.
    if !out.iter().any(|c| c.undecodable)
        && let Some(first) = failures.first()
    {
        out.push(decode_error(
            "",
            &format!("a member Go cannot decode into its field ({first})"),
        ));
    }
    Judged {
        consequences: out,
        seen,
    }
}

/// Checks every known field of `map`, fills the missing ones into `seen`.
fn fill(
    fields: &[Field],
    map: &Map<String, Value>,
    prefix: &str,
    seen: &mut Map<String, Value>,
    out: &mut Vec<Consequence>,
) {
    for f in fields {
        let pointer = format!("{prefix}/{}", f.name);
        match map.get(f.name) {
            None => {
                missing(f, &pointer, out);
                seen.insert(f.name.to_string(), zero_value(f.ty));
            }
            // null into a slice, map or pointer is nil: kept as written, so
            // that the cases can note it (null into a scalar changes
            // nothing and is gone already: go::normalise).
            Some(Value::Null) => missing(f, &pointer, out),
            Some(value) => {
                if let Err(reason) = decode(f.ty, value, &pointer, out) {
                    out.push(decode_error(&pointer, &reason));
                } else if is_zero(value)
                    && let Breaks(why) = f.zero
                {
                    out.push(breaks(&pointer, "is empty", why));
                }
            }
        }
    }
}

/// The consequence of a missing (or `null`) field.
fn missing(f: &Field, pointer: &str, out: &mut Vec<Consequence>) {
    match f.zero {
        Fine => {}
        Degrades(why) => out.push(Consequence {
            severity: Severity::Warning,
            pointer: pointer.to_string(),
            message: format!("missing: {why}"),
            undecodable: false,
        }),
        Breaks(why) => out.push(breaks(pointer, "is missing", why)),
    }
}

fn breaks(pointer: &str, what: &str, why: &str) -> Consequence {
    Consequence {
        severity: Severity::Failure,
        pointer: pointer.to_string(),
        message: format!("{what}: {why}"),
        undecodable: false,
    }
}

fn decode_error(pointer: &str, reason: &str) -> Consequence {
    Consequence {
        severity: Severity::Failure,
        pointer: if pointer.is_empty() { "/" } else { pointer }.to_string(),
        message: format!("the host's decoder (Go encoding/json) fails: {reason}"),
        undecodable: true,
    }
}

/// Checks one present, non-null value against its Go type.
fn decode(
    ty: GoType,
    value: &Value,
    pointer: &str,
    out: &mut Vec<Consequence>,
) -> Result<(), String> {
    match (ty, value) {
        (Str, Value::String(_)) | (Bool, Value::Bool(_)) | (Object, Value::Object(_)) => Ok(()),
        (Raw, _) => Ok(()),
        (Int, Value::Number(n)) if n.is_i64() => Ok(()),
        (Int, Value::Number(n)) if n.is_u64() => {
            Err(format!("{n} overflows the host's int (64 bits)"))
        }
        (Int, Value::Number(n)) => Err(format!(
            "{n} is written with a fraction or an exponent; an int field takes a plain integer"
        )),
        (Bytes, Value::String(s)) => go_base64(s).map(|_| ()),
        (BytesList, Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.is_null() {
                    decode(Bytes, item, &format!("{pointer}/{i}"), out)
                        .map_err(|e| format!("at {pointer}/{i}: {e}"))?;
                }
            }
            Ok(())
        }
        (Time, Value::String(s)) if s.is_empty() => Ok(()),
        (Time, Value::String(s)) => crate::host::clock::parse_rfc3339(s)
            .map_err(|why| format!("{s:?} is not an RFC 3339 time as Go parses it: {why}")),
        (Strings, Value::Array(items)) => {
            match items.iter().find(|v| !v.is_string() && !v.is_null()) {
                None => Ok(()),
                Some(v) => Err(format!("{} in a list of strings", kind(v))),
            }
        }
        (Struct(fields), Value::Object(map)) => {
            let mut seen = map.clone();
            fill(fields, map, pointer, &mut seen, out);
            Ok(())
        }
        (Structs(fields), Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                match item {
                    Value::Object(map) => {
                        let mut seen = map.clone();
                        fill(fields, map, &format!("{pointer}/{i}"), &mut seen, out);
                    }
                    Value::Null => {}
                    other => {
                        return Err(format!(
                            "at {pointer}/{i}: {} is not an object",
                            kind(other)
                        ));
                    }
                }
            }
            Ok(())
        }
        (ty, other) => Err(format!("{} where {} belongs", kind(other), type_name(ty))),
    }
}

/// The bytes of a `[]byte` field's string, as Go's `encoding/json` decodes
/// them (`base64.StdEncoding`), or why it refuses it.
/// `StdEncoding` skips every `\r` and `\n` and, not being `Strict`, takes
/// a last symbol whose unused bits are not zero; its padding is required.
pub fn go_base64(s: &str) -> Result<Vec<u8>, String> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const GO_STD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let text: Vec<u8> = s.bytes().filter(|b| !matches!(b, b'\r' | b'\n')).collect();
    GO_STD
        .decode(text)
        .map_err(|e| format!("not standard padded base64 ({e})"))
}

/// Whether Go decodes the non-null value `value` into `ty` without an
/// error anywhere inside it.
fn decodes(ty: GoType, value: &Value) -> bool {
    // A time is a string to Go's decoder; the host parses it afterwards,
    // the value it ends up with only.
    if let Time = ty {
        return value.is_string();
    }
    let mut inside = Vec::new();
    decode(ty, value, "", &mut inside).is_ok() && !inside.iter().any(|c| c.undecodable)
}

/// The zero value as the harness shows it: what the host's struct holds.
fn zero_value(ty: GoType) -> Value {
    match ty {
        Str | Bytes | Time => Value::String(String::new()),
        Int => Value::from(0),
        Bool => Value::Bool(false),
        Strings | BytesList | Structs(_) => Value::Array(Vec::new()),
        Object | Struct(_) | Raw => Value::Null,
    }
}

fn is_zero(value: &Value) -> bool {
    match value {
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        Value::Array(a) => a.is_empty(),
        Value::Object(_) | Value::Null => false,
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn type_name(ty: GoType) -> &'static str {
    match ty {
        Str => "a string",
        Int => "an integer",
        Bool => "a boolean",
        Bytes => "a base64 string",
        Time => "an RFC 3339 time",
        Strings => "a list of strings",
        BytesList => "a list of base64 strings",
        Object | Struct(_) => "an object",
        Structs(_) => "a list of objects",
        Raw => "any JSON value",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judged(schema: &str, doc: Value) -> Judged {
        judge(fields(schema).expect("known answer"), &doc)
    }

    #[test]
    fn a_renamed_field_decodes_as_zero_and_only_degrades() {
        let j = judged("install-hooks", json!({"count": 3}));
        assert_eq!(j.consequences.len(), 1);
        assert_eq!(j.consequences[0].severity, Severity::Warning);
        assert!(j.consequences[0].message.contains("already installed"));
        assert_eq!(j.seen["hooks_installed"], json!(0));
        assert_eq!(j.seen["count"], json!(3));
    }

    #[test]
    fn an_empty_session_dir_breaks_resume() {
        for doc in [json!({}), json!({"session_dir": ""}), json!(null)] {
            let j = judged("get-session-dir", doc);
            assert_eq!(j.consequences[0].severity, Severity::Failure);
            assert!(!j.undecodable());
        }
    }

    #[test]
    fn wrong_types_bad_base64_and_times_fail_the_decoding() {
        let cases = [
            ("detect", json!({"present": "yes"})),
            ("install-hooks", json!({"hooks_installed": 1.0})),
            ("chunk-transcript", json!({"chunks": ["YQ"]})),
            ("read-session", json!({"start_time": "13/01/2026 12:00"})),
            ("extract-prompts", json!({"prompts": [1]})),
            ("detect", json!([])),
        ];
        for (schema, doc) in cases {
            assert!(judged(schema, doc.clone()).undecodable(), "{schema} {doc}");
        }
    }

    #[test]
    fn zero_token_answers_degrade_and_nested_usage_is_checked() {
        let j = judged("calculate-tokens", json!({}));
        assert!(j.consequences.is_empty());
        assert_eq!(j.seen["input_tokens"], json!(0));
        let j = judged(
            "calculate-total-tokens",
            json!({"input_tokens": 1, "output_tokens": 1, "subagent_tokens": {"input_tokens": "1"}}),
        );
        assert!(j.undecodable());
    }
}
