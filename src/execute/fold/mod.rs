//! What a run says once, folded over its case reports after every case ran
//! (pure functions of the reports, so the same run gives the same report,
//! whatever the jobs). Each fold decides on data (a finding's kind, subject,
//! step and severity), never on its text:
//!
//! - **A variable the agent sets** and the sandbox does not
//!   (`agent_variables`) is "not verified here": a note, said in full at
//!   the first case that met it, short elsewhere. When such refusals left
//!   a declared capability with nothing verified (no case of it got an
//!   answer without meeting one), they are that capability's unverified
//!   findings instead, with the `env:` that makes it checked.
//! - **An unverified capability** (no sample transcript of the plugin's own,
//!   and a refusal of, or a crash on, the generic one; the session replay's
//!   agent session refused; a variable only the agent sets, as above) is a
//!   warning once per capability, with the YAML that makes it checked
//!   (README, "What a run
//!   does": "the capability gets one warning saying it is unverified"), so
//!   that `--strict` fails a CI that checked nothing. It is said at the case
//!   marked `unverified: warning` when that case met it, else at the first
//!   case in report order that did; the others get a note pointing there.
//! - **One finding in every work tree**: a finding that repeats in the
//!   work-tree variants of a case (`.linked-worktree`, `.submodule`) is
//!   reported under the first variant, with "also in: linked worktree,
//!   submodule"; the variants carry a note pointing there instead. The
//!   first variant keeps its weight, so the run's verdict is the same.
//! - **The scaffold's guessed samples** that the plugin refused
//!   (`guesses`): one note at the first, saying what to fill in; the others
//!   skip, pointing there.

mod agent_variables;
mod guesses;
mod unverified;
mod work_trees;

pub(super) use unverified::unverified_message;

use crate::outcome::results::{CaseOutcome, CaseReport};

/// Everything the run says once, in order.
pub(super) fn fold(reports: &mut [CaseReport]) {
    agent_variables::capabilities_left_unverified(reports);
    agent_variables::once_per_variable(reports);
    unverified::unverified_once(reports);
    work_trees::work_trees_once(reports);
    guesses::guesses_once(reports);
}

/// The case's outcome again from its findings, when they decide it.
fn reweigh(report: &mut CaseReport) {
    if matches!(
        report.outcome,
        CaseOutcome::Passed | CaseOutcome::Note | CaseOutcome::Warning | CaseOutcome::Failed
    ) {
        report.outcome = CaseOutcome::of(&report.steps);
    }
}

#[cfg(test)]
mod tests {
    use super::agent_variables::once_per_variable;
    use super::unverified::{unverified_message, unverified_once};
    use super::work_trees::work_trees_once;
    use crate::host::Severity;
    use crate::outcome::results::{CaseOutcome, CaseReport, StepReport};
    use crate::outcome::{Finding, Kind};

    fn case(id: &str, capability: &str, findings: Vec<Finding>) -> CaseReport {
        let mut step = StepReport::without_invocation("step 1", "action", findings);
        step.name = "step 1".to_string();
        let mut report = CaseReport {
            id: id.to_string(),
            title: id.to_string(),
            spec: String::new(),
            capability: capability.to_string(),
            severity: Severity::Failure,
            outcome: CaseOutcome::Passed,
            note: None,
            duration: std::time::Duration::ZERO,
            steps: vec![step],
            sandbox: None,
            host_calls: Vec::new(),
            world: Vec::new(),
            shrunk: None,
            timeline: false,
            ran: Vec::new(),
            unverified: None,
            refused_guess: false,
        };
        report.outcome = CaseOutcome::of(&report.steps);
        report
    }

    fn unverified(severity: Severity) -> Finding {
        let what = "the plugin refused it";
        Finding {
            severity,
            ..Finding::failure(unverified_message(what, "transcript_analyzer"))
                .kind(Kind::Unverified)
                .with_subject("transcript_analyzer")
                .with_gist(what)
        }
    }

    #[test]
    fn an_unverified_capability_warns_once_even_where_only_notes_met_it() {
        let mut reports = vec![
            case("a.position", "transcript_analyzer", vec![]),
            case(
                "a.summary",
                "transcript_analyzer",
                vec![unverified(Severity::Note)],
            ),
            case(
                "a.prompts",
                "transcript_analyzer",
                vec![unverified(Severity::Note)],
            ),
        ];
        unverified_once(&mut reports);
        assert_eq!(reports[0].outcome, CaseOutcome::Passed);
        assert_eq!(reports[1].outcome, CaseOutcome::Warning);
        assert!(
            reports[1].steps[0].findings[0]
                .message
                .contains("transcripts:")
        );
        assert_eq!(reports[2].outcome, CaseOutcome::Note);
        let again = &reports[2].steps[0].findings[0].message;
        assert!(again.contains("see a.summary"), "{again}");
    }

    #[test]
    fn the_case_marked_warning_says_it_and_the_others_note_it() {
        let mut reports = vec![
            case(
                "a.summary",
                "transcript_analyzer",
                vec![unverified(Severity::Note)],
            ),
            case(
                "a.position",
                "transcript_analyzer",
                vec![unverified(Severity::Warning)],
            ),
        ];
        unverified_once(&mut reports);
        assert_eq!(reports[0].outcome, CaseOutcome::Note);
        assert_eq!(reports[1].outcome, CaseOutcome::Warning);
    }

    #[test]
    fn a_finding_of_every_work_tree_is_said_once_and_the_verdict_holds() {
        let broken = || Finding::failure("resume writes where the agent never reads");
        let mut reports = vec![
            case("session.replay", "", vec![broken()]),
            case("session.replay.linked-worktree", "", vec![broken()]),
            case("session.replay.submodule", "", vec![broken()]),
            case("other", "", vec![broken()]),
        ];
        work_trees_once(&mut reports);
        let first = &reports[0].steps[0].findings[0].message;
        assert!(
            first.ends_with("(also in: linked worktree, submodule)"),
            "{first}"
        );
        assert_eq!(reports[0].outcome, CaseOutcome::Failed);
        for variant in &reports[1..3] {
            assert_eq!(variant.outcome, CaseOutcome::Note, "{}", variant.id);
        }
        assert_eq!(reports[3].outcome, CaseOutcome::Failed);
    }

    #[test]
    fn a_finding_only_one_work_tree_has_stays_there() {
        let mut reports = vec![
            case("s", "", vec![]),
            case(
                "s.linked-worktree",
                "",
                vec![Finding::failure("Not a directory")],
            ),
        ];
        work_trees_once(&mut reports);
        assert_eq!(reports[1].outcome, CaseOutcome::Failed);
        assert_eq!(reports[1].steps[0].findings[0].message, "Not a directory");
    }

    fn needs(variable: &str) -> Finding {
        let note = crate::host::agent_env::not_verified(variable);
        Finding::note(note)
            .kind(Kind::AgentVariable)
            .with_subject(variable)
            .noted()
    }

    /// A case of `capability` whose plugin answered a call with exit 0.
    fn answered(id: &str, capability: &str) -> CaseReport {
        let mut report = case(id, capability, vec![]);
        report.steps[0].exit_code = Some(0);
        report
    }

    fn all_fold(reports: &mut [CaseReport]) {
        super::fold(reports);
    }

    #[test]
    fn a_variable_the_agent_sets_is_a_note_said_in_full_once_by_its_subject() {
        let mut reports = vec![
            case("a", "core", vec![needs("FOO_HOME")]),
            case("b", "core", vec![needs("FOO_HOME")]),
            case("c", "core", vec![needs("BAR_DIR")]),
        ];
        for report in &mut reports {
            report.note = Some(report.steps[0].findings[0].message.clone());
        }
        all_fold(&mut reports);
        for report in &reports {
            assert_eq!(report.outcome, CaseOutcome::Note, "{}", report.id);
        }
        assert!(
            reports[0].steps[0].findings[0]
                .message
                .contains("`env: {FOO_HOME"),
            "the first says the env: that sets it"
        );
        let again = &reports[1].steps[0].findings[0];
        assert_eq!(again.kind, Kind::AgentVariable);
        assert_eq!(again.subject(), Some("FOO_HOME"));
        assert!(again.message.contains("(see a, where"), "{}", again.message);
        assert_eq!(reports[1].note.as_deref(), Some(again.message.as_str()));
        assert_ne!(reports[0].note.as_deref(), Some(again.message.as_str()));
    }

    #[test]
    fn a_declared_capability_the_variable_left_unverified_warns_once() {
        let mut reports = vec![
            case("core.a", "core", vec![needs("FOO_HOME")]),
            // An error case the plugin refused: it verified nothing.
            case("hooks.refused", "hooks", vec![]),
            case("hooks.install", "hooks", vec![needs("FOO_HOME")]),
            case("hooks.uninstall", "hooks", vec![needs("FOO_HOME")]),
        ];
        reports[1].steps[0].exit_code = Some(1);
        all_fold(&mut reports);
        assert_eq!(reports[0].outcome, CaseOutcome::Note);
        assert_eq!(reports[1].outcome, CaseOutcome::Passed);
        assert_eq!(reports[2].outcome, CaseOutcome::Warning);
        let warning = &reports[2].steps[0].findings[0];
        assert_eq!(warning.kind, Kind::Unverified);
        assert_eq!(warning.subject(), Some("hooks"));
        assert!(
            warning
                .message
                .contains("hooks, which info declares, is unverified")
                && warning.message.contains("`env: {FOO_HOME"),
            "{}",
            warning.message
        );
        assert_eq!(reports[2].note.as_deref(), Some(warning.message.as_str()));
        assert_eq!(reports[3].outcome, CaseOutcome::Note);
        let again = &reports[3].steps[0].findings[0].message;
        assert!(again.contains("see hooks.install"), "{again}");
    }

    #[test]
    fn a_capability_verified_despite_the_variable_keeps_only_notes() {
        let mut reports = vec![
            case("hooks.install", "hooks", vec![needs("FOO_HOME")]),
            answered("hooks.parse", "hooks"),
            case("core.a", "core", vec![needs("FOO_HOME")]),
        ];
        all_fold(&mut reports);
        assert_eq!(reports[0].outcome, CaseOutcome::Note);
        assert_eq!(reports[0].steps[0].findings[0].kind, Kind::AgentVariable);
        assert_eq!(reports[1].outcome, CaseOutcome::Passed);
        assert_eq!(reports[2].outcome, CaseOutcome::Note);
    }

    #[test]
    fn the_session_replays_unverified_agent_session_is_the_hooks_warning_once() {
        let session = || {
            let what = "the agent session is not verified: parse-hook refused";
            Finding::warning(format!("{what}. add a session:"))
                .kind(Kind::Unverified)
                .with_subject("hooks")
                .with_gist(what)
        };
        let mut reports = vec![
            answered("hooks.install", "hooks"),
            case("session.agent", "core", vec![session()]),
            case("session.agent.linked-worktree", "core", vec![session()]),
        ];
        all_fold(&mut reports);
        assert_eq!(reports[1].outcome, CaseOutcome::Warning);
        assert_eq!(reports[2].outcome, CaseOutcome::Note);
        let again = &reports[2].steps[0].findings[0];
        assert_eq!(again.kind, Kind::SaidElsewhere);
        assert!(
            again.message.contains("see session.agent"),
            "{}",
            again.message
        );
    }

    #[test]
    fn a_message_naming_a_variable_without_the_kind_is_left_alone() {
        let text = crate::host::agent_env::not_verified("FOO_HOME");
        let mut reports = vec![
            case("a", "", vec![needs("FOO_HOME")]),
            case("b", "", vec![Finding::warning(text)]),
        ];
        once_per_variable(&mut reports);
        assert_eq!(reports[1].outcome, CaseOutcome::Warning);
        assert_eq!(
            reports[1].steps[0].findings[0].message,
            crate::host::agent_env::not_verified("FOO_HOME")
        );
    }
}
