//! One plugin's cases on the pool of workers (see [`super::pool`]): a case
//! with a deliberate wait first (its wait then overlaps the rest of the
//! run), then the longest first, a round trip over several inputs split
//! into units (one per input) and merged back in input order, and each
//! case's weight for that order. Split from `mod.rs`, which runs one case;
//! [`super::many`] schedules several plugins with the same pieces.

use std::cmp::Reverse;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::Duration;

use serde_json::Value;

use super::late_stdin::deliberate_wait;
use super::{
    Finished, Run, Slot, downgrade, not_run, pool, report_shell, roundtrip, sandbox_prefix,
};
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::suite::case::{Case, Property, Source};

impl Run<'_> {
    /// Runs cases on `jobs` threads; results land in their suite slots. A
    /// round trip over several inputs is split into units, one per input,
    /// which the pool schedules like cases, so that no long property holds
    /// the wall while the other workers idle; its units are merged back into
    /// one case in input order.
    pub(super) fn parallel(&self, cases: &[&Case]) -> Vec<CaseReport> {
        let units: Vec<usize> = cases.iter().map(|c| self.units(c)).collect();
        let slots: Vec<Slot> = units
            .iter()
            .map(|&n| Mutex::new((0..n.max(1)).map(|_| None).collect()))
            .collect();
        let remaining: Vec<AtomicUsize> = units.iter().map(|&n| AtomicUsize::new(n)).collect();
        // A deliberate wait first, then the longest work, so that no worker
        // is left with a long case at the end while the others idle; the
        // report keeps suite order. The cases that may share answers are
        // one task, run one after another (see `answers`).
        let mut tasks: Vec<(Vec<usize>, Option<usize>)> = Vec::new();
        let keys: Vec<Option<String>> = cases.iter().map(|c| self.share_key(c)).collect();
        for group in sharing(&keys, &units) {
            match units[group[0]] {
                0 => tasks.push((group, None)),
                n => tasks.extend((0..n).map(|u| (group.clone(), Some(u)))),
            }
        }
        let order = |(group, unit): &(Vec<usize>, Option<usize>)| {
            let units = unit.map_or(0, |_| units[group[0]]);
            let each = group.iter().map(|&i| self.order(cases[i], units));
            let wait = each.clone().map(|o| o.0).max().unwrap_or_default();
            (wait, each.map(|o| o.1).sum::<usize>())
        };
        tasks.sort_by_key(|task| Reverse(order(task)));
        let plan = tasks.iter().map(|(group, _)| {
            let case = cases[group[0]];
            self.declared(case)
                .then(|| (sandbox_prefix(&case.id), case.work_tree, self.setting(case)))
        });
        self.depot.plan(plan.collect());
        let lenders = tasks
            .iter()
            .filter(|(group, _)| group.iter().any(|&i| !deliberate_wait(cases[i]).is_zero()))
            .count();
        pool::run(tasks.len(), self.options.jobs, lenders, |n| {
            let (group, unit) = &tasks[n];
            let key = self.share_key(cases[group[0]]);
            let mut shared = self
                .take_seed(key.as_deref())
                .or_else(|| (group.len() > 1).then(super::Group::default));
            for &i in group {
                let finished = self.case(cases[i], *unit, Some(n), &remaining[i], shared.as_mut());
                if let Ok(mut slot) = slots[i].lock() {
                    slot[unit.unwrap_or(0)] = Some(finished);
                }
            }
            if let Some(sandbox) = shared.and_then(|g| g.sandbox) {
                self.depot.dispose(sandbox);
            }
        });
        self.assemble(slots, cases)
    }

    /// The cases' reports, in suite order, from what the workers left in
    /// their slots (the units of a split case merged back into one).
    pub(super) fn assemble(&self, slots: Vec<Slot>, cases: &[&Case]) -> Vec<CaseReport> {
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
    pub(super) fn units(&self, case: &Case) -> usize {
        match self.round_trip(case) {
            Some(trip) if trip.inputs.len() > 1 => trip.inputs.len(),
            _ => 0,
        }
    }

    /// The units of a split round trip as one case: their invocations in
    /// input order, the rules that span inputs judged on all of them.
    pub(super) fn merge_units(&self, case: &Case, parts: Vec<Finished>) -> CaseReport {
        let stopped = parts.iter().find_map(|p| match &p.report.outcome {
            CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_) => Some(p.report.clone()),
            _ => None,
        });
        let mut tally = roundtrip::Tally::default();
        let mut steps = Vec::new();
        let mut merged = report_shell(case, CaseOutcome::Passed);
        // The rules across inputs speak at the last step of the last unit
        // that refused an input (its sandbox was kept for that), else at the
        // last step.
        let mut target = None;
        let mut kept = Vec::new();
        let mut target_sandbox = None;
        for part in parts {
            let unit = part.tally.unwrap_or_default();
            tally.add(&unit);
            steps.extend(part.report.steps);
            if !unit.refused.is_empty() {
                target = steps.len().checked_sub(1);
                target_sandbox = part.report.sandbox.clone();
            }
            merged.duration += part.report.duration;
            merged.ran.extend(part.report.ran);
            merged.host_calls.extend(part.report.host_calls);
            merged.note = merged.note.or(part.report.note);
            kept.extend(part.report.sandbox);
        }
        let mut verdict = roundtrip::RoundTripFindings::default();
        let at = target.or(steps.len().checked_sub(1));
        if let (Some(trip), Some(at)) = (self.round_trip(case), at) {
            verdict.steps.push(steps[at].clone());
            roundtrip::judge(&trip.as_inputs(), &tally, &mut verdict);
            if let Some(judged) = verdict.steps.pop() {
                steps[at] = judged;
            }
        }
        verdict.steps = steps;
        merged.note = merged.note.or(verdict.note);
        merged.steps = verdict.steps;
        merged.steps.iter_mut().for_each(|r| downgrade(case, r));
        merged.outcome = match (CaseOutcome::of(&merged.steps), stopped) {
            (CaseOutcome::Failed, _) | (_, None) => CaseOutcome::of(&merged.steps),
            (_, Some(report)) => report.outcome,
        };
        self.settle_unit_sandboxes(&mut merged, kept, target_sandbox);
        merged
    }

    /// The sandboxes the units of a merged case kept: the case names the one
    /// where its findings across inputs speak (else the first). A unit that
    /// refused an input keeps its sandbox in case such a finding comes; when
    /// the merged case passes after all, they are deleted, as a passing
    /// case's sandbox is.
    pub(super) fn settle_unit_sandboxes(
        &self,
        merged: &mut CaseReport,
        kept: Vec<PathBuf>,
        target: Option<PathBuf>,
    ) {
        let pass = matches!(
            merged.outcome,
            CaseOutcome::Passed | CaseOutcome::Skipped(_)
        );
        if pass && !self.options.keep_temp {
            for dir in &kept {
                let _ = std::fs::remove_dir_all(dir);
            }
            merged.steps.iter_mut().for_each(|s| s.reproduce = None);
            return;
        }
        merged.sandbox = target.or_else(|| kept.into_iter().next());
    }

    /// Where a task of `case` (split into `units`) goes in the pool's
    /// order, greatest first: a deliberate wait before everything (it then
    /// overlaps the rest of the run, its slot lent meanwhile), then the
    /// task's weight.
    pub(super) fn order(&self, case: &Case, units: usize) -> (Duration, usize) {
        (deliberate_wait(case), self.weight(case) / units.max(1))
    }

    /// About how many invocations' worth of time a case takes, to schedule
    /// the long ones first: a round trip makes several calls, a `for_each`
    /// step one per item, a `for_each_transcript` case its steps once per
    /// transcript; and a large stdin costs about a call per MiB (writing
    /// it, the plugin reading it), so the 5 MiB hostile cases, which would
    /// otherwise come last, start early instead of leaving one worker busy
    /// at the end while the other idles.
    pub(super) fn weight(&self, case: &Case) -> usize {
        let steps: usize = case
            .steps
            .iter()
            .map(|step| {
                let calls = match &step.value.for_each {
                    Some(pointer) => self
                        .info
                        .pointer(pointer)
                        .and_then(Value::as_array)
                        .map_or(1, Vec::len),
                    None => 1,
                };
                let stdin_mib = match &step.value.stdin {
                    Some(Source::PaddedJson { bytes, .. }) => bytes >> 20,
                    _ => 0,
                };
                calls * (1 + stdin_mib)
            })
            .sum();
        let passes = match case.for_each_transcript {
            Some(_) => 1 + self.samples.len(),
            None => 1,
        };
        let property = match case.property {
            Some(Property::LargeRoundTrip { mib, .. }) => 8 + 2 * mib,
            Some(_) => 8,
            None => 0,
        };
        // A host session makes some 30 calls, or about three per recorded hook.
        let replay = match (case.replay, self.recording) {
            (None, _) => 0,
            (Some(_), Some(recording)) => 12 + 3 * recording.hooks.len(),
            (Some(_), None) => 32,
        };
        property + replay + steps * passes
    }
}

/// The cases in groups, in suite order: those with the same
/// [`Case::share_key`] together (a case split into units, or without a
/// key, alone).
fn sharing(keys: &[Option<String>], units: &[usize]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut by_key: std::collections::HashMap<String, usize> = Default::default();
    for (i, key) in keys.iter().enumerate() {
        let key = key.clone().filter(|_| units[i] == 0);
        match key.as_ref().and_then(|k| by_key.get(k)) {
            Some(&g) => groups[g].push(i),
            None => {
                if let Some(key) = key {
                    by_key.insert(key, groups.len());
                }
                groups.push(vec![i]);
            }
        }
    }
    groups
}
