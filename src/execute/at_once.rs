//! Steps whose stdin arrives late (`stdin_delay_ms`): the calls of such a
//! `for_each` step run at once, so that their waits overlap, and each answer
//! is compared with the prompt delivery's (`same_answer_as:`).

use super::*;
use crate::running::runner::Outcome;
use crate::suite::case::Step;

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
        let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
            let running: Vec<_> = calls
                .iter()
                .map(|ready| scope.spawn(|| runner::run(&ready.inv)))
                .collect();
            running
                .into_iter()
                .map(|handle| {
                    handle.join().unwrap_or_else(|_| {
                        Outcome::empty(Termination::SpawnFailed("the call panicked".into()))
                    })
                })
                .collect()
        });
        for (n, (ready, outcome)) in calls.into_iter().zip(outcomes).enumerate() {
            let item = Some((n, &items[n]));
            match self.judged(case, index, item, sandbox, state, ready, outcome) {
                StepEnd::Continue => {}
                other => return other,
            }
        }
        StepEnd::Continue
    }
}

/// `same_answer_as:` of element `n`: the finding when this answer differs
/// from the named step's answer for the same element.
pub(super) fn late_answer(
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
