//! Transcript positions in the host's unit (docs/host.md, "The host of
//! September 2026", "Positions and offsets: the host counts lines").
//!
//! The protocol text calls `get-transcript-position` a "byte position"; the
//! guide says "for JSONL: line count". The host settles it: every transcript
//! coordinate it keeps is a line count of the `session_ref` file (its
//! newlines, trailing blank lines trimmed), and it cuts transcripts with a
//! line slice. After a commit it passes its own count as `--offset`; at
//! `TurnEnd` the plugin's own `TurnStart` answer. So for a JSONL transcript a
//! position in another unit works on the first turn and then breaks: `entire
//! explain --generate` fails for the checkpoint ("Checkpoint has no
//! transcript content (scoped)"), token counts and modified files cover the
//! whole session. For a transcript that is one JSON document the host counts
//! the file's newlines all the same: a mismatch the plugin can only document.

use serde_json::Value;

use super::Severity;

/// How a transcript file is laid out, as far as the host's line count goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON value per line (`*.jsonl`, or lines that each parse): the
    /// host's count is the plugin's unit, and a mismatch breaks.
    Jsonl,
    /// One JSON document (`*.json`, or a file that parses as one value):
    /// the host still counts its newlines, whatever the plugin counts.
    JsonDocument,
}

/// The host's line count of a transcript file: the number of its lines
/// once trailing blank lines are trimmed (a last line without `\n` counts;
/// an empty file is 0). For a file that ends with `\n` and no blank line
/// it is the file's newline count, the count the host stores as a
/// checkpoint's start.
pub fn line_count(bytes: &[u8]) -> u64 {
    let mut end = bytes.len();
    // Trim trailing blank lines: whitespace back to the last content byte.
    while end > 0 && matches!(bytes[end - 1], b'\n' | b'\r' | b' ' | b'\t') {
        end -= 1;
    }
    if end == 0 {
        return 0;
    }
    bytes[..end].iter().filter(|b| **b == b'\n').count() as u64 + 1
}

/// The lines of `bytes` from line `start` on (0-based), newlines kept: the
/// host's line slice of a checkpoint, as `entire explain --generate` writes
/// it to a temporary `*.jsonl` file for `compact-transcript` (no header).
pub fn slice_from(bytes: &[u8], start: u64) -> Vec<u8> {
    let mut at = 0;
    for (n, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        if n as u64 == start {
            return bytes[at..].to_vec();
        }
        at += line.len();
    }
    Vec::new()
}

/// The checkpoint start the harness uses for a fragment: half the host's
/// line count of the transcript (so that the fragment has no header and
/// holds at least the last line).
pub fn fragment_start(bytes: &[u8]) -> u64 {
    line_count(bytes) / 2
}

/// A checkpoint's fragment of the transcript `name` holding `bytes`, as
/// `explain --generate` hands it to `compact-transcript`: its lines from
/// [`fragment_start`] on. For one JSON document the whole document: its
/// line slice is no JSON, which no plugin could compact (a host-side
/// mismatch, not the plugin's fault).
pub fn fragment(name: &str, bytes: &[u8]) -> Vec<u8> {
    match layout(name, bytes) {
        Layout::Jsonl => slice_from(bytes, fragment_start(bytes)),
        Layout::JsonDocument => bytes.to_vec(),
    }
}

/// Where the fragment of [`fragment`] starts, as the host passes it to
/// `--offset`: its line count before the fragment ([`fragment_start`]);
/// 0 for one JSON document, whose fragment is the whole document.
pub fn fragment_offset(name: &str, bytes: &[u8]) -> u64 {
    match layout(name, bytes) {
        Layout::Jsonl => fragment_start(bytes),
        Layout::JsonDocument => 0,
    }
}

/// How the file named `name` holding `bytes` is laid out: by its extension
/// first (`.jsonl`, `.json`), else by its content (one JSON value: a
/// document; anything else: lines).
pub fn layout(name: &str, bytes: &[u8]) -> Layout {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") {
        return Layout::Jsonl;
    }
    if lower.ends_with(".json") || serde_json::from_slice::<Value>(bytes).is_ok() {
        return Layout::JsonDocument;
    }
    Layout::Jsonl
}

/// What the host makes of a position the plugin answered (`what`: the
/// subcommand and field) for the transcript `name` holding `bytes`; `None`
/// when it is the host's count. A JSONL transcript: a failure at most
/// `severity`; one JSON document: a note.
pub fn judge(name: &str, bytes: &[u8], answered: &Value, what: &str) -> Option<(Severity, String)> {
    let lines = line_count(bytes);
    if answered.as_u64() == Some(lines) {
        return None;
    }
    let plural = if lines == 1 { "" } else { "s" };
    let bytes_too = if answered.as_u64() == Some(bytes.len() as u64) {
        " (its size in bytes, the protocol text's \"byte position\")"
    } else {
        ""
    };
    Some(match layout(name, bytes) {
        Layout::Jsonl => (
            Severity::Failure,
            format!(
                "{what} is {answered}{bytes_too}, but the host counts {lines} line{plural} in this \
                 transcript and keeps every position as a line count, cutting transcripts by \
                 line (docs/host.md \"Positions and offsets: the host counts lines\"; the \
                 guide: \"for JSONL: line count\"): after a commit `entire explain --generate` \
                 finds no transcript for the checkpoint (\"Checkpoint has no transcript content \
                 (scoped)\"), and the token counts and modified files of later turns cover the \
                 whole session"
            ),
        ),
        Layout::JsonDocument => (
            Severity::Note,
            format!(
                "{what} is {answered}; the host counts this file's newlines ({lines}) as the \
                 checkpoint start after a commit, whatever the plugin counts: for a transcript \
                 that is one JSON document a host-side mismatch the plugin can only document \
                 (docs/host.md \"Positions and offsets: the host counts lines\")"
            ),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_as_the_host_does() {
        for (content, expected) in [
            ("", 0),
            ("\n", 0),
            ("\n\n", 0),
            ("a", 1),
            ("a\n", 1),
            ("a\nb", 2),
            ("a\nb\n", 2),
            ("a\n\n", 1),
            ("a\nb\n\n  \n", 2),
            ("a\r\nb\r\n", 2),
        ] {
            assert_eq!(line_count(content.as_bytes()), expected, "{content:?}");
        }
    }

    #[test]
    fn slices_by_line() {
        assert_eq!(slice_from(b"a\nb\nc\n", 1), b"b\nc\n");
        assert_eq!(slice_from(b"a\nb\nc", 2), b"c");
        assert!(slice_from(b"a\n", 1).is_empty());
        assert_eq!(slice_from(b"a\nb\n", 0), b"a\nb\n");
    }

    #[test]
    fn layouts() {
        assert_eq!(layout("t.jsonl", b"{}"), Layout::Jsonl);
        assert_eq!(layout("t.json", b"{}\n{}\n"), Layout::JsonDocument);
        assert_eq!(layout("t", b"{\n \"m\": []\n}\n"), Layout::JsonDocument);
        assert_eq!(layout("t", b"{}\n{}\n"), Layout::Jsonl);
    }

    #[test]
    fn judges_positions() {
        let jsonl = b"{}\n{}\n";
        assert!(judge("t.jsonl", jsonl, &Value::from(2), "position").is_none());
        let (severity, message) = judge("t.jsonl", jsonl, &Value::from(6), "position").unwrap();
        assert_eq!(severity, Severity::Failure);
        assert!(message.contains("byte position") && message.contains("explain --generate"));
        let doc = b"{\"messages\": [1, 2, 3]}";
        let (severity, _) = judge("t.json", doc, &Value::from(3), "position").unwrap();
        assert_eq!(severity, Severity::Note);
    }
}
