//! How the host reads a plugin's stdout (docs/host.md, "How output is
//! decoded"): Go's `encoding/json`, which takes exactly one JSON value and
//! rejects `1.0` or `1e3` where a Go integer is expected. What each decoded
//! field's zero value then costs is `host::answers`.

use serde_json::Value;

/// Decodes stdout as the host does: exactly one JSON value, surrounded by
/// whitespace at most, read as Go reads it ([`crate::host::gojson`]).
/// Returns a message naming the problem otherwise.
pub fn decode_host_json(bytes: &[u8]) -> Result<Value, String> {
    decode_ordered(bytes).map(|doc| doc.to_value())
}

/// Whether Go's decoder takes `value` for an integer field: a number written
/// without a fraction or an exponent (serde_json keeps `1.0` and `1e3` as
/// floats, which is how they are told from `1` after parsing), below 2^63
/// (Go's `int` is 64 bits); anything but a number is left to the type
/// check.
pub fn decodes_as_integer(value: &Value) -> bool {
    match value {
        // Go's int is 64 bits: 2^63 and above overflow it.
        Value::Number(n) => n.is_i64(),
        _ => true,
    }
}

/// Why Go's decoder refuses `value` for an integer field.
pub fn not_an_integer(value: &Value) -> String {
    format!(
        "{value} is written with a fraction or an exponent, or overflows 64 bits; \
         the host's decoder (Go encoding/json) accepts only a plain integer of its int here"
    )
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
    if bytes.len() > 40 {
        format!("{text}…")
    } else {
        text
    }
}

pub use crate::host::gojson::Ordered;

/// Decodes stdout as the host does ([`decode_host_json`]'s rules), keeping
/// the members of every object in document order ([`Ordered`]).
pub fn decode_ordered(bytes: &[u8]) -> Result<Ordered, String> {
    if bytes.iter().all(|&b| crate::host::gojson::is_space(b)) {
        return Err("stdout is empty; the host expects one JSON value".to_string());
    }
    let (value, end) = crate::host::gojson::parse(bytes)
        .map_err(|err| format!("stdout is not valid JSON: {err}"))?;
    let rest = &bytes[end..];
    match rest.iter().position(|&b| !crate::host::gojson::is_space(b)) {
        None => Ok(value),
        Some(at) => Err(format!(
            "stdout holds more than one JSON value: {:?} follows the first at byte {}; \
             the host's decoder rejects anything but whitespace after it",
            excerpt(&rest[at..]),
            end + at
        )),
    }
}

/// Whether Go's decoder puts the member `key` into the struct field whose
/// JSON name is `name`: the same name, or the same under Go's case folding
/// (`foldName`: ASCII letters without case, and the two non-ASCII runes
/// whose fold set holds an ASCII letter, the Kelvin sign `K` and the long
/// `ſ`). An exact match of another field wins first: see
/// `answers::go`.
pub fn go_key_matches(key: &str, name: &str) -> bool {
    fn fold(c: char) -> char {
        match c {
            '\u{212A}' => 'K',
            '\u{17F}' => 'S',
            c => c.to_ascii_uppercase(),
        }
    }
    key == name
        || (key.chars().count() == name.chars().count()
            && key
                .chars()
                .zip(name.chars())
                .all(|(a, b)| fold(a) == fold(b)))
}

/// A string field of an Event or answer as the host holds it: `""` for a
/// missing field, `null` or anything else (Go's zero value). Read Events
/// Go-normalised first (`answers::go::event`) so that
/// `"Session_ID"` and duplicate keys are already resolved.
pub fn field_str<'a>(doc: &'a Value, name: &str) -> &'a str {
    doc.get(name).and_then(Value::as_str).unwrap_or("")
}

/// An integer field as the host holds it: 0 when missing or `null`.
pub fn field_int(doc: &Value, name: &str) -> i64 {
    doc.get(name).and_then(Value::as_i64).unwrap_or(0)
}
