//! The plugin's own samples checked against its own answers, without a
//! recording (issue 59, item 3).
//!
//! Where an author's case file gives `parse-hook` a payload of the agent's
//! own, the Event it answers names a session (`session_id`) and its
//! transcript (`session_ref`). The host later asks the plugin where that
//! session's file is: `entire resume` restores the file
//! `resolve-session-file` gives for the id, in the directory
//! `get-session-dir` gives for the repository (docs/host.md "The calls the
//! host makes over a session, in order"), and the agent then reads the
//! transcript its own hook named. The two answers must agree with the
//! Event: a resolved file other than the `session_ref` is a resume that
//! restores where the agent never looks (a failure, resting on the
//! plugin's own answers to its own payload); a `session_ref` outside the
//! session directory is a transcript the host's owner lookup, which walks
//! the plugins' session directories, finds no owner for (a warning).
//!
//! A pure function of the Event and the two answers; `execute::own_samples`
//! makes the calls.

use serde_json::Value;

use crate::outcome::finding::{Evidence, Finding};
use crate::suite::case::normalize;

/// The session id and `session_ref` of a `parse-hook` Event, when it names
/// both (non-empty strings): what the two calls are asked about.
pub fn session_of(event: &Value) -> Option<(String, String)> {
    let text = |key: &str| {
        event
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_string)
    };
    Some((text("session_id")?, text("session_ref")?))
}

/// The answers the host's own calls gave: the `session_dir` of
/// `get-session-dir` and the `session_file` of `resolve-session-file`
/// (`None`: the call gave no such answer, which other cases judge).
#[derive(Debug, Clone, Default)]
pub struct Answers {
    /// `get-session-dir`'s `session_dir`.
    pub session_dir: Option<String>,
    /// `resolve-session-file`'s `session_file`.
    pub session_file: Option<String>,
}

/// Judges the Event's session (`id`, `session_ref`) against the answers:
/// the resolved file must be the `session_ref` (a failure), which must lie
/// inside the session directory (a warning, unless `dir_is_intent`: the
/// case itself is about where the plugin's session directory is). Every
/// finding rests on the author's samples: the payload is theirs, the
/// answers the plugin's.
pub fn judge(id: &str, session_ref: &str, answers: &Answers, dir_is_intent: bool) -> Vec<Finding> {
    let mut findings = Vec::new();
    let wanted = normalize(session_ref);
    if let Some(file) = answers.session_file.as_deref()
        && normalize(file) != wanted
    {
        findings.push(
            Finding::failure(format!(
                "entire session resume restores {file} (resolve-session-file for {id}), while \
                 the agent reads {session_ref}: the resumed session is not found"
            ))
            .rests_on(Evidence::Samples)
            .with_subject(id)
            .diff(session_ref, file),
        );
    }
    if let Some(dir) = answers.session_dir.as_deref()
        && !dir_is_intent
        && !inside(&wanted, &normalize(dir))
    {
        findings.push(
            Finding::warning(format!(
                "the host's owner lookup finds no owner for {session_ref}, the transcript of \
                 session {id}: it is not inside {dir}, the session directory get-session-dir \
                 gives, so a transcript the host finds there is not attributed to this agent"
            ))
            .rests_on(Evidence::Samples)
            .with_subject(id),
        );
    }
    findings
}

/// Whether normalised `path` lies inside normalised directory `dir`.
pub fn inside(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    !dir.is_empty()
        && path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/') && rest.len() > 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;

    fn answers(dir: &str, file: &str) -> Answers {
        Answers {
            session_dir: Some(dir.into()),
            session_file: Some(file.into()),
        }
    }

    #[test]
    fn agreeing_answers_find_nothing() {
        let a = answers("/h/.x/sessions/", "/h/.x/sessions/./s1.jsonl");
        assert!(judge("s1", "/h/.x/sessions/s1.jsonl", &a, false).is_empty());
    }

    #[test]
    fn another_resolved_file_fails_naming_the_resume() {
        let a = answers("/h/.x/sessions", "/h/.x/sessions/s1.json");
        let found = judge("s1", "/h/.x/sessions/s1.jsonl", &a, false);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Failure);
        assert_eq!(found[0].evidence(), Evidence::Samples);
        assert!(found[0].message.contains("entire session resume restores"));
        assert!(
            found[0]
                .message
                .contains("the resumed session is not found")
        );
    }

    #[test]
    fn a_transcript_outside_the_session_dir_warns_unless_it_is_the_intent() {
        let a = answers("/h/.x/sessions", "/tmp/t/s1.jsonl");
        let found = judge("s1", "/tmp/t/s1.jsonl", &a, false);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("owner lookup finds no owner"));
        assert!(judge("s1", "/tmp/t/s1.jsonl", &a, true).is_empty());
        // A prefix that is not a parent directory is outside.
        assert!(!inside("/h/.x/sessions2/s1", "/h/.x/sessions"));
    }

    #[test]
    fn missing_answers_judge_nothing_and_events_without_both_are_skipped() {
        assert!(judge("s1", "/a/s1.jsonl", &Answers::default(), false).is_empty());
        let event = serde_json::json!({"session_id": "s1", "session_ref": ""});
        assert!(session_of(&event).is_none());
        let event = serde_json::json!({"session_id": "s1", "session_ref": "/a/s1.jsonl"});
        assert_eq!(
            session_of(&event),
            Some(("s1".into(), "/a/s1.jsonl".into()))
        );
    }
}
