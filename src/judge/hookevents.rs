//! What the declared hooks' `parse-hook` answers tell: every hook name
//! refusing the host's own `parse-hook --hook <name>` with a flag error
//! (every hook fails), or Events that can never make a checkpoint (docs/
//! host.md, "The calls the host makes over a session, in order"; "What the
//! host does with each answer"). `hooks.parse-hook.host-flags` asks it.

use serde_json::Value;

use crate::host::hooks;
use crate::judge::checks::Finding;
use crate::outcome::evidence::Evidence;
use crate::outcome::kind::Kind;

/// One declared hook name's parse-hook answer to the full payload.
#[derive(Debug, Clone)]
pub struct HookAnswer {
    /// The hook name.
    pub hook: String,
    /// The exit code (`None`: killed, or never started).
    pub exit: Option<i32>,
    /// stdout.
    pub stdout: Vec<u8>,
    /// The start of stderr.
    pub stderr: String,
}

/// Whether `stderr` reads as a refusal of the command line's flags rather
/// than of the payload: argparse, clap, Go's flag and cobra name the flag
/// they did not expect, or the one they missed.
fn is_flag_refusal(stderr: &str) -> bool {
    let text = stderr.to_ascii_lowercase();
    let names_flag = text.contains("--hook") || text.contains("-hook") || text.contains("usage:");
    let words = [
        "unknown",
        "unrecognized",
        "unrecognised",
        "unexpected",
        "not defined",
        "required",
        "missing",
        "usage:",
        "invalid option",
        "no such option",
    ];
    names_flag && words.iter().any(|w| text.contains(w))
}

/// What the declared hooks' answers tell: a failure when every hook name
/// refuses the host's own `parse-hook --hook <name>` with a flag error
/// (every hook fails), and a failure when every hook gave an Event and none
/// is a TurnStart or TurnEnd (no checkpoint is ever made).
pub fn judge_events(answers: &[HookAnswer]) -> Vec<Finding> {
    if answers.is_empty() {
        return Vec::new();
    }
    let refused = |a: &HookAnswer| a.exit != Some(0);
    if answers.iter().all(refused) && answers.iter().all(|a| is_flag_refusal(&a.stderr)) {
        let first = answers[0]
            .stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return vec![
            Finding::failure(format!(
                "parse-hook refuses the host's own command line `parse-hook --hook <name>` for \
                 every hook name it declares ({}), with a flag error: \"{}\"; the host calls \
                 exactly that in every `entire hooks` call, so every hook fails (exit 1) and \
                 nothing is ever recorded",
                answers.len(),
                first.trim()
            ))
            .kind(Kind::HooksInert)
            // The command line is the host's own, and the refusal is of its
            // flags, not of the payload: whatever the agent sends.
            .rests_on(Evidence::HostInput)
            .diff(
                "parse-hook --hook <name> accepted",
                "a flag error for every hook name",
            ),
        ];
    }
    let mut types = Vec::new();
    for answer in answers {
        let event_type = crate::host::decoding::decode_host_json(&answer.stdout)
            .ok()
            .and_then(|v| v.get("type").and_then(Value::as_u64));
        match event_type {
            Some(t) if answer.exit == Some(0) => types.push((answer.hook.as_str(), t)),
            // A hook that gave no Event here may give one for its agent's
            // own payload: nothing can be said.
            _ => return Vec::new(),
        }
    }
    let all: Vec<u64> = types.iter().map(|(_, t)| *t).collect();
    if hooks::can_checkpoint(&all) {
        return Vec::new();
    }
    let listed: Vec<String> = types.iter().map(|(h, t)| format!("{h} → {t}")).collect();
    vec![
        Finding::failure(format!(
            "every declared hook gives an Event, and none is a TurnStart (2) or TurnEnd (3): {}; \
             the host makes checkpoints at TurnEnd and at commits during a turn, so with these \
             hooks no checkpoint is ever made",
            listed.join(", ")
        ))
        .kind(Kind::HooksInert)
        // The types are the plugin's own mapping of its hook names (no type
        // is in the payload): its own answers, whatever the payload.
        .rests_on(Evidence::OwnAnswers)
        .diff("a hook giving TurnStart or TurnEnd", listed.join(", ")),
    ]
}

/// What the hooks' Events for the same full payload tell of its session
/// id: a SessionStart or TurnStart (whose empty id fails the hook) without
/// one, while the Events of other hooks for this very payload carry it. The
/// plugin reads the payload's id, and drops it for that hook: its own
/// answers show it, whatever the payload's shape (a plugin that reads other
/// keys gives every Event an empty id, and is not verified here). A failure.
pub fn dropped_ids(answers: &[HookAnswer]) -> Vec<Finding> {
    let events: Vec<(&str, u64, String)> = answers
        .iter()
        .filter(|a| a.exit == Some(0))
        .filter_map(|a| {
            let event = crate::host::answers::go::event(&a.stdout).ok()?;
            let kind = event.get("type").and_then(Value::as_u64)?;
            let id = event
                .get("session_id")
                .and_then(Value::as_str)
                .unwrap_or("");
            Some((a.hook.as_str(), kind, id.to_string()))
        })
        .collect();
    let Some((carrier, _, id)) = events.iter().find(|(_, _, id)| !id.is_empty()) else {
        return Vec::new();
    };
    let dropped: Vec<String> = events
        .iter()
        .filter(|(_, kind, id)| id.is_empty() && hooks::needs_session_id(*kind))
        .map(|(hook, kind, _)| format!("{hook} ({kind})"))
        .collect();
    if dropped.is_empty() {
        return Vec::new();
    }
    vec![
        Finding::failure(format!(
            "the Event of {} has no session_id, while {carrier}'s Event for the very same \
             payload carries {id:?}: the plugin reads the payload's session id and drops it for \
             these hooks, and the host fails a SessionStart or TurnStart without one (the agent \
             shows a failed hook, the session is never started)",
            dropped.join(", ")
        ))
        .kind(Kind::ZeroValue)
        .rests_on(Evidence::OwnAnswers)
        .diff(
            format!("session_id {id:?}, as {carrier}'s"),
            "an empty session_id",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;

    fn answer(hook: &str, exit: i32, stdout: &str, stderr: &str) -> HookAnswer {
        HookAnswer {
            hook: hook.into(),
            exit: Some(exit),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn a_flag_refusal_of_every_hook_fails_and_a_payload_refusal_does_not() {
        let flag = [
            answer("a", 1, "", "unknown flag: --hook"),
            answer("b", 1, "", "unknown flag: --hook"),
        ];
        assert_eq!(judge_events(&flag)[0].severity, Severity::Failure);
        let payload = [
            answer("a", 1, "", "invalid payload"),
            answer("b", 1, "", "invalid payload"),
        ];
        assert!(judge_events(&payload).is_empty());
    }

    #[test]
    fn one_event_type_without_turns_fails_only_when_every_hook_answered() {
        let starts = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, r#"{"type":1}"#, ""),
        ];
        assert_eq!(judge_events(&starts)[0].severity, Severity::Failure);
        let with_null = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, "null", ""),
        ];
        assert!(judge_events(&with_null).is_empty());
        let turns = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, r#"{"type":3}"#, ""),
        ];
        assert!(judge_events(&turns).is_empty());
    }
}
