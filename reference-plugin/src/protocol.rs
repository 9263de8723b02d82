//! The protocol's JSON objects, and the two encodings every plugin must get
//! exactly right: JSON on stdin, standard padded base64 for bytes.
//!
//! The host decodes stdout with Go's `encoding/json` into typed structs, so field
//! names and types here follow the protocol text to the letter: integers are
//! integers, booleans are booleans, lists are arrays (never `null` where the host
//! expects a list of files), and byte fields are standard base64 *with* padding.
//! Request types hold only the fields this plugin reads; unknown fields are
//! ignored, as the host ignores them in our answers.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::faults::Fault;

/// The protocol version this plugin speaks; the host registers only an exact match.
pub const PROTOCOL_VERSION: u32 = 1;

/// Answer of `info`.
#[derive(Debug, Serialize)]
pub struct Info {
    pub protocol_version: u32,
    pub name: &'static str,
    #[serde(rename = "type")]
    pub agent_type: &'static str,
    pub description: &'static str,
    pub is_preview: bool,
    pub protected_dirs: Vec<&'static str>,
    pub hook_names: Vec<&'static str>,
    pub capabilities: Capabilities,
}

/// Which optional subcommand groups the plugin implements. The host never calls a
/// subcommand whose capability is false or missing, so declare only what works.
#[derive(Debug, Default, Serialize)]
pub struct Capabilities {
    pub hooks: bool,
    pub transcript_analyzer: bool,
    pub transcript_preparer: bool,
    pub token_calculator: bool,
    pub text_generator: bool,
    pub hook_response_writer: bool,
    pub subagent_aware_extractor: bool,
    /// `compact-transcript`: an addition after the protocol text was written
    /// (docs/host.md), which newer hosts call.
    pub compact_transcript: bool,
}

/// The HookInput object (stdin of `get-session-id` and `read-session`); only the
/// fields this plugin uses. Every field is optional (missing or `null` is
/// `None`), as Go fills in zero values.
#[derive(Debug, Default, Deserialize)]
pub struct HookInput {
    pub session_id: Option<String>,
    pub session_ref: Option<String>,
}

/// The AgentSession object, as `read-session` prints it.
#[derive(Debug, Serialize)]
pub struct AgentSession {
    pub session_id: String,
    pub agent_name: String,
    pub repo_path: String,
    pub session_ref: String,
    /// RFC 3339, or "" when unknown.
    pub start_time: String,
    /// Standard padded base64 of the transcript bytes.
    pub native_data: Option<String>,
    pub modified_files: Vec<String>,
    pub new_files: Vec<String>,
    pub deleted_files: Vec<String>,
}

/// The AgentSession fields `write-session` needs from its stdin.
#[derive(Debug, Default, Deserialize)]
pub struct WriteSessionRequest {
    pub session_ref: Option<String>,
    /// Standard padded base64, or `null` for "no data".
    pub native_data: Option<String>,
}

/// A normalized lifecycle event, the answer of `parse-hook`.
///
/// Optional fields are omitted when empty rather than sent as `""`, so the host's
/// zero values apply.
#[derive(Debug, Default, Serialize)]
pub struct Event {
    #[serde(rename = "type")]
    pub event_type: u8,
    pub session_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    pub timestamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subagent_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_description: Option<String>,
}

/// The answer of `compact-transcript` (docs/host.md, "After the protocol
/// text was written").
#[derive(Debug, Serialize)]
pub struct CompactedTranscript {
    /// Standard padded base64 of the compacted transcript; never empty.
    pub transcript: String,
    /// Files that belong with the compacted transcript; the reference agent has
    /// none, and says so with an empty array.
    pub assets: Vec<Asset>,
}

/// One asset of a compacted transcript: every field non-empty but `data`.
#[derive(Debug, Serialize)]
pub struct Asset {
    pub name: String,
    pub media_type: String,
    /// Standard padded base64 of the asset's bytes.
    pub data: String,
}

/// Event type numbers of the protocol.
pub mod event_type {
    pub const SESSION_START: u8 = 1;
    pub const TURN_START: u8 = 2;
    pub const TURN_END: u8 = 3;
    pub const COMPACTION: u8 = 4;
    pub const SESSION_END: u8 = 5;
    pub const SUBAGENT_START: u8 = 6;
    pub const SUBAGENT_END: u8 = 7;
}

/// Token usage, the answer of `calculate-tokens` and `calculate-total-tokens`.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct TokenUsage {
    pub input_tokens: u64,
    pub cache_creation_tokens: u64,
    pub cache_read_tokens: u64,
    pub output_tokens: u64,
    pub api_call_count: u64,
    /// Usage of all subagents together; always written, `null` when there are none.
    pub subagent_tokens: Option<Box<TokenUsage>>,
}

impl TokenUsage {
    /// Add `other`'s counters (not its subagent usage) to `self`.
    pub fn add(&mut self, other: &TokenUsage) {
        self.input_tokens += other.input_tokens;
        self.cache_creation_tokens += other.cache_creation_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.output_tokens += other.output_tokens;
        self.api_call_count += other.api_call_count;
    }
}

/// Encode bytes the way the host decodes Go `[]byte` fields: standard alphabet,
/// with `=` padding (RFC 4648 section 4).
pub fn encode_bytes(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decode a standard padded base64 string; anything else (URL-safe alphabet,
/// missing padding, stray characters) is an error naming `what`.
pub fn decode_bytes(text: &str, what: &str) -> Result<Vec<u8>> {
    STANDARD
        .decode(text)
        .map_err(|err| Error::failed(format!("{what} is not valid standard base64: {err}")))
}

/// Parse a JSON object request read from stdin, naming `what` in the errors.
///
/// The request must be a JSON *object*: serde would otherwise happily read a
/// struct from an array (`["id"]`), which no host sends. Empty stdin is invalid
/// JSON like any other and is reported as such.
pub fn parse_object<T: DeserializeOwned>(ctx: &Context, stdin: &[u8], what: &str) -> Result<T> {
    let value: Value = serde_json::from_slice(stdin).map_err(|err| {
        if ctx.fault(Fault::PanicOnInvalidJson) {
            panic!("invalid JSON on stdin: {err}");
        }
        if stdin.iter().all(u8::is_ascii_whitespace) {
            Error::failed(format!("expected {what} JSON on stdin, got nothing"))
        } else {
            Error::failed(format!("invalid {what} JSON: {err}"))
        }
    })?;
    if !value.is_object() {
        return Err(Error::failed(format!("{what} must be a JSON object")));
    }
    serde_json::from_value(value).map_err(|err| Error::failed(format!("invalid {what}: {err}")))
}

/// Whether `bytes` hold exactly one JSON value (of any shape).
pub fn is_json(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

/// Serialize an answer into a JSON value, which `output` then prints.
pub fn to_json<T: Serialize>(answer: &T) -> Result<Value> {
    serde_json::to_value(answer).map_err(|err| Error::failed(format!("encoding answer: {err}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_standard_and_padded() {
        assert_eq!(encode_bytes(b"\xfb\xff"), "+/8=");
        assert_eq!(decode_bytes("+/8=", "x").ok(), Some(b"\xfb\xff".to_vec()));
        assert!(decode_bytes("-_8=", "x").is_err(), "URL-safe alphabet");
        assert!(decode_bytes("+/8", "x").is_err(), "missing padding");
    }

    #[test]
    fn token_usage_serializes_every_field() {
        let json = serde_json::to_string(&TokenUsage::default()).expect("serializes");
        assert_eq!(
            json,
            r#"{"input_tokens":0,"cache_creation_tokens":0,"cache_read_tokens":0,"output_tokens":0,"api_call_count":0,"subagent_tokens":null}"#
        );
    }
}
