//! Cases that run over transcripts (`for_each_transcript`): one pass over
//! the generic transcript, then one per sample of the plugin's own, and what
//! a refusal of the generic one means.

use crate::execute::fold::unverified_message;
use crate::execute::{CaseState, Pass, Run, StepEnd, conclude, refusal_finding, refused};
use crate::host::reach::Unknown;
use crate::judge::checks::Finding;
use crate::outcome::Kind;
use crate::outcome::results::{CaseOutcome, StepReport};
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, EachTranscript, Severity};

impl Run<'_> {
    /// Runs the steps once per transcript: the generic one, then each of the
    /// plugin's own samples, each pass with its own `{{tmp}}` and captures.
    pub(super) fn transcript_passes(
        &self,
        case: &Case,
        each: &EachTranscript,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> (CaseOutcome, Option<String>) {
        let generic = self
            .fixtures
            .get(&each.generic)
            .cloned()
            .unwrap_or_default();
        let mut passes = vec![(None, file_name(&each.generic), generic)];
        passes.extend(
            self.samples
                .iter()
                .map(|s| (Some(s.name.clone()), file_name(&s.name), s.bytes.clone())),
        );
        let mut note = None;
        for (number, (sample, name, bytes)) in passes.into_iter().enumerate() {
            let tmp = sandbox.work().join(format!("transcript-{}", number + 1));
            let written = std::fs::create_dir_all(&tmp)
                .and_then(|()| std::fs::write(tmp.join(&name), &bytes))
                .map_err(|e| format!("cannot write the transcript into {}: {e}", tmp.display()));
            let generic = sample.is_none();
            state.pass = Some(Pass {
                number: number + 1,
                sample,
                fragment_start: crate::host::positions::fragment_offset(&name, &bytes),
                name,
                bytes: std::sync::Arc::new(bytes.to_vec()),
                tmp,
            });
            state.captures.clear();
            state.stdouts.clear();
            if let Err(reason) = written.and_then(|()| self.write_files(case, sandbox, state)) {
                return (CaseOutcome::NotRun(reason), None);
            }
            let refused = self.pass_steps(case, sandbox, state, generic);
            if state.cut.is_some() {
                break;
            }
            if generic && let Some((step, upto)) = refused {
                let have_samples = !self.samples.is_empty();
                note = Some(generic_refused(
                    case,
                    each,
                    &step,
                    (have_samples, self.unknown.as_ref()),
                    &mut state.reports[..upto],
                ));
            }
        }
        state.pass = None;
        (conclude(state), note)
    }

    /// Runs the steps of one pass; returns the step at which the plugin
    /// refused the transcript, if it did, and the number of step reports
    /// up to that refusal.
    ///
    /// A refusal caps its own step alone: after the plugin refused the
    /// generic transcript at one step, the later steps whose answer does
    /// not depend on the transcript's format (a position: `format_free`)
    /// and the actions that ask again what answered still run, each judged
    /// on its own evidence (a position the plugin gave of this file, then
    /// a shorter one of its copy with long lines, is the plugin's own
    /// answer, whatever `extract-prompts` made of the records).
    pub(super) fn pass_steps(
        &self,
        case: &Case,
        sandbox: &Sandbox,
        state: &mut CaseState,
        generic: bool,
    ) -> Option<(String, usize)> {
        let mut refusal: Option<(String, usize)> = None;
        for index in 0..case.steps.len() {
            if refusal.is_some() && !format_free(case, index) {
                continue;
            }
            match self.step(case, index, sandbox, state) {
                StepEnd::Continue => {}
                StepEnd::Stop => break,
                // A refusal the step itself allows (`on_refusal`) weighs as
                // it says, in every pass: it is no refusal of the transcript.
                StepEnd::Refused(outcome, note, variable)
                    if case.steps[index].value.on_refusal.is_some() =>
                {
                    refusal_finding(case, state, refused(outcome, &note, variable));
                    return refusal;
                }
                StepEnd::Refused(..) => {
                    let name = case.step_name(index);
                    // Nothing answered there to ask again.
                    state.stdouts.remove(&name);
                    if !generic || refusal.is_some() {
                        return refusal.or(Some((name, state.reports.len())));
                    }
                    refusal = Some((name, state.reports.len()));
                }
            }
        }
        refusal
    }
}

/// Whether step `index` of a pass still runs after another step refused
/// the generic transcript: a call whose answer does not depend on the
/// transcript's format (`host::long_lines::Answer::format_free`), or the
/// `long_lines` action, which asks again only the steps that answered.
fn format_free(case: &Case, index: usize) -> bool {
    let step = &case.steps[index].value;
    match step.args.as_ref().and_then(|a| a.first()) {
        Some(subcommand) => crate::host::long_lines::Answer::of(subcommand)
            .is_some_and(crate::host::long_lines::Answer::format_free),
        None => step.action.as_ref().is_some_and(|a| a.is_long_lines()),
    }
}

/// The plugin refused (or crashed on) the generic transcript, which the
/// host never sends it: with samples, only a note on the case; without,
/// the capability is unverified, a finding of kind
/// [`Kind::Unverified`] that the run says once per capability, as a
/// warning (`fold::unverified`). A function of the
/// case and its step reports so far (and whether the plugin has samples),
/// so that the weight of each kind of refusal can be tested without a run.
fn generic_refused(
    case: &Case,
    each: &EachTranscript,
    step: &str,
    (have_samples, unknown): (bool, Option<&Unknown>),
    reports: &mut [StepReport],
) -> String {
    let crashed = reports
        .last()
        .is_some_and(|r| r.findings.iter().any(|f| f.kind == Kind::Crashed));
    let (did, how) = if crashed {
        ("crashed on", " (a crash, not a clean refusal)")
    } else {
        ("refused (or read nothing of)", "")
    };
    if !crashed && let Some(message) = declared_missing(case, each, step, unknown, reports) {
        return message;
    }
    if have_samples {
        return format!(
            "the plugin {did} the generic transcript {} at {step}{how} (another agent's \
             format, which the host never sends it); its own samples were checked instead",
            each.generic
        );
    }
    let first = case
        .steps
        .iter()
        .position(|s| s.value.args.is_some())
        .map(|i| case.step_name(i));
    let later = reports
        .last()
        .is_some_and(|r| r.exit_code == Some(0) && first.as_deref() != Some(step));
    let what = if later {
        // An empty answer after the plugin had answered the same
        // transcript (a position measured from the file's size, say):
        // nothing of the capability is verified by it either.
        format!(
            "not verified here: the plugin read nothing of the generic transcript {} at {step} \
             (an empty answer \
             after an earlier answer measured from the file): another agent's format, which \
             the host never sends it",
            each.generic
        )
    } else {
        // The JSON report carries no stderr, so the message quotes it.
        let said = reports
            .last()
            .filter(|_| !crashed)
            .and_then(|r| r.stderr_excerpt.lines().find(|l| !l.trim().is_empty()))
            .map(|l| format!(" (\"{}\")", shorten(l.trim(), 100)))
            .unwrap_or_default();
        let why = if crashed {
            ""
        } else {
            ": another agent's format, or a subcommand that does not work"
        };
        format!(
            "the plugin {did} the generic transcript {} at {step}{how}{said}{why}",
            each.generic
        )
    };
    let message = unverified_message(&what, case.group());
    let mut finding = Finding {
        severity: each.unverified,
        ..Finding::failure(message.clone())
            .kind(Kind::Unverified)
            .noted()
    }
    .with_subject(case.group())
    .with_gist(what);
    finding.cap(case.severity);
    if let Some(last) = reports.last_mut() {
        last.findings.push(finding);
    }
    message
}

/// A refusal that answers as the plugin answers a subcommand that cannot
/// exist (the gate's probe, [`crate::host::reach::is_missing`]): the
/// capability is declared but missing, reported at the host's severity for
/// it ([`crate::host::reach::missing_capability`]), naming what the user
/// loses, on the case that carries the capability's warning, a note
/// elsewhere.
fn declared_missing(
    case: &Case,
    each: &EachTranscript,
    step: &str,
    unknown: Option<&Unknown>,
    reports: &mut [StepReport],
) -> Option<String> {
    let last = reports.last()?;
    let subcommand = last.args.first().cloned().unwrap_or_default();
    if !crate::host::reach::is_missing(unknown, &subcommand, last.exit_code, &last.stderr_excerpt) {
        return None;
    }
    let capability = case.group();
    let said = crate::judge::checks::last_words(&last.stderr_excerpt);
    let (severity, message) = if each.unverified == Severity::Note {
        (
            Severity::Note,
            format!(
                "{subcommand} is missing at {step} (\"{said}\"): {capability} is declared \
                 but not implemented (see the capability's warning)"
            ),
        )
    } else {
        (
            crate::host::reach::missing_capability(capability),
            format!(
                "a declared capability without its subcommand: info declares {capability}, \
                 but {subcommand} answers \"{said}\", as the plugin answers a subcommand that \
                 cannot exist: missing (neither another agent's format nor a refusal); the host \
                 calls it, logs the failure, and {}: implement {subcommand} or stop declaring \
                 {capability}",
                crate::host::reach::missing_costs(capability)
            ),
        )
    };
    let mut finding = Finding {
        severity,
        ..Finding::failure(message.clone())
            .noted()
            .kind(Kind::MissingSubcommand)
            .with_subject(capability)
    };
    finding.cap(case.severity);
    if let Some(last) = reports.last_mut() {
        last.findings.push(finding);
    }
    Some(message)
}

/// At most `max` characters of `text`, with an ellipsis when cut.
fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The last component of a display path.
pub(super) fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\']).next().unwrap_or(path).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `for_each_transcript` case of `capability` at `severity`, whose
    /// generic refusal weighs `unverified`.
    fn case(capability: &str, severity: &str, unverified: &str) -> (Case, EachTranscript) {
        let yaml = format!(
            "id: c\ntitle: t\ncapability: {capability}\nseverity: {severity}\n\
             for_each_transcript: {{unverified: {unverified}}}\nsteps:\n  - args: \
             [calculate-tokens]\n"
        );
        let case: Case = serde_saphyr::from_str(&yaml).expect("a valid case");
        let each = case
            .for_each_transcript
            .clone()
            .expect("for_each_transcript");
        (case, each)
    }

    /// The reports after the first step refused with `stderr`.
    fn refused_with(stderr: &str) -> Vec<StepReport> {
        let mut report = StepReport::without_invocation("step 1", "exited", Vec::new());
        report.args = vec!["calculate-tokens".to_string()];
        report.exit_code = Some(1);
        report.stderr_excerpt = stderr.to_string();
        vec![report]
    }

    fn weighed(case: &Case, each: &EachTranscript, stderr: &str, samples: bool) -> Vec<Finding> {
        let mut reports = refused_with(stderr);
        generic_refused(case, each, "step 1", (samples, None), &mut reports);
        reports.remove(0).findings
    }

    #[test]
    fn a_refusal_of_the_generic_transcript_weighs_as_the_case_says() {
        let (warned, each) = case("token_calculator", "failure", "warning");
        let found = weighed(&warned, &each, "not my format", false);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(found[0].kind, Kind::Unverified);
        let (noted, each) = case("token_calculator", "failure", "note");
        assert_eq!(
            weighed(&noted, &each, "no", false)[0].severity,
            Severity::Note
        );
    }

    #[test]
    fn with_samples_a_refusal_of_the_generic_transcript_adds_nothing() {
        let (warned, each) = case("token_calculator", "failure", "warning");
        assert!(weighed(&warned, &each, "not my format", true).is_empty());
    }

    #[test]
    fn a_missing_subcommand_weighs_what_the_host_loses_capped_by_the_case() {
        let missing = "error: unknown subcommand calculate-tokens";
        let (tokens, each) = case("token_calculator", "failure", "warning");
        assert_eq!(
            weighed(&tokens, &each, missing, false)[0].severity,
            Severity::Warning
        );
        let (hooks, each) = case("hooks", "failure", "warning");
        assert_eq!(
            weighed(&hooks, &each, missing, false)[0].severity,
            Severity::Failure
        );
        let (capped, each) = case("hooks", "warning", "warning");
        assert_eq!(
            weighed(&capped, &each, missing, false)[0].severity,
            Severity::Warning
        );
        let (noted, each) = case("hooks", "failure", "note");
        let found = weighed(&noted, &each, missing, false);
        assert_eq!(found[0].severity, Severity::Note);
        assert!(found[0].message.contains("is missing at step 1"));
    }
}
