//! A copy of a transcript whose records hold long lines
//! ([`crate::host::long_lines`]): one string of each of up to three
//! records lengthened until its line is 68 KiB, 1 MiB and 8 MiB long, the
//! rest byte for byte the same. The line count and the JSON's shape do not
//! change, so the host's answers (and the plugin's) must not either.
//!
//! It works on any transcript that is JSON: the lines of a JSONL file (each
//! line a record), or one JSON document (each line that holds a string).
//! The string lengthened in a record is the longest value (never a key)
//! with a blank in it (a message, a tool's output: not a type, an id, a
//! time or a path), which is none of the strings `avoid` holds (the
//! plugin's own answers to the original: its prompts and files), nor part
//! of one, nor holds one that has a blank (a prompt inside a wrapper). The
//! text added is prose at the string's end, after a line break.

use crate::host::long_lines::CAP;

/// The lengthened copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lengthened {
    /// The copy.
    pub bytes: Vec<u8>,
    /// Each lengthened record: its line (from 1) and the line's new length
    /// in bytes (its newline left out).
    pub lines: Vec<(usize, usize)>,
}

impl Lengthened {
    /// The lengthened lines in words: `lines 2, 3 and 6 (68 KiB, 1 MiB and
    /// 8 MiB long)`.
    pub fn described(&self) -> String {
        let numbers: Vec<String> = self.lines.iter().map(|(n, _)| n.to_string()).collect();
        let sizes: Vec<String> = self.lines.iter().map(|(_, len)| size(*len)).collect();
        let word = if self.lines.len() == 1 {
            "line"
        } else {
            "lines"
        };
        format!("{word} {} ({} long)", and(&numbers), and(&sizes))
    }
}

/// The lengths the lengthened records' lines reach, in the order of the
/// records: the size axis's values (`worlds/axes.yaml`: past
/// `bufio.Scanner`'s 64 KiB default, past the 1 MiB some plugins set, and
/// 8 MiB, past every cap seen and under the host's output cap), shortest
/// first.
pub fn lengths() -> Vec<usize> {
    let axes = crate::suite::worlds::Axes::embedded();
    let mut lengths: Vec<usize> = axes
        .axis("size")
        .into_iter()
        .flat_map(|a| &a.values)
        .filter_map(|v| v.line_bytes)
        .collect();
    lengths.sort_unstable();
    lengths
}

/// The copy of `bytes` with long lines; `None` when it is no JSON, or no
/// record holds a string to lengthen.
pub fn lengthen(bytes: &[u8], avoid: &[String]) -> Option<Lengthened> {
    if !is_json(bytes) {
        return None;
    }
    let lengths = lengths();
    if lengths.is_empty() {
        return None;
    }
    let mut chosen: Vec<(usize, usize, usize)> = Vec::new();
    let mut start = 0;
    for (number, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        let text = line.strip_suffix(b"\n").unwrap_or(line);
        if let Some(end) = longest_string(text, avoid) {
            chosen.push((number + 1, start + end, text.len()));
            if chosen.len() == lengths.len() {
                break;
            }
        }
        start += line.len();
    }
    if chosen.is_empty() {
        return None;
    }
    // Fewer records than lengths: the longest lengths, the last past every cap.
    let targets = &lengths[lengths.len() - chosen.len()..];
    let mut pads: Vec<usize> = chosen
        .iter()
        .zip(targets)
        .map(|((_, _, len), target)| target.saturating_sub(*len))
        .collect();
    let over = (bytes.len() + pads.iter().sum::<usize>()).saturating_sub(CAP);
    if let Some(last) = pads.last_mut() {
        *last = last.saturating_sub(over);
    }
    let mut out = Vec::with_capacity(bytes.len() + pads.iter().sum::<usize>());
    let mut copied = 0;
    let mut lines = Vec::new();
    for ((number, at, len), pad) in chosen.iter().zip(&pads) {
        out.extend_from_slice(&bytes[copied..*at]);
        padding(&mut out, *pad);
        copied = *at;
        lines.push((*number, len + pad));
    }
    out.extend_from_slice(&bytes[copied..]);
    Some(Lengthened { bytes: out, lines })
}

/// Whether `bytes` is JSON: one document, or lines that each are.
fn is_json(bytes: &[u8]) -> bool {
    if serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok() {
        return true;
    }
    let mut lines = bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .peekable();
    lines.peek().is_some()
        && lines.all(|l| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok())
}

/// Where the longest string value of `line` that may be lengthened ends
/// (the offset of its closing quote).
fn longest_string(line: &[u8], avoid: &[String]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    let mut at = 0;
    while let Some(open) = line[at..].iter().position(|b| *b == b'"').map(|p| at + p) {
        let close = closing_quote(line, open + 1)?;
        at = close + 1;
        let after = line[at..].iter().find(|b| !b.is_ascii_whitespace());
        if after == Some(&b':') {
            continue;
        }
        let Ok(value) = serde_json::from_slice::<String>(&line[open..=close]) else {
            continue;
        };
        let len = close - open;
        if may_lengthen(&value, avoid) && best.is_none_or(|(_, longest)| len > longest) {
            best = Some((close, len));
        }
    }
    best.map(|(close, _)| close)
}

/// The offset of the quote that closes a string whose text starts at
/// `from`.
fn closing_quote(line: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// A string with a blank, which is no answer, no part of one, and holds
/// no answer that has a blank.
fn may_lengthen(value: &str, avoid: &[String]) -> bool {
    value.chars().any(char::is_whitespace)
        && !avoid.iter().any(|a| {
            !a.is_empty()
                && (a.contains(value)
                    || (a.chars().any(char::is_whitespace) && value.contains(a.as_str())))
        })
}

/// The text added: prose, each sentence after an escaped line break (the
/// JSON string's own `\n`), then letters to the exact size.
const SENTENCE: &[u8] =
    b"\\nagent-conform made this line long, as an agent keeps a tool's long output inline.";

/// Appends `n` bytes of padding: whole sentences a block at a time, then
/// letters (a sentence is never cut inside its escape).
fn padding(out: &mut Vec<u8>, mut n: usize) {
    const SENTENCES: usize = 4096 / SENTENCE.len();
    let block = SENTENCE.repeat(SENTENCES);
    while n >= block.len() {
        out.extend_from_slice(&block);
        n -= block.len();
    }
    while n >= SENTENCE.len() {
        out.extend_from_slice(SENTENCE);
        n -= SENTENCE.len();
    }
    out.resize(out.len() + n, b'x');
}

/// A size in words: `68 KiB`, `1 MiB`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_size_axis_gives_lines_past_each_cap_under_the_hosts_limit() {
        let lengths = super::lengths();
        assert_eq!(lengths.len(), 3);
        // Past `bufio.MaxScanTokenSize`, Go's scanner's default.
        assert!(lengths[0] > 64 * 1024);
        assert!(lengths[1] > 1 << 20);
        assert!(lengths[2] < super::CAP);
    }

    use super::*;
    use serde_json::Value;

    const GENERIC: &[u8] = include_bytes!("../../cases/fixtures/transcript.jsonl");

    fn lines(bytes: &[u8]) -> Vec<&[u8]> {
        bytes.split(|b| *b == b'\n').collect()
    }

    #[test]
    fn the_generic_transcript_gets_three_long_records_and_keeps_its_shape() {
        let prompts = [
            "Fix the login bug in src/auth.go — it rejects valid tokens ✓".to_string(),
            "Now add a test; use tabs\tand \\ backslashes. 日本語もOK 🚀!".to_string(),
        ];
        let long = lengthen(GENERIC, &prompts).expect("lengthened");
        assert_eq!(
            long.lines.iter().map(|l| l.0).collect::<Vec<_>>(),
            [2, 3, 6]
        );
        assert_eq!(
            long.described(),
            "lines 2, 3 and 6 (68 KiB, 1 MiB and 8 MiB long)"
        );
        assert!(long.bytes.len() < crate::host::invocation::OUTPUT_LIMIT);
        let (was, now) = (lines(GENERIC), lines(&long.bytes));
        assert_eq!(was.len(), now.len());
        for (n, (a, b)) in was.iter().zip(&now).enumerate() {
            if a.is_empty() {
                continue;
            }
            let (a, b): (Value, Value) = (
                serde_json::from_slice(a).expect("json"),
                serde_json::from_slice(b).expect("still json"),
            );
            let lengthened = long.lines.iter().find(|l| l.0 == n + 1);
            match lengthened {
                None => assert_eq!(a, b, "line {}", n + 1),
                Some((_, len)) => assert_eq!(now[n].len(), *len),
            }
            // The same keys, types and every other string.
            assert_eq!(a["type"], b["type"]);
            assert_eq!(a["uuid"], b["uuid"]);
            assert_eq!(a["message"]["usage"], b["message"]["usage"]);
        }
        // The file written in line 6 is still there; the prompts are not touched.
        assert!(now[5].windows(16).any(|w| w == b"src/auth_test.go"));
        assert_eq!(was[0], now[0]);
    }

    #[test]
    fn answers_and_keys_are_never_lengthened() {
        let doc = br#"{"messages": [{"role": "user", "content": "fix it please"},
{"role": "assistant", "content": "done it, see a b", "note key": 1}]}"#;
        let avoid = ["fix it please".to_string()];
        let long = lengthen(doc, &avoid).expect("a document");
        assert_eq!(long.lines, vec![(2, 8 << 20)]);
        let value: Value = serde_json::from_slice(&long.bytes).expect("still one document");
        assert_eq!(value["messages"][0]["content"], "fix it please");
        assert!(
            value["messages"][1]["content"]
                .as_str()
                .is_some_and(|c| c.starts_with("done it, see a b\n"))
        );
        assert!(value["messages"][1].get("note key").is_some());
        assert_eq!(lengthen(b"not json at all\n", &[]), None);
        assert_eq!(lengthen(b"{\"type\":\"user\",\"id\":\"a1\"}\n", &[]), None);
    }
}
