//! Values as the checks read and show them: JSON pointers with `*`
//! wildcards, pretty JSON for reports, and a byte comparison that names the
//! first difference. Shared by `checks`, `assertions`, `positions` and the
//! round trips; it names none of them.

use serde_json::Value;

use crate::outcome::finding::Finding;

/// Resolves a pointer with `*` segments into concrete pointers and values.
pub fn select<'v>(doc: &'v Value, pointer: &str) -> Vec<(String, Option<&'v Value>)> {
    if !pointer.split('/').any(|seg| seg == "*") {
        return vec![(display_pointer(pointer), doc.pointer(pointer))];
    }
    let mut current = vec![(String::new(), Some(doc))];
    for seg in pointer.split('/').skip(1) {
        current = current
            .into_iter()
            .flat_map(|(path, value)| step_into(path, value, seg))
            .collect();
    }
    current
        .into_iter()
        .map(|(p, v)| (display_pointer(&p), v))
        .collect()
}

fn step_into<'v>(
    path: String,
    value: Option<&'v Value>,
    seg: &str,
) -> Vec<(String, Option<&'v Value>)> {
    match (seg, value) {
        ("*", Some(Value::Array(items))) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("{path}/{i}"), Some(v)))
            .collect(),
        ("*", _) => Vec::new(),
        (seg, value) => {
            let next = value.and_then(|v| v.pointer(&format!("/{seg}")));
            vec![(format!("{path}/{seg}"), next)]
        }
    }
}

fn display_pointer(p: &str) -> String {
    if p.is_empty() {
        "/".to_string()
    } else {
        p.to_string()
    }
}

/// Pretty JSON for reports.
pub fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Compares bytes; on a difference, names the first differing offset.
pub fn compare_bytes(what: &str, want: &[u8], got: &[u8]) -> Option<Finding> {
    if want == got {
        return None;
    }
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    Some(
        Finding::failure(format!(
            "{what} differs from the expected bytes: first difference at byte {at} \
             (expected {} bytes, got {})",
            want.len(),
            got.len()
        ))
        .diff(
            String::from_utf8_lossy(want).into_owned(),
            String::from_utf8_lossy(got).into_owned(),
        ),
    )
}
