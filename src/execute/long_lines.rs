//! The `long_lines` action: earlier analysis steps of a transcript pass
//! asked again, of a copy of the pass's transcript whose records hold long
//! lines (`suite::lengthen`; `host::long_lines`), each answer judged
//! against the step's own on the original (`judge::long_lines`).
//!
//! The copy avoids every string of the pass's answers so far (the
//! plugin's prompts and files), so that the same answer is the right one.
//! It is written beside the transcript (`{{tmp}}/long-lines/`), and the
//! steps run again with the copy in the transcript's place
//! (`{{transcript}}`, `current_transcript`). Those calls are never shared
//! (no other case asks of the same copy) and are made last in their
//! case, so the sandbox's print never reads the copy's megabytes.

use std::sync::Arc;

use crate::execute::step::{action_report, step_report};
use crate::execute::{CaseState, Pass, Run, StepEnd, defer_stdin, downgrade};
use crate::host::long_lines::Answer;
use crate::host::positions;
use crate::judge::checks::Finding;
use crate::judge::long_lines::{Asked, judge};
use crate::outcome::Kind;
use crate::outcome::finding::Evidence;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Severity, Source};
use crate::suite::lengthen::{Lengthened, lengthen};

impl Run<'_> {
    /// Runs the `long_lines` action at step `index` (see the module).
    pub(super) fn long_lines(
        &self,
        case: &Case,
        index: usize,
        steps: &[String],
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> StepEnd {
        let Some(pass) = state.pass.as_ref() else {
            return StepEnd::Continue;
        };
        let avoid = answer_strings(state);
        let Some(long) = lengthen(&pass.bytes, &avoid) else {
            let evidence = match pass.sample {
                Some(_) => Evidence::Samples,
                None => Evidence::Assumption,
            };
            let note = Finding::note(format!(
                "no record of {} holds a string to lengthen (a message, a tool's output), or \
                 it is no JSON: how the analysis reads long lines is not verified on it",
                pass.name
            ))
            .kind(Kind::NotVerified)
            .rests_on(evidence);
            state
                .reports
                .push(action_report(&case.step_name(index), vec![note]));
            return StepEnd::Continue;
        };
        let original = LongPass::of(pass, &long);
        let dir = pass.tmp.join("long-lines");
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(&pass.name), &long.bytes));
        if let Err(err) = written {
            let finding = Finding::failure(format!(
                "cannot write the lengthened transcript into {}: {err}",
                dir.display()
            ));
            state
                .reports
                .push(action_report(&case.step_name(index), vec![finding]));
            return StepEnd::Stop;
        }
        // The same lines: the same fragment start.
        let lengthened = Pass {
            number: pass.number,
            sample: pass.sample.clone(),
            fragment_start: pass.fragment_start,
            name: pass.name.clone(),
            bytes: Arc::new(long.bytes),
            tmp: dir,
        };
        let before = state.pass.replace(lengthened);
        let mut end = StepEnd::Continue;
        for name in steps {
            if !self.ask_long(case, name, &original, sandbox, state) {
                end = StepEnd::Stop;
                break;
            }
        }
        state.pass = before;
        end
    }

    /// Asks the step `name` again with the lengthened pass in place;
    /// records its report; false when the case stops (a failure, the
    /// breaker).
    fn ask_long(
        &self,
        case: &Case,
        name: &str,
        original: &LongPass,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> bool {
        let Some(index) = (0..case.steps.len()).find(|i| case.step_name(*i) == name) else {
            return true;
        };
        // The step did not answer in this pass (it stopped before): nothing
        // to compare with.
        let Some(said) = state.stdouts.get(name).cloned() else {
            return true;
        };
        let subcommand = case.steps[index].value.args.iter().flatten().next();
        let Some(answer) = subcommand.and_then(|s| Answer::of(s)) else {
            return true;
        };
        let (inv, stdin_file) = match self.prepare(case, index, None, sandbox, state) {
            Ok(prepared) => prepared,
            Err(reason) => {
                let finding = Finding::failure(format!("cannot ask {name} again: {reason}"));
                state.reports.push(action_report(name, vec![finding]));
                return false;
            }
        };
        if let Some(reason) = self.breaker.refuse(&inv.args) {
            state.cut = Some(reason);
            return false;
        }
        // The lengthened transcript as stdin is the file already written:
        // the reproduce command reads it there, not from a second copy.
        let stdin_file = match (&case.steps[index].value.stdin, &state.pass) {
            (Some(Source::CurrentTranscript), Some(pass)) => Some(pass.tmp.join(&pass.name)),
            _ => stdin_file.map(|file| file.with_extension("long-lines.stdin")),
        };
        let lengthened = state.pass.as_ref().map(|p| p.tmp.join(&p.name));
        if let (Some(file), Some(bytes)) = (&stdin_file, &inv.stdin)
            && Some(file) != lengthened.as_ref()
        {
            defer_stdin(&mut state.stdin_files, file, bytes);
        }
        let outcome = self.call(&inv);
        self.breaker
            .record(&case.id, &inv.args, inv.timeout, &outcome);
        let asked = Asked {
            answer,
            original: &said,
            lines: &original.described,
            sample: original.sample,
            other_unit: answer == Answer::Position && original.other_unit(&said),
        };
        let mut label = format!("{name} [long lines]");
        if let Some(sample) = state.pass.as_ref().and_then(|p| p.sample.as_ref()) {
            label = format!("{label} [sample {sample}]");
        }
        let mut report = step_report(label, &inv, &outcome, stdin_file.as_deref());
        report.findings = judge(&asked, &outcome);
        // What the judgement rests on: the plugin's own answer to the
        // original (its sample's, for an author's sample).
        report.rests_on = match original.sample {
            true => Evidence::Samples,
            false => Evidence::OwnAnswers,
        };
        downgrade(case, &mut report);
        let failed = report
            .findings
            .iter()
            .any(|f| f.severity == Severity::Failure);
        state.reports.push(report);
        !failed
    }
}

/// What the judgement needs of the original pass.
struct LongPass {
    /// The lengthened lines in words.
    described: String,
    /// The author's sample, not the generic transcript.
    sample: bool,
    /// The host's line count of a JSONL original (`None`: one JSON
    /// document, counted in the plugin's own unit).
    host_lines: Option<u64>,
}

impl LongPass {
    fn of(pass: &Pass, long: &Lengthened) -> LongPass {
        let jsonl = positions::layout(&pass.name, &pass.bytes) == positions::Layout::Jsonl;
        LongPass {
            described: long.described(),
            sample: pass.sample.is_some(),
            host_lines: jsonl.then(|| positions::line_count(&pass.bytes)),
        }
    }

    /// Whether the original's position (`said`) is in another unit than
    /// the host's line count of a JSONL transcript.
    fn other_unit(&self, said: &[u8]) -> bool {
        let position = serde_json::from_slice::<serde_json::Value>(said)
            .ok()
            .and_then(|v| v["position"].as_u64());
        self.host_lines.is_some_and(|lines| position != Some(lines))
    }
}

/// Every string of the JSON answers of the pass so far: the plugin's
/// prompts and files, which the copy must not lengthen.
fn answer_strings(state: &CaseState) -> Vec<String> {
    let mut strings = Vec::new();
    for stdout in state.stdouts.values() {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(stdout) {
            collect(&value, &mut strings);
        }
    }
    strings
}

fn collect(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| collect(v, out)),
        _ => {}
    }
}
