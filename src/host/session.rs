//! The calls the host makes over a session, in order, and what it hands
//! from one answer to the next (docs/host.md, "The calls the host makes
//! over a session, in order"; the consequences from "What each answer costs
//! the user, from the host's source").
//!
//! This is data about the host, not a runner: the replay
//! (the session module of the execute layer) asks it which calls follow an event,
//! what `write-session` receives on resume and on rewind, and what each
//! failure costs the user.

use std::path::Path;

use serde_json::{Value, json};

use super::Severity;
use super::ownership::contains;

/// The Event types the host knows (1 to 7; newer hosts add 8 and 9, which
/// have no effect for plugins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventType {
    /// 1: the agent session starts.
    SessionStart,
    /// 2: the user submitted a prompt.
    TurnStart,
    /// 3: the agent finished answering: the host saves a checkpoint.
    TurnEnd,
    /// 4: the agent compacted its context.
    Compaction,
    /// 5: the agent session ends.
    SessionEnd,
    /// 6: a subagent starts.
    SubagentStart,
    /// 7: a subagent ends.
    SubagentEnd,
}

impl EventType {
    /// The type of an Event's `type` number.
    pub fn from_number(n: i64) -> Option<EventType> {
        Some(match n {
            1 => EventType::SessionStart,
            2 => EventType::TurnStart,
            3 => EventType::TurnEnd,
            4 => EventType::Compaction,
            5 => EventType::SessionEnd,
            6 => EventType::SubagentStart,
            7 => EventType::SubagentEnd,
            _ => return None,
        })
    }

    /// The guide's name.
    pub fn name(self) -> &'static str {
        match self {
            EventType::SessionStart => "SessionStart",
            EventType::TurnStart => "TurnStart",
            EventType::TurnEnd => "TurnEnd",
            EventType::Compaction => "Compaction",
            EventType::SessionEnd => "SessionEnd",
            EventType::SubagentStart => "SubagentStart",
            EventType::SubagentEnd => "SubagentEnd",
        }
    }
}

/// The Event type the guide's "Event Mapping Reference" gives a hook name,
/// across the agents it lists. `pre-tool-use` and `post-tool-use` are left
/// out: they map to subagent events only under a config-level matcher.
pub fn guessed_type(hook: &str) -> Option<EventType> {
    let found = match hook {
        "session-start" => EventType::SessionStart,
        "user-prompt-submit"
        | "before-agent"
        | "before-submit-prompt"
        | "turn-start"
        | "user-prompt-submitted" => EventType::TurnStart,
        "stop" | "after-agent" | "turn-end" | "agent-stop" => EventType::TurnEnd,
        "pre-compress" | "pre-compact" | "compaction" => EventType::Compaction,
        "session-end" => EventType::SessionEnd,
        "pre-task" | "subagent-start" => EventType::SubagentStart,
        "post-task" | "subagent-stop" => EventType::SubagentEnd,
        _ => return None,
    };
    Some(found)
}

/// The order of a generic agent session, given each hook's Event type
/// (the guide's name for it, or what the plugin answered): the hooks of
/// each slot fire in turn; turn slots come twice (a second turn). Hooks of
/// no known type come before SessionEnd, and each event is then handled by
/// the type the plugin gives it, as the host does.
pub fn generic_order(
    hook_names: &[String],
    type_of: &dyn Fn(&str) -> Option<EventType>,
) -> Vec<(usize, String)> {
    let of = |t: Option<EventType>| -> Vec<String> {
        hook_names
            .iter()
            .filter(|h| type_of(h) == t)
            .cloned()
            .collect()
    };
    let slots = [
        (1, of(Some(EventType::SessionStart))),
        (1, of(Some(EventType::TurnStart))),
        (1, of(Some(EventType::TurnEnd))),
        (2, of(Some(EventType::TurnStart))),
        (2, of(Some(EventType::TurnEnd))),
        (2, of(Some(EventType::SubagentStart))),
        (2, of(Some(EventType::SubagentEnd))),
        (2, of(Some(EventType::Compaction))),
        (2, of(None)),
        (2, of(Some(EventType::SessionEnd))),
    ];
    slots
        .into_iter()
        .flat_map(|(turn, hooks)| hooks.into_iter().map(move |h| (turn, h)))
        .collect()
}

/// The generic hook payload, in the guide's (Claude Code's) shape: what the
/// per-call parse-hook case sends, with this session's id and transcript.
/// The second turn's TurnStart carries no prompt, so that the host asks
/// `extract-prompts` from the turn's offset.
pub fn generic_payload(
    hook: &str,
    session_id: &str,
    transcript: &str,
    repo: &str,
    prompt: Option<&str>,
) -> Value {
    let mut payload = json!({
        "hook_event_name": hook,
        "session_id": session_id,
        "session_ref": transcript,
        "transcript_path": transcript,
        "cwd": repo,
        "tool_name": "Task",
        "tool_use_id": "toolu_01",
        "tool_input": {"subagent_type": "general-purpose", "description": "Write the README section", "prompt": "Write it"},
        "timestamp": "2026-01-13T12:00:00Z",
    });
    if let (Some(prompt), Some(map)) = (prompt, payload.as_object_mut()) {
        map.insert("prompt".into(), Value::from(prompt));
        map.insert("user_prompt".into(), Value::from(prompt));
    }
    payload
}

/// The host's calls over a session, in order: what `explain` prints for a
/// replay case, and what the session replay plays.
pub const ORDER: &[(&str, &str)] = &[
    (
        "every hook",
        "parse-hook --hook <name> with the agent's payload; get-session-dir --repo-path <root>          when the Event names a transcript (to skip another agent's)",
    ),
    (
        "SessionStart",
        "nothing more (an empty session_id fails the hook)",
    ),
    (
        "TurnStart",
        "get-transcript-position --path <session_ref> (transcript_analyzer): stored as the          turn's offset; the Event's prompt is recorded",
    ),
    (
        "TurnEnd",
        "prepare-transcript (transcript_preparer); the session_ref must be an existing file;          read-transcript (the checkpoint's bytes; a failure fails the hook); extract-prompts          --offset <turn offset> when the turn has no prompt; extract-all-modified-files --offset          --subagents-dir with the transcript on stdin (subagent_aware_extractor), else          extract-modified-files --path --offset; calculate-total-tokens or calculate-tokens          --offset with the transcript on stdin when files changed",
    ),
    ("Compaction", "nothing more: the turn's offset is reset"),
    (
        "SubagentStart, SubagentEnd",
        "nothing more (an empty tool_use_id fails SubagentStart)",
    ),
    ("SessionEnd", "token calculation"),
    (
        "entire resume",
        "get-session-dir; per session resolve-session-file --session-dir <dir> --session-id          <id> (distinct files inside the directory; a session's own session_ref,          where the agent resumes from) and write-session with session_id,          agent_name, repo_path, session_ref = that file, native_data = the checkpoint's          transcript, start_time 0001-01-01T00:00:00Z, null file lists; then          format-resume-command --session-id <id> per session",
    ),
    (
        "entire rewind",
        "the same writes, forced: the first session with repo_path set (the newest hosts), the          second with an empty repo_path (older hosts)",
    ),
    (
        "never called",
        "get-session-id, read-session, extract-summary: the protocol's rules only (warnings)",
    ),
];

/// Go's zero time, which the host sends as `start_time` on resume and
/// rewind (docs/host.md, "What write-session receives").
pub const ZERO_TIME: &str = "0001-01-01T00:00:00Z";

/// What the host restores with: `entire resume`, or `entire rewind`, whose
/// restore paths send an empty `repo_path`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restore {
    /// `entire resume`.
    Resume,
    /// `entire rewind`.
    Rewind,
    /// `entire rewind` of the newest hosts, whose restore loops set
    /// `repo_path` too ("The host of September 2026", "`repo_path` on
    /// restore": not established which release; both are replayed).
    RewindWithRepo,
}

impl Restore {
    /// The user command, for messages.
    pub fn command(self) -> &'static str {
        match self {
            Restore::Resume => "entire resume",
            Restore::Rewind | Restore::RewindWithRepo => "entire rewind",
        }
    }

    /// The form the `n`th session of a restore is written in: a rewind
    /// writes its first session as the newest hosts do (`repo_path` set)
    /// and the next as the older ones (empty), so both are replayed at no
    /// extra call.
    pub fn form(self, n: usize) -> Restore {
        match (self, n) {
            (Restore::Rewind, 0) => Restore::RewindWithRepo,
            _ => self,
        }
    }
}

/// Exactly what `write-session` receives from the host: the checkpoint's
/// session id, the agent's registered name, the worktree root (empty on
/// rewind), the file `resolve-session-file` returned, the stored transcript
/// as standard base64, Go's zero time, and `null` file lists.
pub fn write_session_input(
    restore: Restore,
    session_id: &str,
    agent_name: &str,
    repo: &str,
    session_file: &str,
    transcript: &[u8],
) -> Value {
    use base64::Engine;
    let repo_path = match restore {
        Restore::Resume | Restore::RewindWithRepo => repo,
        Restore::Rewind => "",
    };
    json!({
        "session_id": session_id,
        "agent_name": agent_name,
        "repo_path": repo_path,
        "session_ref": session_file,
        "native_data": base64::engine::general_purpose::STANDARD.encode(transcript),
        "start_time": ZERO_TIME,
        "modified_files": null,
        "new_files": null,
        "deleted_files": null,
    })
}

/// Where `entire resume` restores a session, against where the agent
/// reads it (docs/host.md, "Resume writes where the agent never reads";
/// "The calls the host makes over a session, in order": write-session
/// receives `session_ref` = the file `resolve-session-file` returned, and
/// the agent then resumes from the file it wrote).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restored {
    /// The very file the agent's Events named: the agent resumes it.
    WhereTheAgentReads,
    /// Another name in the directory the agent keeps it in. Where the
    /// plugin's own Events named the file (a recorded session, or the
    /// place the plugin names for a payload without a transcript path),
    /// the agent opens that file and resumes nothing: a failure. Where the
    /// file name was only ours, echoed, nothing says which name the agent
    /// opens: a note.
    SameDirectory,
    /// Another directory: the restored session is never read; `entire
    /// resume` reports success and the agent resumes nothing. A failure:
    /// "Resume writes where the agent never reads" is among the real bugs
    /// that reach users ("Plugins in the wild"), and the one thing `entire
    /// resume` is for, the agent resuming the session, does not happen,
    /// though the host's own command exits 0.
    Elsewhere,
}

impl Restored {
    /// Compares the file `resolve-session-file` gave (`restored`) with the
    /// `session_ref` of the session's own Events (`agent_reads`); relative
    /// paths are relative to the work tree, the plugin's working directory.
    pub fn of(agent_reads: &Path, restored: &Path, repo: &Path) -> Restored {
        let (reads, restored) = (repo.join(agent_reads), repo.join(restored));
        let same = |a: &Path, b: &Path| contains(a, b) && contains(b, a);
        if same(&reads, &restored) {
            return Restored::WhereTheAgentReads;
        }
        match (reads.parent(), restored.parent()) {
            (Some(a), Some(b)) if same(a, b) => Restored::SameDirectory,
            _ => Restored::Elsewhere,
        }
    }

    /// What it costs: nothing, a note, or a failure. `named` says that the
    /// plugin's own Events named the agent's file (docs/host.md, "Where the
    /// agent's transcripts are": any component that differs, the file name
    /// included, is a file the agent never opens).
    pub fn severity(self, named: bool) -> Option<Severity> {
        match self {
            Restored::WhereTheAgentReads => None,
            Restored::SameDirectory if !named => Some(Severity::Note),
            Restored::SameDirectory | Restored::Elsewhere => Some(Severity::Failure),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generic_order_plays_two_turns_and_ends_with_session_end() {
        let names: Vec<String> = [
            "session-end",
            "stop",
            "user-prompt-submit",
            "session-start",
            "custom",
        ]
        .map(String::from)
        .to_vec();
        let order: Vec<String> = generic_order(&names, &guessed_type)
            .into_iter()
            .map(|(_, h)| h)
            .collect();
        assert_eq!(
            order,
            [
                "session-start",
                "user-prompt-submit",
                "stop",
                "user-prompt-submit",
                "stop",
                "custom",
                "session-end"
            ]
        );
    }

    #[test]
    fn a_restore_elsewhere_fails_and_another_name_fails_where_the_events_named_it() {
        let repo = Path::new("/r");
        let of = |a: &str, b: &str| Restored::of(Path::new(a), Path::new(b), repo);
        assert_eq!(
            of("/d/s.jsonl", "/d/./s.jsonl"),
            Restored::WhereTheAgentReads
        );
        assert_eq!(of("/d/s.jsonl", "/d/s.json"), Restored::SameDirectory);
        assert_eq!(of("/d/s.jsonl", "/d/restored/s.jsonl"), Restored::Elsewhere);
        assert_eq!(of("/r/x/s", "x/s"), Restored::WhereTheAgentReads);
        assert_eq!(Restored::Elsewhere.severity(false), Some(Severity::Failure));
        assert_eq!(
            Restored::SameDirectory.severity(false),
            Some(Severity::Note)
        );
        assert_eq!(
            Restored::SameDirectory.severity(true),
            Some(Severity::Failure)
        );
    }

    #[test]
    fn rewind_sends_an_empty_repo_path_and_null_lists() {
        let v = write_session_input(Restore::Rewind, "s", "a", "/r", "/d/s", b"x");
        assert_eq!(v["repo_path"], "");
        assert_eq!(v["start_time"], ZERO_TIME);
        assert!(v["modified_files"].is_null());
        assert_eq!(v["native_data"], "eA==");
    }
}
