//! Where the agent keeps its transcript during the replay, and whether
//! `entire resume` restores each session there (host-behaviour.md, "Resume
//! writes where the agent never reads").
//!
//! The agent keeps its sessions in the plugin's session directory (the
//! guide's agents do: Claude Code's `<dir>/<session id>.jsonl`), so the
//! replay writes the transcript there, under the session's file name,
//! before the first hook: the payloads name it, and the plugin's Events name
//! what the agent reads. A directory the host's owner lookup fails
//! (`host::ownership`), outside the sandbox or relative keeps the scratch
//! file instead.

use super::*;
use crate::host::ownership;
use crate::host::session::Restored;

impl Play<'_, '_> {
    /// Asks `get-session-dir` before the first hook (the answer is the one
    /// the host's first hook with a transcript asks for; it is kept) and
    /// moves the transcript into that directory when it is the plugin's own.
    pub(super) fn where_the_agent_keeps_it(&mut self) {
        let Some(dir) = self.session_dir("before the session (where the agent keeps its sessions)")
        else {
            return;
        };
        let dir = PathBuf::from(dir);
        let (agent, repo, home) = (
            agent_name(self.run.plugin),
            self.sandbox.repo(),
            self.sandbox.home(),
        );
        let places = ownership::Places {
            agent: &agent,
            repo: &repo,
            home: &home,
        };
        let own = dir.is_absolute()
            && ownership::contains(self.sandbox.root(), &dir)
            && ownership::judge(&dir, &places)
                .iter()
                .all(|c| c.severity < Severity::Failure);
        if !own || std::fs::create_dir_all(&dir).is_err() {
            return;
        }
        self.transcript = dir.join(self.transcript_name());
        self.placed = true;
    }

    /// The transcript's file name: the recorded one (of the `paths` entry
    /// that becomes `{{transcript}}`), else the generic session's id.
    fn transcript_name(&self) -> String {
        let recorded = self.run.recording.and_then(|r| {
            r.paths
                .iter()
                .find(|(_, to)| to == "{{transcript}}")
                .and_then(|(from, _)| from.rsplit(['/', '\\']).next())
                .filter(|name| !name.is_empty() && *name != "." && *name != "..")
                .map(String::from)
        });
        recorded.unwrap_or_else(|| {
            let extension = self
                .transcript
                .extension()
                .map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
            format!("{GENERIC_ID}{extension}")
        })
    }

    /// Keeps the `session_ref` an Event names for its session.
    pub(super) fn remember_ref(&mut self, session_id: &str, session_ref: &str) {
        if !session_id.is_empty() && !session_ref.is_empty() {
            self.refs
                .insert(session_id.to_string(), session_ref.to_string());
        }
    }

    /// For a session whose Events named a `session_ref`: the file
    /// `resolve-session-file` gave should be that one, where the agent
    /// resumes from. Not judged when the transcript stayed in the scratch
    /// directory and the plugin only echoed it (where the agent reads is
    /// not known then).
    pub(super) fn restores_where_the_agent_reads(
        &mut self,
        id: &str,
        file: &str,
        command: Option<&str>,
    ) {
        let Some(reads) = self.refs.get(id).cloned() else {
            return;
        };
        if !self.placed && reads == self.path() {
            return;
        }
        let restored = Restored::of(Path::new(&reads), Path::new(file), &self.sandbox.repo());
        let label = format!("entire resume · session {id} · where the agent reads it");
        let Some(severity) = restored.severity() else {
            self.check_line(&label, Vec::new());
            return;
        };
        let command = command.map_or("the agent's resume command".to_string(), |c| {
            format!("the resume command `{c}`")
        });
        let message = match restored {
            Restored::SameDirectory => format!(
                "entire resume restores session {id} to {file} (resolve-session-file), in the \
                 directory where the agent keeps it but not the file its Events named, {reads}: \
                 an agent that resumes the session by id from {reads} finds nothing restored \
                 after {command} (one that resumes the latest session of the directory does)"
            ),
            _ => format!(
                "entire resume restores session {id} to {file} (resolve-session-file, then \
                 write-session), but the agent keeps and resumes it at {reads} (the session_ref of \
                 the plugin's own Events): entire resume reports success and {command} resumes \
                 nothing of what was restored"
            ),
        };
        let finding = Finding {
            severity,
            ..Finding::failure(message)
        };
        self.check_line(&label, vec![finding]);
    }
}
