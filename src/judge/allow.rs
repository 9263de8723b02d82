//! `--allow CODE` and `allow:` in a plugin's own case files: findings of an
//! allowed kind become notes, saying who allowed them. Applied once, after
//! every case is judged, as a function over the case reports, so that each
//! case's outcome, the counts, every report and the exit code follow.

use crate::host::Severity;
use crate::outcome::Kind;
use crate::outcome::results::{CaseOutcome, CaseReport};

/// One kind of finding allowed, and what a finding so lowered says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// The kind allowed.
    pub kind: Kind,
    /// Who allowed it, as the lowered finding says it.
    pub by: By,
}

/// Who allowed a kind of finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum By {
    /// `--allow CODE` on the command line.
    Flag,
    /// `allow:` in a case file, with its reason.
    CaseFile(String),
}

impl Allowance {
    /// What a finding lowered by this allowance adds to its message.
    pub fn said(&self) -> String {
        match &self.by {
            By::Flag => format!("allowed by --allow {}", self.kind.code()),
            By::CaseFile(reason) => format!("allowed: {reason}"),
        }
    }
}

/// Lowers every warning or failure of an allowed kind to a note (the first
/// allowance of its kind says why), then gives each case whose findings
/// changed the outcome its findings now make. Skipped and not-run cases
/// keep theirs.
pub fn apply(cases: &mut [CaseReport], allowed: &[Allowance]) {
    if allowed.is_empty() {
        return;
    }
    for case in cases {
        let mut lowered = false;
        let findings = case.steps.iter_mut().flat_map(|s| s.findings.iter_mut());
        for finding in findings.filter(|f| f.severity > Severity::Note) {
            if let Some(allowance) = allowed.iter().find(|a| a.kind == finding.kind) {
                finding.set_severity(Severity::Note);
                finding.hard = false;
                finding.message = format!("{} ({})", finding.message, allowance.said());
                lowered = true;
            }
        }
        if lowered
            && !matches!(
                case.outcome,
                CaseOutcome::Skipped(_) | CaseOutcome::NotRun(_)
            )
        {
            case.outcome = CaseOutcome::of(&case.steps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Finding;
    use crate::outcome::results::StepReport;

    fn case(findings: Vec<Finding>, outcome: CaseOutcome) -> CaseReport {
        CaseReport {
            id: "x".into(),
            title: "t".into(),
            spec: String::new(),
            capability: "core".into(),
            severity: Severity::Failure,
            outcome,
            note: None,
            duration: std::time::Duration::ZERO,
            steps: vec![StepReport::without_invocation("s", "exited", findings)],
            sandbox: None,
            host_calls: Vec::new(),
            timeline: false,
            ran: Vec::new(),
            unverified: None,
            refused_guess: false,
        }
    }

    #[test]
    fn an_allowed_kind_becomes_a_note_and_the_outcome_follows() {
        let timeout = Finding::hard("timed out").kind(Kind::Timeout);
        let warned = Finding::warning("slow").kind(Kind::Check);
        let mut cases = vec![
            case(vec![timeout.clone()], CaseOutcome::Failed),
            case(vec![timeout, warned], CaseOutcome::Failed),
            case(
                vec![Finding::failure("x").kind(Kind::Crashed)],
                CaseOutcome::Failed,
            ),
        ];
        let flag = Allowance {
            kind: Kind::Timeout,
            by: By::Flag,
        };
        apply(&mut cases, &[flag]);
        assert_eq!(cases[0].outcome, CaseOutcome::Note);
        let lowered = &cases[0].steps[0].findings[0];
        assert_eq!(lowered.severity, Severity::Note);
        assert!(!lowered.hard);
        assert_eq!(lowered.message, "timed out (allowed by --allow timeout)");
        assert_eq!(cases[1].outcome, CaseOutcome::Warning);
        assert_eq!(cases[2].outcome, CaseOutcome::Failed);
    }

    #[test]
    fn a_case_file_says_its_reason_and_not_run_cases_stay() {
        let mut cases = vec![case(
            vec![Finding::warning("w").kind(Kind::Crashed)],
            CaseOutcome::NotRun("not run: cut".into()),
        )];
        let file = Allowance {
            kind: Kind::Crashed,
            by: By::CaseFile("the agent restarts it".into()),
        };
        apply(&mut cases, &[file]);
        assert_eq!(cases[0].outcome, CaseOutcome::NotRun("not run: cut".into()));
        assert_eq!(
            cases[0].steps[0].findings[0].message,
            "w (allowed: the agent restarts it)"
        );
    }
}
