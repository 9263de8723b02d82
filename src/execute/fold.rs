//! What a run says once, folded over its case reports after every case ran
//! (pure functions of the reports, so the same run gives the same report,
//! whatever the jobs):
//!
//! - **An unverified capability** (no sample transcript of the plugin's own,
//!   and a refusal of, or a crash on, the generic one) is a warning once per
//!   capability, with the YAML that makes it checked (README, "What a run
//!   does": "the capability gets one warning saying it is unverified"), so
//!   that `--strict` fails a CI that checked nothing. It is said at the case
//!   marked `unverified: warning` when that case met it, else at the first
//!   case in report order that did; the others get a note pointing there.
//! - **One finding in every work tree**: a finding that repeats in the
//!   work-tree variants of a case (`.linked-worktree`, `.submodule`) is
//!   reported under the first variant, with "also in: linked worktree,
//!   submodule"; the variants carry a note pointing there instead. The
//!   first variant keeps its weight, so the run's verdict is the same.

use std::collections::BTreeMap;

use super::worst;
use crate::host::invocation::WorkTree;
use crate::outcome::Kind;
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::suite::case::Severity;

/// Where the what of an unverified message ends and its advice begins.
const UNVERIFIED: &str = "; with no sample transcript of its own, ";

/// The message of an unverified capability: what happened, then the YAML
/// that makes it checked.
pub(super) fn unverified_message(what: &str, capability: &str) -> String {
    format!(
        "{what}{UNVERIFIED}{capability}, which info declares, is unverified: nothing of it was \
         checked; name one in a case file of yours (--cases DIR): `transcripts: \
         [samples/<a transcript of yours>]`"
    )
}

/// The same, said again at a later case: short, pointing at the first.
fn unverified_again(message: &str, capability: &str, first: &str) -> String {
    let what = message.split(UNVERIFIED).next().unwrap_or(message);
    format!("{what}; {capability} is unverified (see {first}, where the run says it once)")
}

/// Everything the run says once, in order.
pub(super) fn fold(reports: &mut [CaseReport]) {
    unverified_once(reports);
    work_trees_once(reports);
}

/// The findings of kind [`Kind::Unverified`]: (case index, step, finding).
type At = (usize, usize, usize);

fn unverified_findings(reports: &[CaseReport]) -> BTreeMap<String, Vec<(At, Severity)>> {
    let mut found: BTreeMap<String, Vec<(At, Severity)>> = BTreeMap::new();
    for (c, report) in reports.iter().enumerate() {
        for (s, step) in report.steps.iter().enumerate() {
            for (f, finding) in step.findings.iter().enumerate() {
                if finding.kind == Kind::Unverified {
                    found
                        .entry(report.capability.clone())
                        .or_default()
                        .push(((c, s, f), finding.severity));
                }
            }
        }
    }
    found
}

/// An unverified capability is a warning once, notes elsewhere.
pub(super) fn unverified_once(reports: &mut [CaseReport]) {
    for (capability, found) in unverified_findings(reports) {
        let chosen = found
            .iter()
            .find(|(_, severity)| *severity >= Severity::Warning)
            .or(found.first())
            .map(|(at, _)| *at);
        let Some((fc, _, _)) = chosen else { continue };
        let first = reports[fc].id.clone();
        for (at @ (c, s, f), _) in found {
            let report = &mut reports[c];
            let finding = &mut report.steps[s].findings[f];
            if Some(at) == chosen {
                finding.severity = Severity::Warning.min(report.severity);
            } else {
                let again = unverified_again(&finding.message, &capability, &first);
                if report.note.as_deref() == Some(finding.message.as_str()) {
                    report.note = Some(again.clone());
                }
                finding.message = again;
                finding.severity = Severity::Note;
                finding.kind = Kind::SaidElsewhere;
            }
            reweigh(report);
        }
    }
}

/// The case's outcome again from its findings, when they decide it.
fn reweigh(report: &mut CaseReport) {
    if matches!(
        report.outcome,
        CaseOutcome::Passed | CaseOutcome::Note | CaseOutcome::Warning | CaseOutcome::Failed
    ) {
        report.outcome = worst(&report.steps);
    }
}

/// The id of the case a work-tree variant was made from, and the variant.
fn variant_of(id: &str) -> (&str, WorkTree) {
    for kind in [WorkTree::Linked, WorkTree::Submodule] {
        if let Some(base) = id.strip_suffix(kind.id_suffix()) {
            return (base, kind);
        }
    }
    (id, WorkTree::Plain)
}

/// A work tree in words, for "also in".
fn words(kind: WorkTree) -> &'static str {
    match kind {
        WorkTree::Plain => "plain repository",
        WorkTree::Linked => "linked worktree",
        WorkTree::Submodule => "submodule",
    }
}

/// A finding's message with the sandbox's own paths (which differ from case
/// to case) made alike, for comparing variants.
fn alike(message: &str) -> String {
    static PATHS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re =
        PATHS.get_or_init(|| regex::Regex::new(r"/[^\s\x22'`]*agent-conform-[^\s\x22'`]*").ok());
    let message = match re {
        Some(re) => re.replace_all(message, "<sandbox>").into_owned(),
        None => message.to_string(),
    };
    for kind in [WorkTree::Linked, WorkTree::Submodule] {
        if message.contains(kind.id_suffix()) {
            return message.replace(kind.id_suffix(), "");
        }
    }
    message
}

/// A finding's identity across the variants of a case: its step, kind,
/// severity and message (paths made alike).
fn identity(step: &str, finding: &crate::outcome::Finding) -> (String, Kind, Severity, String) {
    (
        step.to_string(),
        finding.kind,
        finding.severity,
        alike(&finding.message),
    )
}

/// A finding said in every work tree is said once, under the first.
pub(super) fn work_trees_once(reports: &mut [CaseReport]) {
    let mut first_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut also: BTreeMap<(usize, usize, usize), Vec<WorkTree>> = BTreeMap::new();
    for c in 0..reports.len() {
        let (base, kind) = variant_of(&reports[c].id);
        let base = base.to_string();
        let Some(&first) = first_of.get(&base) else {
            first_of.insert(base, c);
            continue;
        };
        if kind == WorkTree::Plain {
            continue;
        }
        let first_id = reports[first].id.clone();
        let mut folded = false;
        for s in 0..reports[c].steps.len() {
            let step = reports[c].steps[s].name.clone();
            let mut kept = Vec::new();
            for finding in std::mem::take(&mut reports[c].steps[s].findings) {
                let same = matching(&reports[first], &step, &finding);
                match same {
                    Some(at) if finding.severity > Severity::Note => {
                        also.entry((first, at.0, at.1)).or_default().push(kind);
                        folded = true;
                    }
                    _ => kept.push(finding),
                }
            }
            reports[c].steps[s].findings = kept;
        }
        if folded {
            let note = crate::outcome::Finding::note(format!(
                "the same finding as in {first_id}, said there once (also in: {})",
                words(kind)
            ))
            .kind(Kind::SaidElsewhere);
            if let Some(step) = reports[c].steps.first_mut() {
                step.findings.push(note);
            }
            reweigh(&mut reports[c]);
        }
    }
    for ((c, s, f), kinds) in also {
        let finding = &mut reports[c].steps[s].findings[f];
        let mut named: Vec<&str> = Vec::new();
        for kind in kinds {
            if !named.contains(&words(kind)) {
                named.push(words(kind));
            }
        }
        finding.message = format!("{} (also in: {})", finding.message, named.join(", "));
    }
}

/// The step and index of the first variant's finding that `finding` repeats.
fn matching(
    first: &CaseReport,
    step: &str,
    finding: &crate::outcome::Finding,
) -> Option<(usize, usize)> {
    let wanted = identity(step, finding);
    first.steps.iter().enumerate().find_map(|(s, report)| {
        report
            .findings
            .iter()
            .position(|f| identity(&report.name, f) == wanted)
            .map(|f| (s, f))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Finding;
    use crate::outcome::results::StepReport;

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
            timeline: false,
        };
        report.outcome = worst(&report.steps);
        report
    }

    fn unverified(severity: Severity) -> Finding {
        Finding {
            severity,
            ..Finding::failure(unverified_message(
                "the plugin refused it",
                "transcript_analyzer",
            ))
            .kind(Kind::Unverified)
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
}
