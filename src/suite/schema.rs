//! The schemas: JSON Schema (draft 2020-12) for every JSON a plugin prints,
//! compiled once per run and shared by all cases.
//!
//! Two rules of the host's decoder (Go's `encoding/json`) are stricter than
//! JSON Schema: an integer field rejects `1.0` and `1e3`, which JSON Schema
//! calls integers, and a document must be exactly one value. The first is our
//! `hostInteger` keyword; the second is
//! [`decode_host_json`](crate::host::decoding::decode_host_json). Both rules
//! live in [`crate::host::decoding`].

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use jsonschema::paths::Location;
use jsonschema::{Keyword, Retrieve, Uri, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::embedded;
use crate::host::decoding;

/// The base URI of our schemas; `.invalid` never resolves, and the retriever
/// below answers every reference from the embedded files.
pub const BASE_URI: &str = "https://agent-conform.invalid/schemas/";

/// All schemas, compiled.
pub struct Schemas {
    compiled: BTreeMap<String, Validator>,
}

/// A schema that does not load or compile: a defect of agent-conform itself.
#[derive(Debug)]
pub struct SchemaError {
    /// The schema's file name.
    pub file: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schema schemas/{}: {}", self.file, self.reason)
    }
}

/// The embedded schema files, parsed: name (file stem) to document.
pub fn documents() -> Result<BTreeMap<String, Value>, SchemaError> {
    embedded::SCHEMAS
        .iter()
        .filter(|(path, _)| path.ends_with(".json"))
        .map(|(path, bytes)| {
            let value = serde_json::from_slice(bytes).map_err(|err| SchemaError {
                file: path.to_string(),
                reason: format!("is not valid JSON: {err}"),
            })?;
            Ok((path.trim_end_matches(".json").to_string(), value))
        })
        .collect()
}

/// Returns the text of one embedded schema by name (with or without `.json`).
pub fn source(name: &str) -> Option<&'static str> {
    let file = format!("{}.json", name.trim_end_matches(".json"));
    embedded::SCHEMAS
        .iter()
        .find(|(path, _)| *path == file)
        .and_then(|(_, bytes)| std::str::from_utf8(bytes).ok())
}

impl Schemas {
    /// Compiles every embedded schema.
    pub fn compile() -> Result<Schemas, SchemaError> {
        let docs = Arc::new(documents()?);
        let mut compiled = BTreeMap::new();
        for (name, doc) in docs.iter() {
            let validator = jsonschema::options()
                .with_draft(jsonschema::Draft::Draft202012)
                .should_validate_formats(true)
                .with_retriever(Embedded(Arc::clone(&docs)))
                .with_keyword("hostInteger", host_integer_factory)
                // A time as the host's Go parses it (`time.Parse(time.RFC3339,
                // …)`), in place of the JSON Schema reading of RFC 3339, which
                // takes a lower-case `t`, a leap second, and no one-digit hour.
                .with_format("date-time", |s: &str| {
                    crate::host::clock::parse_rfc3339(s).is_ok()
                })
                .build(doc)
                .map_err(|err| SchemaError {
                    file: format!("{name}.json"),
                    reason: err.to_string(),
                })?;
            compiled.insert(name.clone(), validator);
        }
        Ok(Schemas { compiled })
    }

    /// True when a schema of this name exists.
    pub fn contains(&self, name: &str) -> bool {
        self.compiled.contains_key(name)
    }

    /// The schema names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.compiled.keys().map(String::as_str)
    }

    /// Validates a document; returns one line per violation, each naming the
    /// JSON pointer of the offending value.
    pub fn violations(&self, name: &str, instance: &Value) -> Vec<String> {
        let Some(validator) = self.compiled.get(name) else {
            return vec![format!("no schema named {name:?}")];
        };
        validator
            .iter_errors(instance)
            .map(|err| {
                let at = err.instance_path().to_string();
                let at = if at.is_empty() { "/".to_string() } else { at };
                format!("at {at}: {}{}", shorten(&err.to_string()), why_not(&err))
            })
            .collect()
    }
}

impl Schemas {
    /// Whether `instance` holds a time the host's Go refuses where schema
    /// `name` has one (a `date-time`): the answer's own shape, made by the
    /// plugin's clock whatever it was sent.
    pub fn refuses_a_time(&self, name: &str, instance: &Value) -> bool {
        self.compiled.get(name).is_some_and(|validator| {
            validator.iter_errors(instance).any(|err| {
                matches!(err.kind(), jsonschema::error::ValidationErrorKind::Format { format }
                    if format == "date-time")
            })
        })
    }
}

/// Why a time is not one, as Go's parser says (after a failed
/// `date-time`); nothing for every other violation.
fn why_not(err: &jsonschema::ValidationError<'_>) -> String {
    match (err.kind(), err.instance().as_ref()) {
        (jsonschema::error::ValidationErrorKind::Format { format }, Value::String(s))
            if format == "date-time" =>
        {
            crate::host::clock::parse_rfc3339(s)
                .err()
                .map(|why| format!(" (time.Parse(time.RFC3339): {why})"))
                .unwrap_or_default()
        }
        _ => String::new(),
    }
}

/// Answers `$ref`s between our schemas from the embedded files, so that
/// validation never touches the network (jsonschema is built without its HTTP
/// client).
struct Embedded(Arc<BTreeMap<String, Value>>);

impl Retrieve for Embedded {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let text = uri.as_str();
        let name = text
            .strip_prefix(BASE_URI)
            .map(|rest| rest.trim_end_matches(".json"))
            .ok_or_else(|| format!("{text} is not one of agent-conform's schemas"))?;
        self.0
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no schema {name}.json in schemas/").into())
    }
}

fn host_integer_factory<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _path: Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    Ok(Box::new(HostInteger(value.as_bool().unwrap_or(false))))
}

/// `"hostInteger": true`: a number must have been written without a fraction
/// or an exponent. serde_json keeps such numbers as floats, which is how we
/// can tell `1` from `1.0` after parsing.
struct HostInteger(bool);

impl<'i> Keyword<'i> for HostInteger {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        if self.is_valid(instance) {
            Ok(())
        } else {
            Err(ValidationError::custom(decoding::not_an_integer(instance)))
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        !self.0 || decoding::decodes_as_integer(instance)
    }
}

/// Cuts the middle out of a long message (a violation quotes the whole
/// value, which for a transcript in base64 is kilobytes), keeping its start
/// and the end, which says what was expected.
fn shorten(message: &str) -> String {
    const HEAD: usize = 120;
    const TAIL: usize = 140;
    let chars: Vec<char> = message.chars().collect();
    if chars.len() <= HEAD + TAIL + 20 {
        return message.to_string();
    }
    let head: String = chars[..HEAD].iter().collect();
    let tail: String = chars[chars.len() - TAIL..].iter().collect();
    format!("{head}…({} characters)…{tail}", chars.len() - HEAD - TAIL)
}
