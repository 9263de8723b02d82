//! Executes a suite against one plugin: the gate first (`info`, as the host's
//! discovery does), then every case in its own sandbox, in parallel, with
//! results kept in suite order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::breaker::Breaker;
use crate::case::{
    Action, Case, EachTranscript, Fixtures, Property, RefusalOutcome, RoundTripCorpus, Sample,
    Severity, Source, Suite,
};
use crate::checks::{self, Finding, StepContext, Verdict};
use crate::discovery;
use crate::generate::{self, Corpus, Input};
use crate::report::progress::Progress;
use crate::repro;
use crate::results::{CaseOutcome, CaseReport, RunReport, StepReport};
use crate::roundtrip;
use crate::runner::{self, Invocation, Termination};
use crate::sandbox::{self, Sandbox};
use crate::schema::Schemas;
use crate::template::{Bindings, Template, expand_json};
use crate::userdata::UserData;

/// How to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Deadline of every invocation but `info`.
    pub timeout: Duration,
    /// Deadline of `info` (the host's discovery gives it 10 s).
    pub info_timeout: Duration,
    /// Keep every sandbox, not only those of cases that did not pass.
    pub keep_temp: bool,
    /// Cases run at once.
    pub jobs: usize,
    /// Seed of the generated inputs.
    pub seed: u64,
    /// Where sandboxes are made.
    pub sandbox_base: PathBuf,
    /// Stop at the first failed case (cases already running finish).
    pub fail_fast: bool,
    /// Confine the plugin's writes to its sandbox (see [`crate::confine`]).
    pub confine: bool,
}

/// Shared, read-only state of a run.
struct Run<'a> {
    progress: &'a dyn Progress,
    reaper: sandbox::Reaper,
    plugin: &'a Path,
    samples: &'a [Sample],
    schemas: &'a Schemas,
    fixtures: &'a Fixtures,
    options: &'a Options,
    info: Value,
    /// Timed-out subcommands and `--fail-fast` (see [`crate::breaker`]).
    breaker: Breaker,
}

/// Runs the suite; never fails: every problem ends up in the report.
pub fn run(
    plugin: &Path,
    suite: &Suite,
    schemas: &Schemas,
    options: &Options,
    progress: &dyn Progress,
) -> RunReport {
    let start = Instant::now();
    let mut run = Run {
        progress,
        reaper: sandbox::Reaper::start(),
        plugin,
        samples: &suite.samples,
        schemas,
        fixtures: &suite.fixtures,
        options,
        info: Value::Null,
        breaker: Breaker::new(options.fail_fast),
    };
    let (gates, cases): (Vec<&Case>, Vec<&Case>) = suite.cases.iter().partition(|c| c.gate);
    let mut reports = Vec::new();
    let mut blocked = None;
    for gate in gates {
        let Finished { report, json, .. } = run.case(gate, None, &AtomicUsize::new(0));
        if report.outcome == CaseOutcome::Failed {
            blocked.get_or_insert_with(|| {
                format!("not run: {} failed ({})", report.id, report.summary_line())
            });
        } else if let Some(json) = json {
            run.info = json;
        }
        reports.push(report);
    }
    let info = (!run.info.is_null()).then(|| run.info.clone());
    let rest = match blocked {
        Some(reason) => cases.iter().map(|c| not_run(c, &reason)).collect(),
        None => run.parallel(&cases),
    };
    reports.extend(rest);
    run.progress.done();
    run.reaper.finish();
    let invocations = reports
        .iter()
        .flat_map(|c| c.steps.iter().map(|s| s.duration))
        .sum();
    RunReport {
        plugin: plugin.to_path_buf(),
        info,
        cases: reports,
        wall: start.elapsed(),
        invocations,
        jobs: options.jobs,
        seed: options.seed,
        peak_rss_bytes: crate::results::peak_rss_bytes(),
    }
}

fn not_run(case: &Case, reason: &str) -> CaseReport {
    report_shell(case, CaseOutcome::NotRun(reason.to_string()))
}

fn report_shell(case: &Case, outcome: CaseOutcome) -> CaseReport {
    CaseReport {
        id: case.id.clone(),
        title: case.title.clone(),
        spec: case.spec.clone(),
        capability: case.group().to_string(),
        severity: case.severity,
        outcome,
        note: None,
        duration: Duration::ZERO,
        steps: Vec::new(),
        sandbox: None,
    }
}

impl Run<'_> {
    /// Runs cases on `jobs` threads; results land in their suite slots. A
    /// round trip over several inputs is split into units, one per input,
    /// which the pool schedules like cases, so that no long property holds
    /// the wall while the other workers idle; its units are merged back into
    /// one case in input order.
    fn parallel(&self, cases: &[&Case]) -> Vec<CaseReport> {
        let units: Vec<usize> = cases.iter().map(|c| self.units(c)).collect();
        let slots: Vec<Mutex<Vec<Option<Finished>>>> = units
            .iter()
            .map(|&n| Mutex::new((0..n.max(1)).map(|_| None).collect()))
            .collect();
        let remaining: Vec<AtomicUsize> = units.iter().map(|&n| AtomicUsize::new(n)).collect();
        // The longest work first, so that no worker is left with a long case
        // at the end while the others idle; the report keeps suite order.
        let mut tasks: Vec<(usize, Option<usize>)> = Vec::new();
        for (i, &n) in units.iter().enumerate() {
            match n {
                0 => tasks.push((i, None)),
                n => tasks.extend((0..n).map(|u| (i, Some(u)))),
            }
        }
        tasks.sort_by_key(|&(i, _)| std::cmp::Reverse(self.weight(cases[i]) / units[i].max(1)));
        let next = AtomicUsize::new(0);
        let workers = self.options.jobs.clamp(1, tasks.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| {
                    loop {
                        let n = next.fetch_add(1, Ordering::SeqCst);
                        let Some(&(i, unit)) = tasks.get(n) else {
                            break;
                        };
                        let finished = self.case(cases[i], unit, &remaining[i]);
                        if let Ok(mut slot) = slots[i].lock() {
                            slot[unit.unwrap_or(0)] = Some(finished);
                        }
                    }
                });
            }
        });
        slots
            .into_iter()
            .zip(cases)
            .map(|(slot, case)| {
                let parts: Option<Vec<Finished>> =
                    slot.into_inner().ok().and_then(|v| v.into_iter().collect());
                match parts {
                    Some(mut parts) if parts.len() == 1 => parts.remove(0).report,
                    Some(parts) => self.merge_units(case, parts),
                    None => not_run(case, "the worker running this case stopped"),
                }
            })
            .collect()
    }

    /// How many units a case is split into: one per input of a round trip
    /// over several inputs; 0 (not split) for everything else.
    fn units(&self, case: &Case) -> usize {
        match self.round_trip(case) {
            Some(trip) if trip.inputs.len() > 1 => trip.inputs.len(),
            _ => 0,
        }
    }

    /// The units of a split round trip as one case: their invocations in
    /// input order, the rules that span inputs judged on all of them.
    fn merge_units(&self, case: &Case, parts: Vec<Finished>) -> CaseReport {
        let stopped = parts.iter().find_map(|p| match &p.report.outcome {
            CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_) => Some(p.report.clone()),
            _ => None,
        });
        let mut tally = roundtrip::Tally::default();
        let mut verdict = roundtrip::Verdict::default();
        let mut merged = report_shell(case, CaseOutcome::Passed);
        for part in parts {
            tally.add(&part.tally.unwrap_or_default());
            verdict.steps.extend(part.report.steps);
            merged.duration += part.report.duration;
            merged.note = merged.note.or(part.report.note);
            merged.sandbox = merged.sandbox.or(part.report.sandbox);
        }
        if let Some(trip) = self.round_trip(case) {
            roundtrip::judge(&trip.as_inputs(), &tally, &mut verdict);
        }
        merged.note = merged.note.or(verdict.note);
        merged.steps = verdict.steps;
        merged.steps.iter_mut().for_each(|r| downgrade(case, r));
        merged.outcome = match (worst(&merged.steps), stopped) {
            (CaseOutcome::Failed, _) | (_, None) => worst(&merged.steps),
            (_, Some(report)) => report.outcome,
        };
        merged
    }

    /// About how many invocations a case makes, to schedule the long ones
    /// first: a round trip makes several, a `for_each` step one per item, a
    /// `for_each_transcript` case its steps once per transcript.
    fn weight(&self, case: &Case) -> usize {
        let steps: usize = case
            .steps
            .iter()
            .map(|step| match &step.value.for_each {
                Some(pointer) => self
                    .info
                    .pointer(pointer)
                    .and_then(Value::as_array)
                    .map_or(1, Vec::len),
                None => 1,
            })
            .sum();
        let passes = match case.for_each_transcript {
            Some(_) => 1 + self.samples.len(),
            None => 1,
        };
        let property = match case.property {
            Some(_) => 8,
            None => 0,
        };
        property + steps * passes
    }

    /// Runs one case, or one unit of it, telling the progress line (a split
    /// case counts once: when its last unit ends). `remaining` counts the
    /// case's units still to finish.
    fn case(&self, case: &Case, unit: Option<usize>, remaining: &AtomicUsize) -> Finished {
        self.progress.started(&case.id);
        let finished = self.run_case(case, unit);
        self.breaker
            .finished(&case.id, finished.report.outcome == CaseOutcome::Failed);
        if unit.is_none() || remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.progress.finished(&case.id);
        }
        finished
    }

    /// Runs one case (or one unit of a split round trip); returns its report,
    /// the last step's stdout JSON and the unit's tally.
    fn run_case(&self, case: &Case, unit: Option<usize>) -> Finished {
        let start = Instant::now();
        let stopped = |outcome| Finished {
            report: report_shell(case, outcome),
            json: None,
            tally: None,
        };
        if let Some(cap) = &case.capability
            && self.info.pointer(&format!("/capabilities/{cap}")) != Some(&Value::Bool(true))
        {
            let reason = format!("capability {cap} is not declared in info");
            return stopped(CaseOutcome::Skipped(reason));
        }
        if let Some(reason) = self.breaker.stopped() {
            return stopped(CaseOutcome::NotRun(reason));
        }
        let mut sandbox =
            match Sandbox::create(&sandbox_prefix(&case.id), &self.options.sandbox_base) {
                Ok(sandbox) => sandbox,
                Err(err) => {
                    let reason = format!("could not create a sandbox: {err}");
                    return stopped(CaseOutcome::NotRun(reason));
                }
            };
        if self.options.confine
            && let Err(err) = sandbox.confine()
        {
            let reason = format!("could not confine the plugin: {err} (--no-confine runs without)");
            return stopped(CaseOutcome::NotRun(reason));
        }
        let mut state = CaseState {
            unit,
            ..CaseState::default()
        };
        let (mut outcome, note) = self.steps(case, &sandbox, &mut state);
        if let Some(report) = strays(case, &sandbox) {
            state.reports.push(report);
            outcome = worst(&state.reports);
        }
        let mut report = report_shell(case, outcome);
        report.note = note;
        report.steps = state.reports;
        if keep_sandbox(&report.outcome, state.cut.is_some()) || self.options.keep_temp {
            save_stdin(&state.stdin_files);
            repro::keep(sandbox.root(), &case.id, &mut report.steps);
            sandbox.keep();
            report.sandbox = Some(sandbox.root().to_path_buf());
        }
        repro::release(&mut report.steps);
        report.duration = start.elapsed();
        self.reaper.dispose(sandbox);
        Finished {
            report,
            json: state.last_json,
            tally: state.tally,
        }
    }

    fn steps(
        &self,
        case: &Case,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> (CaseOutcome, Option<String>) {
        if let Some(each) = &case.for_each_transcript {
            return self.transcript_passes(case, each, sandbox, state);
        }
        if let Err(reason) = self.write_files(case, sandbox, state) {
            return (CaseOutcome::NotRun(reason), None);
        }
        let mut note = None;
        if let Some(property) = &case.property {
            match self.property(case, property, sandbox, state) {
                Ok(n) => note = n,
                Err(skip) => return (CaseOutcome::Skipped(skip), None),
            }
            if worst(&state.reports) == CaseOutcome::Failed || state.cut.is_some() {
                return (conclude(state), note);
            }
        }
        for index in 0..case.steps.len() {
            match self.step(case, index, sandbox, state) {
                StepEnd::Continue => {}
                StepEnd::Stop => break,
                StepEnd::Refused(outcome, note) => {
                    let finding = match outcome {
                        RefusalOutcome::Pass => None,
                        RefusalOutcome::Warning => Some(Finding::warning(note.clone())),
                        RefusalOutcome::Note => Some(Finding::note(note.clone())),
                    };
                    if let (Some(mut finding), Some(last)) = (finding, state.reports.last_mut()) {
                        finding.cap(case.severity);
                        last.findings.push(finding);
                    }
                    return (worst(&state.reports), Some(note));
                }
            }
        }
        (conclude(state), note)
    }

    /// Runs the steps once per transcript: the generic one, then each of the
    /// plugin's own samples, each pass with its own `{{tmp}}` and captures.
    fn transcript_passes(
        &self,
        case: &Case,
        each: &EachTranscript,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> (CaseOutcome, Option<String>) {
        let generic = self
            .fixtures
            .get(&each.generic)
            .cloned()
            .unwrap_or_default();
        let mut passes = vec![(None, file_name(&each.generic), generic)];
        passes.extend(
            self.samples
                .iter()
                .map(|s| (Some(s.name.clone()), file_name(&s.name), s.bytes.clone())),
        );
        let mut note = None;
        for (number, (sample, name, bytes)) in passes.into_iter().enumerate() {
            let tmp = sandbox.work().join(format!("transcript-{}", number + 1));
            let written = std::fs::create_dir_all(&tmp)
                .and_then(|()| std::fs::write(tmp.join(&name), &bytes))
                .map_err(|e| format!("cannot write the transcript into {}: {e}", tmp.display()));
            let generic = sample.is_none();
            state.pass = Some(Pass {
                number: number + 1,
                sample,
                name,
                bytes,
                tmp,
            });
            state.captures.clear();
            state.stdouts.clear();
            if let Err(reason) = written.and_then(|()| self.write_files(case, sandbox, state)) {
                return (CaseOutcome::NotRun(reason), None);
            }
            let refused = self.pass_steps(case, sandbox, state);
            if state.cut.is_some() {
                break;
            }
            if generic && let Some(step) = refused {
                note = Some(self.generic_refused(case, each, &step, state));
            }
        }
        state.pass = None;
        (conclude(state), note)
    }

    /// Runs the steps of one pass; returns the step at which the plugin
    /// refused the transcript, if it did.
    fn pass_steps(&self, case: &Case, sandbox: &Sandbox, state: &mut CaseState) -> Option<String> {
        for index in 0..case.steps.len() {
            match self.step(case, index, sandbox, state) {
                StepEnd::Continue => {}
                StepEnd::Stop => return None,
                StepEnd::Refused(..) => return Some(case.step_name(index)),
            }
        }
        None
    }

    /// The plugin refused the generic transcript, which the host never sends
    /// it: with samples, only a note on the case; without, the capability is
    /// unverified, which the case reports at `each.unverified`.
    fn generic_refused(
        &self,
        case: &Case,
        each: &EachTranscript,
        step: &str,
        state: &mut CaseState,
    ) -> String {
        if !self.samples.is_empty() {
            return format!(
                "the plugin refused the generic transcript {} at {step} (another agent's format, \
                 which the host never sends it); its own samples were checked instead",
                each.generic
            );
        }
        let said = state
            .reports
            .last()
            .and_then(|r| r.stderr_excerpt.lines().find(|l| !l.trim().is_empty()))
            .map(|l| format!(" (\"{}\")", l.trim()))
            .unwrap_or_default();
        let message = format!(
            "the plugin refused the generic transcript {} at {step}{said} (another agent's \
             format, or a subcommand that does not work) and names no sample transcript of its \
             own, so {}, which info declares, is unverified; name one in a --cases file: \
             `transcripts: [samples/<a transcript of yours>]`",
            each.generic,
            case.group()
        );
        let mut finding = Finding {
            severity: each.unverified,
            ..Finding::failure(message.clone())
        };
        finding.cap(case.severity);
        if let Some(last) = state.reports.last_mut() {
            last.findings.push(finding);
        }
        message
    }

    /// Runs a property; `Err` skips the case with the reason.
    fn property(
        &self,
        case: &Case,
        property: &Property,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Result<Option<String>, String> {
        let seed = self.options.seed;
        let mut count = 0;
        let stdin_files = &mut state.stdin_files;
        let mut invoke = |call: roundtrip::Call| {
            count += 1;
            self.run_raw(&case.id, sandbox, call, count, stdin_files)
        };
        if let Property::LargeRoundTrip { mib, max_sizes } = property {
            let verdict = roundtrip::large(*mib, max_sizes, seed, &mut invoke);
            return Ok(self.record(case, verdict, state));
        }
        let Some(trip) = self.round_trip(case) else {
            return Err("no sample transcripts of the plugin's own: name them with \
                 `transcripts:` in a --cases file"
                .to_string());
        };
        let inputs = trip.as_inputs();
        let verdict = match state.unit {
            None => roundtrip::run(inputs, self.schemas, &mut invoke),
            Some(unit) => {
                let mut verdict = roundtrip::Verdict::default();
                let tally = roundtrip::run_input(
                    &inputs,
                    unit,
                    self.schemas,
                    &mut invoke,
                    &mut verdict.steps,
                );
                state.tally = Some(tally);
                verdict
            }
        };
        Ok(self.record(case, verdict, state))
    }

    /// The round trip of a case with a `round_trip` property, and its
    /// inputs; none for other cases, or when the corpus has no input (no
    /// sample of the plugin's own).
    fn round_trip<'c>(&self, case: &'c Case) -> Option<RoundTrip<'c>> {
        let Some(Property::RoundTrip {
            corpus,
            fixtures,
            max_sizes,
        }) = &case.property
        else {
            return None;
        };
        let seed = self.options.seed;
        let own = |shape, name: &str, bytes: &[u8]| {
            let input = Input {
                shape,
                bytes: bytes.to_vec(),
                max_sizes: Vec::new(),
            };
            (format!("{shape} {name}"), input)
        };
        let inputs: Vec<(String, Input)> = match corpus {
            RoundTripCorpus::Jsonl => labelled(generate::corpus(Corpus::Jsonl, seed), seed),
            RoundTripCorpus::Bytes => labelled(generate::corpus(Corpus::Bytes, seed), seed),
            RoundTripCorpus::Samples => self
                .samples
                .iter()
                .map(|s| own("sample", &s.name, &s.bytes))
                .collect(),
            RoundTripCorpus::Fixtures => fixtures
                .iter()
                .filter_map(|name| Some(own("fixture", name, self.fixtures.get(name)?)))
                .collect(),
        };
        (!inputs.is_empty()).then_some(RoundTrip {
            corpus: *corpus,
            inputs,
            max_sizes,
            seed,
            have_samples: !self.samples.is_empty(),
        })
    }

    /// Adds a property's invocations to the case; returns its note.
    fn record(
        &self,
        case: &Case,
        verdict: roundtrip::Verdict,
        state: &mut CaseState,
    ) -> Option<String> {
        for mut report in verdict.steps {
            if let Some(reason) = crate::breaker::refused_reason(&report) {
                state.cut.get_or_insert(reason);
                continue;
            }
            downgrade(case, &mut report);
            state.reports.push(report);
        }
        verdict.note
    }

    /// One invocation outside the YAML steps (properties): saves stdin,
    /// runs, and applies the host's universal rules.
    fn run_raw(
        &self,
        case_id: &str,
        sandbox: &Sandbox,
        call: roundtrip::Call,
        count: usize,
        stdin_files: &mut Vec<(PathBuf, runner::Bytes)>,
    ) -> (runner::Outcome, StepReport) {
        if let Some(reason) = self.breaker.refuse(&call.args) {
            return crate::breaker::refused_call(call.label, reason);
        }
        let file = sandbox.stdin_dir().join(format!("p{count}.stdin"));
        defer_stdin(stdin_files, &file, &call.stdin);
        let mut inv = self.invocation(sandbox, call.args, self.options.timeout);
        inv.stdin = Some(call.stdin);
        inv.stdout_limit = call.stdout_limit;
        inv.expect_stdout = call.expect_stdout;
        let outcome = runner::run(&inv);
        self.breaker
            .record(case_id, &inv.args, inv.timeout, &outcome);
        let mut report = step_report(call.label, &inv, &outcome, Some(&file));
        report.findings = checks::universal(inv.timeout.as_secs_f64(), &outcome);
        (outcome, report)
    }

    /// An invocation of the plugin in the sandbox, with the host's limits.
    fn invocation(&self, sandbox: &Sandbox, args: Vec<String>, timeout: Duration) -> Invocation {
        let mut inv = Invocation::new(self.plugin.to_path_buf(), args, sandbox.repo(), timeout);
        inv.env = sandbox.env();
        inv.env_remove = sandbox::env_remove();
        inv.confine = sandbox.confinement().cloned();
        inv
    }

    fn write_files(&self, case: &Case, sandbox: &Sandbox, state: &CaseState) -> Result<(), String> {
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

    fn bindings<'s>(
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
        Bindings {
            item,
            transcript,
            repo: sandbox.repo().display().to_string(),
            home: sandbox.home().display().to_string(),
            tmp,
            info: &self.info,
            captures: &state.captures,
            fixtures: self.fixtures,
        }
    }

    fn resolve(
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
        }
    }

    /// Runs step `index`: an action, one invocation, or one per element.
    fn step(&self, case: &Case, index: usize, sandbox: &Sandbox, state: &mut CaseState) -> StepEnd {
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
        for (n, item) in items.iter().enumerate() {
            match self.invoke(case, index, Some((n, item)), sandbox, state) {
                StepEnd::Continue => {}
                other => return other,
            }
        }
        StepEnd::Continue
    }

    /// Runs a harness action and records its findings as a step.
    fn action(
        &self,
        case: &Case,
        index: usize,
        action: &Action,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        let start = Instant::now();
        let findings = match action {
            Action::Snapshot(name) => {
                state.user.snapshot(name, sandbox);
                Vec::new()
            }
            Action::PlantProtectedDirs => state.user.plant_protected_dirs(&self.info, sandbox),
            Action::PlantUserData { since } => state.user.plant_since(since, sandbox),
            Action::VerifyUserData => state.user.verify(),
            Action::CheckLeftovers { since } => state.user.leftovers(since, sandbox),
            Action::RestartWithLearntFiles => state.user.restart_with_learnt(sandbox),
            Action::CheckFileName => discovery::check_file_name(self.plugin),
            Action::CheckInfoName => discovery::check_info_name(self.plugin, &self.info),
            Action::CheckNotBuiltIn => discovery::check_not_built_in(self.plugin),
        };
        let mut report = action_report(&case.step_name(index), findings);
        report.duration = start.elapsed();
        downgrade(case, &mut report);
        let failed = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        state.reports.push(report);
        if failed {
            StepEnd::Stop
        } else {
            StepEnd::Continue
        }
    }

    /// Runs the plugin once for step `index` (element `item` of a for_each).
    fn invoke(
        &self,
        case: &Case,
        index: usize,
        item: Option<(usize, &Value)>,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        let step = &case.steps[index].value;
        let base = case.step_name(index);
        let mut name = match item {
            Some((_, value)) => format!("{base} [{}]", crate::template::value_text(value)),
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
                return StepEnd::Stop;
            }
        };
        if let Some(reason) = self.breaker.refuse(&inv.args) {
            state.cut = Some(reason);
            return StepEnd::Stop;
        }
        let outcome = runner::run(&inv);
        self.breaker
            .record(&case.id, &inv.args, inv.timeout, &outcome);
        let bindings = self.bindings(sandbox, state, item.map(|(_, v)| v));
        let resolve = |s: &Source| self.resolve(s, &bindings, state);
        let ctx = StepContext {
            step,
            timeout_secs: inv.timeout.as_secs_f64(),
            schemas: self.schemas,
            bindings: &bindings,
            resolve: &resolve,
            severity: case.severity,
            capability: case.capability.as_deref(),
            refusable: state.pass.as_ref().is_some_and(|p| p.sample.is_none()),
        };
        let verdict = checks::check(&ctx, &outcome);
        let mut report = step_report(name, &inv, &outcome, stdin_file.as_deref());
        let end = match verdict {
            Verdict::Refused(refusal) => self.refusal(refusal),
            Verdict::Checked(findings, json) => {
                report.findings = findings;
                let captured = capture(step, json.as_ref(), &mut state.captures);
                report.findings.extend(captured);
                state.last_json = json;
                let failed = report
                    .findings
                    .iter()
                    .any(|f| f.severity == Severity::Failure);
                if failed {
                    StepEnd::Stop
                } else {
                    StepEnd::Continue
                }
            }
        };
        downgrade(case, &mut report);
        state.stdouts.insert(base, outcome.stdout);
        state.reports.push(report);
        end
    }

    /// The outcome of an accepted refusal, given the plugin's own samples.
    fn refusal(&self, refusal: crate::case::Refusal) -> StepEnd {
        match refusal.with_samples {
            Some(outcome) if !self.samples.is_empty() => StepEnd::Refused(
                outcome,
                format!(
                    "{}; its own sample transcripts are checked instead",
                    refusal.note
                ),
            ),
            _ => StepEnd::Refused(refusal.outcome, refusal.note),
        }
    }

    /// Builds the invocation of step `index` and saves its stdin to a file.
    fn prepare(
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
        let stdin = match &step.stdin {
            Some(source) => Some(self.resolve(source, &bindings, state)?),
            None => None,
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
        inv.stdin = stdin.map(Arc::new);
        Ok((inv, stdin_file))
    }
}

/// The report of one invocation, before its findings.
fn step_report(
    name: String,
    inv: &Invocation,
    outcome: &runner::Outcome,
    stdin_file: Option<&Path>,
) -> StepReport {
    StepReport {
        name,
        args: inv.args.clone(),
        command: repro::command_line(inv, stdin_file),
        replay: Some(repro::Replay::of(inv, stdin_file)),
        reproduce: None,
        printed: repro::Printed::of(outcome),
        exit_code: outcome.exit_code(),
        termination: termination_label(&outcome.termination).to_string(),
        duration: outcome.elapsed,
        stdout_bytes: outcome.stdout.len(),
        stderr_bytes: outcome.stderr.len(),
        stderr_excerpt: checks::excerpt(&outcome.stderr),
        findings: Vec::new(),
    }
}

/// Labels generated inputs with the seed and their shape.
fn labelled(inputs: Vec<Input>, seed: u64) -> Vec<(String, Input)> {
    inputs
        .into_iter()
        .map(|i| (format!("seed {seed}, {}", i.shape), i))
        .collect()
}

/// Adds a string field to a JSON object until it is `bytes` long. The
/// padding is spliced into the serialized text rather than serialized, which
/// keeps a 5 MiB payload cheap to build.
fn padded(value: &Value, bytes: usize) -> Result<Vec<u8>, String> {
    let Value::Object(map) = value else {
        return Err("padded_json needs a JSON object".to_string());
    };
    let mut map = map.clone();
    map.remove(PADDING_KEY);
    let text = Value::Object(map).to_string();
    let field = format!("\"{PADDING_KEY}\":\"");
    // `{` + the padding field + the rest of the object (its other fields).
    let rest = &text[1..];
    let separator = if rest == "}" { "" } else { "," };
    let fixed = 1 + field.len() + 1 + separator.len() + rest.len();
    let mut out = Vec::with_capacity(bytes.max(fixed));
    out.push(b'{');
    out.extend_from_slice(field.as_bytes());
    out.resize(out.len() + bytes.saturating_sub(fixed), b'x');
    out.push(b'"');
    out.extend_from_slice(separator.as_bytes());
    out.extend_from_slice(rest.as_bytes());
    Ok(out)
}

/// The field `padded_json` fills.
const PADDING_KEY: &str = "agent_conform_padding";

/// No finding of a case weighs more than the case's severity (a warning
/// case reports failures as warnings), except the hard ones: a timeout or a
/// flood breaks the host in every call.
fn downgrade(case: &Case, report: &mut StepReport) {
    for f in &mut report.findings {
        f.cap(case.severity);
    }
}

/// A failure when the plugin wrote outside the repository, HOME and TMPDIR
/// of its sandbox (through `../` from the repository, say): in every case,
/// since on a user's machine such a write changes files that are not the
/// plugin's.
fn strays(case: &Case, sandbox: &Sandbox) -> Option<StepReport> {
    let strays = sandbox.strays();
    if strays.is_empty() {
        return None;
    }
    let list: Vec<String> = strays.iter().map(|p| p.display().to_string()).collect();
    let reason = format!(
        "the plugin wrote outside its repository, HOME and TMPDIR: {}",
        list.join(", ")
    );
    let mut report = action_report("sandbox check", vec![Finding::hard(reason)]);
    downgrade(case, &mut report);
    Some(report)
}

/// Remembers a step's stdin for its reproduce command. Stdin up to 8 MiB
/// (the 5 MiB hostile payloads included) is kept in memory and written only
/// if the sandbox is kept: most cases pass, and writing their stdin would
/// cost more than running them. Larger stdin (the opt-in large transcripts)
/// is written at once, so that memory never holds one longer than its
/// invocation needs it.
fn defer_stdin(files: &mut Vec<(PathBuf, runner::Bytes)>, path: &Path, bytes: &runner::Bytes) {
    const KEEP_IN_MEMORY: usize = 8 << 20;
    if bytes.len() <= KEEP_IN_MEMORY {
        files.push((path.to_path_buf(), bytes.clone()));
    } else {
        let _ = std::fs::write(path, bytes.as_slice());
    }
}

/// Writes the saved stdin of each step into the sandbox, for the reproduce
/// commands of a kept sandbox. A case that passes and is deleted never pays
/// for these writes.
fn save_stdin(files: &[(PathBuf, runner::Bytes)]) {
    for (path, bytes) in files {
        let _ = std::fs::write(path, bytes.as_slice());
    }
}

/// What one case (or one unit of a split round trip) leaves behind.
struct Finished {
    report: CaseReport,
    /// The last step's stdout JSON (the gate's is the plugin's `info`).
    json: Option<Value>,
    /// A unit's tally, for the rules that span the inputs of its case.
    tally: Option<roundtrip::Tally>,
}

/// A round trip's inputs, owned, with what the round trip needs to judge.
struct RoundTrip<'a> {
    corpus: RoundTripCorpus,
    inputs: Vec<(String, Input)>,
    max_sizes: &'a [usize],
    seed: u64,
    have_samples: bool,
}

impl RoundTrip<'_> {
    fn as_inputs(&self) -> roundtrip::Inputs<'_> {
        roundtrip::Inputs {
            corpus: self.corpus,
            inputs: &self.inputs,
            max_sizes: self.max_sizes,
            seed: self.seed,
            have_samples: self.have_samples,
        }
    }
}

/// The transcript of one pass of a `for_each_transcript` case.
struct Pass {
    /// 1 for the generic transcript, then one per sample.
    number: usize,
    /// The sample's path; none for the generic transcript.
    sample: Option<String>,
    /// The file name (`{{transcript_name}}`).
    name: String,
    /// Its bytes (`current_transcript`).
    bytes: Arc<[u8]>,
    /// The pass's own scratch directory (`{{tmp}}`), where the transcript
    /// is written, so that passes do not see each other's files.
    tmp: PathBuf,
}

/// The last component of a display path.
fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

/// What the case keeps between steps.
#[derive(Default)]
struct CaseState {
    /// The unit of a split round trip this run is (its input's index).
    unit: Option<usize>,
    /// That unit's tally.
    tally: Option<roundtrip::Tally>,
    /// The current transcript of a `for_each_transcript` case.
    pass: Option<Pass>,
    /// Where each step's stdin goes if the sandbox is kept, and the bytes.
    stdin_files: Vec<(PathBuf, runner::Bytes)>,
    user: UserData,
    captures: BTreeMap<String, Value>,
    stdouts: BTreeMap<String, Vec<u8>>,
    reports: Vec<StepReport>,
    last_json: Option<Value>,
    /// Why the case stopped before a call the breaker refused.
    cut: Option<String>,
}

enum StepEnd {
    Continue,
    Stop,
    Refused(RefusalOutcome, String),
}

/// Stores the step's captures; a missing value is a failure of the step.
fn capture(
    step: &crate::case::Step,
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

/// The case's outcome: its findings', or not run when the breaker stopped it
/// before anything failed.
fn conclude(state: &CaseState) -> CaseOutcome {
    match (worst(&state.reports), &state.cut) {
        (CaseOutcome::Failed, _) | (_, None) => worst(&state.reports),
        (_, Some(reason)) => CaseOutcome::NotRun(format!("not run: {reason}")),
    }
}

/// A sandbox is kept when its case did not pass, unless the breaker stopped
/// the case: it then holds nothing to look at.
fn keep_sandbox(outcome: &CaseOutcome, cut: bool) -> bool {
    match outcome {
        CaseOutcome::Passed => false,
        CaseOutcome::NotRun(_) => !cut,
        _ => true,
    }
}

/// The outcome implied by the findings so far (already capped at the
/// case's severity by [`downgrade`]).
fn worst(reports: &[StepReport]) -> CaseOutcome {
    let heaviest = reports
        .iter()
        .flat_map(|r| &r.findings)
        .map(|f| f.severity)
        .max();
    match heaviest {
        None => CaseOutcome::Passed,
        Some(Severity::Note) => CaseOutcome::Note,
        Some(Severity::Warning) => CaseOutcome::Warning,
        Some(Severity::Failure) => CaseOutcome::Failed,
    }
}

/// The report of a harness action (no invocation).
fn action_report(name: &str, findings: Vec<Finding>) -> StepReport {
    StepReport {
        name: name.to_string(),
        args: Vec::new(),
        command: String::new(),
        replay: None,
        reproduce: None,
        printed: None,
        exit_code: None,
        termination: "action".to_string(),
        duration: Duration::ZERO,
        stdout_bytes: 0,
        stderr_bytes: 0,
        stderr_excerpt: String::new(),
        findings,
    }
}

/// The report of a step whose invocation could not be prepared.
fn setup_failure(name: &str, args: &[String], reason: String) -> StepReport {
    let finding = Finding::failure(format!("could not prepare the invocation: {reason}"));
    StepReport {
        args: args.to_vec(),
        termination: "not-started".to_string(),
        ..action_report(name, vec![finding])
    }
}

fn termination_label(t: &Termination) -> &'static str {
    match t {
        Termination::Exited(Some(_)) => "exited",
        Termination::Exited(None) => "signal",
        Termination::TimedOut => "timed-out",
        Termination::SpawnFailed(_) => "not-started",
    }
}

/// A file-name-safe prefix for a case's sandbox directory.
fn sandbox_prefix(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '-'
            }
        })
        .take(40)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::padded;

    #[test]
    fn padded_json_has_the_exact_size_and_stays_valid() {
        for value in [
            serde_json::json!({}),
            serde_json::json!({"session_id": "s", "n": [1, 2]}),
        ] {
            let bytes = padded(&value, 4096).unwrap();
            assert_eq!(bytes.len(), 4096);
            let parsed: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            for (k, v) in value.as_object().unwrap() {
                assert_eq!(&parsed[k], v);
            }
        }
    }
}
