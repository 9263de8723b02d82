//! The host-session replay (`replay: host_session`): an agent session hook
//! by hook, then `entire resume` and `entire rewind` of two sessions, each
//! call made as the host makes it (the order is [`crate::host::session`]'s),
//! handing from answer to answer only what the host would have: the turn's
//! offset from `TurnStart` into `TurnEnd`, the Event's `session_ref` into
//! `read-transcript`, the directory of `get-session-dir` into
//! `resolve-session-file`, the checkpoint's bytes into `write-session`.
//!
//! The session is the plugin's recorded one (`session:` in its own cases)
//! or, without it, a generic one in the guide's shape. A plugin that
//! refuses the generic payloads or transcript (another agent's format) gets
//! the session reported as unverified, never a failure; its resume and
//! rewind still run, on the generic transcript.
//!
//! Every step is one line of the case's timeline: the user action it
//! models, the call made, and what the host makes of the answer.
//!
//! This file holds the replay's state and how it calls the plugin;
//! `agent` plays the agent session's hooks, `analysis` the TurnEnd
//! analysis from the turn's offset, `restore` resume and rewind, `reads`
//! where the agent keeps its transcript and whether resume restores there.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::execute::step::{action_report, step_report};
use crate::execute::{CaseState, Run, conclude, defer_stdin};
use crate::host::answers;
use crate::judge::checks::{self, Finding};
use crate::outcome::evidence::Evidence;
use crate::outcome::results::{CaseOutcome, StepReport};
use crate::running::runner;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Severity};

mod agent;
mod analysis;
mod lived;
mod reads;
mod restore;

/// The generic session's id (the second session's adds `-other`).
const GENERIC_ID: &str = "sess-replay-1";
/// The prompt of the generic transcript's first turn (its first line), which
/// turn 2 must not see again.
const TURN1_PROMPT: &str = "Fix the login bug in src/auth.go";
/// A file the generic transcript's first turn edits and the second does not.
const TURN1_FILE: &str = "src/auth.go";
/// How many lines of the generic transcript each point of the session holds:
/// at the start, after turn 1, after turn 2.
const GENERIC_LINES: [usize; 3] = [1, 4, usize::MAX];

/// The TurnEnd offset of turn 1: the plugin's own answer at TurnStart.
const OFFSET_FROM_TURN_START: &str = "the offset get-transcript-position gave at TurnStart";

impl Run<'_> {
    /// Plays the host session; returns the outcome and a note.
    pub(super) fn host_session(
        &self,
        case: &Case,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> (CaseOutcome, Option<String>) {
        let mut play = Play::new(self, case, sandbox, state);
        play.agent_session();
        if !play.stopped && !play.brief() {
            play.where_the_agent_names_it();
        }
        if !play.stopped && play.brief() {
            play.resume_one_session();
        } else if !play.stopped {
            play.restore_two_sessions();
        }
        play.weigh_renewals();
        let probes = std::mem::take(&mut play.probes);
        play.state.reports.extend(probes);
        // Each finding weighs what its step's input allows.
        play.state.reports.iter_mut().for_each(StepReport::settle);
        let note = play.unverified.clone();
        play.state.unverified = note.clone();
        (conclude(state), note)
    }
}

/// One replay in progress.
struct Play<'p, 'r> {
    run: &'p Run<'r>,
    case: &'p Case,
    sandbox: &'p Sandbox,
    state: &'p mut CaseState,
    /// Where the transcript lives during the replay (`{{transcript}}`).
    transcript: PathBuf,
    /// The generic transcript's bytes (also the fallback checkpoint).
    generic: Arc<[u8]>,
    /// The session id of the first Event that had one.
    session_id: Option<String>,
    /// Every session id the plugin's own Events gave: the only ids the
    /// host ever passes back to it.
    own_ids: std::collections::BTreeSet<String>,
    /// The sessions of the restore not verified here: an id the plugin
    /// never produced, refused (not broken: the host never sends it).
    foreign: std::collections::BTreeSet<String>,
    /// What `get-session-dir` answered, once asked.
    session_dir: Option<String>,
    /// The transcript lives where the plugin's session directory says the
    /// agent keeps it (`where_the_agent_keeps_it`), not in the scratch
    /// directory.
    placed: bool,
    /// The transcript lies where the recording says the agent kept it
    /// (`transcript_at` relative to the repository or HOME): where the
    /// agent reads is known, so no Event's guess replaces it.
    kept: bool,
    /// The `session_ref` the Events of each session id named last: where
    /// the agent keeps, and resumes, that session.
    refs: BTreeMap<String, String>,
    /// The session ids whose `session_ref` the plugin named itself, for a
    /// payload without the transcript's path: the agent's own file, not
    /// ours echoed (`where_the_agent_names_it`).
    named: std::collections::BTreeSet<String>,
    /// The last hook whose Event named the transcript we sent, and its
    /// payload: sent again without the path.
    echoed: Option<(String, Vec<u8>)>,
    /// The current turn's offset, stored at TurnStart (at TurnEnd, the
    /// offset the analysis gets: see `analysis`).
    offset: i64,
    /// Where the offset the TurnEnd analysis got comes from, for messages.
    offset_from: &'static str,
    /// The current turn's prompt, from its TurnStart.
    prompt: String,
    /// The prompts of earlier turns (turn 2 must not see them again).
    earlier_prompts: Vec<String>,
    /// The current turn: TurnStart Events so far.
    turn: usize,
    /// The checkpoints: session id and the transcript's bytes.
    checkpoints: Vec<(String, Vec<u8>)>,
    /// Why the agent session could not be verified, if so.
    unverified: Option<String>,
    /// A failure or the breaker ended the replay.
    stopped: bool,
    /// Number of the next stdin file.
    stdin_files: usize,
    /// The findings of a session id renewed within the agent session (step
    /// and finding index), weighed once the resume command is known.
    renewals: Vec<(usize, usize)>,
    /// Whether a resume command named its session id (none: not asked).
    resume_names_id: Option<bool>,
    /// The steps of the harness's own questions (a hook's Event type),
    /// made before the session but not part of it: shown after the
    /// session's steps, which stay in the session's order.
    probes: Vec<StepReport>,
    /// What the calls made now rest on (each step's `rests_on`): the
    /// agent session's hooks and transcript on the author's recording, or
    /// on an assumption (the generic payloads and transcript); the restore
    /// on the plugin's own answers (the ids of its Events, the transcript
    /// its read-transcript gave); `get-session-dir` on the host's input.
    basis: Evidence,
    /// The session files the replay laid down before a restore wrote them
    /// (`restore::lived`): the restore, the session, and the bytes.
    lived: Vec<(crate::host::session::Restore, usize, Vec<u8>)>,
}

/// The answer of one call.
struct Answer {
    code: Option<i32>,
    stdout: Vec<u8>,
}

impl Answer {
    fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

impl<'p, 'r> Play<'p, 'r> {
    fn new(
        run: &'p Run<'r>,
        case: &'p Case,
        sandbox: &'p Sandbox,
        state: &'p mut CaseState,
    ) -> Self {
        let extension = run
            .recording
            .map_or(".jsonl".to_string(), |r| r.extension.clone());
        let transcript = sandbox
            .work()
            .join(format!("session-transcript{extension}"));
        let generic = run
            .fixtures
            .get("transcript.jsonl")
            .cloned()
            .unwrap_or_else(|| Arc::from(Vec::new()));
        Play {
            run,
            case,
            sandbox,
            state,
            transcript,
            generic,
            session_id: None,
            own_ids: Default::default(),
            foreign: Default::default(),
            session_dir: None,
            placed: false,
            kept: false,
            refs: BTreeMap::new(),
            named: Default::default(),
            echoed: None,
            offset: 0,
            offset_from: OFFSET_FROM_TURN_START,
            prompt: String::new(),
            earlier_prompts: Vec::new(),
            turn: 0,
            checkpoints: Vec::new(),
            unverified: None,
            stopped: false,
            stdin_files: 0,
            renewals: Vec::new(),
            resume_names_id: None,
            probes: Vec::new(),
            basis: match run.recording {
                Some(_) => Evidence::Samples,
                None => Evidence::Assumption,
            },
            lived: Vec::new(),
        }
    }

    /// Whether this is the short replay of a linked worktree or a
    /// submodule (`work_trees:`): the hooks of turn 1 with its checkpoint,
    /// then `entire resume` of that session. What `.git` being a file can
    /// break is the plugin's own use of the repository (its hooks, its
    /// session store, the restore), which these calls reach; the transcript
    /// analysis and the second session, which do not depend on the work
    /// tree, are played once, in the plain repository (the suite's budget
    /// of calls, ARCHITECTURE "Performance").
    fn brief(&self) -> bool {
        self.case.work_tree != crate::host::invocation::WorkTree::Plain
    }

    fn declared(&self, capability: &str) -> bool {
        // The short replay leaves out the analysis, the preparer and the
        // token calls (see `brief`).
        if self.brief()
            && matches!(
                capability,
                "transcript_analyzer"
                    | "transcript_preparer"
                    | "token_calculator"
                    | "subagent_aware_extractor"
            )
        {
            return false;
        }
        self.run
            .info
            .pointer(&format!("/capabilities/{capability}"))
            == Some(&Value::Bool(true))
    }

    fn recorded(&self) -> bool {
        self.run.recording.is_some()
    }

    fn path(&self) -> String {
        self.transcript.display().to_string()
    }

    // ----- calls and findings -------------------------------------------

    /// Makes one call as the host does; records it as a step of the
    /// timeline. `None` when the replay stopped (breaker, hard failure).
    fn call(&mut self, label: String, args: Vec<String>, stdin: Option<Vec<u8>>) -> Option<Answer> {
        if self.stopped {
            return None;
        }
        let timeout = self.run.options.timeout;
        let mut inv = self.run.invocation(self.sandbox, args, timeout);
        // The session runs in its world's clock (worlds/axes.yaml), else
        // where the clock has daylight saving, west of UTC
        // (`host::clock::REPLAY_ZONE`); a case's own `env:` may set another.
        let zone = self
            .sandbox
            .setting()
            .zone
            .unwrap_or(crate::host::clock::REPLAY_ZONE);
        let zone = crate::running::sandbox::tz(zone);
        if let Some((_, value)) = inv
            .env
            .iter_mut()
            .find(|(name, _)| name == crate::host::clock::TZ_VAR)
        {
            *value = zone.into();
        }
        self.run.set_env(&mut inv, &self.case.env, self.sandbox);
        if let Some(reason) = self.run.breaker.refuse(&inv.args) {
            self.state.cut = Some(reason);
            self.stopped = true;
            return None;
        }
        let stdin_file = stdin.map(|bytes| {
            self.stdin_files += 1;
            let file = self
                .sandbox
                .stdin_dir()
                .join(format!("{}.stdin", self.stdin_files));
            let bytes: runner::Bytes = Arc::new(bytes);
            defer_stdin(&mut self.state.stdin_files, &file, &bytes);
            inv.stdin = Some(bytes);
            file
        });
        let outcome = runner::run(&inv);
        self.run
            .breaker
            .record(&self.case.id, &inv.args, inv.timeout, &outcome);
        let mut report = step_report(label, &inv, &outcome, stdin_file.as_deref());
        report.rests_on = self.basis;
        report.findings = checks::universal(inv.timeout.as_secs_f64(), &outcome);
        let hard = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        // A refusal for want of a variable the agent sets: not verified
        // here; the host, with the variable, would have had an answer to go
        // on with, and the replay has none.
        let needs = crate::judge::environment::needed_variable(&inv, &outcome);
        if let Some(variable) = &needs {
            let note = crate::host::agent_env::not_verified(variable);
            let finding = Finding::note(note.clone())
                .kind(crate::outcome::Kind::AgentVariable)
                .with_subject(variable.as_str());
            // The first reason the session is unverified is its note.
            report.findings.push(match self.unverified {
                None => finding.noted(),
                Some(_) => finding,
            });
            self.unverified.get_or_insert(note);
        }
        self.state.reports.push(report);
        if hard || needs.is_some() {
            self.stopped = true;
            return None;
        }
        Some(Answer {
            code: outcome.exit_code(),
            stdout: outcome.stdout,
        })
    }

    /// Weighs the renewed session ids once the resume command is known
    /// (see [`weigh_renewals`]). The short replay of a linked worktree or a
    /// submodule asks no resume command: the plain repository's replay
    /// weighs the renewal in full, so here it is a warning (the turns become
    /// sessions).
    fn weigh_renewals(&mut self) {
        let names = self.resume_names_id.unwrap_or(!self.brief());
        weigh_renewals(&self.renewals, names, &mut self.state.reports);
    }

    /// Adds a finding to the last step of the timeline; a failure ends the
    /// replay only where the host could not go on either (`stop`).
    fn find(&mut self, severity: Severity, message: String) {
        self.add(Finding {
            severity,
            ..Finding::failure(message)
        });
    }

    /// [`Play::find`] for a finding that rests on the plugin's own answers
    /// whatever the session's input: a fact of its answers that holds in any
    /// format (a position in the file's bytes, an offset not honoured in a
    /// transcript it read).
    fn find_own(&mut self, severity: Severity, message: String) {
        self.add(
            Finding {
                severity,
                ..Finding::failure(message)
            }
            .rests_on(Evidence::OwnAnswers),
        );
    }

    /// Adds `finding` to the last step of the timeline.
    fn add(&mut self, finding: Finding) {
        match self.state.reports.last_mut() {
            Some(last) => last.findings.push(finding),
            None => self
                .state
                .reports
                .push(action_report("host session", vec![finding])),
        }
    }

    /// Whether this session id is of the plugin's own making: its Events
    /// gave it, or the author recorded the session. An id of the generic
    /// payload that no Event gave back (the plugin refused every payload,
    /// or has no hooks and so no Events) is ours: the host never sends it,
    /// so a refusal of it is "not verified here", unless the plugin refuses
    /// an id of its own too (`write`).
    fn own(&self, id: &str) -> bool {
        self.recorded() || self.own_ids.contains(id)
    }

    /// A refusal of a session id the plugin's `parse-hook` never produced:
    /// not verified here, never broken (the host only passes ids of the
    /// plugin's own Events), a note; that session's later checks are
    /// skipped.
    fn foreign_id(&mut self, id: &str, subcommand: &str) {
        let message = format!(
            "{subcommand} refused session id {id:?}, which this plugin's parse-hook never \
             produced; the host only passes the session ids of the plugin's own Events, so this \
             is not verified here"
        );
        let finding = Finding::note(message).kind(crate::outcome::Kind::NotVerified);
        match self.state.reports.last_mut() {
            Some(last) => last.findings.push(finding),
            None => self.check_line("host session", vec![finding]),
        }
        self.foreign.insert(id.to_string());
    }

    /// A timeline line with no call behind it (a check of what the host
    /// would find on disk).
    fn check_line(&mut self, label: &str, findings: Vec<Finding>) {
        let mut report = action_report(label, findings);
        report.rests_on = self.basis;
        self.state.reports.push(report);
    }

    /// The generic session cannot go on: the plugin does not read another
    /// agent's payloads or transcript. Reported once per replay, as the
    /// hooks capability's unverified finding (kind `unverified`, about
    /// `hooks`), which the run says once as a warning, with the YAML to add
    /// (`fold::unverified`), and notes elsewhere; the restore still runs.
    fn unverified(&mut self, why: String) {
        if self.unverified.is_some() {
            return;
        }
        let what = format!("the agent session is not verified: {why}");
        let message = format!(
            "{what}. The host only ever sends the agent's own \
             payloads; add them as a session: section of your own cases (`agent-conform record` \
             writes one; docs/session-format.md):\n  session:\n    hooks:\n      - hook: \
             <hook name>\n        payload: {{path: samples/<hook>.json}}\n        transcript: \
             {{path: samples/transcript-at-that-hook.jsonl}}"
        );
        self.add(
            Finding {
                severity: Severity::Warning,
                ..Finding::failure(message)
            }
            .kind(crate::outcome::Kind::Unverified)
            .with_subject("hooks")
            .with_gist(what),
        );
        self.unverified = Some(why);
    }

    /// A JSON answer as the host decodes it (the host layer's table), with
    /// what its decoding costs at `severity`; `None` when the host cannot use
    /// it.
    fn decoded(&mut self, schema: &str, answer: &Answer, severity: Severity) -> Option<Value> {
        let json = match crate::host::decoding::decode_host_json(&answer.stdout) {
            Ok(json) => json,
            Err(reason) => {
                self.find(severity, reason);
                return None;
            }
        };
        let Some(fields) = answers::fields(schema) else {
            return Some(json);
        };
        let judged = answers::judge(fields, &json);
        // What only degrades is said by the case that covers the field.
        let breaking = judged
            .consequences
            .iter()
            .filter(|c| c.severity == Severity::Failure);
        for c in breaking {
            self.find(
                c.severity.min(severity),
                format!("at {}: {}", c.pointer, c.message),
            );
        }
        (!judged.undecodable()).then_some(judged.seen)
    }
}

/// The weight of a renewed session id, at each finding `renewals` points to
/// (step and finding index): a failure only when the resume command names
/// the session id ([`crate::host::reach::renewed_session_id`], the host's
/// rule); unknown (the restore never got there) counts as naming it, as
/// the caller decides. A function of the findings alone, so that the rule's
/// application can be tested without a replay.
fn weigh_renewals(renewals: &[(usize, usize)], resume_names_id: bool, reports: &mut [StepReport]) {
    if renewals.is_empty() {
        return;
    }
    let (severity, why) = crate::host::reach::renewed_session_id(resume_names_id);
    for &(step, n) in renewals {
        if let Some(f) = reports.get_mut(step).and_then(|r| r.findings.get_mut(n)) {
            f.set_severity(severity);
            f.message = format!("{}: {why}", f.message);
        }
    }
}

/// The name the host registers the agent under: the `<name>` of the file
/// name `entire-agent-<name>`.
fn agent_name(plugin: &Path) -> String {
    let file = plugin
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    file.strip_prefix("entire-agent-")
        .unwrap_or(&file)
        .to_string()
}

/// The first `n` lines of `bytes`, newlines kept.
fn first_lines(bytes: &[u8], n: usize) -> Vec<u8> {
    let mut end = 0;
    for (count, line) in bytes.split_inclusive(|b| *b == b'\n').enumerate() {
        if count == n {
            break;
        }
        end += line.len();
    }
    bytes[..end].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renewed() -> Vec<StepReport> {
        let findings = vec![Finding::note("fine"), Finding::failure("id changed")];
        vec![StepReport::without_invocation("turn 2", "action", findings)]
    }

    #[test]
    fn a_renewed_id_fails_only_when_the_resume_command_names_it() {
        let mut named = renewed();
        weigh_renewals(&[(0, 1)], true, &mut named);
        assert_eq!(named[0].findings[1].severity, Severity::Failure);
        assert!(named[0].findings[1].message.starts_with("id changed: "));
        assert_eq!(named[0].findings[0].severity, Severity::Note);
        let mut latest = renewed();
        weigh_renewals(&[(0, 1)], false, &mut latest);
        assert_eq!(latest[0].findings[1].severity, Severity::Warning);
        assert_eq!(latest[0].findings[0].message, "fine");
    }

    #[test]
    fn no_renewal_and_a_stale_index_change_nothing() {
        let mut reports = renewed();
        weigh_renewals(&[], false, &mut reports);
        weigh_renewals(&[(3, 0), (0, 7)], false, &mut reports);
        assert_eq!(reports[0].findings[1].severity, Severity::Failure);
        assert_eq!(reports[0].findings[1].message, "id changed");
    }
}
