//! The run's breakers: what makes a run stop spending time on answers it
//! already has.
//!
//! - **Timeouts.** Once a subcommand has hit its deadline, later calls of the
//!   same subcommand are not made: a plugin that hangs on `detect` would hang
//!   on it in every case, and each would wait its own deadline to report the
//!   same thing. The cases that would call it are reported as not run, naming
//!   the case where it timed out.
//! - **`--fail-fast`.** After the first failed case, cases not yet started are
//!   reported as not run; those already running finish.
//!
//! Cases run in parallel, so one record is shared by every worker. Two cases
//! that started the same hanging subcommand before either timed out both wait
//! for it: at most `jobs` calls per subcommand ever wait their deadline.

use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::outcome::Finding;
use crate::outcome::results::StepReport;
use crate::running::runner::{Outcome, Termination};

/// A shared, thread-safe record of what stops later work in a run.
#[derive(Debug, Default)]
pub struct Breaker {
    /// Subcommand → why later calls of it are not made.
    timed_out: Mutex<BTreeMap<String, String>>,
    /// Stop at the first failed case.
    fail_fast: bool,
    /// Set once, by the first failed case under `--fail-fast`.
    stopped: OnceLock<String>,
}

/// The key of an invocation: its subcommand, or a marker for none.
fn subcommand(args: &[String]) -> &str {
    args.first().map_or("(no subcommand)", String::as_str)
}

impl Breaker {
    /// A breaker; `fail_fast` also stops the run at the first failed case.
    pub fn new(fail_fast: bool) -> Breaker {
        Breaker {
            fail_fast,
            ..Breaker::default()
        }
    }

    /// Why an invocation with these arguments must not be made, if it must
    /// not: its subcommand already timed out.
    pub fn refuse(&self, args: &[String]) -> Option<String> {
        let tripped = self.timed_out.lock().ok()?;
        tripped.get(subcommand(args)).cloned()
    }

    /// Records an invocation made in case `case`: a timeout trips the breaker
    /// for its subcommand (the first case to time out is the one named).
    pub fn record(&self, case: &str, args: &[String], timeout: Duration, outcome: &Outcome) {
        if outcome.termination != Termination::TimedOut {
            return;
        }
        let name = subcommand(args);
        let reason = format!(
            "`{name}` timed out (after {} s, in {case}); this run makes no more calls of it",
            timeout.as_secs_f64()
        );
        if let Ok(mut tripped) = self.timed_out.lock() {
            tripped.entry(name.to_string()).or_insert(reason);
        }
    }

    /// Under `--fail-fast`, notes a case's end; a failure stops the run.
    pub fn finished(&self, case: &str, failed: bool) {
        if self.fail_fast && failed {
            let _ = self.stopped.set(format!(
                "not run: --fail-fast stopped the run after {case} failed"
            ));
        }
    }

    /// Why a case that has not started yet must not start, if it must not.
    pub fn stopped(&self) -> Option<String> {
        self.stopped.get().cloned()
    }
}

/// The termination label of a call the breaker refused.
const REFUSED: &str = "not-run";

/// A call the breaker refused, as a property (a round trip) sees it: a
/// failure, so that the property stops. The executor drops the step again
/// ([`refused_reason`]) and reports the case as not run.
pub fn refused_call(label: String, reason: String) -> (Outcome, StepReport) {
    let outcome = Outcome::empty(Termination::SpawnFailed(reason.clone()));
    let report = StepReport::without_invocation(&label, REFUSED, vec![Finding::failure(reason)]);
    (outcome, report)
}

/// The reason of a call the breaker refused, if `report` is one.
pub fn refused_reason(report: &StepReport) -> Option<String> {
    (report.termination == REFUSED).then(|| {
        report
            .findings
            .first()
            .map(|f| f.message.clone())
            .unwrap_or_default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(termination: Termination) -> Outcome {
        Outcome::empty(termination)
    }

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_timeout_refuses_later_calls_of_that_subcommand_only() {
        let breaker = Breaker::new(false);
        let timeout = Duration::from_millis(1500);
        breaker.record(
            "a.case",
            &args(&["detect"]),
            timeout,
            &outcome(Termination::Exited(Some(0))),
        );
        assert_eq!(breaker.refuse(&args(&["detect"])), None);
        breaker.record(
            "a.case",
            &args(&["detect"]),
            timeout,
            &outcome(Termination::TimedOut),
        );
        breaker.record(
            "b.case",
            &args(&["detect", "x"]),
            timeout,
            &outcome(Termination::TimedOut),
        );
        let reason = breaker.refuse(&args(&["detect", "--flag"])).unwrap();
        assert!(
            reason.contains("`detect` timed out (after 1.5 s, in a.case)"),
            "{reason}"
        );
        assert_eq!(breaker.refuse(&args(&["info"])), None);
        assert_eq!(breaker.refuse(&[]), None);
        breaker.record("c.case", &[], timeout, &outcome(Termination::TimedOut));
        assert!(breaker.refuse(&[]).unwrap().contains("(no subcommand)"));
        assert_eq!(breaker.stopped(), None);
    }

    #[test]
    fn a_refused_call_carries_its_reason() {
        let (outcome, report) = refused_call("chunk".into(), "why".into());
        assert!(matches!(outcome.termination, Termination::SpawnFailed(_)));
        assert_eq!(refused_reason(&report).as_deref(), Some("why"));
        let mut ran = report.clone();
        ran.termination = "timed-out".into();
        assert_eq!(refused_reason(&ran), None);
    }

    #[test]
    fn fail_fast_stops_at_the_first_failure_only_when_asked() {
        let lenient = Breaker::new(false);
        lenient.finished("a", true);
        assert_eq!(lenient.stopped(), None);
        let strict = Breaker::new(true);
        strict.finished("a", false);
        assert_eq!(strict.stopped(), None);
        strict.finished("b", true);
        strict.finished("c", true);
        assert!(strict.stopped().unwrap().contains("after b failed"));
    }
}
