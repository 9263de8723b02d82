//! Shrinking an input on which the model and Go disagree: smaller inputs
//! (a member dropped, a string shortened, a chain of arrays halved, the
//! bytes around the document gone) are tried while one still disagrees,
//! so that the input reported is one a reader can take in at a glance.

use super::generate::{Doc, Input};

/// The inputs one step smaller than `input`, the boldest first.
pub fn smaller(input: &Input) -> Vec<Input> {
    let mut out = Vec::new();
    if !input.trail.is_empty() {
        out.push(Input {
            trail: Vec::new(),
            ..input.clone()
        });
        out.push(Input {
            trail: input.trail[1..].to_vec(),
            ..input.clone()
        });
    }
    if !input.lead.is_empty() {
        out.push(Input {
            lead: Vec::new(),
            ..input.clone()
        });
        out.push(Input {
            lead: input.lead[1..].to_vec(),
            ..input.clone()
        });
    }
    for doc in docs(&input.doc) {
        out.push(Input {
            doc,
            ..input.clone()
        });
    }
    out
}

/// The documents one step smaller than `doc`.
fn docs(doc: &Doc) -> Vec<Doc> {
    let null = Doc::Lit(b"null".to_vec());
    let mut out = Vec::new();
    if *doc != null && !matches!(doc, Doc::Lit(_)) {
        out.push(null);
    }
    match doc {
        Doc::Lit(bytes) => {
            if bytes.len() > 1 && bytes != b"null" {
                out.push(Doc::Lit(b"0".to_vec()));
                out.push(Doc::Lit(bytes[1..].to_vec()));
                out.push(Doc::Lit(bytes[..bytes.len() - 1].to_vec()));
            }
        }
        Doc::Str(text) => out.extend(shorter(text).into_iter().map(Doc::Str)),
        Doc::Arr(items) => {
            out.extend(items.iter().cloned());
            for i in 0..items.len() {
                let mut fewer = items.clone();
                fewer.remove(i);
                out.push(Doc::Arr(fewer));
            }
            for (i, item) in items.iter().enumerate() {
                for smaller in docs(item) {
                    let mut changed = items.clone();
                    changed[i] = smaller;
                    out.push(Doc::Arr(changed));
                }
            }
        }
        Doc::Obj(members) => {
            out.extend(members.iter().map(|(_, v)| v.clone()));
            for i in 0..members.len() {
                let mut fewer = members.clone();
                fewer.remove(i);
                out.push(Doc::Obj(fewer));
            }
            for (i, (key, value)) in members.iter().enumerate() {
                for smaller in docs(value) {
                    let mut changed = members.clone();
                    changed[i].1 = smaller;
                    out.push(Doc::Obj(changed));
                }
                for smaller in shorter(key) {
                    let mut changed = members.clone();
                    changed[i].0 = smaller;
                    out.push(Doc::Obj(changed));
                }
            }
        }
        Doc::Deep(depth, inner) => {
            out.push((**inner).clone());
            if *depth > 1 {
                out.push(Doc::Deep(depth / 2, inner.clone()));
                out.push(Doc::Deep(depth - 1, inner.clone()));
            } else {
                out.push(Doc::Arr(vec![(**inner).clone()]));
            }
            out.extend(
                docs(inner)
                    .into_iter()
                    .map(|d| Doc::Deep(*depth, Box::new(d))),
            );
        }
    }
    out
}

/// Shorter versions of a string's bytes: empty, half, one byte less at
/// either end.
fn shorter(text: &[u8]) -> Vec<Vec<u8>> {
    match text.len() {
        0 => Vec::new(),
        1 => vec![Vec::new()],
        n => vec![
            Vec::new(),
            text[..n / 2].to_vec(),
            text[n / 2..].to_vec(),
            text[1..].to_vec(),
            text[..n - 1].to_vec(),
        ],
    }
}

/// Shrinks `input` while `disagrees` says the first of a batch of smaller
/// inputs still disagrees (it answers with that one's index, asking all of
/// a batch at once so that one round trip to Go serves a step).
pub fn shrink(input: Input, mut disagrees: impl FnMut(&[Input]) -> Option<usize>) -> Input {
    let mut current = input;
    loop {
        let candidates = smaller(&current);
        match disagrees(&candidates) {
            Some(i) => current = candidates[i].clone(),
            None => return current,
        }
    }
}

/// `bytes` as a Rust byte-string literal, ready to paste as a regression
/// case.
pub fn literal(bytes: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &b in bytes {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}
