//! Steps whose stdin arrives late (`stdin_delay_ms`): the calls of such a
//! `for_each` step run at once, so that their waits overlap; each answer is
//! then judged as any call (`step`, where `same_answer_as:` compares it with
//! the prompt delivery's).
//!
//! The delay is a deliberate wait: the plugin sits blocked on its stdin and
//! the harness sleeps. For that time the worker lends its job slot to the
//! pool (see [`super::pool`]), so that other cases run meanwhile; a case
//! with such a wait is scheduled first ([`deliberate_wait`]), so that
//! its wait overlaps the rest of the run instead of ending it.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use super::pool;
use super::step::Ready;
use super::{CaseState, Run, StepEnd};
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::running::runner::{self, Invocation, Outcome, Termination};
use crate::running::sandbox::Sandbox;
use crate::suite::case::Case;

impl Run<'_> {
    /// Runs a `for_each` step whose stdin arrives late (`stdin_delay_ms`)
    /// for every element at once, so that the waits overlap, then judges
    /// each call in order.
    pub(super) fn invoke_at_once(
        &self,
        case: &Case,
        index: usize,
        items: &[Value],
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        let mut calls = Vec::new();
        for (n, item) in items.iter().enumerate() {
            match self.ready(case, index, Some((n, item)), sandbox, state) {
                Ok(ready) => calls.push(ready),
                Err(end) => return end,
            }
        }
        let invocations: Vec<&Invocation> = calls.iter().map(|ready: &Ready| &ready.inv).collect();
        let outcomes = run_late(&invocations);
        for (n, (ready, outcome)) in calls.into_iter().zip(outcomes).enumerate() {
            let item = Some((n, &items[n]));
            match self.judged(case, index, item, sandbox, state, ready, outcome) {
                StepEnd::Continue => {}
                other => return other,
            }
        }
        StepEnd::Continue
    }

    /// Makes one call: at once, or, when its stdin arrives late, with the
    /// job slot lent for the delay (see the module).
    pub(super) fn call(&self, inv: &Invocation) -> Outcome {
        match inv.stdin_delay {
            Some(_) => run_late(&[inv]).pop().unwrap_or_else(panicked),
            None => runner::run(inv),
        }
    }
}

/// The longest deliberate wait of a case's calls (its steps' largest
/// `stdin_delay_ms`): such a case is scheduled first, and may lend its slot.
pub(super) fn deliberate_wait(case: &Case) -> Duration {
    let longest = case
        .steps
        .iter()
        .filter_map(|s| s.value.stdin_delay_ms)
        .max();
    Duration::from_millis(longest.unwrap_or(0))
}

/// The longest deliberate wait of the cases that ran (neither skipped nor
/// not run): no run can be shorter (the JSON report's
/// `deliberate_wait_ms`).
pub(super) fn longest_wait(cases: &[Case], reports: &[CaseReport]) -> Duration {
    let ran: HashMap<&str, bool> = reports
        .iter()
        .map(|r| {
            let ran = !matches!(r.outcome, CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_));
            (r.id.as_str(), ran)
        })
        .collect();
    cases
        .iter()
        .filter(|c| ran.get(c.id.as_str()).copied().unwrap_or(false))
        .map(deliberate_wait)
        .max()
        .unwrap_or_default()
}

/// Runs calls whose stdin arrives late all at once, each on a thread of its
/// own, while this worker lends its job slot for the longest delay (the
/// plugin waits for its stdin meanwhile), then takes a slot back and waits
/// for the answers; the outcomes in the order of `invocations`.
fn run_late(invocations: &[&Invocation]) -> Vec<Outcome> {
    let delay = invocations
        .iter()
        .filter_map(|inv| inv.stdin_delay)
        .max()
        .unwrap_or_default();
    std::thread::scope(|scope| {
        let running: Vec<_> = invocations
            .iter()
            .map(|&inv| scope.spawn(move || runner::run(inv)))
            .collect();
        pool::lend(|| std::thread::sleep(delay));
        running
            .into_iter()
            .map(|handle| handle.join().unwrap_or_else(|_| panicked()))
            .collect()
    })
}

/// The outcome of a call whose thread panicked.
fn panicked() -> Outcome {
    Outcome::empty(Termination::SpawnFailed("the call panicked".into()))
}
