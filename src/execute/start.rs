//! The start and the end of one plugin's run: its `Run` made, its gate
//! cases run (the plugin's `info`, as the host's discovery reads it), and
//! its report assembled. Shared by [`crate::execute::run`] and [`crate::execute::many`].

use std::path::Path;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::Value;

use crate::execute::breaker::Breaker;
use crate::execute::property::Corpora;
use crate::execute::{Finished, Group, Options, Run};
use crate::outcome::results::{CaseOutcome, CaseReport, RunReport};
use crate::report::progress::Progress;
use crate::running::depot::Depot;
use crate::suite::case::{Case, Suite};
use crate::suite::schema::Schemas;

impl<'a> Run<'a> {
    /// The run of one plugin, before its gate.
    pub(super) fn new(
        plugin: &'a Path,
        suite: &'a Suite,
        schemas: &'a Schemas,
        options: &'a Options,
        progress: &'a dyn Progress,
        corpora: &'a Corpora,
    ) -> Run<'a> {
        Run {
            progress,
            depot: Depot::start(sandbox_maker(options)),
            plugin,
            samples: &suite.samples,
            own_files: &suite.own_files,
            recording: suite.recording.as_ref(),
            schemas,
            fixtures: &suite.fixtures,
            options,
            info: Value::Null,
            info_elapsed: Duration::ZERO,
            breaker: Breaker::new(options.fail_fast),
            corpora,
            own_samples: Default::default(),
            reach: Default::default(),
            unknown: None,
            env: &suite.env,
            off_steps: Default::default(),
            seed: Default::default(),
            worlds: super::worlds::Worlds::new(
                crate::suite::worlds::Axes::embedded(),
                &suite.cases,
                &options.worlds,
            ),
        }
    }

    /// Runs the gate cases (`info`, as the host's discovery does) and keeps
    /// the plugin's `info`; returns their reports and, when one failed, why
    /// every other case is not run.
    pub(super) fn gates(&mut self, gates: &[&Case]) -> (Vec<CaseReport>, Option<String>) {
        let mut reports = Vec::new();
        let mut blocked = None;
        for gate in gates {
            let key = gate.seed_key();
            let mut group = key.as_ref().map(|_| Group::default());
            let Finished { report, json, .. } =
                self.case(gate, None, None, &AtomicUsize::new(0), group.as_mut());
            if let (Some(key), Some(group)) = (key, group) {
                self.keep_seed(key, group);
            }
            if report.outcome == CaseOutcome::Failed {
                blocked.get_or_insert_with(|| {
                    format!("not run: {} failed ({})", report.id, report.summary_line())
                });
            } else if let Some(json) = json {
                self.info = json;
                self.info_elapsed = report.steps.last().map_or(Duration::ZERO, |s| s.duration);
            }
            reports.push(report);
        }
        (reports, blocked)
    }

    /// Keeps a gate's group for the cases that begin as it does (the
    /// first gate's, when several have the same key).
    fn keep_seed(&self, key: String, group: Group) {
        let Ok(mut seed) = self.seed.lock() else {
            return self.dispose_group(group);
        };
        match seed.as_ref() {
            None => *seed = Some((key, group)),
            Some(_) => self.dispose_group(group),
        }
    }

    /// The gate's group for the cases of this share key, once.
    pub(super) fn take_seed(&self, key: Option<&str>) -> Option<Group> {
        let mut seed = self.seed.lock().ok()?;
        if seed.as_ref().map(|(k, _)| Some(k.as_str())) != Some(key) {
            return None;
        }
        seed.take().map(|(_, group)| group)
    }

    /// Disposes of the gate's group when no case took it (a run over
    /// several plugins does not share answers).
    pub(super) fn drop_seed(&self) {
        let left = self.seed.lock().ok().and_then(|mut s| s.take());
        if let Some((_, group)) = left {
            self.dispose_group(group);
        }
    }

    fn dispose_group(&self, group: Group) {
        if let Some(sandbox) = group.sandbox {
            self.depot.dispose(sandbox);
        }
    }

    /// One call of the plugin made outside a case's steps (a probe, a call
    /// inside an action), counted in the report's calls.
    pub(super) fn spawn(
        &self,
        inv: &crate::running::runner::Invocation,
    ) -> crate::running::runner::Outcome {
        self.off_steps
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::running::runner::run(inv)
    }

    /// The calls made outside the cases' steps so far.
    pub(super) fn calls_off_steps(&self) -> usize {
        self.off_steps.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The plugin's `info`, when the gate read one.
    pub(super) fn info_value(&self) -> Option<Value> {
        (!self.info.is_null()).then(|| self.info.clone())
    }
}

/// The report of one plugin's run, from its cases' reports (and the suite's
/// cases, for the longest deliberate wait of those that ran).
pub(super) fn run_report(
    plugin: &Path,
    info: Option<Value>,
    options: &Options,
    suite_cases: &[Case],
    reports: Vec<CaseReport>,
    wall: Duration,
    calls_off_steps: usize,
) -> RunReport {
    let deliberate_wait = super::late_stdin::longest_wait(suite_cases, &reports);
    let invocations = reports
        .iter()
        .flat_map(|c| &c.steps)
        .filter(|s| s.answered_by.is_none())
        .map(|s| s.duration)
        .sum();
    RunReport {
        plugin: plugin.to_path_buf(),
        hosts: crate::outcome::results::Hosts::of(&options.hosts),
        info,
        cases: reports,
        wall,
        invocations,
        deliberate_wait,
        jobs: options.jobs,
        seed: options.seed,
        peak_rss_bytes: crate::outcome::results::peak_rss_bytes(),
        pedantic: options.pedantic,
        calls_off_steps,
        host_replay: None,
        entire_on_path: None,
        explored: None,
    }
}

/// How the depot makes a case's sandbox: created under the sandbox base and,
/// unless `--no-confine`, confined.
pub(super) fn sandbox_maker(options: &Options) -> Box<crate::running::depot::Make> {
    let base = options.sandbox_base.clone();
    let confine = options.confine;
    Box::new(
        move |prefix: &str, work_tree, setting: &crate::running::sandbox::Setting| {
            let mut sandbox =
                crate::running::sandbox::Sandbox::create_in(prefix, &base, work_tree, setting)
                    .map_err(|err| format!("could not create a sandbox: {err}"))?;
            if confine {
                sandbox.confine().map_err(|err| {
                    format!("could not confine the plugin: {err} (--no-confine runs without)")
                })?;
            }
            Ok(sandbox)
        },
    )
}

/// A file-name-safe prefix for a case's sandbox directory.
pub(super) fn sandbox_prefix(id: &str) -> String {
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
