//! "Not our payload": a `parse-hook` answer to a payload of our making
//! that lacks what the payload's own keys carried (an empty session id for
//! a payload with one, no transcript at a TurnEnd whose payload names one).
//! The plugin reads payloads of its own shape (docs/host.md, "Plugins in the
//! wild": hook payloads in the agent's own shape) and never saw ours; the
//! host only ever sends the agent's own ("What the host does with each
//! answer"), so what such an Event lacks says nothing of what the host
//! meets. Every case and step says it alike: the schema's and the checks'
//! findings on that Event become the hooks capability's one
//! [`Kind::Unverified`] finding (said once as a warning by the run, notes
//! elsewhere: `execute::fold`), and the same answer to the plugin's own
//! payload (a case file's, a recording's) is judged in full, since it does
//! not rest on an assumption.

use serde_json::Value;

use crate::host::Severity;
use crate::host::decoding::{field_int, field_str};
use crate::outcome::evidence::Evidence;
use crate::outcome::{Finding, Kind};

/// What the Event lacks of what our payload carried, if anything: the
/// session id, or at a TurnEnd (type 3) the transcript.
pub fn lacks(event: &Value, payload: &Value) -> Option<&'static str> {
    let carried = |key: &str| {
        payload
            .get(key)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    if !event.is_object() {
        return None;
    }
    if field_str(event, "session_id").is_empty() && carried("session_id") {
        return Some("an empty session id");
    }
    if field_int(event, "type") == 3
        && field_str(event, "session_ref").is_empty()
        && carried("transcript_path")
    {
        return Some("no session_ref");
    }
    None
}

/// Replaces the findings of `findings` that judge the Event by the step's
/// own input (a schema or a check, not resting on the plugin's own answer,
/// such as its clock's layout) with one unverified finding about `hooks`,
/// when the step's input is ours (`input`) and the Event lacks what our
/// payload carried. Returns whether it did.
pub fn not_ours(
    findings: &mut Vec<Finding>,
    input: Evidence,
    args: &[String],
    event: &Value,
    payload: Option<&Value>,
) -> bool {
    if input != Evidence::Assumption {
        return false;
    }
    let Some(what) = payload.and_then(|p| lacks(event, p)) else {
        return false;
    };
    let on_ours =
        |f: &Finding| matches!(f.kind, Kind::Schema | Kind::Check) && f.evidence.is_none();
    if !findings.iter().any(on_ours) {
        return false;
    }
    findings.retain(|f| !on_ours(f));
    let hook = args
        .iter()
        .position(|a| a == "--hook")
        .and_then(|i| args.get(i + 1))
        .map_or("", String::as_str);
    let gist = format!(
        "parse-hook --hook {hook} gave {what} for our generic payload: the plugin reads payloads \
         of its own shape"
    );
    let message = format!(
        "{gist}, and the host only ever sends the agent's own, so this is not verified here; add \
         the agent's real payloads to a case file of yours (`agent-conform record` writes them), \
         and the same checks run on those in full"
    );
    findings.push(
        Finding {
            severity: Severity::Note,
            ..Finding::failure(message)
        }
        .kind(Kind::Unverified)
        .with_subject("hooks")
        .with_gist(gist),
    );
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args() -> Vec<String> {
        vec!["parse-hook".into(), "--hook".into(), "start".into()]
    }

    fn schema() -> Finding {
        Finding::failure("at /session_id: \"\" is shorter than 1 character").kind(Kind::Schema)
    }

    #[test]
    fn an_empty_id_for_our_payload_is_unverified_and_the_same_for_its_own_is_not() {
        let event = json!({"type": 1, "session_id": ""});
        let ours = json!({"session_id": "sess-1", "transcript_path": "/t.jsonl"});
        let mut findings = vec![schema()];
        assert!(not_ours(
            &mut findings,
            Evidence::Assumption,
            &args(),
            &event,
            Some(&ours)
        ));
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].kind, Kind::Unverified);
        assert_eq!(findings[0].subject(), Some("hooks"));
        // The plugin's own payload (a sample): judged in full.
        let mut own = vec![schema()];
        assert!(!not_ours(
            &mut own,
            Evidence::Samples,
            &args(),
            &event,
            Some(&ours)
        ));
        assert_eq!(own[0].kind, Kind::Schema);
    }

    #[test]
    fn an_id_our_payload_never_carried_or_a_time_of_the_plugins_own_stays() {
        let event = json!({"type": 1, "session_id": ""});
        let mut findings = vec![schema()];
        let bare = json!({"prompt": "hi"});
        assert!(!not_ours(
            &mut findings,
            Evidence::Assumption,
            &args(),
            &event,
            Some(&bare)
        ));
        let ours = json!({"session_id": "sess-1"});
        let mut time = vec![schema().rests_on(Evidence::OwnAnswers)];
        assert!(!not_ours(
            &mut time,
            Evidence::Assumption,
            &args(),
            &event,
            Some(&ours)
        ));
        assert_eq!(time[0].kind, Kind::Schema);
    }

    #[test]
    fn a_turn_end_without_its_transcript_for_ours_is_unverified() {
        let event = json!({"type": 3, "session_id": "s1"});
        let ours = json!({"session_id": "s1", "transcript_path": "/t.jsonl"});
        assert_eq!(lacks(&event, &ours), Some("no session_ref"));
        let with = json!({"type": 3, "session_id": "s1", "session_ref": "/t.jsonl"});
        assert_eq!(lacks(&with, &ours), None);
    }
}
