//! `--allow CODE[@CASES]` and `allow:` in a plugin's own case files:
//! findings of an allowed kind (in every case, or in the cases a glob
//! names) become notes, saying who allowed them. Applied once, after every
//! case is judged, as a function over the case reports, so that each
//! case's outcome, the counts, every report and the exit code follow.

use crate::host::Severity;
use crate::outcome::Kind;
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::suite::case::glob;

/// One kind of finding allowed, where, and what a finding so lowered says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allowance {
    /// The kind allowed.
    pub kind: Kind,
    /// The cases it is allowed in: a case id or a glob of them (`*`, `?`);
    /// `None` for every case.
    pub cases: Option<String>,
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
            By::Flag => format!("allowed by --allow {}", self.flag()),
            By::CaseFile(reason) => format!("allowed: {reason}"),
        }
    }

    /// The allowance as `--allow` takes it: `CODE`, or `CODE@CASES`.
    pub fn flag(&self) -> String {
        match &self.cases {
            Some(cases) => format!("{}@{cases}", self.kind.code()),
            None => self.kind.code().to_string(),
        }
    }

    /// Whether it allows a finding of `kind` in the case `id`.
    fn allows(&self, kind: Kind, id: &str) -> bool {
        self.kind == kind && self.cases.as_ref().is_none_or(|cases| glob(cases, id))
    }
}

/// `--allow`'s value split: the code, and the case glob after `@` if any.
pub fn split_flag(value: &str) -> (&str, Option<&str>) {
    match value.split_once('@') {
        Some((code, cases)) => (code.trim(), Some(cases.trim())),
        None => (value.trim(), None),
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
            if let Some(allowance) = allowed.iter().find(|a| a.allows(finding.kind, &case.id)) {
                finding.set_severity(Severity::Note);
                finding.hard = false;
                finding.allowed = true;
                finding.message = said_after_first_line(&finding.message, &allowance.said());
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

/// `message` with `(said)` at the end of its first line: a message that
/// goes on with a block (a YAML example) keeps the block last. Layout only:
/// nothing is decided on the text.
fn said_after_first_line(message: &str, said: &str) -> String {
    let mut lines = message.lines();
    let first = lines.next().unwrap_or_default();
    let mut text = format!("{first} ({said})");
    for line in lines {
        text.push('\n');
        text.push_str(line);
    }
    text
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
            world: Vec::new(),
            shrunk: None,
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
            cases: None,
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
    fn an_allowance_scoped_to_cases_lowers_only_theirs() {
        let crashed = || Finding::failure("x").kind(Kind::Crashed);
        let mut cases = vec![
            case(vec![crashed()], CaseOutcome::Failed),
            case(vec![crashed()], CaseOutcome::Failed),
        ];
        cases[0].id = "core.errors.one".into();
        cases[1].id = "core.resume.two".into();
        let (code, scope) = split_flag("crashed@core.errors.*");
        assert_eq!((code, scope), ("crashed", Some("core.errors.*")));
        let flag = Allowance {
            kind: Kind::Crashed,
            cases: scope.map(str::to_string),
            by: By::Flag,
        };
        apply(&mut cases, &[flag]);
        assert_eq!(cases[0].outcome, CaseOutcome::Note);
        assert!(
            cases[0].steps[0].findings[0]
                .message
                .ends_with("(allowed by --allow crashed@core.errors.*)")
        );
        assert_eq!(cases[1].outcome, CaseOutcome::Failed);
    }

    #[test]
    fn a_case_file_says_its_reason_and_not_run_cases_stay() {
        let mut cases = vec![case(
            vec![Finding::warning("w").kind(Kind::Crashed)],
            CaseOutcome::NotRun("not run: cut".into()),
        )];
        let file = Allowance {
            kind: Kind::Crashed,
            cases: None,
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
