//! One finding in every work tree: a finding that repeats in the work-tree
//! variants of a case (`.linked-worktree`, `.submodule`) is reported under
//! the first variant, with "also in: linked worktree, submodule"; the
//! variants carry a note pointing there instead. The first variant keeps
//! its weight, so the run's verdict is the same.

use std::collections::BTreeMap;

use super::reweigh;
use crate::host::Severity;
use crate::host::invocation::WorkTree;
use crate::outcome::results::CaseReport;
use crate::outcome::{Finding, Kind};

/// The id of the case a work-tree variant was made from, and the variant.
/// (A case id is the suite's data, not a finding's text.)
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

/// A text of a finding as the variants compare it: every path into a
/// sandbox (`/tmp/agent-conform-<case>-…/…`, also inside a name the plugin
/// made of it) written `<sandbox>`, and the variant's suffix of the case id
/// left out. This renders; it decides nothing (see [`Identity`]).
fn portable(text: &str) -> String {
    static PATHS: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let re =
        PATHS.get_or_init(|| regex::Regex::new(r"/[^\s\x22'`]*agent-conform-[^\s\x22'`]*").ok());
    let text = match re {
        Some(re) => re.replace_all(text, "<sandbox>").into_owned(),
        None => text.to_string(),
    };
    [WorkTree::Linked, WorkTree::Submodule]
        .iter()
        .fold(text, |text, kind| text.replace(kind.id_suffix(), ""))
}

/// A finding's identity across the variants of a case: its step, kind,
/// severity and subject, and what it says (message, expected, actual) with
/// the sandbox's paths rendered alike ([`portable`]).
///
/// What it says is compared whole, as one value: two findings of one kind
/// at one step can differ only in their words (one `Check` finding says
/// "resume writes where the agent never reads", another "Not a directory"),
/// and a variant's own defect must never fold into the first variant's.
/// No part of a message is looked for or cut out to decide.
type Identity = (
    String,
    Kind,
    Severity,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
);

/// The identity of `finding`, made at step `step`.
fn identity(step: &str, finding: &Finding) -> Identity {
    (
        step.to_string(),
        finding.kind,
        finding.severity,
        finding.subject().map(str::to_string),
        portable(&finding.text()),
        finding.expected.as_deref().map(portable),
        finding.actual.as_deref().map(portable),
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
            let note = Finding::note(format!(
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
fn matching(first: &CaseReport, step: &str, finding: &Finding) -> Option<(usize, usize)> {
    let wanted = identity(step, finding);
    first.steps.iter().enumerate().find_map(|(s, report)| {
        report
            .findings
            .iter()
            .position(|f| identity(&report.name, f) == wanted)
            .map(|f| (s, f))
    })
}
