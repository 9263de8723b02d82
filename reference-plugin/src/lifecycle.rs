//! `parse-hook --hook NAME`: translate the agent's native hook payload into a
//! normalized lifecycle event. This is the core of an agent integration.
//!
//! The agent runs `entire hooks reference <name>` with its own JSON payload on
//! stdin; the host hands both to this subcommand and acts on the event we
//! return. `null` means "nothing to do" and is not an error.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::Request;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::fault_state;
use crate::faults::Fault;
use crate::output::Output;
use crate::protocol::{self, Event, event_type};
use crate::timestamp;
use crate::variants::Variant;

/// The agent's native hook payload (Claude Code's shape); only the fields used.
#[derive(Debug, Default, Deserialize)]
struct NativePayload {
    session_id: Option<String>,
    /// The transcript file; the session reference of the event.
    transcript_path: Option<String>,
    /// Accepted as a fallback for `transcript_path`.
    session_ref: Option<String>,
    /// The user's prompt (user-prompt-submit).
    prompt: Option<String>,
    /// The Task tool invocation (pre-task, post-task).
    tool_use_id: Option<String>,
    /// The Task tool's input: `subagent_type`, `description`, ...
    tool_input: Option<Value>,
    /// The subagent's id (post-task).
    agent_id: Option<String>,
    /// Where the agent runs (read only by the `session-ref-from-cwd` fault).
    cwd: Option<String>,
}

/// The event type each hook name maps to; `None` for hooks without lifecycle
/// significance.
fn event_type_of(hook_name: &str) -> Option<u8> {
    Some(match hook_name {
        "session-start" => event_type::SESSION_START,
        "user-prompt-submit" => event_type::TURN_START,
        "stop" => event_type::TURN_END,
        "pre-compact" => event_type::COMPACTION,
        "session-end" => event_type::SESSION_END,
        "pre-task" => event_type::SUBAGENT_START,
        "post-task" => event_type::SUBAGENT_END,
        _ => return None,
    })
}

/// `parse-hook --hook NAME`, stdin the native payload.
///
/// An unknown hook name answers `null` whatever the payload, as the host's
/// built-in agents do: such a hook has no lifecycle significance. For a known
/// hook, empty stdin is an error ("empty hook input") and so is invalid JSON.
pub fn parse_hook(ctx: &Context, request: &Request) -> Result<Output> {
    if ctx.fault(Fault::ParseHookWrongFlag) {
        return Err(Error::failed(
            "unknown flag: --hook\nusage: parse-hook --hook-name NAME",
        ));
    }
    let hook_name = request.args.value("--hook");
    let event_type = event_type_of(hook_name).map(|event_type| {
        if ctx.fault(Fault::HooksOneType) {
            event_type::SESSION_START
        } else {
            event_type
        }
    });
    let Some(event_type) = event_type else {
        if ctx.fault(Fault::ParseHookUnknownErrorSilent) {
            return Err(Error::Silent);
        }
        return Ok(Output::Json(Value::Null));
    };

    if ctx.fault(Fault::ParseHookRejectsTrailingNewline) && request.stdin.ends_with(b"\n") {
        return Err(Error::failed("unexpected data after the hook payload"));
    }
    let first_byte_deadline =
        ctx.fault(Fault::StdinFirstByteDeadline) || ctx.fault(Fault::SlowStartStdinDeadline);
    if first_byte_deadline && request.stdin.is_empty() {
        return invented_session(event_type);
    }
    if request.stdin.iter().all(u8::is_ascii_whitespace) {
        if ctx.variant(Variant::ParseHookEmptyNull) {
            return Ok(Output::Json(Value::Null));
        }
        if ctx.fault(Fault::ParseHookEmptyOk) {
            return Ok(Output::Raw(b"not json\n".to_vec()));
        }
        return Err(Error::failed("empty hook input"));
    }
    if ctx.fault(Fault::StdinDeadline) && serde_json::from_slice::<Value>(&request.stdin).is_err() {
        return invented_session(event_type);
    }
    let raw: Value = protocol::parse_object(ctx, &request.stdin, "hook payload")?;
    if ctx.fault(Fault::ParseHookEmptyObjectEvent) && raw.as_object().is_some_and(|o| o.is_empty())
    {
        let bare = Event {
            event_type,
            timestamp: timestamp::now_rfc3339(),
            ..Event::default()
        };
        return Ok(Output::Json(protocol::to_json(&bare)?));
    }
    let payload: NativePayload = serde_json::from_value(raw)
        .map_err(|err| Error::failed(format!("invalid hook payload: {err}")))?;

    let Some(event) = build_event(ctx, event_type, payload) else {
        return Ok(Output::Json(Value::Null));
    };
    let mut answer = protocol::to_json(&event)?;
    apply_faults(ctx, &mut answer);
    if ctx.fault(Fault::SessionIdChangesAfterTurnEnd) {
        split_session_after_turn_end(ctx, &mut answer, event_type);
    }
    if ctx.fault(Fault::SubagentEndFilesFail) && event_type == event_type::SUBAGENT_END {
        crate::analysis::subagent_ended(ctx);
    }
    Ok(Output::Json(answer))
}

/// The `stdin-deadline` fault: the payload did not arrive in time, so the
/// hook's Event gets a session id made up here.
fn invented_session(event_type: u8) -> Result<Output> {
    let event = Event {
        event_type,
        session_id: format!("reference-{}", std::process::id()),
        timestamp: timestamp::now_rfc3339(),
        ..Event::default()
    };
    Ok(Output::Json(protocol::to_json(&event)?))
}

/// The state file of the `session-id-changes-after-turn-end` fault.
const TURN_ENDED: &str = "turn-ended";

/// The `session-id-changes-after-turn-end` fault: once a TurnEnd has been
/// answered in this `$HOME`, every later event's session id gets `-2`.
fn split_session_after_turn_end(ctx: &Context, answer: &mut Value, event_type: u8) {
    let mut state = fault_state::load(ctx, TURN_ENDED);
    if state.contains_key("turn_ended") {
        if let Some(Value::String(id)) = answer.get_mut("session_id") {
            id.push_str("-2");
        }
    } else if event_type == event_type::TURN_END {
        state.insert("turn_ended".to_owned(), Value::Bool(true));
        fault_state::store(ctx, TURN_ENDED, state);
    }
}

/// Build the event, or `None` when the payload lacks a field the host requires
/// for this event type (the guide's Event Field Requirements):
///
/// - every event needs the session id: a hook without one is skipped rather than
///   guessed, since a guess can attach one session's turn to another;
/// - TurnStart and TurnEnd need the session reference (the transcript);
/// - SubagentStart and SubagentEnd need the session reference and tool_use_id.
fn build_event(ctx: &Context, event_type: u8, payload: NativePayload) -> Option<Event> {
    let session_id = match non_empty(payload.session_id) {
        Some(id) => id,
        None if ctx.fault(Fault::ParseHookUnknownSession) => "unknown".to_owned(),
        None => return None,
    };
    // A payload that names no transcript: the agent keeps it in its session
    // directory, under the session id.
    let from_cwd = payload
        .cwd
        .as_deref()
        .filter(|_| ctx.fault(Fault::SessionRefFromCwd))
        .and_then(|cwd| crate::session::agent_transcript_in(ctx, cwd, &session_id));
    let session_ref = from_cwd
        .or(non_empty(payload.transcript_path))
        .or(non_empty(payload.session_ref))
        .or_else(|| crate::session::agent_transcript(ctx, &session_id));
    let is_subagent = matches!(
        event_type,
        event_type::SUBAGENT_START | event_type::SUBAGENT_END
    );
    let needs_ref = match event_type {
        event_type::TURN_START | event_type::SUBAGENT_START | event_type::SUBAGENT_END => true,
        event_type::TURN_END => !ctx.fault(Fault::ParseHookTurnendNoRef),
        _ => false,
    };
    if needs_ref && session_ref.is_none() {
        return None;
    }

    let timestamp = if ctx.fault(Fault::TimestampNoColon) {
        timestamp::local_z0700()
    } else if ctx.fault(Fault::TimestampPlusSign) {
        timestamp::local_plus_sign()
    } else {
        timestamp::now_rfc3339()
    };
    let mut event = Event {
        event_type,
        session_id,
        session_ref,
        timestamp,
        ..Event::default()
    };
    if event_type == event_type::TURN_START {
        event.prompt = non_empty(payload.prompt);
    }
    if is_subagent {
        event.tool_use_id = non_empty(payload.tool_use_id);
        if event.tool_use_id.is_none() && !ctx.fault(Fault::ParseHookSubagentNoToolUseId) {
            return None;
        }
        let input_field = |key: &str| {
            payload
                .tool_input
                .as_ref()
                .and_then(|input| input.get(key))
                .and_then(Value::as_str)
                .filter(|text| !text.is_empty())
                .map(str::to_owned)
        };
        event.subagent_type = input_field("subagent_type");
        event.task_description = input_field("description");
        if event_type == event_type::SUBAGENT_END {
            event.subagent_id = non_empty(payload.agent_id)
                .or_else(|| input_field("agent_id"))
                .or_else(|| input_field("subagent_id"));
        }
        event.tool_input = payload.tool_input.filter(|input| !input.is_null());
    }
    Some(event)
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.filter(|text| !text.is_empty())
}

/// The parse-hook faults that change a finished event (testing aid).
fn apply_faults(ctx: &Context, answer: &mut Value) {
    let Some(fault) = ctx.fault else { return };
    let Value::Object(event) = answer else { return };
    let event_type = event.get("type").and_then(Value::as_u64);
    let is_type = |wanted: u8| event_type == Some(u64::from(wanted));
    match fault {
        Fault::ParseHookWrongType if is_type(event_type::TURN_END) => {
            event.insert("type".into(), event_type::TURN_START.into());
        }
        Fault::ParseHookTypeZero if is_type(event_type::SESSION_START) => {
            event.insert("type".into(), 0.into());
        }
        Fault::ParseHookNoSessionId => {
            event.remove("session_id");
        }
        Fault::ParseHookBadTimestamp => {
            event.insert("timestamp".into(), "now".into());
        }
        Fault::ParseHookTurnendNoRef if is_type(event_type::TURN_END) => {
            event.remove("session_ref");
        }
        Fault::TurnendRefSessionDir if is_type(event_type::TURN_END) => {
            let dir = event
                .get("session_ref")
                .and_then(Value::as_str)
                .map(|reference| match Path::new(reference).parent() {
                    Some(parent) if !parent.as_os_str().is_empty() => {
                        parent.to_string_lossy().into_owned()
                    }
                    _ => ".".to_owned(),
                });
            if let Some(dir) = dir {
                event.insert("session_ref".into(), dir.into());
            }
        }
        Fault::ParseHookSubagentNoToolUseId
            if is_type(event_type::SUBAGENT_START) || is_type(event_type::SUBAGENT_END) =>
        {
            event.remove("tool_use_id");
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks;

    fn event(hook: &str, payload: &str) -> Option<Event> {
        let payload = serde_json::from_str(payload).expect("payload JSON");
        build_event(&Context::default(), event_type_of(hook)?, payload)
    }

    #[test]
    fn every_hook_name_maps_to_an_event() {
        for name in hooks::hook_names() {
            assert!(event_type_of(name).is_some(), "{name}");
        }
    }

    #[test]
    fn maps_turn_start_with_prompt() {
        let ev = event(
            "user-prompt-submit",
            r#"{"session_id":"s","transcript_path":"/t.jsonl","prompt":"Fix it"}"#,
        )
        .expect("event");
        assert_eq!(ev.event_type, event_type::TURN_START);
        assert_eq!(ev.session_ref.as_deref(), Some("/t.jsonl"));
        assert_eq!(ev.prompt.as_deref(), Some("Fix it"));
        assert!(timestamp::is_rfc3339(&ev.timestamp));
    }

    #[test]
    fn skips_events_missing_required_fields() {
        assert!(event("session-start", r#"{"transcript_path":"/t"}"#).is_none());
        assert!(event("session-start", r#"{"session_id":""}"#).is_none());
        assert!(event("session-start", r#"{"session_id":"s"}"#).is_some());
        // No transcript named: the one the agent keeps for the session.
        let derived = event("stop", r#"{"session_id":"s"}"#).and_then(|ev| ev.session_ref);
        assert!(derived.is_some_and(|r| r.ends_with("/s.jsonl")));
        assert!(event("stop", r#"{"session_id":"../s"}"#).is_none());
        assert!(event("stop", r#"{"session_id":"s","session_ref":"/t"}"#).is_some());
        assert!(event("pre-task", r#"{"session_id":"s","transcript_path":"/t"}"#).is_none());
    }

    #[test]
    fn maps_subagent_end() {
        let ev = event(
            "post-task",
            r#"{"session_id":"s","transcript_path":"/t","tool_use_id":"toolu_1","agent_id":"a1",
                "tool_input":{"subagent_type":"general","description":"look around"}}"#,
        )
        .expect("event");
        assert_eq!(ev.event_type, event_type::SUBAGENT_END);
        assert_eq!(ev.tool_use_id.as_deref(), Some("toolu_1"));
        assert_eq!(ev.subagent_id.as_deref(), Some("a1"));
        assert_eq!(ev.subagent_type.as_deref(), Some("general"));
        assert_eq!(ev.task_description.as_deref(), Some("look around"));
        assert!(ev.tool_input.is_some());
    }
}
