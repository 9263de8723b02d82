//! The agent's transcript format: JSONL in the Claude Code pattern.
//!
//! One JSON object per line:
//!
//! ```text
//! {"type":"user","message":{"role":"user","content":"Fix the bug"},"timestamp":"..."}
//! {"type":"assistant","message":{"content":[{"type":"tool_use","name":"Write","input":{"file_path":"a.rs"}}],"usage":{...}}}
//! {"type":"summary","summary":"Fixed the bug"}
//! ```
//!
//! Positions and offsets count *lines*, as the host does (docs/host.md,
//! "Positions and offsets: the host counts lines"; the guide's "for JSONL: line
//! count"), not bytes as the protocol text's "byte position" has it: the host
//! keeps every position as a line count and cuts transcripts by line. The
//! position of a transcript is its number of lines once trailing blank lines
//! are trimmed (its `\n` count for a file that ends with one), a last line
//! without `\n` included. An offset N means "skip the first
//! N lines". Lines that are not valid JSON (a half-written last line, a blank
//! line) are skipped rather than fatal: an agent that crashed mid-write must not
//! make the whole transcript unreadable.
//!
//! Everything here is pure (bytes in, values out), so it is easy to test; the
//! subcommands that read files live in `analysis`, `tokens` and `subagents`.

use serde_json::Value;

use crate::protocol::TokenUsage;
use crate::timestamp;

/// The tools whose use modifies a file, and so names it in the file list.
const FILE_MODIFICATION_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

/// The transcript's lines, without their `\n`.
///
/// A final `\n` terminates the last line rather than starting an empty one, so
/// `lines(content).count() == position(content)` holds for every transcript
/// that does not end in blank lines (which hold no entry).
pub fn lines(content: &[u8]) -> impl Iterator<Item = &[u8]> {
    content
        .split_inclusive(|&byte| byte == b'\n')
        .map(|line| line.strip_suffix(b"\n").unwrap_or(line))
}

/// The transcript position: its line count as the host counts it, trailing
/// blank lines trimmed.
pub fn position(content: &[u8]) -> usize {
    let end = content
        .iter()
        .rposition(|byte| !matches!(byte, b'\n' | b'\r' | b' ' | b'\t'))
        .map_or(0, |last| last + 1);
    let trimmed = &content[..end];
    let newlines = trimmed.iter().filter(|&&byte| byte == b'\n').count();
    newlines + usize::from(!trimmed.is_empty())
}

/// The parsed JSON entries on lines at index >= `offset`; invalid lines skipped.
pub fn entries_from(content: &[u8], offset: usize) -> impl Iterator<Item = Value> {
    lines(content)
        .skip(offset)
        .filter_map(|line| serde_json::from_slice::<Value>(line).ok())
}

/// The entry's `type` field, or "".
fn entry_type(entry: &Value) -> &str {
    entry.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The content blocks of an entry's message (`message.content` when it is an array).
fn content_blocks(entry: &Value) -> &[Value] {
    entry
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Files touched by Write/Edit/MultiEdit/NotebookEdit tool uses on lines at index
/// >= `offset`, deduplicated, in first-seen order.
pub fn modified_files(content: &[u8], offset: usize) -> Vec<String> {
    let mut files = Vec::new();
    for entry in entries_from(content, offset) {
        if entry_type(&entry) != "assistant" {
            continue;
        }
        for block in content_blocks(&entry) {
            if let Some(file) = modified_file(block) {
                push_unique(&mut files, file);
            }
        }
    }
    files
}

/// The file a `tool_use` block modifies, if it is a file-modifying tool.
fn modified_file(block: &Value) -> Option<String> {
    if block.get("type").and_then(Value::as_str) != Some("tool_use") {
        return None;
    }
    let tool = block.get("name").and_then(Value::as_str)?;
    if !FILE_MODIFICATION_TOOLS.contains(&tool) {
        return None;
    }
    let input = block.get("input")?;
    // NotebookEdit names its file `notebook_path`; the others `file_path`.
    ["file_path", "notebook_path"]
        .iter()
        .find_map(|key| input.get(key).and_then(Value::as_str))
        .filter(|path| !path.is_empty())
        .map(str::to_owned)
}

/// Append `item` unless it is already present (keeps first-seen order).
pub fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// The user's prompts on lines at index >= `offset`.
///
/// A user entry's `message.content` is either the prompt text or an array of
/// blocks; text blocks form the prompt (joined by newlines) and `tool_result`
/// blocks are skipped: they are the agent's own tool output fed back, not
/// something the user typed. Entries without any text are not prompts.
pub fn prompts(content: &[u8], offset: usize) -> Vec<String> {
    entries_from(content, offset)
        .filter(|entry| entry_type(entry) == "user")
        .filter_map(|entry| prompt_text(&entry))
        .collect()
}

fn prompt_text(entry: &Value) -> Option<String> {
    let text = match entry.pointer("/message/content")? {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|block| block.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => return None,
    };
    (!text.is_empty()).then_some(text)
}

/// The compacted transcript (`compact-transcript`): only the conversation.
///
/// Keeps, byte for byte and in order, the lines whose `type` is `user` or
/// `assistant`, each ending with `\n`, and drops everything else: summaries and
/// other bookkeeping entries, lines that are not JSON, and *tool result* user
/// lines, i.e. user entries whose `message.content` is an array holding a
/// `tool_result` block and no `text` block (the agent's own tool output fed
/// back, usually the bulk of a transcript). Empty when nothing is kept.
pub fn compact(content: &[u8]) -> Vec<u8> {
    let mut compacted = Vec::new();
    for line in lines(content) {
        let Ok(entry) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        let keep = match entry_type(&entry) {
            "assistant" => true,
            "user" => !is_tool_result(&entry),
            _ => false,
        };
        if keep {
            compacted.extend_from_slice(line);
            compacted.push(b'\n');
        }
    }
    compacted
}

/// Whether a user entry only feeds tool output back: a `tool_result` block and
/// no `text` block.
fn is_tool_result(entry: &Value) -> bool {
    let has_block = |wanted: &str| {
        content_blocks(entry)
            .iter()
            .any(|block| block.get("type").and_then(Value::as_str) == Some(wanted))
    };
    has_block("tool_result") && !has_block("text")
}

/// The summary of the last `{"type":"summary","summary":...}` entry, if any.
pub fn summary(content: &[u8]) -> Option<String> {
    entries_from(content, 0)
        .filter(|entry| entry_type(entry) == "summary")
        .filter_map(|entry| entry.get("summary")?.as_str().map(str::to_owned))
        .last()
}

/// Summed `message.usage` of assistant entries on lines at index >= `offset`.
///
/// `api_call_count` counts assistant entries that carry a usage object. Counters
/// that are missing or not non-negative integers count as 0.
pub fn token_usage(content: &[u8], offset: usize) -> TokenUsage {
    let mut total = TokenUsage::default();
    for entry in entries_from(content, offset) {
        if entry_type(&entry) != "assistant" {
            continue;
        }
        let Some(usage) = entry.pointer("/message/usage").filter(|u| u.is_object()) else {
            continue;
        };
        let count = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        total.add(&TokenUsage {
            input_tokens: count("input_tokens"),
            output_tokens: count("output_tokens"),
            cache_creation_tokens: count("cache_creation_input_tokens"),
            cache_read_tokens: count("cache_read_input_tokens"),
            api_call_count: 1,
            subagent_tokens: None,
        });
    }
    total
}

/// When the session started: the first RFC 3339 `timestamp` of any entry.
///
/// A timestamp the host could not parse is passed over rather than passed on.
pub fn start_time(content: &[u8]) -> Option<String> {
    entries_from(content, 0)
        .filter_map(|entry| entry.get("timestamp")?.as_str().map(str::to_owned))
        .find(|stamp| timestamp::is_rfc3339(stamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = concat!(
        r#"{"type":"summary","summary":"old"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"first prompt"},"timestamp":"2026-01-13T12:00:00Z"}"#,
        "\n",
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"ok"},{"type":"tool_use","name":"Write","input":{"file_path":"a.rs"}},{"type":"tool_use","name":"Read","input":{"file_path":"r.rs"}}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":2}}}"#,
        "\n",
        "not json at all\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"x"},{"type":"text","text":"second"}]}}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"only a tool result"}]}}"#,
        "\n",
        r#"{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Edit","input":{"file_path":"b.rs"}},{"type":"tool_use","name":"MultiEdit","input":{"file_path":"a.rs"}},{"type":"tool_use","name":"NotebookEdit","input":{"notebook_path":"n.ipynb"}}],"usage":{"input_tokens":1,"output_tokens":1,"cache_creation_input_tokens":7}}}"#,
        "\n",
        r#"{"type":"summary","summary":"new"}"#,
    );

    #[test]
    fn positions_count_lines() {
        for (content, expected) in [("", 0), ("a", 1), ("a\n", 1), ("a\nb", 2), ("a\nb\n", 2)] {
            assert_eq!(position(content.as_bytes()), expected, "{content:?}");
            assert_eq!(lines(content.as_bytes()).count(), expected, "{content:?}");
        }
        // Trailing blank lines are trimmed, as the host trims them.
        for (content, expected) in [("\n", 0), ("a\n\n", 1), ("\n\n\n", 0), ("a\n \n", 1)] {
            assert_eq!(position(content.as_bytes()), expected, "{content:?}");
        }
        assert_eq!(position(TRANSCRIPT.as_bytes()), 8);
    }

    #[test]
    fn extracts_modified_files_from_offset() {
        let content = TRANSCRIPT.as_bytes();
        assert_eq!(modified_files(content, 0), ["a.rs", "b.rs", "n.ipynb"]);
        assert_eq!(modified_files(content, 3), ["b.rs", "a.rs", "n.ipynb"]);
        assert!(modified_files(content, 100).is_empty());
    }

    #[test]
    fn extracts_prompts_from_offset() {
        let content = TRANSCRIPT.as_bytes();
        assert_eq!(prompts(content, 0), ["first prompt", "second"]);
        assert_eq!(prompts(content, 2), ["second"]);
    }

    #[test]
    fn compacts_to_the_conversation() {
        let compacted = compact(TRANSCRIPT.as_bytes());
        let kept: Vec<&str> = TRANSCRIPT.lines().collect();
        // user, assistant, user with text beside a tool result, assistant; not
        // the summaries, the non-JSON line or the pure tool result.
        let expected = [kept[1], kept[2], kept[4], kept[6]].map(|line| format!("{line}\n"));
        assert_eq!(
            String::from_utf8(compacted).expect("utf-8"),
            expected.concat()
        );
        assert!(compact(b"{\"type\":\"summary\",\"summary\":\"s\"}\n").is_empty());
        assert!(compact(b"").is_empty());
        // An unterminated last line is terminated.
        assert_eq!(compact(b"{\"type\":\"user\"}"), b"{\"type\":\"user\"}\n");
    }

    #[test]
    fn extracts_the_last_summary() {
        assert_eq!(summary(TRANSCRIPT.as_bytes()).as_deref(), Some("new"));
        assert_eq!(summary(b"{\"type\":\"user\"}\n"), None);
    }

    #[test]
    fn sums_token_usage_from_offset() {
        let all = token_usage(TRANSCRIPT.as_bytes(), 0);
        assert_eq!(
            all,
            TokenUsage {
                input_tokens: 11,
                output_tokens: 6,
                cache_read_tokens: 2,
                cache_creation_tokens: 7,
                api_call_count: 2,
                subagent_tokens: None,
            }
        );
        assert_eq!(token_usage(TRANSCRIPT.as_bytes(), 3).api_call_count, 1);
    }

    #[test]
    fn finds_the_first_valid_start_time() {
        assert_eq!(
            start_time(TRANSCRIPT.as_bytes()).as_deref(),
            Some("2026-01-13T12:00:00Z")
        );
        assert_eq!(start_time(b"{\"timestamp\":\"yesterday\"}\n"), None);
    }
}
