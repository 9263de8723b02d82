//! Where the agent keeps its transcript during the replay, and whether
//! `entire resume` restores each session there (docs/host.md, "Resume
//! writes where the agent never reads").
//!
//! The agent keeps its sessions in the plugin's session directory (the
//! guide's agents do: Claude Code's `<dir>/<session id>.jsonl`), so the
//! replay writes the transcript there, under the session's file name,
//! before the first hook: the payloads name it, and the plugin's Events name
//! what the agent reads. A directory the host's owner lookup fails
//! (`host::ownership`), outside the sandbox or relative keeps the scratch
//! file instead.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::execute::session::{GENERIC_ID, Play, agent_name};
use crate::host::ownership;
use crate::host::session::Restored;
use crate::judge::checks::Finding;
use crate::suite::case::Severity;

impl Play<'_, '_> {
    /// Asks `get-session-dir` before the first hook (the answer is the one
    /// the host's first hook with a transcript asks for; it is kept) and
    /// moves the transcript into that directory when it is the plugin's own.
    /// A recording that kept its world (`transcript_at`, `cwd`) is laid
    /// down as it was instead: the agent's folder, and its transcript where
    /// the agent kept it, relative to the sandbox's repository or HOME, so
    /// that the restore is judged against where the agent really reads.
    pub(super) fn where_the_agent_keeps_it(&mut self) {
        let recording = self.run.recording;
        if let Some(cwd) = recording.and_then(|r| r.cwd.as_ref())
            && let Some(dir) = self.in_sandbox(cwd.base, &cwd.rest)
        {
            // Best effort: a payload naming a folder that cannot be made
            // still reaches the plugin.
            let _ = std::fs::create_dir_all(dir);
        }
        let dir = self.session_dir("before the session (where the agent keeps its sessions)");
        let kept = recording
            .and_then(|r| r.transcript_at.as_ref())
            .filter(|at| at.base != "{{session_dir}}" && !at.rest.is_empty());
        if let Some(at) = kept {
            if let Some(file) = self.in_sandbox(at.base, &at.rest)
                && file
                    .parent()
                    .is_some_and(|p| std::fs::create_dir_all(p).is_ok())
            {
                self.transcript = file;
                self.placed = true;
                self.kept = true;
            }
            return;
        }
        let Some(dir) = dir else {
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
        let file = match recording.and_then(|r| r.transcript_at.as_ref()) {
            Some(at) if !at.rest.is_empty() => dir.join(&at.rest),
            _ => dir.join(self.transcript_name()),
        };
        if !own
            || file
                .parent()
                .is_none_or(|p| std::fs::create_dir_all(p).is_err())
        {
            return;
        }
        self.transcript = file;
        self.placed = true;
    }

    /// A recorded place in this sandbox: `rest` below its repository or
    /// HOME.
    fn in_sandbox(&self, base: &str, rest: &str) -> Option<PathBuf> {
        let folder = match base {
            "{{repo}}" => self.sandbox.repo(),
            "{{home}}" => self.sandbox.home(),
            _ => return None,
        };
        Some(
            rest.split('/')
                .filter(|p| !p.is_empty())
                .fold(folder, |at, p| at.join(p)),
        )
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

    /// Sends the last hook whose Event named our transcript again, without
    /// the transcript's path (every string of the payload that is it), as
    /// an agent would that names none: the Event then names where the
    /// plugin says its agent keeps the session (docs/host.md, "Where the
    /// agent's transcripts are"). That place is remembered as the agent's
    /// own file for the restore. No Event, or no `session_ref`, says
    /// nothing: the agent always sends its path. Not asked when the
    /// recording kept where the agent reads (`Play::kept`).
    pub(super) fn where_the_agent_names_it(&mut self) {
        if self.kept {
            return;
        }
        let Some((hook, payload)) = self.echoed.take() else {
            return;
        };
        let Ok(mut value) = serde_json::from_slice::<Value>(&payload) else {
            return;
        };
        if !without_string(&mut value, &self.path()) {
            return;
        }
        let label = format!(
            "after the session · hook {hook} without the transcript's path · parse-hook (where \
             the agent keeps its transcripts)"
        );
        let args = vec!["parse-hook".to_string(), "--hook".to_string(), hook];
        let Some(answer) = self.call(label, args, Some(value.to_string().into_bytes())) else {
            return;
        };
        let event = crate::host::answers::go::event(&answer.stdout)
            .ok()
            .filter(|_| answer.ok());
        let text = |key: &str| {
            event
                .as_ref()
                .and_then(|e| e.get(key))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (id, named) = (text("session_id"), text("session_ref"));
        // The host never sends this payload: what it says of the plugin
        // (a crash on a missing field) is a note at most; a deadline or a
        // flood stays what it is.
        if let Some(last) = self.state.reports.last_mut() {
            for finding in &mut last.findings {
                if finding.severity < Severity::Failure {
                    finding.cap(Severity::Note);
                }
            }
        }
        if id.is_empty() || named.is_empty() {
            return;
        }
        self.refs.insert(id.clone(), named);
        self.named.insert(id);
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
        let named = self.named.contains(id) || (self.recorded() && self.placed);
        let Some(severity) = restored.severity(named) else {
            self.check_line(&label, Vec::new());
            return;
        };
        let command = command.map_or("the agent's resume command".to_string(), |c| {
            format!("the resume command `{c}`")
        });
        let owner = self.no_owner(&reads);
        let message = match restored {
            Restored::SameDirectory if named => format!(
                "entire resume restores session {id} to {file} (resolve-session-file), but the \
                 plugin's own Events name the agent's transcript {reads}: the agent opens that \
                 file and {command} resumes nothing of what was restored"
            ),
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
                 nothing of what was restored{owner}"
            ),
        };
        let finding = Finding {
            severity,
            ..Finding::failure(message)
        };
        self.check_line(&label, vec![finding]);
    }
}

impl Play<'_, '_> {
    /// What the host's owner lookup makes of the agent's transcript at
    /// `reads`: outside the plugin's session directory, no agent owns it
    /// (docs/host.md, "The session directory claims what is not the
    /// plugin's"), said in a clause; nothing otherwise.
    fn no_owner(&self, reads: &str) -> String {
        let Some(dir) = &self.session_dir else {
            return String::new();
        };
        let reads = self.sandbox.repo().join(reads);
        if ownership::contains(Path::new(dir), &reads) {
            return String::new();
        }
        format!(
            "; and outside the session directory {dir}, the host's owner lookup finds no \
             owner for the transcripts these Events name"
        )
    }
}

/// Removes from `value` every object entry whose value is the string
/// `text`, at any depth; whether one was removed.
fn without_string(value: &mut Value, text: &str) -> bool {
    match value {
        Value::Object(map) => {
            let before = map.len();
            map.retain(|_, v| v.as_str() != Some(text));
            let mut removed = map.len() != before;
            for v in map.values_mut() {
                removed |= without_string(v, text);
            }
            removed
        }
        Value::Array(items) => items
            .iter_mut()
            .fold(false, |removed, v| without_string(v, text) | removed),
        _ => false,
    }
}

/// The files of a sandbox (outside `.git`), with their size and time of
/// change: what a later look compares to find what a call wrote.
pub(super) type Files = BTreeMap<PathBuf, (u64, Option<std::time::SystemTime>)>;

fn walk(dir: &Path, out: &mut Files, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() && depth > 0 && entry.file_name() != ".git" {
            walk(&path, out, depth - 1);
        } else if meta.is_file() {
            out.insert(path, (meta.len(), meta.modified().ok()));
        }
    }
}

impl Play<'_, '_> {
    /// The sandbox's files now (see [`Files`]).
    pub(super) fn restored_files(&self) -> Files {
        let mut files = Files::new();
        walk(self.sandbox.root(), &mut files, 12);
        files
    }

    /// A session whose file does not hold it but which read-session gives
    /// back: when write-session put its transcript in a file of another
    /// directory than the one where the agent keeps its sessions (the
    /// session_ref of the plugin's own Events), the agent never finds it
    /// (docs/host.md, "Resume writes where the agent never reads": a
    /// real bug that reaches users; `entire resume` reports success and
    /// the agent's resume command resumes nothing: a failure). A store
    /// that holds no file with the transcript's bytes (a database) says
    /// nothing here.
    pub(super) fn written_elsewhere(&mut self, id: &str, file: &str, bytes: &[u8], before: &Files) {
        let Some(reads) = self
            .refs
            .get(id)
            .or_else(|| self.refs.values().next())
            .cloned()
        else {
            return;
        };
        if !self.placed && reads == self.path() {
            return;
        }
        let repo = self.sandbox.repo();
        let keeps = repo.join(&reads);
        let Some(keeps) = keeps.parent() else { return };
        let now = self.restored_files();
        let written = now.iter().find(|(path, meta)| {
            before.get(*path) != Some(*meta)
                && meta.0 == bytes.len() as u64
                && std::fs::read(path).is_ok_and(|b| b == bytes)
        });
        let Some((path, _)) = written else { return };
        let same_dir = path
            .parent()
            .is_some_and(|p| ownership::contains(p, keeps) && ownership::contains(keeps, p));
        if same_dir || Path::new(file) == path.as_path() {
            return;
        }
        let message = format!(
            "entire resume restores session {id} to {} (write-session wrote the transcript there, \
             not to {file}, the file resolve-session-file gave), outside {}, where the agent \
             keeps and resumes its sessions (the session_ref of the plugin's own Events): entire \
             resume reports success and the agent's resume command finds nothing restored",
            path.display(),
            keeps.display()
        );
        let label = format!("entire resume · session {id} · where write-session wrote it");
        self.check_line(&label, vec![Finding::failure(message)]);
    }
}
