//! Go's `encoding/json` into the host's structs (docs/host.md, "How
//! output is decoded"): what the host holds after `json.Unmarshal`, before
//! anything judges it.
//!
//! The rules modelled, from the documentation of `encoding/json`:
//! - a member goes to the field of the same JSON name, else to the field
//!   whose name matches under case folding (`"Session_ID"` fills
//!   `session_id`); a member that matches no field is ignored by the host
//!   (kept here as written, so that the cases can still read it);
//! - members are decoded in document order, so of two members that fill one
//!   field the later wins;
//! - `null` into a string, number, bool or time leaves the field as it was
//!   (the zero value, unless an earlier member set it); into a slice, map,
//!   pointer or raw message it sets nil;
//! - a member of the wrong JSON kind fails the whole decoding, whatever
//!   follows: its value is kept, so that the check that follows reports it.
//!
//! Missing fields stay missing here (an Event's schemas name a missing
//! field); [`super::judge`] fills the answers' zero values.

use base64::Engine;
use serde_json::{Map, Value};

use super::{Field, GoType, GoType::*};
use crate::host::decoding::{Ordered, decode_ordered, go_key_matches};

/// The document as the host's struct of `fields` holds it. `null` stays
/// `null` (no struct at all, or "no event" for `parse-hook`), and anything
/// but an object is returned as written, for the checks to refuse.
pub fn normalise(fields: &[Field], doc: &Ordered) -> Value {
    normalise_checked(fields, doc).0
}

/// [`normalise`], with the members on which Go's decoding fails (each as
/// its field's name and the value): a value of the wrong kind, or one
/// wrong inside, such as a number no float64 holds, which the document
/// can no longer show once it is a `serde_json::Value`.
pub fn normalise_checked(fields: &[Field], doc: &Ordered) -> (Value, Vec<String>) {
    let mut failures = Vec::new();
    (fresh(fields, doc, &mut failures), failures)
}

/// A struct of `fields` decoded from `doc` afresh.
fn fresh(fields: &[Field], doc: &Ordered, failures: &mut Vec<String>) -> Value {
    match doc {
        Ordered::Object(members) => {
            let mut out = Map::new();
            into_struct(fields, members, &mut out, failures);
            Value::Object(out)
        }
        other => other.to_value(),
    }
}

/// A `parse-hook` answer as the host holds it: one JSON value (the host's
/// rules, [`decode_ordered`]), an Event decoded as Go decodes it
/// ([`super::EVENT`]), or `null`. The session replay and the checks read
/// Events through this, then [`crate::host::decoding::field_str`].
pub fn event(stdout: &[u8]) -> Result<Value, String> {
    decode(super::EVENT, stdout)
}

/// Any answer of `fields`, decoded and normalised as the host does.
pub fn decode(fields: &[Field], stdout: &[u8]) -> Result<Value, String> {
    decode_ordered(stdout).map(|doc| normalise(fields, &doc))
}

/// The fields a subcommand's answer or a schema's document is decoded into:
/// the answers' table, or the Event for `parse-hook` and its schemas.
pub fn shape(name: &str) -> Option<&'static [Field]> {
    if name == "parse-hook" || name.starts_with("parse-hook-") || name.starts_with("event") {
        return Some(super::EVENT);
    }
    super::fields(name)
}

/// Decodes the members of one object into `out`, in document order.
fn into_struct(
    fields: &[Field],
    members: &[(String, Ordered)],
    out: &mut Map<String, Value>,
    failures: &mut Vec<String>,
) {
    let mut failed: Vec<&str> = Vec::new();
    // Each slice field's backing array: Go decodes an array into the slice
    // it holds, element i into the element i it held (a `null` element
    // keeps it, an object merges into it), the elements past the new length
    // kept for a later array; an empty array or `null` drops them.
    let mut backings: Vec<(&str, Vec<Value>)> = Vec::new();
    for (key, value) in members {
        let Some(field) = field_of(fields, key) else {
            out.insert(key.clone(), value.to_value());
            continue;
        };
        if failed.contains(&field.name) {
            continue;
        }
        let at = match backings.iter().position(|(name, _)| *name == field.name) {
            Some(at) => at,
            None => {
                backings.push((field.name, Vec::new()));
                backings.len() - 1
            }
        };
        let backing = &mut backings[at].1;
        match member(field.ty, value, out.get_mut(field.name), backing, failures) {
            Member::Unchanged => {}
            // A value that Go fails on inside (an element of the wrong
            // kind, bad base64) fails the decoding even when a later member
            // replaces it: Go keeps the first error.
            Member::Set(v) if !v.is_null() && !super::decodes(field.ty, &v) => {
                failures.push(format!("{}: {v}", field.name));
                out.insert(field.name.to_string(), v);
                failed.push(field.name);
            }
            Member::Set(v) => {
                out.insert(field.name.to_string(), v);
            }
            Member::Fails(v) => {
                failures.push(format!("{}: {v}", field.name));
                out.insert(field.name.to_string(), v);
                failed.push(field.name);
            }
        }
    }
}

/// The field a member fills: the exact name first, then case folding.
fn field_of<'f>(fields: &'f [Field], key: &str) -> Option<&'f Field> {
    fields
        .iter()
        .find(|f| f.name == key)
        .or_else(|| fields.iter().find(|f| go_key_matches(key, f.name)))
}

/// What one member does to its field.
enum Member {
    /// Nothing (`null` into a scalar).
    Unchanged,
    /// The field now holds this.
    Set(Value),
    /// The decoding fails on this value.
    Fails(Value),
}

fn member(
    ty: GoType,
    value: &Ordered,
    existing: Option<&mut Value>,
    backing: &mut Vec<Value>,
    failures: &mut Vec<String>,
) -> Member {
    if let Ordered::Null = value {
        backing.clear();
        return match ty {
            Str | Int | Bool | Time => Member::Unchanged,
            Bytes | Strings | BytesList | Object | Struct(_) | Structs(_) | Raw => {
                Member::Set(Value::Null)
            }
        };
    }
    if !kind_decodes(ty, value) {
        return Member::Fails(value.to_value());
    }
    match (ty, value) {
        (Strings | BytesList | Structs(_), Ordered::Array(items)) if items.is_empty() => {
            backing.clear();
            Member::Set(Value::Array(Vec::new()))
        }
        (Strings | BytesList | Structs(_), Ordered::Array(items)) => {
            let elements: Vec<Value> = items
                .iter()
                .enumerate()
                .map(|(i, item)| element(ty, item, backing.get(i), failures))
                .collect();
            for (i, e) in elements.iter().enumerate() {
                match backing.get_mut(i) {
                    Some(slot) => *slot = e.clone(),
                    None => backing.push(e.clone()),
                }
            }
            Member::Set(Value::Array(elements))
        }
        (Struct(fields), Ordered::Object(members)) => match existing {
            // Go decodes into the struct a pointer already holds.
            Some(Value::Object(map)) => {
                into_struct(fields, members, map, failures);
                Member::Unchanged
            }
            _ => Member::Set(fresh(fields, value, failures)),
        },
        (Object, Ordered::Object(members)) => match existing {
            // Go keeps the entries of a map it decodes into again.
            Some(Value::Object(map)) => {
                map.extend(members.iter().map(|(k, v)| (k.clone(), v.to_value())));
                Member::Unchanged
            }
            _ => Member::Set(value.to_value()),
        },
        // Go decodes an array of numbers into a []byte, one byte each.
        (Bytes, Ordered::Array(items)) => {
            let bytes: Vec<u8> = items
                .iter()
                .filter_map(|item| match item {
                    Ordered::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()),
                    _ => Some(0),
                })
                .collect();
            Member::Set(Value::String(
                base64::engine::general_purpose::STANDARD.encode(bytes),
            ))
        }
        _ => Member::Set(value.to_value()),
    }
}

/// One element of a slice of `ty`, decoded into the element `old` that the
/// slice's backing array held at its index.
fn element(ty: GoType, item: &Ordered, old: Option<&Value>, failures: &mut Vec<String>) -> Value {
    let inner = match ty {
        Strings => Str,
        BytesList => Bytes,
        other => other,
    };
    if !matches!(item, Ordered::Null | Ordered::Object(_)) && !kind_decodes(inner, item) {
        failures.push(format!("an element: {}", item.to_value()));
    }
    match (ty, item) {
        (Strings, Ordered::Null) => old.cloned().unwrap_or(Value::String(String::new())),
        (Structs(_), Ordered::Null) => old.cloned().unwrap_or(Value::Null),
        (Structs(fields), Ordered::Object(members)) => match old {
            Some(Value::Object(map)) => {
                let mut map = map.clone();
                into_struct(fields, members, &mut map, failures);
                Value::Object(map)
            }
            _ => fresh(fields, item, failures),
        },
        _ => item.to_value(),
    }
}

/// Whether Go's decoder takes a non-null value of this JSON kind for `ty`
/// (the values inside, base64 and times, are judged afterwards).
fn kind_decodes(ty: GoType, value: &Ordered) -> bool {
    match (ty, value) {
        (Raw, _) => true,
        (Str | Bytes | Time, Ordered::String(_)) | (Bool, Ordered::Bool(_)) => true,
        // Each a plain integer 0..=255 (or null, which leaves it 0).
        (Bytes, Ordered::Array(items)) => items.iter().all(|item| match item {
            Ordered::Null => true,
            Ordered::Number(n) => n.as_u64().is_some_and(|n| n <= 255),
            _ => false,
        }),
        // Go's int is 64 bits: 2^63 and above overflow it.
        (Int, Ordered::Number(n)) => n.is_i64(),
        (Strings | BytesList | Structs(_), Ordered::Array(_)) => true,
        // A map[string]any holds its numbers as float64s.
        (Object, Ordered::Object(_)) => !value.holds_huge(),
        (Struct(_), Ordered::Object(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
#[path = "go_tests.rs"]
mod tests;
