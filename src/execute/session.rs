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

use super::*;
use crate::host::answers;
use crate::host::session::{self as host, EventType, Restore};

/// The generic session's id and the second session's suffix.
const GENERIC_ID: &str = "sess-replay-1";
/// The prompt of the generic transcript's first turn (its first line), which
/// turn 2 must not see again.
const TURN1_PROMPT: &str = "Fix the login bug in src/auth.go";
/// A file the generic transcript's first turn edits and the second does not.
const TURN1_FILE: &str = "src/auth.go";
/// How many lines of the generic transcript each point of the session holds:
/// at the start, after turn 1, after turn 2.
const GENERIC_LINES: [usize; 3] = [1, 4, usize::MAX];

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
        if !play.stopped {
            play.restore_two_sessions();
        }
        let note = play.unverified.clone();
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
    /// What `get-session-dir` answered, once asked.
    session_dir: Option<String>,
    /// The current turn's offset, stored at TurnStart.
    offset: i64,
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
            session_dir: None,
            offset: 0,
            prompt: String::new(),
            earlier_prompts: Vec::new(),
            turn: 0,
            checkpoints: Vec::new(),
            unverified: None,
            stopped: false,
            stdin_files: 0,
        }
    }

    fn declared(&self, capability: &str) -> bool {
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
        report.findings = checks::universal(inv.timeout.as_secs_f64(), &outcome);
        let hard = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        self.state.reports.push(report);
        if hard {
            self.stopped = true;
            return None;
        }
        Some(Answer {
            code: outcome.exit_code(),
            stdout: outcome.stdout,
        })
    }

    /// Adds a finding to the last step of the timeline; a failure ends the
    /// replay only where the host could not go on either (`stop`).
    fn find(&mut self, severity: Severity, message: String) {
        let finding = Finding {
            severity,
            ..Finding::failure(message)
        };
        match self.state.reports.last_mut() {
            Some(last) => last.findings.push(finding),
            None => self
                .state
                .reports
                .push(action_report("host session", vec![finding])),
        }
    }

    /// A timeline line with no call behind it (a check of what the host
    /// would find on disk).
    fn check_line(&mut self, label: &str, findings: Vec<Finding>) {
        self.state.reports.push(action_report(label, findings));
    }

    /// The generic session cannot go on: the plugin does not read another
    /// agent's payloads or transcript. Reported once, as a warning with the
    /// YAML to add; the restore still runs.
    fn unverified(&mut self, why: String) {
        let message = format!(
            "the agent session is not verified: {why}. The host only ever sends the agent's own \
             payloads; add them as a session: section of your own cases (`agent-conform record` \
             writes one; docs/session-format.md):\n  session:\n    hooks:\n      - hook: \
             <hook name>\n        payload: {{path: samples/<hook>.json}}\n        transcript: \
             {{path: samples/transcript-at-that-hook.jsonl}}"
        );
        self.find(Severity::Warning, message);
        self.unverified = Some(why);
    }

    /// A JSON answer as the host decodes it (the host layer's table), with
    /// what its decoding costs at `severity`; `None` when the host cannot use
    /// it.
    fn decoded(&mut self, schema: &str, answer: &Answer, severity: Severity) -> Option<Value> {
        let json = match crate::schema::decode_host_json(&answer.stdout) {
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

    // ----- the agent session --------------------------------------------

    /// Plays the agent session: the recorded hooks, or the generic ones.
    fn agent_session(&mut self) {
        if !self.declared("hooks") {
            return;
        }
        match self.run.recording {
            Some(recording) => self.recorded_session(recording),
            None => self.generic_session(),
        }
    }

    fn recorded_session(&mut self, recording: &crate::case::Recording) {
        for (n, hook) in recording.hooks.iter().enumerate() {
            if let Some(snapshot) = &hook.transcript
                && let Err(err) = std::fs::write(&self.transcript, snapshot)
            {
                let message = format!("cannot write the transcript snapshot: {err}");
                self.check_line("replay setup", vec![Finding::failure(message)]);
                self.stopped = true;
            }
            if self.stopped {
                return;
            }
            let values = |p: &str| self.placeholder(p);
            let payload = recording.localize(&hook.payload, &values);
            let expected = hook
                .event
                .as_ref()
                .map(|e| recording.localize_value(e, &values));
            let label = format!("hook {} of {}: {}", n + 1, recording.hooks.len(), hook.hook);
            self.hook(&label, &hook.hook, payload, expected.as_ref());
        }
    }

    /// A placeholder's value in this sandbox.
    fn placeholder(&self, name: &str) -> String {
        match name {
            "{{transcript}}" => self.path(),
            "{{repo}}" => self.sandbox.repo().display().to_string(),
            "{{home}}" => self.sandbox.home().display().to_string(),
            _ => self.sandbox.work().display().to_string(),
        }
    }

    fn generic_session(&mut self) {
        let names: Vec<String> = self
            .run
            .info
            .pointer("/hook_names")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        let learnt = self.learn_types(&names);
        let type_of = |hook: &str| host::guessed_type(hook).or_else(|| learnt.get(hook).copied());
        let (mut written, mut stage) = (None, 0);
        for (turn, hook) in host::generic_order(&names, &type_of) {
            // The transcript grows as an agent's does: the first prompt's
            // line at the start, turn 1's lines by its TurnEnd, the rest by
            // turn 2's.
            let ends_turn = type_of(&hook) == Some(EventType::TurnEnd);
            stage = stage.max(if ends_turn { turn } else { turn - 1 }).min(2);
            let lines = GENERIC_LINES[stage];
            if written != Some(lines) {
                let bytes = first_lines(&self.generic, lines);
                if let Err(err) = std::fs::write(&self.transcript, bytes) {
                    let message = format!("cannot write the transcript: {err}");
                    self.check_line("replay setup", vec![Finding::failure(message)]);
                    return;
                }
                written = Some(lines);
            }
            let prompt = (turn == 1).then_some("Fix the login bug");
            let repo = self.sandbox.repo().display().to_string();
            let payload = host::generic_payload(&hook, GENERIC_ID, &self.path(), &repo, prompt);
            let label = format!("turn {turn} · hook {hook}");
            self.hook(&label, &hook, payload.to_string().into_bytes(), None);
            if self.stopped || self.unverified.is_some() {
                return;
            }
        }
    }

    /// The Event type of each hook name the guide does not name, asked
    /// once with the generic payload before the session (the host knows
    /// its agent's hooks; the replay has to ask).
    fn learn_types(&mut self, names: &[String]) -> BTreeMap<String, EventType> {
        let mut learnt = BTreeMap::new();
        let repo = self.sandbox.repo().display().to_string();
        for hook in names.iter().filter(|h| host::guessed_type(h).is_none()) {
            let payload = host::generic_payload(hook, GENERIC_ID, &self.path(), &repo, None);
            let label = format!("before the session · hook {hook} · parse-hook (its Event type)");
            let args = vec!["parse-hook".into(), "--hook".into(), hook.clone()];
            let Some(answer) = self.call(label, args, Some(payload.to_string().into_bytes()))
            else {
                break;
            };
            let kind = crate::schema::decode_host_json(&answer.stdout)
                .ok()
                .filter(|_| answer.ok())
                .and_then(|e| e.get("type").and_then(Value::as_i64))
                .and_then(EventType::from_number);
            if let Some(kind) = kind {
                learnt.insert(hook.clone(), kind);
            }
        }
        learnt
    }

    /// One hook: `parse-hook`, then the calls the host makes for its Event.
    fn hook(&mut self, label: &str, hook: &str, payload: Vec<u8>, expected: Option<&Value>) {
        let label = format!("{label} · parse-hook");
        let args = vec![
            "parse-hook".to_string(),
            "--hook".to_string(),
            hook.to_string(),
        ];
        let Some(answer) = self.call(label, args, Some(payload)) else {
            return;
        };
        let Some(event) = self.event(hook, &answer, expected) else {
            return;
        };
        let kind = event
            .get("type")
            .and_then(Value::as_i64)
            .and_then(EventType::from_number);
        let Some(kind) = kind else {
            return;
        };
        self.same_session(&event, kind);
        let text = |key: &str| {
            event
                .get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let session_ref = text("session_ref");
        match kind {
            EventType::TurnStart => self.turn_start(&session_ref, text("prompt")),
            EventType::TurnEnd => self.turn_end(&session_ref, &text("session_id")),
            EventType::SessionEnd => self.session_end(),
            _ => {}
        }
    }

    /// The Event of a `parse-hook` answer, judged as the host judges it.
    fn event(&mut self, hook: &str, answer: &Answer, expected: Option<&Value>) -> Option<Value> {
        let recorded = self.recorded();
        if !answer.ok() {
            match recorded {
                true => self.find(
                    Severity::Failure,
                    format!(
                        "hook {hook} fails: parse-hook exited {} on the payload the agent sent; \
                         the agent shows a failed hook",
                        answer.code.map_or("by a signal".into(), |c| c.to_string())
                    ),
                ),
                false => self.unverified(format!(
                    "parse-hook refused the generic payload of hook {hook} (another agent's shape)"
                )),
            }
            return None;
        }
        let event = match crate::schema::decode_host_json(&answer.stdout) {
            Ok(event) => event,
            Err(reason) => {
                let message = format!("hook {hook} fails: {reason}");
                self.find(Severity::Failure, message);
                self.stopped = true;
                return None;
            }
        };
        if let Some(want) = expected {
            self.compare_recorded(hook, want, &event);
        }
        if event.is_null() {
            return None;
        }
        let schema = if recorded {
            "event-host-full"
        } else {
            "event-host"
        };
        let violations = self.run.schemas.violations(schema, &event);
        if let Some(first) = violations.first() {
            let message = format!("hook {hook} fails: the host refuses this Event: {first}");
            self.find(Severity::Failure, message);
            return None;
        }
        Some(event)
    }

    /// A replayed Event must say what the recorded one said.
    fn compare_recorded(&mut self, hook: &str, want: &Value, got: &Value) {
        let differs = match want {
            Value::Object(fields) => fields
                .iter()
                .filter(|(k, v)| got.get(k.as_str()) != Some(*v))
                .map(|(k, v)| {
                    let now = got
                        .get(k.as_str())
                        .map_or("nothing".to_string(), Value::to_string);
                    format!("{k}: recorded {v}, now {now}")
                })
                .collect::<Vec<_>>(),
            other if other != got => vec![format!("recorded {other}, now {got}")],
            _ => Vec::new(),
        };
        if !differs.is_empty() {
            let message = format!(
                "hook {hook}: the Event differs from the one recorded for this payload: {}",
                differs.join("; ")
            );
            self.find(Severity::Failure, message);
        }
    }

    /// Every Event of one agent session names the same session.
    fn same_session(&mut self, event: &Value, kind: EventType) {
        let id = event
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("");
        if id.is_empty() {
            return;
        }
        match &self.session_id {
            None => self.session_id = Some(id.to_string()),
            Some(first) if first != id => {
                let message = format!(
                    "the session id changed within one agent session: {first:?} before, {id:?} \
                     in this {} Event; the host splits the session, and `entire resume` names an \
                     id the agent does not know",
                    kind.name()
                );
                self.find(Severity::Failure, message);
            }
            Some(_) => {}
        }
    }

    /// The host asks `get-session-dir` when an Event names a transcript (to
    /// skip transcripts of other agents); once is enough here.
    fn session_dir(&mut self, why: &str) -> Option<String> {
        if let Some(dir) = &self.session_dir {
            return Some(dir.clone());
        }
        let repo = self.sandbox.repo().display().to_string();
        let args = vec!["get-session-dir".into(), "--repo-path".into(), repo];
        let answer = self.call(format!("{why} · get-session-dir"), args, None)?;
        if !answer.ok() {
            let message = format!(
                "get-session-dir failed: the host fails the session store (\"session directory \
                 is required\"); {why} breaks"
            );
            self.find(Severity::Failure, message);
            return None;
        }
        let json = self.decoded("get-session-dir", &answer, Severity::Failure)?;
        let dir = json
            .get("session_dir")
            .and_then(Value::as_str)
            .unwrap_or("");
        (!dir.is_empty()).then(|| {
            self.session_dir = Some(dir.to_string());
            dir.to_string()
        })
    }

    fn turn_start(&mut self, session_ref: &str, prompt: String) {
        self.turn += 1;
        let turn = self.turn;
        self.prompt = prompt;
        self.offset = 0;
        if session_ref.is_empty() {
            return;
        }
        let label = format!("turn {turn} · TurnStart");
        if self.session_dir(&label).is_none() || !self.declared("transcript_analyzer") {
            return;
        }
        let args = vec![
            "get-transcript-position".into(),
            "--path".into(),
            session_ref.into(),
        ];
        let Some(answer) = self.call(format!("{label} · get-transcript-position"), args, None)
        else {
            return;
        };
        // A transcript the agent has not written yet has nothing before the
        // turn: an offset of 0 is then right, however the plugin says so.
        if !answer.ok() {
            if Path::new(session_ref).exists() {
                self.analysis_failed(turn, "get-transcript-position", "the turn's offset is 0");
            }
            return;
        }
        let json = self.decoded("get-transcript-position", &answer, Severity::Warning);
        self.offset = json
            .and_then(|j| j.get("position").and_then(Value::as_i64))
            .unwrap_or(0);
    }

    /// The host logs a failed analysis and goes on without its data.
    fn analysis_failed(&mut self, turn: usize, subcommand: &str, cost: &str) {
        match self.recorded() {
            true => self.find(
                Severity::Warning,
                format!(
                    "{subcommand} failed during turn {turn}: the host logs it and goes on ({cost}); \
                     the capability gives the user nothing"
                ),
            ),
            false => self.unverified(format!(
                "{subcommand} refused the generic transcript (another agent's format)"
            )),
        }
    }

    fn turn_end(&mut self, session_ref: &str, session_id: &str) {
        let turn = self.turn.max(1);
        let label = format!("turn {turn} · TurnEnd");
        if let Some(why) = self.unusable_ref(session_ref) {
            match (self.recorded(), why.1) {
                (false, false) => self.unverified(why.0),
                _ => {
                    let message = format!("hook fails at TurnEnd, no checkpoint: {}", why.0);
                    self.find(Severity::Failure, message);
                }
            }
            return;
        }
        if self.session_dir(&label).is_none() {
            return;
        }
        if self.declared("transcript_preparer") {
            let args = vec![
                "prepare-transcript".into(),
                "--session-ref".into(),
                session_ref.into(),
            ];
            let answer = self.call(format!("{label} · prepare-transcript"), args, None);
            if answer.is_some_and(|a| !a.ok()) {
                self.analysis_failed(turn, "prepare-transcript", "logged");
            }
        }
        let Some(bytes) = self.read_transcript(&label, session_ref) else {
            return;
        };
        let id = if session_id.is_empty() {
            "unknown"
        } else {
            session_id
        };
        self.checkpoints.push((id.to_string(), bytes.clone()));
        self.analyse(turn, &label, session_ref, &bytes);
        if !self.prompt.is_empty() {
            self.earlier_prompts.push(std::mem::take(&mut self.prompt));
        }
        if self.turn == 1 && !self.recorded() {
            self.earlier_prompts.push(TURN1_PROMPT.to_string());
        }
    }

    /// Why the host cannot read a TurnEnd's `session_ref`, and whether that
    /// is certain here (an existing directory) rather than maybe a store only
    /// the agent creates (a missing file).
    fn unusable_ref(&self, session_ref: &str) -> Option<(String, bool)> {
        let path = Path::new(session_ref);
        if session_ref.is_empty() {
            Some(("the TurnEnd Event has no session_ref".to_string(), false))
        } else if path.is_dir() {
            Some((
                format!(
                    "session_ref {session_ref} is a directory: the host's existence check passes, \
                     then read-transcript cannot read it"
                ),
                true,
            ))
        } else if !path.is_file() {
            Some((
                format!("session_ref {session_ref} is not an existing file"),
                false,
            ))
        } else {
            None
        }
    }

    /// `read-transcript`: the checkpoint's bytes, or a failed hook.
    fn read_transcript(&mut self, label: &str, session_ref: &str) -> Option<Vec<u8>> {
        let args = vec![
            "read-transcript".into(),
            "--session-ref".into(),
            session_ref.into(),
        ];
        let answer = self.call(format!("{label} · read-transcript"), args, None)?;
        if answer.ok() {
            return Some(answer.stdout);
        }
        let message = format!(
            "hook fails at TurnEnd, no checkpoint: read-transcript exited {} for the session_ref \
             of the plugin's own Event",
            answer.code.map_or("by a signal".into(), |c| c.to_string())
        );
        self.find(Severity::Failure, message);
        None
    }

    /// What the host asks at TurnEnd from the turn's offset: prompts (when
    /// the turn has none), modified files, tokens.
    fn analyse(&mut self, turn: usize, label: &str, session_ref: &str, bytes: &[u8]) {
        let offset = self.offset.to_string();
        if self.prompt.is_empty() && self.declared("transcript_analyzer") {
            let args = vec![
                "extract-prompts".into(),
                "--session-ref".into(),
                session_ref.into(),
                "--offset".into(),
                offset.clone(),
            ];
            if let Some(prompts) = self.list(
                turn,
                &format!("{label} · extract-prompts"),
                args,
                None,
                "extract-prompts",
                "prompts",
            ) {
                self.no_earlier_prompts(turn, &prompts);
            }
        }
        let subagents = self.declared("subagent_aware_extractor");
        let subagents_dir = self.sandbox.work().join("subagents").display().to_string();
        let files = if subagents {
            let _ = std::fs::create_dir_all(&subagents_dir);
            let args = vec![
                "extract-all-modified-files".into(),
                "--offset".into(),
                offset.clone(),
                "--subagents-dir".into(),
                subagents_dir.clone(),
            ];
            let label = format!("{label} · extract-all-modified-files");
            self.list(
                turn,
                &label,
                args,
                Some(bytes.to_vec()),
                "extract-all-modified-files",
                "files",
            )
        } else if self.declared("transcript_analyzer") {
            let args = vec![
                "extract-modified-files".into(),
                "--path".into(),
                session_ref.into(),
                "--offset".into(),
                offset.clone(),
            ];
            let label = format!("{label} · extract-modified-files");
            self.list(turn, &label, args, None, "extract-modified-files", "files")
        } else {
            None
        };
        if let Some(files) = &files {
            self.no_earlier_files(turn, files);
        }
        let changed = files.as_ref().is_none_or(|f| !f.is_empty());
        if changed && !self.stopped {
            self.tokens(turn, label, &offset, bytes, &subagents_dir);
        }
    }

    /// A list of strings from an analysis answer; `None` when the call
    /// failed (logged by the host) or printed nothing usable.
    fn list(
        &mut self,
        turn: usize,
        label: &str,
        args: Vec<String>,
        stdin: Option<Vec<u8>>,
        schema: &str,
        key: &str,
    ) -> Option<Vec<String>> {
        let answer = self.call(label.to_string(), args, stdin)?;
        if !answer.ok() {
            self.analysis_failed(turn, schema, "the checkpoint is saved without this data");
            return None;
        }
        let json = self.decoded(schema, &answer, Severity::Warning)?;
        let items = json.get(key).and_then(Value::as_array)?;
        Some(
            items
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
        )
    }

    /// Turn N's prompts come from its offset: an earlier turn's prompt there
    /// means the offset from TurnStart was lost.
    fn no_earlier_prompts(&mut self, turn: usize, prompts: &[String]) {
        let leaked: Vec<&String> = self
            .earlier_prompts
            .iter()
            .filter(|earlier| prompts.iter().any(|p| p.contains(earlier.as_str())))
            .collect();
        if let Some(first) = leaked.first() {
            let message = format!(
                "turn {turn}'s checkpoint records an earlier turn's prompt ({first:?}): \
                 extract-prompts did not start at the offset get-transcript-position gave at \
                 TurnStart ({}), so every checkpoint repeats the prompts before it",
                self.offset
            );
            self.find(Severity::Failure, message);
        }
    }

    /// On the generic transcript, turn 2 edits only the test file.
    fn no_earlier_files(&mut self, turn: usize, files: &[String]) {
        if self.recorded() || turn < 2 || !files.iter().any(|f| f == TURN1_FILE) {
            return;
        }
        let message = format!(
            "turn {turn}'s checkpoint lists {TURN1_FILE}, which only turn 1 changed: the files \
             were not read from the offset get-transcript-position gave at TurnStart ({}), so \
             the checkpoint is attributed files of another turn",
            self.offset
        );
        self.find(Severity::Failure, message);
    }

    /// Token counts, with the transcript on stdin.
    fn tokens(
        &mut self,
        turn: usize,
        label: &str,
        offset: &str,
        bytes: &[u8],
        subagents_dir: &str,
    ) {
        let (subcommand, mut args) = if self.declared("subagent_aware_extractor") {
            let args = vec!["--subagents-dir".to_string(), subagents_dir.to_string()];
            ("calculate-total-tokens", args)
        } else if self.declared("token_calculator") {
            ("calculate-tokens", Vec::new())
        } else {
            return;
        };
        let mut all = vec![
            subcommand.to_string(),
            "--offset".into(),
            offset.to_string(),
        ];
        all.append(&mut args);
        let Some(answer) = self.call(format!("{label} · {subcommand}"), all, Some(bytes.to_vec()))
        else {
            return;
        };
        if !answer.ok() {
            self.analysis_failed(turn, subcommand, "the session's token totals are short");
            return;
        }
        let _ = self.decoded(subcommand, &answer, Severity::Warning);
    }

    fn session_end(&mut self) {
        let Some((_, bytes)) = self.checkpoints.last().cloned() else {
            return;
        };
        let dir = self.sandbox.work().join("subagents").display().to_string();
        self.tokens(self.turn, "SessionEnd", "0", &bytes, &dir);
    }

    // ----- resume and rewind ---------------------------------------------

    /// `entire resume`, then `entire rewind`, of two sessions: the
    /// session's last checkpoint and a second one.
    fn restore_two_sessions(&mut self) {
        let sessions = self.two_sessions();
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
        if files[0] == files[1] {
            let message = format!(
                "entire resume restores the other session: session ids {:?} and {:?} both resolve \
                 to {}; write-session runs for each in turn on that file and the last one wins, \
                 so the user's earlier session is silently replaced",
                sessions[0].0, sessions[1].0, files[0]
            );
            self.find(Severity::Failure, message);
        }
        let mut held = [false, false];
        for restore in [Restore::Resume, Restore::Rewind] {
            for (n, (id, bytes)) in sessions.iter().enumerate() {
                if !self.write(restore, id, &files[n], bytes) {
                    return;
                }
            }
            for (n, held) in held.iter_mut().enumerate() {
                *held |= self.holds(restore, &sessions, &files, n);
            }
        }
        for (id, _) in &sessions {
            self.resume_command(id);
        }
        for (n, (id, bytes)) in sessions.iter().enumerate() {
            let back = self.read_session(id, &files[n], bytes);
            if !held[n] && !back && !self.stopped {
                let message = format!(
                    "entire resume: the agent resumes from {}, which does not hold the session's \
                     transcript after write-session, and read-session does not give it back \
                     either: the session cannot be resumed",
                    files[n]
                );
                self.check_line(
                    &format!("entire resume · session {id} · resumable"),
                    vec![Finding::failure(message)],
                );
            }
        }
    }

    /// The two sessions restored: the agent session's last checkpoint and
    /// an earlier one under a second id (the generic transcript where the
    /// session made none).
    fn two_sessions(&self) -> [(String, Vec<u8>); 2] {
        let first = self
            .checkpoints
            .last()
            .cloned()
            .unwrap_or_else(|| (GENERIC_ID.to_string(), self.generic.to_vec()));
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
        let second = (format!("{}-other", first.0), other);
        [first, second]
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
        if !answer.ok() {
            let message = "resolve-session-file refused in the sandbox, where the agent never ran \
                           (its own store may be missing): not verified here; the restore goes on \
                           with a file inside the session directory";
            self.find(Severity::Warning, message.to_string());
            return Some(format!("{dir}/{id}.agent-conform"));
        }
        let json = self.decoded("resolve-session-file", &answer, Severity::Failure)?;
        let file = json
            .get("session_file")
            .and_then(Value::as_str)?
            .to_string();
        let inside =
            crate::case::normalize(&file).starts_with(&format!("{}/", crate::case::normalize(dir)));
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

    /// `write-session` with exactly what the host sends; false when the
    /// host's command fails there.
    fn write(&mut self, restore: Restore, id: &str, file: &str, bytes: &[u8]) -> bool {
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
        if on_disk.as_ref() == Some(theirs) {
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

    /// `format-resume-command`: only shown to the user.
    fn resume_command(&mut self, id: &str) {
        let args = vec![
            "format-resume-command".into(),
            "--session-id".into(),
            id.into(),
        ];
        let label = format!("entire resume · session {id} · format-resume-command");
        let Some(answer) = self.call(label, args, None) else {
            return;
        };
        if !answer.ok() {
            let message = "format-resume-command failed: entire resume shows the user no command";
            self.find(Severity::Warning, message.to_string());
            return;
        }
        let _ = self.decoded("format-resume-command", &answer, Severity::Warning);
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
