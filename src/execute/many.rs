//! Several plugins in one run (`agent-conform A B C`): each plugin keeps its
//! own `Run` (gate, capabilities, breaker, sandboxes), while their cases
//! share one pool of workers, the longest first across all plugins, so that
//! one run over N plugins takes no longer than the N runs one by one.
//!
//! The gates run first, a few plugins at a time; a plugin whose gate failed
//! has its other cases not run, as alone. Each plugin's depot is given the
//! order in which the workers will take its own tasks. A case with a
//! deliberate wait goes first, whichever plugin's, and lends its job slot
//! for the wait (see [`super::pool`]): the waits of N plugins overlap each
//! other and the rest of the run.

use std::cmp::Reverse;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

use serde_json::Value;

use super::late_stdin::deliberate_wait;
use super::{
    Options, Run, Slot, not_run, pool, property, run_report, sandbox_prefix, sweep_processes,
};
use crate::outcome::results::{CaseReport, RunReport};
use crate::report::progress::Progress;
use crate::suite::case::{Case, Suite};
use crate::suite::schema::Schemas;

/// One task of the shared pool: a case (or one unit of it) of one plugin.
struct Task {
    /// The plugin's place among the plugins run past their gate.
    plugin: usize,
    /// The case's place in the suite's cases.
    case: usize,
    unit: Option<usize>,
    /// The task's place in its plugin's own order (its depot's plan).
    local: usize,
}

/// Runs each plugin's suite against it (`plugins[k]` with `suites[k]`:
/// the embedded cases and its own, no other plugin's); the reports come in
/// the order the plugins were given. Never fails: every problem ends up in
/// the reports.
pub fn run(
    plugins: &[PathBuf],
    suites: &[&Suite],
    schemas: &Schemas,
    options: &Options,
    progress: &dyn Progress,
) -> Vec<RunReport> {
    let start = Instant::now();
    crate::running::bounds::become_subreaper();
    let corpora = property::Corpora::new(options.seed);
    let mut runs: Vec<Run> = plugins
        .iter()
        .zip(suites)
        .map(|(p, suite)| Run::new(p, suite, schemas, options, progress, &corpora))
        .collect();
    let (gates, cases): (Vec<Vec<&Case>>, Vec<Vec<&Case>>) = suites
        .iter()
        .map(|suite| suite.cases.iter().partition(|c| c.gate))
        .unzip();
    let mut gated = Vec::new();
    std::thread::scope(|scope| {
        scope.spawn(|| suites.iter().for_each(|s| corpora.warm(&s.cases)));
        gated = gate_all(&mut runs, &gates, options.jobs);
    });
    let open: Vec<usize> = (0..runs.len()).filter(|&k| gated[k].1.is_none()).collect();
    for &k in &open {
        runs[k].reach = runs[k].probe_reach();
        runs[k].unknown = runs[k].probe_unknown();
    }
    let mut rest = pool(&runs, &open, &cases).into_iter();
    let mut reports: Vec<Vec<CaseReport>> = Vec::new();
    for (k, (gate_reports, blocked)) in gated.into_iter().enumerate() {
        let mut all = gate_reports;
        match blocked {
            Some(reason) => all.extend(cases[k].iter().map(|c| not_run(c, &reason))),
            None => all.extend(rest.next().unwrap_or_default()),
        }
        reports.push(all);
    }
    for all in reports.iter_mut() {
        super::fold::fold(all);
    }
    progress.done();
    runs.iter().for_each(Run::drop_seed);
    let infos: Vec<Option<Value>> = runs.iter().map(Run::info_value).collect();
    let off_steps: Vec<usize> = runs.iter().map(Run::calls_off_steps).collect();
    for run in runs {
        run.depot.finish();
    }
    sweep_processes();
    let wall = start.elapsed();
    plugins
        .iter()
        .zip(suites)
        .zip(infos)
        .zip(reports)
        .zip(off_steps)
        .map(|((((plugin, suite), info), reports), off_steps)| {
            run_report(
                plugin,
                info,
                options,
                &suite.cases,
                reports,
                wall,
                off_steps,
            )
        })
        .collect()
}

/// Runs every plugin's gate, on up to `jobs` threads; per plugin, the gate
/// reports and why its other cases are not run (when the gate failed).
fn gate_all(
    runs: &mut [Run],
    gates: &[Vec<&Case>],
    jobs: usize,
) -> Vec<(Vec<CaseReport>, Option<String>)> {
    let per_thread = runs.len().div_ceil(jobs.max(1)).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = runs
            .chunks_mut(per_thread)
            .zip(gates.chunks(per_thread))
            .map(|(chunk, gates)| {
                scope.spawn(move || {
                    chunk
                        .iter_mut()
                        .zip(gates)
                        .map(|(r, g)| r.gates(g))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join().unwrap_or_else(|_| {
                    vec![(
                        Vec::new(),
                        Some("not run: the gate's worker stopped".to_string()),
                    )]
                })
            })
            .collect()
    })
}

/// Runs the cases of the plugins `open` (places in `runs`) on one pool of
/// workers, longest first across plugins; per open plugin, its cases'
/// reports in suite order.
fn pool(runs: &[Run], open: &[usize], cases: &[Vec<&Case>]) -> Vec<Vec<CaseReport>> {
    let units: Vec<Vec<usize>> = open
        .iter()
        .map(|&k| cases[k].iter().map(|c| runs[k].units(c)).collect())
        .collect();
    let slots: Vec<Vec<Slot>> = units
        .iter()
        .map(|u| {
            u.iter()
                .map(|&n| Mutex::new((0..n.max(1)).map(|_| None).collect()))
                .collect()
        })
        .collect();
    let remaining: Vec<Vec<AtomicUsize>> = units
        .iter()
        .map(|u| u.iter().map(|&n| AtomicUsize::new(n)).collect())
        .collect();
    let tasks = plan(runs, open, cases, &units);
    let jobs = open.first().map_or(1, |&k| runs[k].options.jobs);
    let lenders = tasks
        .iter()
        .filter(|t| !deliberate_wait(cases[open[t.plugin]][t.case]).is_zero())
        .count();
    pool::run(tasks.len(), jobs, lenders, |n| {
        let task = &tasks[n];
        let run = &runs[open[task.plugin]];
        let remaining = &remaining[task.plugin][task.case];
        let finished = run.case(
            cases[open[task.plugin]][task.case],
            task.unit,
            Some(task.local),
            remaining,
            None,
        );
        if let Ok(mut slot) = slots[task.plugin][task.case].lock() {
            slot[task.unit.unwrap_or(0)] = Some(finished);
        }
    });
    slots
        .into_iter()
        .zip(open)
        .map(|(slots, &k)| runs[k].assemble(slots, &cases[k]))
        .collect()
}

/// Every task of every open plugin, a deliberate wait first, then the
/// longest (ties keep the plugins' order), each plugin's depot told its own part of that order.
fn plan(runs: &[Run], open: &[usize], cases: &[Vec<&Case>], units: &[Vec<usize>]) -> Vec<Task> {
    let mut weighted: Vec<((std::time::Duration, usize), Task)> = Vec::new();
    for (p, &k) in open.iter().enumerate() {
        for (i, &n) in units[p].iter().enumerate() {
            let weight = runs[k].order(cases[k][i], n);
            let task = |unit| Task {
                plugin: p,
                case: i,
                unit,
                local: 0,
            };
            match n {
                0 => weighted.push((weight, task(None))),
                n => weighted.extend((0..n).map(|u| (weight, task(Some(u))))),
            }
        }
    }
    weighted.sort_by_key(|(weight, _)| Reverse(*weight));
    let mut plans: Vec<Vec<Option<crate::running::depot::Order>>> =
        open.iter().map(|_| Vec::new()).collect();
    let tasks: Vec<Task> = weighted
        .into_iter()
        .map(|(_, mut task)| {
            let run = &runs[open[task.plugin]];
            let case = cases[open[task.plugin]][task.case];
            let own = &mut plans[task.plugin];
            task.local = own.len();
            own.push(
                run.declared(case)
                    .then(|| (sandbox_prefix(&case.id), case.work_tree, run.setting(case))),
            );
            task
        })
        .collect();
    for (plan, &k) in plans.into_iter().zip(open) {
        runs[k].depot.plan(plan);
    }
    tasks
}
