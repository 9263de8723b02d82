//! One step of a case: a harness action or an invocation of the plugin,
//! prepared from the case's templates and sources, checked, and reported.
//!
//! The harness's own actions (user data, the files the agent resumes
//! from, the calls the `entire` stand-in received) are in `actions`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::execute::hosts::{as_called, called_as, case_hosts};
use crate::execute::own_id::{self, Retried};
use crate::execute::padded::{padded, padded_stdin};
use crate::execute::{CaseState, Run, StepEnd, defer_stdin, downgrade, reach};
use crate::host::positions;
use crate::judge::checks::{self, Finding, Judged, StepContext};
use crate::outcome::repro;
use crate::outcome::results::StepReport;
use crate::running::runner::{self, Invocation, Outcome, Termination};
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Refusal, Severity, Source, Step};
use crate::suite::template::{Bindings, Template, expand_json};

impl Run<'_> {
    /// An invocation of the plugin in the sandbox, with the host's limits.
    pub(super) fn invocation(
        &self,
        sandbox: &Sandbox,
        args: Vec<String>,
        timeout: Duration,
    ) -> Invocation {
        let mut inv = Invocation::new(self.plugin.to_path_buf(), args, sandbox.repo(), timeout);
        inv.env = sandbox.env();
        inv.env_remove = sandbox.env_remove();
        inv.path_first = Some(sandbox.bin());
        inv.confine = sandbox.confinement().cloned();
        inv.guard = Some(sandbox.guard(self.options.max_write));
        self.set_env(&mut inv, self.env, sandbox);
        inv
    }

    /// Sets the variables of an `env:` (the run's, or a case's over it) on
    /// `inv`, expanded for `sandbox`. Their placeholders were checked at
    /// load (`{{home}}`, `{{repo}}`, `{{tmp}}` only).
    pub(super) fn set_env(
        &self,
        inv: &mut Invocation,
        env: &BTreeMap<String, String>,
        sandbox: &Sandbox,
    ) {
        if env.is_empty() {
            return;
        }
        let captures = BTreeMap::new();
        let bindings = Bindings {
            repo: sandbox.repo().display().to_string(),
            cwd: sandbox.cwd().display().to_string(),
            home: sandbox.home().display().to_string(),
            tmp: sandbox.work().display().to_string(),
            info: &self.info,
            captures: &captures,
            fixtures: self.fixtures,
            item: None,
            transcript: None,
            fragment_start: None,
        };
        for (name, template) in env {
            let value = Template::parse(template)
                .and_then(|t| t.expand(&bindings))
                .unwrap_or_else(|_| template.clone());
            match inv.env.iter_mut().find(|(k, _)| k == name) {
                Some((_, old)) => *old = value.into(),
                None => inv.env.push((name.clone(), value.into())),
            }
        }
    }

    pub(super) fn write_files(
        &self,
        case: &Case,
        sandbox: &Sandbox,
        state: &CaseState,
    ) -> Result<(), String> {
        let bindings = self.bindings(sandbox, state, None);
        for setup in &case.files {
            let path = Template::parse(&setup.path)
                .and_then(|t| t.expand(&bindings))
                .map(PathBuf::from)?;
            let Some(content) = &setup.content else {
                std::fs::create_dir_all(&path)
                    .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
                continue;
            };
            let bytes = self.resolve(content, &bindings, state)?;
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
            }
            std::fs::write(&path, bytes)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(())
    }

    pub(super) fn bindings<'s>(
        &'s self,
        sandbox: &Sandbox,
        state: &'s CaseState,
        item: Option<&'s Value>,
    ) -> Bindings<'s> {
        let (tmp, transcript) = match &state.pass {
            Some(pass) => (
                pass.tmp.display().to_string(),
                Some((
                    pass.tmp.join(&pass.name).display().to_string(),
                    pass.name.clone(),
                )),
            ),
            None => (sandbox.work().display().to_string(), None),
        };
        let fragment_start = state.pass.as_ref().map(|pass| pass.fragment_start);
        Bindings {
            item,
            transcript,
            fragment_start,
            repo: sandbox.repo().display().to_string(),
            cwd: sandbox.cwd().display().to_string(),
            home: sandbox.home().display().to_string(),
            tmp,
            info: &self.info,
            captures: &state.captures,
            fixtures: self.fixtures,
        }
    }

    pub(super) fn resolve(
        &self,
        source: &Source,
        b: &Bindings<'_>,
        state: &CaseState,
    ) -> Result<Vec<u8>, String> {
        match source {
            Source::Text(text) => Ok(Template::parse(text)?.expand(b)?.into_bytes()),
            Source::Fixture(name) => self
                .fixtures
                .get(name)
                .map(|bytes| bytes.to_vec())
                .ok_or_else(|| format!("no fixture named {name:?}")),
            Source::Json(value) => Ok(expand_json(value, b)?.to_string().into_bytes()),
            Source::PaddedJson { json, bytes } => padded(&expand_json(json, b)?, *bytes),
            Source::StdoutOf(step) => state
                .stdouts
                .get(step)
                .map(|bytes| bytes.to_vec())
                .ok_or_else(|| format!("step {step:?} has not run")),
            Source::File(path) => {
                let path = Template::parse(path)?.expand(b)?;
                std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}"))
            }
            Source::Path(path) => self
                .fixtures
                .file(path)
                .map(|bytes| bytes.to_vec())
                .ok_or_else(|| format!("no file {path}")),
            Source::CurrentTranscript => state
                .pass
                .as_ref()
                .map(|pass| pass.bytes.to_vec())
                .ok_or_else(|| "no current transcript outside for_each_transcript".to_string()),
            Source::CurrentTranscriptFragment => state
                .pass
                .as_ref()
                .map(|pass| positions::fragment(&pass.name, &pass.bytes))
                .ok_or_else(|| "no current transcript outside for_each_transcript".to_string()),
        }
    }

    /// Runs step `index`: an action, one invocation, or one per element.
    pub(super) fn step(
        &self,
        case: &Case,
        index: usize,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        crate::running::interrupt::hold_if_interrupted();
        let step = &case.steps[index].value;
        if let Some(action) = &step.action {
            return self.action(case, index, action, sandbox, state);
        }
        let Some(pointer) = &step.for_each else {
            return self.invoke(case, index, None, sandbox, state);
        };
        let Some(items) = self.info.pointer(pointer).and_then(Value::as_array) else {
            let reason = format!("info output has no array at {pointer} to run this step for");
            state
                .reports
                .push(setup_failure(&case.step_name(index), &[], reason));
            return StepEnd::Stop;
        };
        let items = &items[..step.at_most.unwrap_or(items.len()).min(items.len())];
        if step.stdin_delay_ms.is_some() {
            return self.invoke_at_once(case, index, items, sandbox, state);
        }
        for (n, item) in items.iter().enumerate() {
            match self.invoke(case, index, Some((n, item)), sandbox, state) {
                StepEnd::Continue => {}
                other => return other,
            }
        }
        StepEnd::Continue
    }

    /// Runs the plugin once for step `index` (element `item` of a for_each).
    pub(super) fn invoke(
        &self,
        case: &Case,
        index: usize,
        item: Option<(usize, &Value)>,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        match self.ready(case, index, item, sandbox, state) {
            Ok(ready) => {
                let outcome = self.ask(&case.id, &ready.inv, sandbox, state);
                self.judged(case, index, item, sandbox, state, ready, outcome)
            }
            Err(end) => end,
        }
    }

    /// The call of step `index` ready to run, its stdin saved; the end of
    /// the step when it cannot run (a setup failure, the breaker).
    pub(super) fn ready(
        &self,
        case: &Case,
        index: usize,
        item: Option<(usize, &Value)>,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Result<Ready, StepEnd> {
        let step = &case.steps[index].value;
        let base = case.step_name(index);
        let mut name = match item {
            Some((_, value)) => format!("{base} [{}]", crate::suite::template::value_text(value)),
            None => base.clone(),
        };
        if let Some(sample) = state.pass.as_ref().and_then(|p| p.sample.as_ref()) {
            name = format!("{name} [sample {sample}]");
        }
        let prepared = self.prepare(case, index, item, sandbox, state);
        let (inv, stdin_file) = match prepared {
            Ok((inv, Some(file))) => {
                if let Some(bytes) = &inv.stdin {
                    defer_stdin(&mut state.stdin_files, &file, bytes);
                }
                (inv, Some(file))
            }
            Ok(prepared) => prepared,
            Err(reason) => {
                let args = step.args.clone().unwrap_or_default();
                state.reports.push(setup_failure(&name, &args, reason));
                return Err(StepEnd::Stop);
            }
        };
        if let Some(reason) = self.breaker.refuse(&inv.args) {
            state.cut = Some(reason);
            return Err(StepEnd::Stop);
        }
        Ok(Ready {
            name,
            inv,
            stdin_file,
        })
    }

    /// Judges the outcome of a call of step `index` and records its report.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn judged(
        &self,
        case: &Case,
        index: usize,
        item: Option<(usize, &Value)>,
        sandbox: &Sandbox,
        state: &mut CaseState,
        ready: Ready,
        outcome: Outcome,
    ) -> StepEnd {
        let step = &case.steps[index].value;
        let base = case.step_name(index);
        let Ready {
            name,
            inv,
            stdin_file,
        } = ready;
        self.breaker
            .record(&case.id, &inv.args, inv.timeout, &outcome);
        let bindings = self.bindings(sandbox, state, item.map(|(_, v)| v));
        let resolve = |s: &Source| self.resolve(s, &bindings, state);
        let agent = crate::host::discovery::agent_name(self.plugin).unwrap_or_default();
        let ctx = StepContext {
            step,
            timeout_secs: inv.timeout.as_secs_f64(),
            schemas: self.schemas,
            bindings: &bindings,
            resolve: &resolve,
            severity: case.severity,
            capability: case.capability.as_deref(),
            covers: &case.covers,
            refusable: state.pass.as_ref().is_some_and(|p| p.sample.is_none()),
            empty_is_unread: empty_is_unread(case, index, state),
            agent: &agent,
            needs: crate::judge::environment::needed_variable(&inv, &outcome),
            unknown: self.unknown.as_ref(),
        };
        let verdict = checks::check(&ctx, &outcome);
        let mut report = step_report(name, &inv, &outcome, stdin_file.as_deref());
        report.rests_on = case.rests_on(index, state.pass_kind());
        report.answered_by = state.answered_by.take();
        let (verdict, retried) = match verdict {
            Judged::Refused(refusal, findings) if refusal.own_id => {
                let reports = |calls: Vec<own_id::Call>| -> Vec<StepReport> {
                    calls
                        .into_iter()
                        .map(|(name, inv, outcome)| step_report(name, &inv, &outcome, None))
                        .collect()
                };
                match self.write_with_own_id(&report.name, &inv, sandbox) {
                    Retried::Refused(calls, finding) => {
                        let mut reports = reports(calls);
                        report.findings = findings;
                        if let Some(last) = reports.last_mut() {
                            last.findings.push(finding);
                        }
                        (Judged::Checked(Vec::new(), None), Some((false, reports)))
                    }
                    other => {
                        let ours = own_id::ours(&inv);
                        let note = other.note(&ours, self.reach.hooks);
                        let refusal = Refusal { note, ..refusal };
                        let calls = other.into_calls();
                        (
                            Judged::Refused(refusal, findings),
                            Some((true, reports(calls))),
                        )
                    }
                }
            }
            other => (other, None),
        };
        let keep = std::mem::take(&mut report.findings);
        let mut own = Vec::new();
        let end = match verdict {
            Judged::Refused(refusal, findings) if !refusal.continue_with.is_empty() => {
                report.findings = findings;
                let bindings = self.bindings(sandbox, state, item.map(|(_, v)| v));
                let (finding, captures) = continued(&refusal, &bindings);
                report.findings.extend(finding);
                state.captures.extend(captures);
                StepEnd::Continue
            }
            Judged::Refused(refusal, findings) => {
                report.findings = findings;
                refused(refusal, !self.samples.is_empty())
            }
            Judged::Checked(findings, json) => {
                report.findings = keep;
                report.findings.extend(findings);
                if inv.args.first().map(String::as_str) == Some("parse-hook")
                    && let Some(event) = json.as_ref()
                {
                    // The newest hosts' id rules, by release: those the
                    // case is for, when it names some.
                    let hosts = case_hosts(&self.options.hosts, case);
                    let payload = inv
                        .stdin
                        .as_deref()
                        .and_then(|b| serde_json::from_slice::<Value>(b.as_slice()).ok());
                    let ids = crate::judge::ids::event_ids(event, &hosts, payload.as_ref());
                    report.findings.extend(ids);
                    crate::judge::own_payload::not_ours(
                        &mut report.findings,
                        report.rests_on,
                        &inv.args,
                        event,
                        payload.as_ref(),
                    );
                    own = self.own_samples(case, &report.name, report.rests_on, event, sandbox);
                }
                let captured = capture(step, json.as_ref(), &mut state.captures);
                // A value later steps need is missing: they cannot run.
                let lost = !captured.is_empty();
                report.findings.extend(captured);
                state.last_json = json;
                // A failure that rests on our input alone weighs a warning
                // and does not stop the case (the next hook name, the next
                // check, still tell something).
                report.settle();
                let failed = lost
                    || report
                        .findings
                        .iter()
                        .any(|f| f.weight() == Severity::Failure);
                if failed {
                    StepEnd::Stop
                } else {
                    StepEnd::Continue
                }
            }
        };
        if let Some((n, _)) = item {
            report
                .findings
                .extend(late_answer(step, n, &inv, &outcome, state));
            let answer = (outcome.exit_code(), outcome.stdout.clone());
            state.item_answers.insert((base.clone(), n), answer);
        }
        reach::soften_provoked(case, &mut report);
        downgrade(case, &mut report);
        if let Some(call) = step.host_call {
            as_called(call, &mut report.findings);
        }
        state.stdouts.insert(base, outcome.stdout);
        match retried {
            // The retries come before the refused step, whose note the
            // refusal's finding follows.
            Some((true, reports)) => {
                state.reports.extend(reports);
                state.reports.push(report);
            }
            Some((false, mut reports)) => {
                reports.iter_mut().for_each(|r| downgrade(case, r));
                state.reports.push(report);
                state.reports.extend(reports);
                return StepEnd::Stop;
            }
            None => state.reports.extend(std::iter::once(report).chain(own)),
        }
        end
    }

    /// Builds the invocation of step `index` and saves its stdin to a file.
    pub(super) fn prepare(
        &self,
        case: &Case,
        index: usize,
        item: Option<(usize, &Value)>,
        sandbox: &Sandbox,
        state: &CaseState,
    ) -> Result<(Invocation, Option<PathBuf>), String> {
        let step = &case.steps[index].value;
        let bindings = self.bindings(sandbox, state, item.map(|(_, v)| v));
        let args = step
            .args
            .iter()
            .flatten()
            .map(|a| Template::parse(a).and_then(|t| t.expand(&bindings)))
            .collect::<Result<Vec<_>, _>>()?;
        let stdin = match (&step.stdin, &state.pass) {
            (Some(Source::PaddedJson { json, bytes }), _) => {
                Some(padded_stdin(&expand_json(json, &bindings)?, *bytes)?)
            }
            // The pass's own bytes, shared, not copied.
            (Some(Source::CurrentTranscript), Some(pass)) => Some(pass.bytes.clone()),
            (Some(source), _) => Some(Arc::new(self.resolve(source, &bindings, state)?)),
            (None, _) => None,
        };
        let stdin_file = match &stdin {
            Some(_) => {
                let pass = state
                    .pass
                    .as_ref()
                    .map_or(String::new(), |p| format!("t{}-", p.number));
                let file = match item {
                    Some((n, _)) => format!("{pass}{}-{}.stdin", index + 1, n + 1),
                    None => format!("{pass}{}.stdin", index + 1),
                };
                Some(sandbox.stdin_dir().join(file))
            }
            None => None,
        };
        let timeout = if args.first().map(String::as_str) == Some("info") {
            self.options.info_timeout
        } else {
            self.options.timeout
        };
        let mut inv = self.invocation(sandbox, args, timeout);
        self.set_env(&mut inv, &case.env, sandbox);
        inv.stdin = stdin;
        inv.stdin_delay = step.stdin_delay_ms.map(Duration::from_millis);
        inv.startup = self.info_elapsed;
        if let Some(call) = step.host_call {
            called_as(call, sandbox, &mut inv);
        }
        Ok((inv, stdin_file))
    }
}

/// Whether an all-zero answer of step `index` counts as a refusal, in
/// the generic pass of a case that allows it: the first invocation, and
/// every one that reads the transcript from its start (`--offset 0`),
/// where the generic transcript has files, prompts and tokens to find.
/// `{}`, no files or position 0 there (after a position measured from
/// the file's size, say) shows the plugin read nothing of another
/// agent's format.
fn empty_is_unread(case: &Case, index: usize, state: &CaseState) -> bool {
    let generic = state.pass.as_ref().is_some_and(|p| p.sample.is_none());
    let step = &case.steps[index].value;
    let first = case.steps.iter().position(|s| s.value.args.is_some()) == Some(index);
    let from_start = step
        .args
        .as_ref()
        .is_some_and(|args| args.windows(2).any(|w| w[0] == "--offset" && w[1] == "0"));
    generic && (first || from_start) && case.for_each_transcript.is_some()
}

/// The outcome of an accepted refusal, given whether the plugin has
/// samples of its own: with them, the case's `with_samples:` weight, since
/// its own transcripts are checked instead. A function of the refusal
/// alone, so that its weights can be tested without a run.
fn refused(refusal: Refusal, have_samples: bool) -> StepEnd {
    match refusal.with_samples {
        Some(outcome) if have_samples => StepEnd::Refused(
            outcome,
            format!(
                "{}; its own sample transcripts are checked instead",
                refusal.note
            ),
            refusal.variable,
        ),
        _ => StepEnd::Refused(refusal.outcome, refusal.note, refusal.variable),
    }
}

/// A call of a step, ready to run.
pub(super) struct Ready {
    /// The step's display name (with its element and sample).
    name: String,
    /// The call.
    pub(super) inv: Invocation,
    stdin_file: Option<PathBuf>,
}

/// A refusal the case goes on after: its finding (none for `pass`) and the
/// captures the later steps use instead of the refused answer's.
fn continued(
    refusal: &Refusal,
    bindings: &Bindings<'_>,
) -> (Option<Finding>, BTreeMap<String, Value>) {
    let finding = super::refused(refusal.outcome, &refusal.note, refusal.variable.clone());
    let mut captures = BTreeMap::new();
    let mut problems = Vec::new();
    for (name, template) in &refusal.continue_with {
        match Template::parse(template).and_then(|t| t.expand(bindings)) {
            Ok(value) => {
                captures.insert(name.clone(), Value::String(value));
            }
            Err(err) => problems.push(err),
        }
    }
    let finding = match problems.first() {
        Some(err) => Some(Finding::failure(format!("cannot evaluate the case: {err}"))),
        None => finding,
    };
    (finding, captures)
}

/// The report of one invocation, before its findings.
pub(super) fn step_report(
    name: String,
    inv: &Invocation,
    outcome: &runner::Outcome,
    stdin_file: Option<&Path>,
) -> StepReport {
    StepReport {
        name,
        args: inv.args.clone(),
        command: repro::command_line(inv, stdin_file),
        reproduction: Some(repro::Reproduction::of(inv, stdin_file, outcome.before)),
        reproduce: None,
        printed: repro::Printed::of(outcome),
        exit_code: outcome.exit_code(),
        termination: termination_label(&outcome.termination).to_string(),
        duration: outcome.elapsed,
        stdout_bytes: outcome.stdout.len(),
        stderr_bytes: outcome.stderr.len(),
        stderr_excerpt: checks::excerpt(&outcome.stderr),
        rests_on: crate::outcome::evidence::Evidence::HostInput,
        findings: Vec::new(),
        sent: inv
            .stdin
            .as_deref()
            .map(|b| crate::outcome::results::Sent::of(b.as_slice())),
        answered_by: None,
    }
}

/// Stores the step's captures; a missing value is a failure of the step.
pub(super) fn capture(
    step: &crate::suite::case::Step,
    json: Option<&Value>,
    captures: &mut BTreeMap<String, Value>,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (name, pointer) in &step.capture {
        match json.and_then(|j| j.pointer(pointer)) {
            Some(value) => {
                captures.insert(name.clone(), value.clone());
            }
            None if json.is_some() => findings.push(Finding::failure(format!(
                "stdout has no value at {pointer}, which later steps need"
            ))),
            None => {}
        }
    }
    findings
}

/// The report of a harness action (no invocation).
pub(super) fn action_report(name: &str, findings: Vec<Finding>) -> StepReport {
    StepReport::without_invocation(name, "action", findings)
}

/// The report of a step whose invocation could not be prepared.
pub(super) fn setup_failure(name: &str, args: &[String], reason: String) -> StepReport {
    let finding = Finding::failure(format!("could not prepare the invocation: {reason}"));
    StepReport {
        args: args.to_vec(),
        termination: "not-started".to_string(),
        ..action_report(name, vec![finding])
    }
}

pub(super) fn termination_label(t: &Termination) -> &'static str {
    match t {
        Termination::Exited(Some(_)) => "exited",
        Termination::Exited(None) => "signal",
        Termination::TimedOut => "timed-out",
        Termination::SpawnFailed(_) => "not-started",
    }
}

/// `same_answer_as:` of element `n`: the finding when this answer differs
/// from the named step's answer for the same element.
fn late_answer(
    step: &Step,
    n: usize,
    inv: &Invocation,
    outcome: &Outcome,
    state: &CaseState,
) -> Option<Finding> {
    let same = step.expect.same_answer_as.as_ref()?;
    let (code, stdout) = state.item_answers.get(&(same.step.clone(), n))?;
    let payload = inv.stdin.as_deref().map_or(&[][..], |b| b.as_slice());
    crate::judge::same_answer::compare(
        payload,
        (*code, stdout),
        (outcome.exit_code(), &outcome.stdout),
        step.stdin_delay_ms.unwrap_or(0),
        same.severity,
        &same.because,
    )
}

#[cfg(test)]
mod tests {
    use super::{Refusal, StepEnd, refused};
    use crate::suite::case::RefusalOutcome;

    fn refusal(with_samples: Option<&str>) -> Refusal {
        let mut yaml = "outcome: note\nnote: not verified here\n".to_string();
        if let Some(outcome) = with_samples {
            yaml.push_str(&format!("with_samples: {outcome}\n"));
        }
        serde_saphyr::from_str(&yaml).expect("a valid refusal")
    }

    #[test]
    fn a_refusal_weighs_its_with_samples_outcome_only_with_samples() {
        let with = refused(refusal(Some("warning")), true);
        assert!(
            matches!(&with, StepEnd::Refused(RefusalOutcome::Warning, note, _) if note.ends_with("checked instead"))
        );
        let without = refused(refusal(Some("warning")), false);
        assert!(
            matches!(&without, StepEnd::Refused(RefusalOutcome::Note, note, _) if note == "not verified here")
        );
        let unsaid = refused(refusal(None), true);
        assert!(matches!(unsaid, StepEnd::Refused(RefusalOutcome::Note, ..)));
    }
}
