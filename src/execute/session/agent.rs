//! The agent session, hook by hook: parse-hook, then the calls the host
//! makes for each Event (docs/host.md, "The calls the host makes over a
//! session, in order").

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::execute::session::{Answer, GENERIC_ID, GENERIC_LINES, Play, TURN1_PROMPT, first_lines};
use crate::host::session::{self as host, EventType};
use crate::judge::checks::Finding;
use crate::judge::own_payload;
use crate::suite::case::Severity;

impl Play<'_, '_> {
    /// Plays the agent session: the recorded hooks, or the generic ones.
    pub(super) fn agent_session(&mut self) {
        if !self.declared("hooks") {
            return;
        }
        self.where_the_agent_keeps_it();
        match self.run.recording {
            Some(recording) => self.recorded_session(recording),
            None => self.generic_session(),
        }
    }

    fn recorded_session(&mut self, recording: &crate::suite::case::Recording) {
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
            // As the newest hosts forward it: the first JSON value's raw
            // bytes (hooks.parse-hook.whole-stdin sends the older form).
            let payload = crate::host::callers::forwarded_hook_input(
                &recording.localize(&hook.payload, &values),
            );
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
        let names = self.hook_names();
        // The harness's own questions are not steps of the session: they
        // are kept aside and shown after it, so that the timeline reads in
        // the session's order (`Play::probes`).
        let first = self.state.reports.len();
        let learnt = self.learn_types(&names);
        let asked: Vec<_> = self.state.reports.drain(first..).collect();
        self.probes.extend(asked);
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
            let cwd = self.sandbox.cwd().display().to_string();
            let payload = host::generic_payload(&hook, GENERIC_ID, &self.path(), &cwd, prompt);
            let label = format!("turn {turn} · hook {hook}");
            self.hook(&label, &hook, payload.to_string().into_bytes(), None);
            if self.stopped || self.unverified.is_some() {
                return;
            }
            if self.brief() && ends_turn && !self.checkpoints.is_empty() {
                break;
            }
        }
        if self.checkpoints.is_empty() {
            // Null for every generic payload, or no hook that ends a turn:
            // nothing here says how the host's checkpoints would go.
            let why = "no TurnEnd Event with a readable transcript came from the generic \
                       payloads, so no checkpoint was made";
            self.check_line("the agent session", Vec::new());
            self.unverified(why.to_string());
        }
    }

    /// The Event type of each hook name the guide does not name, asked
    /// once with the generic payload before the session (the host knows
    /// its agent's hooks; the replay has to ask to place each hook in a
    /// turn). Not a host call: the caller moves these steps after the
    /// session's.
    fn learn_types(&mut self, names: &[String]) -> BTreeMap<String, EventType> {
        let mut learnt = BTreeMap::new();
        let cwd = self.sandbox.cwd().display().to_string();
        for hook in names.iter().filter(|h| host::guessed_type(h).is_none()) {
            let payload = host::generic_payload(hook, GENERIC_ID, &self.path(), &cwd, None);
            let label = format!(
                "asked by the harness, not the host (before the session, to place the hook in \
                 it) · hook {hook} · parse-hook (its Event type)"
            );
            let args = vec!["parse-hook".into(), "--hook".into(), hook.clone()];
            let Some(answer) = self.call(label, args, Some(payload.to_string().into_bytes()))
            else {
                break;
            };
            let kind = crate::host::answers::go::event(&answer.stdout)
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
        let Some(answer) = self.call(label, args, Some(payload.clone())) else {
            return;
        };
        let Some(event) = self.event(hook, &answer, expected, &payload) else {
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
        if !text("session_id").is_empty() {
            self.own_ids.insert(text("session_id"));
        }
        self.remember_ref(&text("session_id"), &session_ref);
        // A reference the plugin made itself, found nowhere in the payload,
        // rests on its own answer whatever the payload was.
        let sent = serde_json::from_slice::<Value>(&payload).unwrap_or(Value::Null);
        let own_ref = !crate::judge::ids::echoes(&sent, &session_ref);
        if session_ref == self.path() {
            self.echoed = Some((hook.to_string(), payload));
        }
        match kind {
            EventType::TurnStart => self.turn_start(&session_ref, text("prompt")),
            EventType::TurnEnd => self.turn_end(&session_ref, &text("session_id"), own_ref),
            EventType::SessionEnd => self.session_end(),
            EventType::SubagentEnd => self.subagent_end(hook, &session_ref, &text("subagent_id")),
            _ => {}
        }
    }

    /// The Event of a `parse-hook` answer, judged as the host judges it.
    fn event(
        &mut self,
        hook: &str,
        answer: &Answer,
        expected: Option<&Value>,
        payload: &[u8],
    ) -> Option<Value> {
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
        let event = match crate::host::answers::go::event(&answer.stdout) {
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
            // Not our payload: the plugin reads keys of its own (every case
            // says it alike, `judge::own_payload`).
            let sent = serde_json::from_slice::<Value>(payload).ok();
            let lacks = sent.as_ref().and_then(|p| own_payload::lacks(&event, p));
            if let (false, Some(what)) = (recorded, lacks) {
                self.unverified(format!(
                    "parse-hook gave {what} for the generic payload of hook {hook} (the \
                     plugin reads payloads of its own shape)"
                ));
                return None;
            }
            let message = format!("hook {hook} fails: the host refuses this Event: {first}");
            self.find(Severity::Failure, message);
            return None;
        }
        Some(event)
    }

    /// A replayed Event must say what the recorded one said. A different
    /// type, session id, session_ref or tool use id changes what the host
    /// does with the hook (no checkpoint, a split session, another file
    /// read): a failure. Any other field only changes what is stored or
    /// shown: a warning.
    fn compare_recorded(&mut self, hook: &str, want: &Value, got: &Value) {
        const STEERING: &[&str] = &["type", "session_id", "session_ref", "tool_use_id"];
        let (fields, whole) = match want {
            Value::Object(fields) => (fields.clone(), false),
            _ => (serde_json::Map::new(), want != got),
        };
        let differs: Vec<(&String, String)> = fields
            .iter()
            .filter(|(k, v)| got.get(k.as_str()) != Some(*v))
            .map(|(k, v)| {
                let now = got
                    .get(k.as_str())
                    .map_or("nothing".to_string(), Value::to_string);
                (k, format!("{k}: recorded {v}, now {now}"))
            })
            .collect();
        if whole {
            let message = format!(
                "hook {hook}: the plugin answered {got} for the payload where it answered \
                 {want} when it was recorded, so the host handles this hook differently"
            );
            self.find(Severity::Failure, message);
            return;
        }
        if differs.is_empty() {
            return;
        }
        let steering = differs.iter().any(|(k, _)| STEERING.contains(&k.as_str()));
        let severity = if steering {
            Severity::Failure
        } else {
            Severity::Warning
        };
        let list: Vec<&str> = differs.iter().map(|(_, d)| d.as_str()).collect();
        let message = format!(
            "hook {hook}: the Event differs from the one recorded for this payload: {}",
            list.join("; ")
        );
        self.find(severity, message);
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
                     in this {} Event; the host splits the session",
                    kind.name()
                );
                self.add(
                    Finding {
                        severity: Severity::Failure,
                        ..Finding::failure(message)
                    }
                    .kind(crate::outcome::Kind::SplitSession),
                );
                // Weighed once the resume command is known (host::reach).
                let step = self.state.reports.len() - 1;
                let finding = self.state.reports[step].findings.len() - 1;
                self.renewals.push((step, finding));
            }
            Some(_) => {}
        }
    }

    /// The host asks `get-session-dir` when an Event names a transcript (to
    /// skip transcripts of other agents); once is enough here.
    pub(super) fn session_dir(&mut self, why: &str) -> Option<String> {
        if let Some(dir) = &self.session_dir {
            return Some(dir.clone());
        }
        let repo = self.sandbox.repo().display().to_string();
        let args = vec!["get-session-dir".into(), "--repo-path".into(), repo];
        // The host's own call, whatever the session rests on.
        let basis = std::mem::replace(
            &mut self.basis,
            crate::outcome::evidence::Evidence::HostInput,
        );
        let answer = self.call(format!("{why} · get-session-dir"), args, None);
        let answer = self.session_dir_answer(why, answer);
        self.basis = basis;
        answer
    }

    /// What the host takes from `get-session-dir`'s answer: the directory,
    /// or a failed session store.
    fn session_dir_answer(&mut self, why: &str, answer: Option<Answer>) -> Option<String> {
        let answer = answer?;
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
        let position = json.as_ref().and_then(|j| j.get("position")).cloned();
        self.offset = position.as_ref().and_then(Value::as_i64).unwrap_or(0);
        if let Some(position) = position {
            self.host_unit(turn, session_ref, &position);
        }
    }

    /// The host logs a failed analysis and goes on without its data.
    pub(super) fn analysis_failed(&mut self, turn: usize, subcommand: &str, cost: &str) {
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

    fn turn_end(&mut self, session_ref: &str, session_id: &str, own_ref: bool) {
        let turn = self.turn.max(1);
        let label = format!("turn {turn} · TurnEnd");
        if let Some(why) = self.unusable_ref(session_ref) {
            let message = format!("hook fails at TurnEnd, no checkpoint: {}", why.0);
            // The plugin named a file of its own (not the payload's, which
            // the agent wrote): where the agent runs moved it (the place
            // axis's subdirectory, say), and the host fails the hook.
            let elsewhere = own_ref && !session_ref.is_empty() && self.transcript.is_file();
            match (self.recorded(), why.1) {
                (false, false) if elsewhere => self.find(
                    Severity::Failure,
                    format!(
                        "{message}, while the payload names the transcript the agent wrote, {}: \
                         the plugin derived another path (from the payload's cwd, say)",
                        self.path()
                    ),
                ),
                (false, false) => self.unverified(why.0),
                // A directory of the plugin's own naming (not an echo of the
                // payload): its own answer's fault, whatever the payload.
                (false, true) if own_ref => self.find_own(Severity::Failure, message),
                _ => self.find(Severity::Failure, message),
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
        if !self.recorded() {
            // The generic payload's transcript, refused or rewritten into a
            // reference the plugin cannot read: another agent's session,
            // which the host never hands it.
            self.unverified(format!(
                "read-transcript refused the session_ref {session_ref} that parse-hook made of \
                 the generic payload (another agent's transcript)"
            ));
            return None;
        }
        let message = format!(
            "hook fails at TurnEnd, no checkpoint: read-transcript exited {} for the session_ref \
             of the plugin's own Event",
            answer.code.map_or("by a signal".into(), |c| c.to_string())
        );
        self.find(Severity::Failure, message);
        None
    }
}

impl Play<'_, '_> {
    /// The session id of a second agent session, of the plugin's own
    /// making: `parse-hook` of the first hook the guide maps to
    /// SessionStart (else TurnStart), with the generic payload of another
    /// agent session. Asked only when the agent session's Events gave ids,
    /// so that the restore of two sessions passes the plugin ids it made,
    /// as the host does; `None` when the answer names no
    /// other id.
    pub(super) fn second_session_id(&mut self, first: &str) -> Option<String> {
        if self.recorded() || !self.own_ids.contains(first) || self.stopped {
            return None;
        }
        let names = self.hook_names();
        let pick = |kind| {
            names
                .iter()
                .find(|h| host::guessed_type(h) == Some(kind))
                .cloned()
        };
        let hook = pick(EventType::SessionStart).or_else(|| pick(EventType::TurnStart))?;
        let repo = self.sandbox.repo().display().to_string();
        let id = format!("{GENERIC_ID}-second");
        let payload = host::generic_payload(&hook, &id, &self.path(), &repo, None);
        let label = format!("a second agent session · hook {hook} · parse-hook (its session id)");
        let args = vec!["parse-hook".into(), "--hook".into(), hook];
        let answer = self.call(label, args, Some(payload.to_string().into_bytes()))?;
        let event = crate::host::decoding::decode_host_json(&answer.stdout)
            .ok()
            .filter(|_| answer.ok())?;
        let second = event.get("session_id").and_then(Value::as_str)?.to_string();
        if second.is_empty() || second == first {
            return None;
        }
        self.own_ids.insert(second.clone());
        Some(second)
    }

    /// The hook names `info` declares.
    pub(super) fn hook_names(&self) -> Vec<String> {
        crate::host::identity::hook_names(&self.run.info)
    }
}
