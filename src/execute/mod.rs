//! Executes a suite against one plugin: the gate first (`info`, as the host's
//! discovery does), then every case in its own sandbox, in parallel, with
//! results kept in suite order.
//!
//! This file runs and concludes one case (its sandbox, its outcome, the
//! sandbox kept or not); `schedule` puts the cases on the job pool (units
//! of a split round trip, the longest first), `step` runs one step of a
//! case, `transcripts` the passes of a `for_each_transcript` case,
//! `property` the round trips, and `long_lines` the analysis asked again of a
//! transcript with long lines. Each adds its own `impl Run` to the one
//! `Run` defined here.
//!
//! Several plugins in one run: [`many`] schedules their cases on one pool of
//! workers, each plugin with its own `Run`; [`conflicts`] checks what they
//! break for each other when installed together.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::execute::breaker::Breaker;
use crate::judge::checks::Finding;
use crate::judge::roundtrip;
use crate::judge::userdata::UserData;
use crate::outcome::kept;
use crate::outcome::results::{CaseOutcome, CaseReport, RunReport, StepReport};
use crate::report::progress::Progress;
use crate::running::depot::Depot;
use crate::running::runner;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Fixtures, RefusalOutcome, RoundTripCorpus, Sample, Suite};
use crate::suite::generate::Input;
use crate::suite::schema::Schemas;

mod actions;
mod answers;
pub mod breaker;
pub mod conflicts;
pub mod discover;
mod explore;
mod fold;
pub mod host_replay;
mod hosts;
mod late_stdin;
mod lived;
mod long_lines;
pub mod many;
mod newest;
mod own_id;
mod own_samples;
mod padded;
mod pool;
mod project;
mod property;
mod reach;
mod schedule;
mod session;
mod start;
mod step;
mod transcripts;
pub mod worlds;

use hosts::{outside, within};
use start::{run_report, sandbox_prefix};
use step::action_report;

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
    /// The host releases judged (`--host-version`).
    pub hosts: crate::host::range::HostRange,
    /// Confine the plugin's writes to its sandbox (see [`crate::running::confine`]).
    pub confine: bool,
    /// The largest file a plugin call may write, and the most its sandbox
    /// may hold, in bytes (`--max-write`; see [`crate::running::bounds`]).
    pub max_write: u64,
    /// Weigh protocol-only findings (a rule on a call the host never makes
    /// or an input it never sends) as warnings rather than notes
    /// (`--pedantic`; see [`crate::host::protocol_only`]).
    pub pedantic: bool,
    /// The world of every case: the covering design over the suite as
    /// loaded, or `--world` ([`worlds`]; empty: made over the run's cases).
    pub worlds: crate::suite::worlds::Design,
    /// More worlds to sample from the seed after the design's
    /// (`--explore N`, [`explore`]).
    pub explore: usize,
}

/// Shared, read-only state of a run.
struct Run<'a> {
    progress: &'a dyn Progress,
    /// Makes sandboxes ahead of the cases, and deletes them after.
    depot: Depot,
    plugin: &'a Path,
    samples: &'a [Sample],
    /// The files that are the plugin's alone (`own_files:`).
    own_files: &'a [String],
    /// The plugin's recorded agent session, if its cases have one.
    recording: Option<&'a crate::suite::case::Recording>,
    schemas: &'a Schemas,
    fixtures: &'a Fixtures,
    options: &'a Options,
    info: Value,
    /// How long the gate's `info` took (a fresh process, as the host probes).
    info_elapsed: Duration,
    /// Timed-out subcommands and `--fail-fast` (see [`crate::execute::breaker`]).
    breaker: Breaker,
    /// The generated round-trip inputs, made once.
    corpora: &'a property::Corpora,
    /// This plugin's own samples as round-trip inputs, made once.
    own_samples: property::OwnSamples,
    /// What the host can reach of this plugin, known after the gate.
    reach: crate::host::reach::Reach,
    /// How the plugin answers a subcommand that cannot exist, asked once
    /// after the gate ([`crate::host::reach::Unknown`]).
    unknown: Option<crate::host::reach::Unknown>,
    /// Variables set for every invocation (`env:` of the case files).
    env: &'a BTreeMap<String, String>,
    /// The calls made outside the cases' steps (the probes after the gate,
    /// and the harness's own calls inside actions): they count in the
    /// report's calls as much as a step's ([`Run::spawn`]).
    off_steps: std::sync::atomic::AtomicUsize,
    /// The gate's answers and sandbox, for the cases that begin as it does
    /// ([`Case::seed_key`]).
    seed: std::sync::Mutex<Option<(String, Group)>>,
    /// The world of each case ([`worlds`]).
    worlds: worlds::Worlds,
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
    crate::running::bounds::become_subreaper();
    let corpora = property::Corpora::new(options.seed);
    let mut run = Run::new(plugin, suite, schemas, options, progress, &corpora);
    let (gates, cases): (Vec<&Case>, Vec<&Case>) = suite.cases.iter().partition(|c| c.gate);
    let mut gated = (Vec::new(), None);
    std::thread::scope(|scope| {
        scope.spawn(|| corpora.warm(&suite.cases));
        gated = run.gates(&gates);
    });
    let (mut reports, blocked) = gated;
    let rest = match blocked {
        Some(reason) => cases.iter().map(|c| not_run(c, &reason)).collect(),
        None => {
            run.reach = run.probe_reach();
            run.unknown = run.probe_unknown();
            run.parallel(&cases)
        }
    };
    reports.extend(rest);
    let explored = run.explore(options.explore, &cases, &mut reports);
    run.shrink(&cases, &mut reports);
    fold::fold(&mut reports);
    run.progress.done();
    run.drop_seed();
    let info = run.info_value();
    let off_steps = run.calls_off_steps();
    run.depot.finish();
    sweep_processes();
    let mut report = run_report(
        plugin,
        info,
        options,
        &suite.cases,
        reports,
        start.elapsed(),
        off_steps,
    );
    report.explored = (options.explore > 0).then_some(crate::outcome::results::Explored {
        worlds: options.explore,
        found: explored,
    });
    report
}

/// Why a case that runs where the agent is installed is skipped when no
/// case file describes the agent so (`installed: true`, no `agent:`).
const WORLD_MISSING: &str = "not verified: no case file describes the agent as installed; add \
     `agent:` to yours (the files the agent itself creates under {{home}} and {{repo}}, the \
     variables it sets), or let `agent-conform record` write it";

/// Kills whatever of the run's plugin calls is still alive (each call's
/// leftovers were killed when it returned; this is the last look), and says
/// so on stderr.
fn sweep_processes() {
    let left = crate::running::bounds::sweep();
    if left.is_empty() {
        return;
    }
    let commands: Vec<String> = left.iter().map(|l| format!("`{}`", l.command)).collect();
    eprintln!(
        "agent-conform: killed {} process(es) the plugin left running at the end of the run: {}",
        left.len(),
        commands.join(", ")
    );
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
        host_calls: Vec::new(),
        world: Vec::new(),
        shrunk: None,
        timeline: case.id.starts_with("session."),
        unverified: None,
        refused_guess: false,
        ran: Vec::new(),
    }
}

impl Run<'_> {
    /// Runs one case, or one unit of it, telling the progress line (a split
    /// case counts once: when its last unit ends). `task` is its place in
    /// the depot's plan; `remaining` counts the case's units still to finish.
    fn case(
        &self,
        case: &Case,
        unit: Option<usize>,
        task: Option<usize>,
        remaining: &AtomicUsize,
        group: Option<&mut Group>,
    ) -> Finished {
        self.progress.started(&case.id);
        let finished = self.run_case(case, unit, task, group);
        self.breaker
            .finished(&case.id, finished.report.outcome == CaseOutcome::Failed);
        if unit.is_none() || remaining.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.progress.finished(&case.id);
        }
        finished
    }

    /// The key of the cases `case` may share a sandbox and answers with
    /// ([`Case::share_key`]): those that begin the same way in the same
    /// world.
    fn share_key(&self, case: &Case) -> Option<String> {
        let axes = crate::suite::worlds::Axes::embedded();
        let suffix = self.worlds.share_suffix(axes, case);
        case.share_key().map(|key| key + &suffix)
    }

    /// The sandbox setting of the world `case` runs in.
    fn setting(&self, case: &Case) -> crate::running::sandbox::Setting {
        let axes = crate::suite::worlds::Axes::embedded();
        worlds::setting(axes, &self.worlds.of(axes, case))
    }

    /// Whether the capability the case needs (if any) is declared in `info`.
    fn declared(&self, case: &Case) -> bool {
        case.capability.as_ref().is_none_or(|cap| {
            self.info.pointer(&format!("/capabilities/{cap}")) == Some(&Value::Bool(true))
        })
    }

    /// Runs one case (or one unit of a split round trip); returns its report,
    /// the last step's stdout JSON and the unit's tally. A case of a
    /// `group` runs in the group's sandbox, renewed, and shares its answers
    /// (see [`answers`]); it leaves the sandbox to the next one unless it
    /// keeps it.
    fn run_case(
        &self,
        case: &Case,
        unit: Option<usize>,
        task: Option<usize>,
        mut group: Option<&mut Group>,
    ) -> Finished {
        crate::running::interrupt::hold_if_interrupted();
        let start = Instant::now();
        let stopped = |outcome| Finished {
            report: report_shell(case, outcome),
            json: None,
            tally: None,
        };
        if let Some(cap) = case.capability.as_ref().filter(|_| !self.declared(case)) {
            let reason = format!("capability {cap} is not declared in info");
            return stopped(CaseOutcome::Skipped(reason));
        }
        if let Some(reason) = reach::pedantic_only(case).filter(|_| !self.options.pedantic) {
            return stopped(CaseOutcome::Skipped(reason));
        }
        if case.world_missing {
            return stopped(CaseOutcome::Skipped(WORLD_MISSING.to_string()));
        }
        if let Some(reason) = self.breaker.stopped() {
            return stopped(CaseOutcome::NotRun(reason));
        }
        let scope = hosts::case_scope(&self.options.hosts, case);
        if let Some(reason) = scope.as_ref().and_then(|s| outside(case, s)) {
            return stopped(CaseOutcome::Skipped(reason));
        }
        let held = group.as_mut().and_then(|g| g.sandbox.take());
        let taken = match held.map(|s| s.renew().map(|()| s)) {
            Some(Ok(sandbox)) => Ok(sandbox),
            _ => self.depot.take(
                task,
                &sandbox_prefix(&case.id),
                case.work_tree,
                &self.setting(case),
            ),
        };
        let mut sandbox = match taken {
            Ok(sandbox) => sandbox,
            Err(reason) => return stopped(CaseOutcome::NotRun(reason)),
        };
        let mut state = CaseState {
            unit,
            answers: group.as_ref().map(|g| g.answers.clone()),
            ..CaseState::default()
        };
        state.user.set_own_files(self.own_files, &sandbox);
        let (mut outcome, note) = self.steps(case, &sandbox, &mut state);
        if let Some(report) = strays(case, &sandbox) {
            state.reports.push(report);
            outcome = CaseOutcome::of(&state.reports);
        }
        reach::weigh_by_reach(self.reach, case, &mut state.reports);
        reach::weigh_protocol_only(self.options.pedantic, case, &mut state.reports);
        reach::weigh_not_verified(&mut state.reports);
        if matches!(outcome, CaseOutcome::Failed | CaseOutcome::Warning) {
            outcome = CaseOutcome::of(&state.reports);
        }
        if let Some(scope) = &scope {
            within(case, scope, &mut state.reports);
            if !matches!(outcome, CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_)) {
                outcome = CaseOutcome::of(&state.reports);
            }
        }
        let refused_guess = case.guess && guess_refused(&mut outcome, &mut state.reports);
        let mut report = report_shell(case, outcome);
        report.world = sandbox_world(self, case);
        report.refused_guess = refused_guess;
        report.note = note;
        report.unverified = state.unverified.take();
        report.steps = state.reports;
        report.host_calls = sandbox.host_calls().iter().map(|c| c.command()).collect();
        // A unit that refused an input keeps its sandbox: the rules across
        // inputs may speak at its step once the units are merged.
        let refused = state.tally.as_ref().is_some_and(|t| !t.refused.is_empty());
        let keep = keep_sandbox(&report.outcome, state.cut.is_some()) || refused;
        // Writing into the sandbox is an entry: an interrupted run deletes
        // its sandboxes, and nothing may write one back (crate::running::interrupt).
        let entry = (keep || self.options.keep_temp)
            .then(crate::running::interrupt::Entry::enter)
            .flatten();
        if let Some(_entry) = entry {
            save_stdin(&state.stdin_files);
            // The sandbox as each call found it, for the script to lay
            // down; without the copies, the script says it runs as left.
            let written = sandbox.write_states(&kept::states(&report.steps));
            kept::keep_states(&mut report.steps, &written.unwrap_or_default());
            kept::keep(sandbox.root(), &case.id, &mut report.steps);
            sandbox.keep();
            report.sandbox = Some(sandbox.root().to_path_buf());
        }
        kept::release(&mut report.steps);
        report.duration = start.elapsed();
        report.ran = vec![(start, Instant::now())];
        match group {
            Some(group) if report.sandbox.is_none() && !self.options.keep_temp => {
                group.sandbox = Some(sandbox);
            }
            _ => self.depot.dispose(sandbox),
        }
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
        if case.replay.is_some() {
            return self.host_session(case, sandbox, state);
        }
        let mut note = None;
        if let Some(property) = &case.property {
            match self.property(case, property, sandbox, state) {
                Ok(n) => note = n,
                Err(skip) => return (CaseOutcome::Skipped(skip), None),
            }
            if CaseOutcome::of(&state.reports) == CaseOutcome::Failed || state.cut.is_some() {
                return (conclude(state), note);
            }
        }
        for index in 0..case.steps.len() {
            match self.step(case, index, sandbox, state) {
                StepEnd::Continue => {}
                StepEnd::Stop => break,
                StepEnd::Refused(RefusalOutcome::Skip, note, None)
                    if CaseOutcome::of(&state.reports) == CaseOutcome::Passed =>
                {
                    return (CaseOutcome::Skipped(note), None);
                }
                StepEnd::Refused(outcome, note, variable) => {
                    let refused = refused(outcome, &note, variable).map(Finding::noted);
                    refusal_finding(case, state, refused);
                    return (CaseOutcome::of(&state.reports), Some(note));
                }
            }
        }
        (conclude(state), note)
    }
}

/// A case whose sample is the scaffold's guess (`guess: true`) and did not
/// pass: its findings become notes (the plugin refused another agent's
/// payload, which the host never sends it) and the case a note, which the
/// run folds into one line (`fold`). A hard finding (a hang, a flood) stays
/// what it is: no payload excuses it. Returns whether it was refused.
fn guess_refused(outcome: &mut CaseOutcome, reports: &mut [StepReport]) -> bool {
    if !matches!(
        outcome,
        CaseOutcome::Failed | CaseOutcome::Warning | CaseOutcome::Note
    ) {
        return false;
    }
    for f in reports.iter_mut().flat_map(|r| &mut r.findings) {
        f.cap(crate::host::Severity::Note);
    }
    *outcome = CaseOutcome::of(reports);
    *outcome == CaseOutcome::Note
}

/// An accepted refusal's finding (none for `pass`): a refusal for want of
/// a variable the agent sets is of kind [`crate::outcome::Kind::AgentVariable`],
/// about that variable, which the run says once (`fold`).
fn refused(outcome: RefusalOutcome, note: &str, variable: Option<String>) -> Option<Finding> {
    // An accepted refusal rests on our input (a generic payload or
    // transcript, a sandbox without the agent's store): an assumption.
    let finding = match outcome {
        RefusalOutcome::Pass | RefusalOutcome::Skip => return None,
        RefusalOutcome::Warning => Finding::warning(note),
        RefusalOutcome::Note => Finding::note(note),
    }
    .rests_on(crate::outcome::finding::Evidence::Assumption);
    Some(match variable {
        Some(variable) => finding
            .kind(crate::outcome::Kind::AgentVariable)
            .with_subject(variable),
        None => finding,
    })
}

/// An accepted refusal's finding, if any, on the refused step.
fn refusal_finding(case: &Case, state: &mut CaseState, finding: Option<Finding>) {
    if let (Some(mut finding), Some(last)) = (finding, state.reports.last_mut()) {
        finding.cap(case.severity);
        last.findings.push(finding);
    }
}

/// Settles the step's findings with what its input rests on (an
/// assumption alone never fails: [`StepReport::settle`]), then no finding
/// of a case weighs more than the case's severity (a warning case reports
/// failures as warnings), except the hard ones: a timeout or a flood breaks
/// the host in every call.
fn downgrade(case: &Case, report: &mut StepReport) {
    report.settle();
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
    let found = Finding::hard(reason).kind(crate::outcome::Kind::EscapedSandbox);
    let mut report = action_report("sandbox check", vec![found]);
    reach::soften_provoked(case, &mut report);
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

/// Where the workers leave a case's units as they finish.
type Slot = Mutex<Vec<Option<Finished>>>;

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
    /// Its bytes (`current_transcript`), shared with the stdin that sends
    /// them (a lengthened transcript is 9 MiB: one copy, not three).
    bytes: runner::Bytes,
    /// Where a checkpoint's fragment of it starts (`{{fragment_start}}`,
    /// [`crate::host::positions::fragment_offset`]), counted once: the
    /// bindings of every step ask it.
    fragment_start: u64,
    /// The pass's own scratch directory (`{{tmp}}`), where the transcript
    /// is written, so that passes do not see each other's files.
    tmp: PathBuf,
}

/// Cases that run one after another in one sandbox, renewed between them,
/// and share their answers (see [`answers`]).
#[derive(Default)]
struct Group {
    /// The sandbox the last case left, to renew for the next.
    sandbox: Option<Sandbox>,
    answers: Arc<answers::Answers>,
}

/// What the case keeps between steps.
#[derive(Default)]
struct CaseState {
    /// The answers the case shares with the others of its group, if any.
    answers: Option<Arc<answers::Answers>>,
    /// The calls the case made or was answered so far (see [`answers`]).
    asked: std::collections::HashSet<u64>,
    /// The case that made the current step's call, when its answer is shared.
    answered_by: Option<String>,
    /// The unit of a split round trip this run is (its input's index).
    unit: Option<usize>,
    /// Why a host session replay could not verify the agent session.
    unverified: Option<String>,
    /// That unit's tally.
    tally: Option<roundtrip::Tally>,
    /// The current transcript of a `for_each_transcript` case.
    pass: Option<Pass>,
    /// Where each step's stdin goes if the sandbox is kept, and the bytes.
    stdin_files: Vec<(PathBuf, runner::Bytes)>,
    user: UserData,
    /// The work tree at each snapshot (`.git` left out), for
    /// `check_read_only`.
    work_trees: BTreeMap<String, crate::judge::readonly::Files>,
    captures: BTreeMap<String, Value>,
    stdouts: BTreeMap<String, Vec<u8>>,
    /// The exit code and stdout of each element of a `for_each` step, by
    /// step name and element (for `same_answer_as:`).
    item_answers: BTreeMap<(String, usize), (Option<i32>, Vec<u8>)>,
    reports: Vec<StepReport>,
    last_json: Option<Value>,
    /// Why the case stopped before a call the breaker refused.
    cut: Option<String>,
}

impl CaseState {
    /// Which transcript the current pass of a `for_each_transcript` case
    /// runs over, for what its steps rest on.
    fn pass_kind(&self) -> crate::suite::case::Pass {
        use crate::suite::case::Pass;
        match &self.pass {
            None => Pass::None,
            Some(pass) if pass.sample.is_some() => Pass::Sample,
            Some(_) => Pass::Generic,
        }
    }
}

enum StepEnd {
    Continue,
    Stop,
    /// An accepted refusal: its outcome, its note, and the variable the
    /// agent sets that it was for, if any.
    Refused(RefusalOutcome, String, Option<String>),
}

/// The case's outcome: its findings', or not run when the breaker stopped it
/// before anything failed.
fn conclude(state: &CaseState) -> CaseOutcome {
    match (CaseOutcome::of(&state.reports), &state.cut) {
        (CaseOutcome::Failed, _) | (_, None) => CaseOutcome::of(&state.reports),
        (_, Some(reason)) => CaseOutcome::NotRun(format!("not run: {reason}")),
    }
}

/// The world case `case` ran in, named (`axis=value`, the clean room's
/// values left out).
fn sandbox_world(run: &Run<'_>, case: &Case) -> Vec<String> {
    let axes = crate::suite::worlds::Axes::embedded();
    run.worlds.of(axes, case).named(axes)
}

/// A sandbox is kept when its case did not pass, unless the case was
/// skipped or the breaker stopped it: it then holds nothing to look at.
fn keep_sandbox(outcome: &CaseOutcome, cut: bool) -> bool {
    match outcome {
        CaseOutcome::Passed | CaseOutcome::Skipped(_) => false,
        CaseOutcome::NotRun(_) => !cut,
        _ => true,
    }
}
