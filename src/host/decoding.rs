//! How the host reads a plugin's stdout (host-behaviour.md, "How output is
//! decoded"): Go's `encoding/json`, which takes exactly one JSON value and
//! rejects `1.0` or `1e3` where a Go integer is expected. What each decoded
//! field's zero value then costs is [`crate::host::answers`].

use serde_json::Value;

/// Decodes stdout as the host does: exactly one JSON value, surrounded by
/// whitespace at most. Returns a message naming the problem otherwise.
pub fn decode_host_json(bytes: &[u8]) -> Result<Value, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("stdout is empty; the host expects one JSON value".to_string());
    }
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(err)) => return Err(format!("stdout is not valid JSON: {err}")),
        None => return Err("stdout holds no JSON value".to_string()),
    };
    let rest = &bytes[stream.byte_offset()..];
    match rest.iter().position(|b| !b.is_ascii_whitespace()) {
        None => Ok(value),
        Some(at) => Err(format!(
            "stdout holds more than one JSON value: {:?} follows the first at byte {}; \
             the host's decoder rejects anything but whitespace after it",
            excerpt(&rest[at..]),
            stream.byte_offset() + at
        )),
    }
}

/// Whether Go's decoder takes `value` for an integer field: a number written
/// without a fraction or an exponent (serde_json keeps `1.0` and `1e3` as
/// floats, which is how they are told from `1` after parsing); anything but
/// a number is left to the type check.
pub fn decodes_as_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => true,
    }
}

/// Why Go's decoder refuses `value` for an integer field.
pub fn not_an_integer(value: &Value) -> String {
    format!(
        "{value} is written with a fraction or an exponent; the host's decoder \
         (Go encoding/json) accepts only a plain integer here"
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
