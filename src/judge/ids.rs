//! The ids of an Event held to the newest hosts' rules, by release
//! ([`crate::host::ids`]): what the June host already refuses is the Event
//! schemas' (every release); what only the newest variants refuse is said
//! here, named by the releases judged that have it.

use serde_json::Value;

use crate::host::Severity;
use crate::host::ids;
use crate::host::range::{HostRange, Scope};
use crate::host::releases::Fact;
use crate::outcome::finding::{Finding, Kind};

/// The findings of one decoded `parse-hook` answer: a failure for a
/// `session_id` the newest variants refuse (the hook fails there; a warning
/// where they only may hold), a warning at most for a device name as
/// `tool_use_id` or `subagent_id` (one September variant only).
///
/// `payload` is the hook payload the Event was made of: an id the plugin
/// echoed from it rests on what the payload rests on (ours is an
/// assumption); one of its own making, found nowhere in it, on its own
/// answers.
pub fn event_ids(event: &Value, hosts: &HostRange, payload: Option<&Value>) -> Vec<Finding> {
    let text = |key: &str| event.get(key).and_then(Value::as_str).unwrap_or_default();
    let own = |finding: Finding, value: &str| match payload.is_some_and(|p| echoes(p, value)) {
        true => finding,
        false => finding.rests_on(crate::outcome::evidence::Evidence::OwnAnswers),
    };
    let mut findings = Vec::new();
    let session_id = text("session_id");
    if let Some(why) = ids::newest_only(session_id) {
        let scope = hosts.with_fact(Fact::StrictSessionIds);
        if scope.any() {
            let finding = Finding::failure(format!(
                "{}: session_id {session_id:?} {why}, which these hosts refuse: {} (the June \
                 host accepted it)",
                scope.prefix(),
                ids::REFUSED_COSTS
            ));
            findings.push(own(weighed(finding, &scope, Severity::Failure), session_id));
        }
    }
    for key in ["tool_use_id", "subagent_id"] {
        let id = text(key);
        if !ids::device_tool_id(id) {
            continue;
        }
        let scope = hosts.with_fact(Fact::DeviceToolIds);
        if scope.any() {
            let finding = Finding::warning(format!(
                "{}: {key} {id:?} names a Windows device, which one September variant of the \
                 host refuses as {key}: the hook fails there; other variants accept it",
                scope.prefix()
            ));
            findings.push(own(weighed(finding, &scope, Severity::Warning), id));
        }
    }
    findings
}

/// Whether `value` is a string anywhere in `payload`: an Event's value the
/// plugin took from the payload it was given, not one of its own making.
pub fn echoes(payload: &Value, value: &str) -> bool {
    match payload {
        Value::String(s) => s == value,
        Value::Array(items) => items.iter().any(|v| echoes(v, value)),
        Value::Object(map) => map.values().any(|v| echoes(v, value)),
        _ => false,
    }
}

/// A finding of the id rules, capped at a warning where the rule only
/// perhaps holds (no release judged surely has it).
fn weighed(mut finding: Finding, scope: &Scope, at_most: Severity) -> Finding {
    let cap = if scope.on.is_empty() {
        Severity::Warning
    } else {
        at_most
    };
    finding.cap(cap);
    finding.kind(Kind::IdRule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_rules_fail_where_they_hold_and_say_nothing_before() {
        let all = HostRange::default();
        let june = HostRange::parse("<0.8").unwrap();
        let dash = serde_json::json!({"type": 1, "session_id": "-x"});
        let found = event_ids(&dash, &all, None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Failure);
        assert_eq!(found[0].kind, Kind::IdRule);
        assert!(event_ids(&dash, &june, None).is_empty());
        let unsure = HostRange::parse(">=0.9, <0.12").unwrap();
        assert_eq!(
            event_ids(&dash, &unsure, None)[0].severity,
            Severity::Warning
        );
        // The June rules are the schema's: not said again.
        let colon = serde_json::json!({"type": 1, "session_id": "a:b"});
        assert!(event_ids(&colon, &all, None).is_empty());
        let device = serde_json::json!({"type": 6, "session_id": "s", "tool_use_id": "CON"});
        let found = event_ids(&device, &all, None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
    }
}
