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

use serde_json::{Map, Value};

use super::{Field, GoType, GoType::*};
use crate::host::decoding::{Ordered, decode_ordered, go_key_matches};

/// The document as the host's struct of `fields` holds it. `null` stays
/// `null` (no struct at all, or "no event" for `parse-hook`), and anything
/// but an object is returned as written, for the checks to refuse.
pub fn normalise(fields: &[Field], doc: &Ordered) -> Value {
    match doc {
        Ordered::Object(members) => {
            let mut out = Map::new();
            into_struct(fields, members, &mut out);
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
fn into_struct(fields: &[Field], members: &[(String, Ordered)], out: &mut Map<String, Value>) {
    let mut failed: Vec<&str> = Vec::new();
    for (key, value) in members {
        let Some(field) = field_of(fields, key) else {
            out.insert(key.clone(), value.to_value());
            continue;
        };
        if failed.contains(&field.name) {
            continue;
        }
        match member(field.ty, value, out.get_mut(field.name)) {
            Member::Unchanged => {}
            Member::Set(v) => {
                out.insert(field.name.to_string(), v);
            }
            Member::Fails(v) => {
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

fn member(ty: GoType, value: &Ordered, existing: Option<&mut Value>) -> Member {
    if let Ordered::Null = value {
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
        (Strings, Ordered::Array(items)) => Member::Set(Value::Array(
            items
                .iter()
                .map(|item| match item {
                    Ordered::Null => Value::String(String::new()),
                    other => other.to_value(),
                })
                .collect(),
        )),
        (Struct(fields), Ordered::Object(members)) => match existing {
            // Go decodes into the struct a pointer already holds.
            Some(Value::Object(map)) => {
                into_struct(fields, members, map);
                Member::Unchanged
            }
            _ => Member::Set(normalise(fields, value)),
        },
        (Object, Ordered::Object(members)) => match existing {
            // Go keeps the entries of a map it decodes into again.
            Some(Value::Object(map)) => {
                map.extend(members.iter().map(|(k, v)| (k.clone(), v.to_value())));
                Member::Unchanged
            }
            _ => Member::Set(value.to_value()),
        },
        (Structs(fields), Ordered::Array(items)) => Member::Set(Value::Array(
            items.iter().map(|item| normalise(fields, item)).collect(),
        )),
        _ => Member::Set(value.to_value()),
    }
}

/// Whether Go's decoder takes a non-null value of this JSON kind for `ty`
/// (the values inside, base64 and times, are judged afterwards).
fn kind_decodes(ty: GoType, value: &Ordered) -> bool {
    match (ty, value) {
        (Raw, _) => true,
        (Str | Bytes | Time, Ordered::String(_)) | (Bool, Ordered::Bool(_)) => true,
        (Int, Ordered::Number(n)) => n.is_i64() || n.is_u64(),
        (Strings | BytesList | Structs(_), Ordered::Array(_)) => true,
        (Object | Struct(_), Ordered::Object(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
#[path = "go_tests.rs"]
mod tests;
