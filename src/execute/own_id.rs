//! A refused `write-session`, tried again with an id of the plugin's own
//! making before the refusal is called "not verified here".
//!
//! A case's own session id (`sess-7f3a9c21`) is ours: a plugin that keeps
//! ids of another form may refuse it, and the host never sends it. But a
//! plugin that refuses every id, its own included, breaks `entire resume`
//! and `entire rewind` of every session it records (docs/host.md "The
//! calls the host makes over a session, in order": a refused
//! `write-session` fails them). So the harness asks the plugin for an id of
//! its own (`get-session-id`, given the write's own HookInput with another
//! id in it, a UUID) and writes again with that id: a second refusal rests
//! on the plugin's own answers, and fails.

use std::sync::Arc;

use serde_json::Value;

use crate::execute::Run;
use crate::outcome::finding::{Evidence, Finding};
use crate::running::runner::{Invocation, Outcome};
use crate::running::sandbox::Sandbox;

/// The id given to `get-session-id` in the HookInput it is asked about:
/// another form than the case's own (`sess-…`), so that two forms of id
/// are tried.
const OTHER_FORM: &str = "3b241101-e2bb-4255-8caf-4136c566a962";

/// A call made in trying again: its step name, invocation and outcome
/// (`execute::step` reports it).
pub(super) type Call = (String, Invocation, Outcome);

/// What trying again told, with the calls it made.
pub(super) enum Retried {
    /// No id of the plugin's own was had (get-session-id refused, or gave
    /// the refused id back): the refusal stays "not verified".
    NoOwnId(Vec<Call>),
    /// The plugin took its own id (the second field): it refuses only ids
    /// of another form.
    Accepted(Vec<Call>, String),
    /// It refused its own id too: a failure, for the last call.
    Refused(Vec<Call>, Finding),
}

impl Retried {
    /// The calls made in trying again.
    pub(super) fn into_calls(self) -> Vec<Call> {
        match self {
            Retried::NoOwnId(calls) | Retried::Accepted(calls, _) | Retried::Refused(calls, _) => {
                calls
            }
        }
    }

    /// The note of a refusal that stays "not verified here", saying only
    /// what the calls showed: the id the plugin took, or why no id of its
    /// own was had; and where the host's ids come from for this plugin,
    /// from what `info` declares (`hooks`: its own Events' ids; without:
    /// the ids `entire attach` records, the agent's own).
    pub(super) fn note(&self, ours: &str, hooks: bool) -> String {
        let shown = match self {
            Retried::Accepted(_, own) => format!(
                "and took {own:?}, the id its own get-session-id gave: it refuses only ids of \
                 another form"
            ),
            Retried::NoOwnId(calls) => match calls.last().map(|(_, _, out)| out.exit_code()) {
                Some(Some(0)) => "and get-session-id gave no other id to try it with".to_string(),
                Some(_) => "and get-session-id refused too, so no id of its own was had to try \
                            it with"
                    .to_string(),
                None => "(its input is no JSON to try another id with)".to_string(),
            },
            Retried::Refused(..) => String::new(),
        };
        let host = if hooks {
            "the host passes only the session ids of the plugin's own Events; session.agent \
             restores with those"
        } else {
            "without hooks, the host passes only the ids `entire attach` records, the agent's \
             own"
        };
        format!(
            "write-session refused session id {ours:?}, an id of this case's making, {shown}; \
             {host}: not verified here"
        )
    }
}

impl Run<'_> {
    /// Tries the refused `write-session` call `refused` again with an id of
    /// the plugin's own making.
    pub(super) fn write_with_own_id(
        &self,
        name: &str,
        refused: &Invocation,
        sandbox: &Sandbox,
    ) -> Retried {
        let Some(payload) = refused
            .stdin
            .as_ref()
            .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        else {
            return Retried::NoOwnId(Vec::new());
        };
        let ours = payload
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let (asked, answer) = self.own_session_id(refused, sandbox);
        let own = session_id_of(&answer).filter(|id| *id != ours);
        let mut calls = vec![(
            format!("{name} (an id of the plugin's own: get-session-id)"),
            asked,
            answer,
        )];
        let Some(own) = own else {
            return Retried::NoOwnId(calls);
        };
        let mut again = payload.clone();
        again["session_id"] = Value::String(own.clone());
        let mut inv = refused.clone();
        inv.stdin = Some(Arc::new(again.to_string().into_bytes()));
        let outcome = self.call(&inv);
        let accepted = outcome.exit_code() == Some(0);
        let finding = refused_own(&ours, &own, &outcome);
        calls.push((
            format!("{name} (again, with its own id {own})"),
            inv,
            outcome,
        ));
        if accepted {
            return Retried::Accepted(calls, own);
        }
        Retried::Refused(calls, finding)
    }

    /// `get-session-id`, asked about a HookInput that carries an id of
    /// another form than the case's: its call and answer.
    fn own_session_id(&self, refused: &Invocation, sandbox: &Sandbox) -> (Invocation, Outcome) {
        let input = serde_json::json!({
            "hook_type": "session_start",
            "session_id": OTHER_FORM,
            "session_ref": "",
            "timestamp": "2026-01-13T12:00:00Z",
        });
        let mut inv = self.invocation(sandbox, vec!["get-session-id".into()], refused.timeout);
        inv.stdin = Some(Arc::new(input.to_string().into_bytes()));
        let outcome = self.call(&inv);
        (inv, outcome)
    }
}

/// The session id of a refused `write-session` call's input ("" when it
/// has none).
pub(super) fn ours(refused: &Invocation) -> String {
    refused
        .stdin
        .as_ref()
        .and_then(|bytes| serde_json::from_slice::<Value>(bytes).ok())
        .and_then(|payload| payload.get("session_id")?.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// The `session_id` of a `get-session-id` answer, when it exited 0 with one.
fn session_id_of(outcome: &Outcome) -> Option<String> {
    if outcome.exit_code() != Some(0) {
        return None;
    }
    let json = crate::host::decoding::decode_host_json(&outcome.stdout).ok()?;
    json.get("session_id")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .map(str::to_string)
}

/// The failure of a plugin that refused the case's id and its own.
fn refused_own(ours: &str, own: &str, outcome: &Outcome) -> Finding {
    let stderr = String::from_utf8_lossy(&outcome.stderr);
    let said = stderr
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .map(|l| format!(": \"{}\"", l.trim()))
        .unwrap_or_default();
    Finding::failure(format!(
        "write-session refused {ours:?}, and refused {own:?} too, the id its own get-session-id \
         gave{said}: it refuses every id, its own included, so `entire resume` and `entire \
         rewind` of every session it records fail"
    ))
    .rests_on(Evidence::OwnAnswers)
    .diff(
        format!("write-session of session {own:?} accepted"),
        crate::judge::checks::status_text(outcome),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note names only causes the calls showed: without hooks, no
    /// Events and no parse-hook (it has none), but the ids `entire attach`
    /// records; with hooks, the plugin's own Events.
    #[test]
    fn a_refusal_note_names_only_what_the_plugin_has() {
        let took = Retried::Accepted(Vec::new(), "ow-1".into());
        let without = took.note("sess-1", false);
        assert!(without.contains("`entire attach` records"), "{without}");
        assert!(without.contains("took \"ow-1\""), "{without}");
        for unseen in ["Events", "parse-hook"] {
            assert!(!without.contains(unseen), "{unseen}: {without}");
        }
        let with = took.note("sess-1", true);
        assert!(with.contains("the plugin's own Events"), "{with}");
        assert!(!with.contains("entire attach"), "{with}");
        let none = Retried::NoOwnId(Vec::new()).note("sess-1", false);
        assert!(none.contains("its input is no JSON"), "{none}");
        assert!(!none.contains("parse-hook"), "{none}");
    }
}
