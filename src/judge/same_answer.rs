//! `same_answer_as:`: a `parse-hook` answer given a payload that arrived late
//! against the answer to the same payload delivered at once (docs/host.md
//! "Plugins in the wild", "A deadline on stdin": a plugin that gives up
//! reading after a short time and invents a session id splits the session on
//! a loaded machine).

use serde_json::Value;

use crate::host::Severity;
use crate::host::answers::go;
use crate::host::decoding::{field_int, field_str};
use crate::outcome::finding::Finding;

/// What the host takes from a `parse-hook` answer.
#[derive(Debug, PartialEq, Eq)]
enum Taken {
    /// A non-zero exit: the hook fails.
    Refusal,
    /// `null` (or output the host cannot decode): no Event.
    NoEvent,
    /// An Event: its type and session id.
    Event(i64, String),
}

impl Taken {
    fn of(code: Option<i32>, stdout: &[u8]) -> Taken {
        if code != Some(0) {
            return Taken::Refusal;
        }
        // The Event as the host holds it: a missing or null type is 0, a
        // missing or null session id "".
        match go::event(stdout) {
            Ok(event @ Value::Object(_)) => Taken::Event(
                field_int(&event, "type"),
                field_str(&event, "session_id").to_string(),
            ),
            _ => Taken::NoEvent,
        }
    }

    fn describe(&self) -> String {
        match self {
            Taken::Refusal => "a refusal (non-zero exit)".to_string(),
            Taken::NoEvent => "no Event".to_string(),
            Taken::Event(kind, id) => format!("an Event of type {kind} for session {id:?}"),
        }
    }
}

/// The finding when the late answer (`late`: exit code and stdout) differs
/// from the prompt one (`prompt`) in what the host takes from it; `None`
/// when it says the same. `delay_ms`: how late the payload came (half of it
/// before the first byte, half before the second half:
/// [`crate::running::runner::Invocation::stdin_delay`]).
///
/// A session id the plugin made up itself (the prompt answer's id is not in
/// the `payload`: an agent whose payloads carry none, a plugin that renews
/// its id per turn) is not compared: a second call may rightly get another
/// one. What a deadline on stdin loses is what came from the payload.
pub fn compare(
    payload: &[u8],
    prompt: (Option<i32>, &[u8]),
    late: (Option<i32>, &[u8]),
    delay_ms: u64,
    severity: Severity,
    because: &str,
) -> Option<Finding> {
    let (want, got) = (Taken::of(prompt.0, prompt.1), Taken::of(late.0, late.1));
    if want == got {
        return None;
    }
    if let (Taken::Event(a, id), Taken::Event(b, _)) = (&want, &got)
        && a == b
        && !from_payload(payload, id)
    {
        return None;
    }
    let (first, rest) = (delay_ms / 2, delay_ms - delay_ms / 2);
    let message = format!(
        "with the payload's first byte {first} ms late and its second half {rest} ms after \
         that, parse-hook answered {}, where it answered {} to the same payload delivered at \
         once ({because})",
        got.describe(),
        want.describe()
    );
    let finding = Finding {
        severity,
        ..Finding::failure(message)
    };
    Some(finding.diff(want.describe(), got.describe()))
}

/// Whether `id` (non-empty) appears in the payload as a JSON string.
fn from_payload(payload: &[u8], id: &str) -> bool {
    if id.is_empty() {
        return false;
    }
    let quoted = serde_json::to_string(id).unwrap_or_default();
    payload
        .windows(quoted.len().max(1))
        .any(|w| w == quoted.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_event_is_no_finding() {
        let event = br#"{"type":1,"session_id":"s","timestamp":"x"}"#;
        let later = br#"{"type":1,"session_id":"s","timestamp":"y"}"#;
        let same = compare(
            br#"{"session_id":"s"}"#,
            (Some(0), event),
            (Some(0), later),
            500,
            Severity::Warning,
            "b",
        );
        assert!(same.is_none());
        assert!(
            compare(
                b"",
                (Some(1), b""),
                (Some(2), b"x"),
                500,
                Severity::Warning,
                "b"
            )
            .is_none()
        );
    }

    #[test]
    fn an_invented_session_id_or_a_refusal_is_named() {
        let event = br#"{"type":1,"session_id":"s"}"#;
        let invented = br#"{"type":1,"session_id":"gen-1"}"#;
        let found = compare(
            br#"{"session_id":"s"}"#,
            (Some(0), event),
            (Some(0), invented),
            500,
            Severity::Warning,
            "b",
        );
        let found = found.expect("a finding");
        assert_eq!(found.severity, Severity::Warning);
        assert!(
            found.message.contains("gen-1") && found.message.contains("first byte 250 ms late")
        );
        let refused = compare(
            br#"{"session_id":"s"}"#,
            (Some(0), event),
            (Some(1), b""),
            500,
            Severity::Warning,
            "b",
        );
        assert!(refused.expect("a finding").message.contains("refusal"));
        let null = compare(
            br#"{"session_id":"s"}"#,
            (Some(0), event),
            (Some(0), b"null"),
            500,
            Severity::Warning,
            "b",
        );
        assert!(null.expect("a finding").message.contains("no Event"));
    }

    #[test]
    fn an_id_the_plugin_made_up_is_not_compared() {
        let (first, second) = (
            br#"{"type":2,"session_id":"gen-1"}"#,
            br#"{"type":2,"session_id":"gen-2"}"#,
        );
        let payload = br#"{"prompt":"hi"}"#;
        let made_up = compare(
            payload,
            (Some(0), first),
            (Some(0), second),
            500,
            Severity::Warning,
            "b",
        );
        assert!(made_up.is_none());
    }
}
