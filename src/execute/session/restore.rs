//! `entire resume` and `entire rewind` of two sessions, with exactly what
//! the host sends to `write-session`.

use std::path::Path;

use serde_json::Value;

use crate::execute::session::{GENERIC_ID, GENERIC_LINES, Play, agent_name, first_lines};
use crate::host::session::{self as host, Restore};
use crate::judge::checks::Finding;
use crate::suite::case::Severity;

impl Play<'_, '_> {
    /// `entire resume`, then `entire rewind`, of two sessions: the
    /// session's last checkpoint and a second one.
    pub(super) fn restore_two_sessions(&mut self) {
        let sessions = self.two_sessions();
        self.restoring();
        let Some(dir) = self.session_dir("entire resume") else {
            return;
        };
        let mut files = Vec::new();
        for (id, _) in &sessions {
            match self.resolve(&dir, id) {
                Some(file) => files.push(file),
                None => return,
            }
        }
        let verified = |play: &Self, n: usize| !play.foreign.contains(&sessions[n].0);
        if files[0] == files[1] && verified(self, 0) && verified(self, 1) {
            let message = format!(
                "entire resume restores the other session: session ids {:?} and {:?} both resolve \
                 to {}; write-session runs for each in turn on that file and the last one wins, \
                 so the user's earlier session is silently replaced",
                sessions[0].0, sessions[1].0, files[0]
            );
            self.add(
                Finding {
                    severity: Severity::Failure,
                    ..Finding::failure(message)
                }
                .kind(crate::outcome::Kind::SharedSessionFile),
            );
        }
        let mut held = [false, false];
        let mut reported = [false, false];
        if verified(self, 0) && verified(self, 1) {
            self.older_copy(&sessions, &files);
        }
        let before = self.restored_files();
        for restore in [Restore::Resume, Restore::Rewind] {
            if restore == Restore::Rewind && verified(self, 0) && verified(self, 1) {
                self.later_turns(&sessions, &files, &held);
            }
            for (n, (id, bytes)) in sessions.iter().enumerate() {
                if verified(self, n) && !self.write(restore.form(n), id, &files[n], bytes) {
                    return;
                }
            }
            let mut now = [false, false];
            for (n, now) in now.iter_mut().enumerate() {
                *now = verified(self, n) && self.holds(restore, &sessions, &files, n);
            }
            let lived = self.judge_lived(restore, &sessions, &files, now);
            for n in 0..2 {
                held[n] |= now[n];
                reported[n] |= lived[n];
            }
            // `entire resume` ends by showing each session's resume command,
            // before any rewind: the timeline keeps the host's order.
            if restore == Restore::Resume {
                self.resume_commands(&sessions, &files, &verified);
            }
        }
        for (n, (id, bytes)) in sessions.iter().enumerate() {
            // read-session is the protocol's rule (the host never calls it):
            // asked where its answer tells the diagnosis (the file does not
            // hold the session: is it in the plugin's store?), and under
            // --pedantic, which weighs the rule.
            if !verified(self, n) || reported[n] || (held[n] && !self.run.options.pedantic) {
                continue;
            }
            let back = self.read_session(id, &files[n], bytes);
            if !verified(self, n) {
                continue;
            }
            if !held[n] && back && !self.stopped {
                self.written_elsewhere(id, &files[n], bytes, &before);
            }
            if !held[n] && !back && !self.stopped {
                self.not_resumable(id, &files[n]);
            }
        }
    }

    /// `format-resume-command` of each restored session, and whether the
    /// command resumes from where the restore wrote.
    fn resume_commands(
        &mut self,
        sessions: &[(String, Vec<u8>); 2],
        files: &[String],
        verified: &dyn Fn(&Self, usize) -> bool,
    ) {
        for (n, (id, _)) in sessions.iter().enumerate() {
            if !verified(self, n) {
                continue;
            }
            let command = self.resume_command(id);
            self.restores_where_the_agent_reads(id, &files[n], command.as_deref());
        }
    }

    /// The failure of a session the agent cannot resume: its file does not
    /// hold it, and read-session does not give it back either.
    fn not_resumable(&mut self, id: &str, file: &str) {
        let message = format!(
            "entire resume: the agent resumes from {file}, which does not hold the session's \
             transcript after write-session, and read-session does not give it back \
             either: the session cannot be resumed"
        );
        self.check_line(
            &format!("entire resume · session {id} · resumable"),
            vec![Finding::failure(message)],
        );
    }

    /// `entire resume` of the agent session's last checkpoint alone, in a
    /// linked worktree or a submodule (the short replay, `Play::brief`):
    /// the session directory, `resolve-session-file` and `write-session`,
    /// and that the file the agent resumes from holds the session.
    pub(super) fn resume_one_session(&mut self) {
        // One session: no second id is asked for (the second session is
        // played in the plain repository); `holds` compares with itself.
        let last = self.last_session();
        let sessions = [last.clone(), last];
        self.restoring();
        let Some(dir) = self.session_dir("entire resume") else {
            return;
        };
        let Some(file) = self.resolve(&dir, &sessions[0].0) else {
            return;
        };
        let (id, bytes) = &sessions[0];
        let files = [file.clone(), file];
        // An id of ours that the plugin refused is not verified here, as in
        // the plain replay: nothing of its restore is judged.
        if self.foreign.contains(id) || !self.write(Restore::Resume, id, &files[0], bytes) {
            return;
        }
        if self.foreign.contains(id) {
            return;
        }
        if !self.holds(Restore::Resume, &sessions, &files, 0)
            && !self.read_session(id, &files[0], bytes)
            && !self.stopped
        {
            self.not_resumable(id, &files[0]);
        }
    }

    /// From here the calls rest on the plugin's own answers (the ids of its
    /// Events, the checkpoint its read-transcript gave), or on the author's
    /// recording: what the host sends on restore is its own marshalling of
    /// those. An id that is ours, refused, is "not verified here" (`own`).
    fn restoring(&mut self) {
        if !self.recorded() {
            self.basis = crate::outcome::evidence::Evidence::OwnAnswers;
        }
    }

    /// The two sessions restored: the agent session's last checkpoint and
    /// an earlier one under a second id (the generic transcript where the
    /// session made none).
    fn two_sessions(&mut self) -> [(String, Vec<u8>); 2] {
        let first = self.last_session();
        let other = self
            .checkpoints
            .iter()
            .map(|(_, b)| b.clone())
            .find(|b| *b != first.1)
            .or_else(|| {
                let half = first_lines(&first.1, GENERIC_LINES[1]);
                (half != first.1).then_some(half)
            })
            .unwrap_or_else(|| first_lines(&self.generic, GENERIC_LINES[1]));
        let id = self
            .second_session_id(&first.0)
            .unwrap_or_else(|| format!("{}-other", first.0));
        [first, (id, other)]
    }

    /// The agent session's last checkpoint (the generic transcript where the
    /// session made none).
    fn last_session(&self) -> (String, Vec<u8>) {
        self.checkpoints
            .last()
            .cloned()
            .unwrap_or_else(|| (GENERIC_ID.to_string(), self.generic.to_vec()))
    }

    /// `resolve-session-file` for one session id: the file, inside the
    /// directory; a clean refusal is "not verified here" and the restore goes
    /// on with a file inside the directory, as the host would have one.
    fn resolve(&mut self, dir: &str, id: &str) -> Option<String> {
        let args = vec![
            "resolve-session-file".into(),
            "--session-dir".into(),
            dir.into(),
            "--session-id".into(),
            id.into(),
        ];
        let label = format!("entire resume · session {id} · resolve-session-file");
        let answer = self.call(label, args, None)?;
        if !answer.ok() && !self.own(id) {
            self.foreign_id(id, "resolve-session-file");
            return Some(format!("{dir}/{id}.agent-conform"));
        }
        if !answer.ok() {
            let message = "resolve-session-file refused in the sandbox, where the agent never ran \
                           (its own store may be missing): not verified here; the restore goes on \
                           with a file inside the session directory";
            let finding = Finding::note(message).kind(crate::outcome::Kind::NotVerified);
            self.add(finding);
            return Some(format!("{dir}/{id}.agent-conform"));
        }
        let json = self.decoded("resolve-session-file", &answer, Severity::Failure)?;
        let file = json
            .get("session_file")
            .and_then(Value::as_str)?
            .to_string();
        let inside = crate::suite::case::normalize(&file)
            .starts_with(&format!("{}/", crate::suite::case::normalize(dir)));
        if !inside {
            let message = format!(
                "entire resume fails: the session file {file} is outside the session directory \
                 {dir}, which the host refuses"
            );
            self.find(Severity::Failure, message);
            self.stopped = true;
            return None;
        }
        Some(file)
    }

    /// The newest hosts ask `get-session-dir` before every filesystem-shaped
    /// `write-session`, and a failure there fails that restore even when
    /// the reference is fine (docs/host.md, "The newest host source",
    /// "Resume and rewind (newest variants)"); false when it fails on a
    /// judged release that asks.
    fn session_dir_before_write(&mut self, restore: Restore, id: &str, file: &str) -> bool {
        let scope = self
            .run
            .options
            .hosts
            .with_fact(crate::host::releases::Fact::SessionDirBeforeWrite);
        // The short replay asked get-session-dir in this work tree already
        // (before the session, and at resume): asking again before the
        // write is the plain replay's question (it does not depend on the
        // work tree).
        if !scope.any() || !Path::new(file).is_absolute() || self.brief() {
            return true;
        }
        let repo = self.sandbox.repo().display().to_string();
        let args = vec!["get-session-dir".into(), "--repo-path".into(), repo];
        let label = format!("{} · session {id} · get-session-dir", restore.command());
        let Some(answer) = self.call(label, args, None) else {
            return false;
        };
        let dir = crate::host::decoding::decode_host_json(&answer.stdout)
            .ok()
            .filter(|_| answer.ok())
            .and_then(|j| {
                j.get("session_dir")
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .unwrap_or_default();
        if !dir.is_empty() {
            return true;
        }
        let message = format!(
            "{}: {} fails for session {id}: get-session-dir, which the host asks before every \
             write-session to a file, failed or answered no directory the second time it was \
             asked (it answered at the session's start)",
            scope.prefix(),
            restore.command()
        );
        self.find(Severity::Failure, message);
        false
    }

    /// `write-session` with exactly what the host sends; false when the
    /// host's command fails there.
    fn write(&mut self, restore: Restore, id: &str, file: &str, bytes: &[u8]) -> bool {
        if !self.session_dir_before_write(restore, id, file) {
            return false;
        }
        let repo = self.sandbox.repo().display().to_string();
        let name = agent_name(self.run.plugin);
        let input = host::write_session_input(restore, id, &name, &repo, file, bytes);
        let label = format!("{} · session {id} · write-session", restore.command());
        let Some(answer) = self.call(
            label,
            vec!["write-session".into()],
            Some(input.to_string().into_bytes()),
        ) else {
            return false;
        };
        if answer.ok() {
            return true;
        }
        if !self.own(id) {
            return self.write_foreign(&input, id);
        }
        let message = format!(
            "{} fails: write-session refused what the host sends (start_time {:?}, null file \
             lists{}, the checkpoint's transcript as native_data)",
            restore.command(),
            host::ZERO_TIME,
            if restore == Restore::Rewind {
                ", an empty repo_path"
            } else {
                ""
            }
        );
        self.find(Severity::Failure, message);
        false
    }

    /// A `write-session` refused for an id that is ours (no Event of the
    /// plugin gave it): tried again with an id of the plugin's own making
    /// (`execute::own_id`), as the core case does. A plugin that refuses its
    /// own id too refuses every id: the restore fails (false), resting on
    /// its own answers; else the session is "not verified here" and the
    /// replay goes on without it (true).
    fn write_foreign(&mut self, input: &Value, id: &str) -> bool {
        let label = self
            .state
            .reports
            .last()
            .map_or_else(|| "write-session".to_string(), |r| r.name.clone());
        let mut inv = self.run.invocation(
            self.sandbox,
            vec!["write-session".into()],
            self.run.options.timeout,
        );
        self.run.set_env(&mut inv, &self.case.env, self.sandbox);
        inv.stdin = Some(std::sync::Arc::new(input.to_string().into_bytes()));
        let retried = self.run.write_with_own_id(&label, &inv, self.sandbox);
        if let crate::execute::own_id::Retried::Refused(calls, finding) = retried {
            self.retry_steps(calls);
            self.add(finding);
            return false;
        }
        let note = retried.note(id, self.declared("hooks"));
        self.retry_steps(retried.into_calls());
        self.add(Finding::note(note).kind(crate::outcome::Kind::NotVerified));
        self.foreign.insert(id.to_string());
        true
    }

    /// The calls of a retry, as steps of the timeline.
    fn retry_steps(&mut self, calls: Vec<crate::execute::own_id::Call>) {
        for (name, inv, outcome) in calls {
            let mut report = crate::execute::step::step_report(name, &inv, &outcome, None);
            report.rests_on = self.basis;
            self.state.reports.push(report);
        }
    }

    /// Whether session `n`'s file holds its transcript after the writes of
    /// `restore`; a failure when it holds the other session's instead.
    fn holds(
        &mut self,
        restore: Restore,
        sessions: &[(String, Vec<u8>); 2],
        files: &[String],
        n: usize,
    ) -> bool {
        // A relative session file is relative to the plugin's working
        // directory, the repository.
        let on_disk = std::fs::read(self.sandbox.repo().join(&files[n])).ok();
        let (id, mine) = (&sessions[n].0, &sessions[n].1);
        let theirs = &sessions[1 - n].1;
        let label = format!(
            "{} · session {id} · the file the agent resumes from",
            restore.command()
        );
        if on_disk.as_ref() == Some(mine) {
            self.check_line(&label, Vec::new());
            return true;
        }
        if on_disk.as_ref() == Some(theirs) && !self.laid(n) {
            let message = format!(
                "{} restores the other session: {} holds session {}'s transcript, so the agent \
                 resumes the wrong conversation",
                restore.command(),
                files[n],
                sessions[1 - n].0
            );
            self.check_line(&label, vec![Finding::failure(message)]);
        }
        false
    }

    /// `format-resume-command`: only shown to the user; the command, when
    /// there is one.
    fn resume_command(&mut self, id: &str) -> Option<String> {
        let args = vec![
            "format-resume-command".into(),
            "--session-id".into(),
            id.into(),
        ];
        let label = format!("entire resume · session {id} · format-resume-command");
        let answer = self.call(label, args, None)?;
        if !answer.ok() && !self.own(id) {
            self.foreign_id(id, "format-resume-command");
            return None;
        }
        if !answer.ok() {
            let message = "format-resume-command failed: entire resume shows the user no command";
            self.find(Severity::Warning, message.to_string());
            return None;
        }
        let json = self.decoded("format-resume-command", &answer, Severity::Warning);
        let command = json
            .as_ref()
            .and_then(|j| j.get("command"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let names = command.contains(id);
        self.resume_names_id = Some(self.resume_names_id.unwrap_or(false) || names);
        Some(command.to_string()).filter(|c| !c.is_empty())
    }

    /// `read-session` of one session (the protocol's rule, a warning: the
    /// host never calls it); true when it gives that session's bytes back.
    fn read_session(&mut self, id: &str, file: &str, bytes: &[u8]) -> bool {
        let input = serde_json::json!({"hook_type": "stop", "session_id": id, "session_ref": file});
        let label = format!("read-session · session {id} (the protocol's rule)");
        let Some(answer) = self.call(
            label,
            vec!["read-session".into()],
            Some(input.to_string().into_bytes()),
        ) else {
            return false;
        };
        if !answer.ok() && !self.own(id) {
            self.foreign_id(id, "read-session");
            return false;
        }
        if !answer.ok() {
            let message = "read-session refused a session write-session wrote (the protocol's rule; the host never calls it)";
            self.find(Severity::Warning, message.to_string());
            return false;
        }
        let Some(json) = self.decoded("read-session", &answer, Severity::Warning) else {
            return false;
        };
        let native = json
            .get("native_data")
            .and_then(Value::as_str)
            .unwrap_or("");
        let back = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, native).ok();
        if back.as_deref() == Some(bytes) {
            return true;
        }
        let message = format!(
            "read-session of session {id} does not give that session's transcript back ({} bytes \
             written, {} read; the protocol's rule: the host never calls read-session)",
            bytes.len(),
            back.map_or(0, |b| b.len())
        );
        self.find(Severity::Warning, message);
        false
    }
}
