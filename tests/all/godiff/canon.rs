//! What the two decoders made of an input, in one form that can be
//! compared field by field: Go's struct re-marshalled and the model's
//! struct (`judge_ordered`'s `seen`) both pass through [`canon`], which
//! keeps exactly the struct's fields and erases the differences of
//! representation that mean nothing to the host (a nil and an empty slice,
//! `[]byte` as canonical base64, a number inside a map as a float64).

use agent_conform::api::{Field, GoType, go_base64};
use base64::Engine;
use serde_json::{Map, Value};

/// How deep a value inside a `map[string]any` or a raw message is compared
/// (the Go side shows no deeper: `tests/go/decode/main.go`, `deepest`).
const DEEPEST: usize = 64;

/// The struct of `fields` that `value` holds, as compared.
pub fn canon(fields: &[Field], value: &Value) -> Value {
    let empty = Map::new();
    let map = value.as_object().unwrap_or(&empty);
    let mut out = Map::new();
    for f in fields {
        out.insert(f.name.to_string(), field(f.ty, map.get(f.name)));
    }
    Value::Object(out)
}

/// One field's value as compared.
fn field(ty: GoType, value: Option<&Value>) -> Value {
    let value = value.filter(|v| !v.is_null());
    match ty {
        GoType::Str | GoType::Time => Value::String(
            value
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        ),
        GoType::Int => value.cloned().unwrap_or(Value::from(0)),
        GoType::Bool => value.cloned().unwrap_or(Value::Bool(false)),
        GoType::Bytes => bytes(value),
        GoType::BytesList => list(value, |item| bytes(Some(item).filter(|v| !v.is_null()))),
        GoType::Strings => list(value, |item| match item {
            Value::Null => Value::String(String::new()),
            other => other.clone(),
        }),
        GoType::Structs(fields) => list(value, |item| canon(fields, item)),
        GoType::Struct(fields) => value.map_or(Value::Null, |v| canon(fields, v)),
        GoType::Object | GoType::Raw => value.map_or(Value::Null, |v| shallow(v, 0)),
    }
}

/// A slice: nil and empty alike (the host reads both by their length).
fn list(value: Option<&Value>, item: impl Fn(&Value) -> Value) -> Value {
    match value {
        Some(Value::Array(items)) => Value::Array(items.iter().map(item).collect()),
        Some(other) => other.clone(),
        None => Value::Array(Vec::new()),
    }
}

/// A `[]byte` as canonical base64 of the bytes the model reads in it (nil
/// and empty alike).
fn bytes(value: Option<&Value>) -> Value {
    match value {
        Some(Value::String(s)) => match go_base64(s) {
            Ok(b) => Value::String(base64::engine::general_purpose::STANDARD.encode(b)),
            Err(_) => Value::String(s.clone()),
        },
        Some(other) => other.clone(),
        None => Value::String(String::new()),
    }
}

/// A value inside a map or raw message: numbers as float64, nothing below
/// [`DEEPEST`] levels.
fn shallow(value: &Value, depth: usize) -> Value {
    if depth >= DEEPEST {
        return Value::String("<deep>".to_string());
    }
    match value {
        Value::Number(n) => n.as_f64().map_or(Value::Null, Value::from),
        Value::Array(items) => Value::Array(items.iter().map(|v| shallow(v, depth + 1)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), shallow(v, depth + 1)))
                .collect(),
        ),
        other => other.clone(),
    }
}
