//! The real host's word on the run's findings (`--host`): a pure function
//! over the case reports and what the replay saw, after judging, as
//! `allow` is. Each finding (a warning or a failure) that a row of
//! [`crate::host::replay::WORDS`] reaches gets its word; one the host
//! contradicts is lowered (through [`Finding::host_says`]) and listed in
//! the replay's `contradicted`, with both outcomes.

use crate::host::Severity;
use crate::host::replay::{Verdict, row_for};
use crate::outcome::Finding;
use crate::outcome::host_replay::{Contradiction, HostReplay, HostWord};
use crate::outcome::results::{CaseOutcome, CaseReport, StepReport};

/// Puts the host's word on every finding of `cases` that `replay` reached,
/// and weighs each case again.
pub fn apply(cases: &mut [CaseReport], replay: &mut HostReplay) {
    for case in cases.iter_mut() {
        let mut changed = false;
        for step in &mut case.steps {
            let call = step.args.first().cloned().unwrap_or_default();
            let hook = hook_of(step);
            let label = step.label();
            for finding in &mut step.findings {
                if finding.weight() == Severity::Note || finding.host_word.is_some() {
                    continue;
                }
                let Some(row) = row_for(&case.id, &call, &step.name, finding.kind.code()) else {
                    continue;
                };
                let Some(word) = row
                    .consequence
                    .word(&replay.seen, hook.as_deref(), &replay.build)
                else {
                    continue;
                };
                replay.count(word.verdict);
                if word.verdict == Verdict::NotConfirmed {
                    replay.contradicted.push(Contradiction {
                        case: case.id.clone(),
                        step: label.clone(),
                        predicted: finding.text(),
                        was: finding.weight(),
                        host_showed: word.text.clone(),
                    });
                    changed = true;
                }
                take(finding, word);
            }
        }
        if changed && weighed(&case.outcome) {
            case.outcome = CaseOutcome::of(&case.steps);
        }
    }
}

/// Gives `finding` the word.
fn take(finding: &mut Finding, word: crate::host::replay::Word) {
    let lowered = word.lowered_to;
    finding.host_says(
        HostWord {
            verdict: word.verdict,
            text: word.text,
        },
        lowered,
    );
}

/// The `--hook` a step's call named, if any.
fn hook_of(step: &StepReport) -> Option<String> {
    let at = step.args.iter().position(|a| a == "--hook")?;
    step.args.get(at + 1).cloned()
}

/// An outcome its findings decide (not a skip, not a case left unrun).
fn weighed(outcome: &CaseOutcome) -> bool {
    !matches!(outcome, CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::replay::{Seen, build};

    fn replay(seen: Seen) -> HostReplay {
        HostReplay {
            host: "entire".into(),
            build: build("Entire CLI 0.10.3"),
            agent: "x".into(),
            steps: Vec::new(),
            seen,
            stopped: None,
            contradicted: Vec::new(),
            words: [0; 3],
        }
    }

    fn case(id: &str, hook: &str, severity: Severity) -> CaseReport {
        let finding = Finding {
            severity,
            ..Finding::failure("the host refuses this Event")
        };
        let mut step = StepReport::without_invocation("parse", "exited", vec![finding]);
        step.args = vec!["parse-hook".into(), "--hook".into(), hook.into()];
        CaseReport {
            id: id.into(),
            title: String::new(),
            spec: String::new(),
            capability: "hooks".into(),
            severity: Severity::Failure,
            outcome: CaseOutcome::of(std::slice::from_ref(&step)),
            note: None,
            duration: Default::default(),
            steps: vec![step],
            sandbox: None,
            host_calls: Vec::new(),
            world: Vec::new(),
            shrunk: None,
            timeline: false,
            unverified: None,
            refused_guess: false,
            ran: Vec::new(),
        }
    }

    #[test]
    fn a_hook_the_host_ran_fine_lowers_the_finding_and_lists_it() {
        let mut r = replay(Seen {
            hooks: vec![("start".into(), true, String::new())],
            ..Seen::default()
        });
        let mut cases = vec![case("hooks.parse-hook.payload", "start", Severity::Failure)];
        apply(&mut cases, &mut r);
        assert_eq!(cases[0].outcome, CaseOutcome::Note);
        assert_eq!(r.contradicted.len(), 1);
        assert_eq!(r.contradicted[0].was, Severity::Failure);
        assert_eq!(r.words, [0, 0, 1]);
    }

    #[test]
    fn a_hook_the_host_failed_confirms_and_keeps_the_severity() {
        let mut r = replay(Seen {
            hooks: vec![("start".into(), false, "invalid timestamp".into())],
            ..Seen::default()
        });
        let mut cases = vec![case("hooks.parse-hook.payload", "start", Severity::Failure)];
        apply(&mut cases, &mut r);
        assert_eq!(cases[0].outcome, CaseOutcome::Failed);
        let word = cases[0].steps[0].findings[0].host_word.clone();
        assert_eq!(word.map(|w| w.verdict), Some(Verdict::Confirmed));
        // A case the table does not name gets no word.
        let mut other = vec![case("core.info.schema", "start", Severity::Failure)];
        apply(&mut other, &mut r);
        assert!(other[0].steps[0].findings[0].host_word.is_none());
    }
}
