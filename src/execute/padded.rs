//! A JSON payload padded to an exact size (`padded_json:` in a case): the
//! hostile five-MiB payloads, built cheaply and reused between steps.

use std::sync::Arc;

use serde_json::Value;

use crate::running::runner;

/// Adds a string field to a JSON object until it is `bytes` long. The
/// padding is spliced into the serialized text rather than serialized, which
/// keeps a 5 MiB payload cheap to build.
pub(super) fn padded(value: &Value, bytes: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    padded_into(value, bytes, &mut out)?;
    Ok(out)
}

/// [`padded`] as stdin, built in this thread's last padded stdin when no
/// step holds it any more. A fresh 5 MiB buffer costs some 1300 page faults
/// (3 to 4 ms on a virtual machine, more than the plugin's call); a reused
/// one has its pages mapped already.
pub(super) fn padded_stdin(value: &Value, bytes: usize) -> Result<runner::Bytes, String> {
    thread_local! {
        static LAST: std::cell::RefCell<runner::Bytes> = std::cell::RefCell::default();
    }
    LAST.with(|cell| {
        let mut last = cell.borrow_mut();
        match Arc::get_mut(&mut last) {
            Some(buffer) => padded_into(value, bytes, buffer)?,
            None => *last = Arc::new(padded(value, bytes)?),
        }
        Ok(last.clone())
    })
}

/// [`padded`] into `out`, which is cleared first (its capacity is kept).
fn padded_into(value: &Value, bytes: usize, out: &mut Vec<u8>) -> Result<(), String> {
    let Value::Object(map) = value else {
        return Err("padded_json needs a JSON object".to_string());
    };
    let mut map = map.clone();
    map.remove(PADDING_KEY);
    let text = Value::Object(map).to_string();
    let field = format!("\"{PADDING_KEY}\":\"");
    // `{` + the padding field + the rest of the object (its other fields).
    let rest = &text[1..];
    let separator = if rest == "}" { "" } else { "," };
    let fixed = 1 + field.len() + 1 + separator.len() + rest.len();
    out.clear();
    out.reserve(bytes.max(fixed));
    out.push(b'{');
    out.extend_from_slice(field.as_bytes());
    pad(out, bytes.saturating_sub(fixed));
    out.push(b'"');
    out.extend_from_slice(separator.as_bytes());
    out.extend_from_slice(rest.as_bytes());
    Ok(())
}

/// Appends `n` bytes of padding a block at a time: one copy a block, where
/// `resize` fills byte by byte in the tests' build (it was a fifth of the
/// harness's time there, on the reference suite).
fn pad(out: &mut Vec<u8>, mut n: usize) {
    const BLOCK: [u8; 4096] = [b'x'; 4096];
    while n > 0 {
        let take = n.min(BLOCK.len());
        out.extend_from_slice(&BLOCK[..take]);
        n -= take;
    }
}

/// The field `padded_json` fills.
const PADDING_KEY: &str = "agent_conform_padding";

#[cfg(test)]
mod tests {
    use super::padded;

    #[test]
    fn padded_json_has_the_exact_size_and_stays_valid() {
        for value in [
            serde_json::json!({}),
            serde_json::json!({"session_id": "s", "n": [1, 2]}),
        ] {
            let bytes = padded(&value, 4096).unwrap();
            assert_eq!(bytes.len(), 4096);
            let parsed: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            for (k, v) in value.as_object().unwrap() {
                assert_eq!(&parsed[k], v);
            }
        }
    }
}
