//! The chunking round trip over generated inputs and the plugin's own
//! samples (protocol "chunk-transcript", "reassemble-transcript";
//! host-behaviour "Chunking").
//!
//! Per input and `--max-size`: on exit 0 every chunk is standard padded
//! base64 of at most `--max-size` bytes, and reassembling gives the input back
//! byte for byte (the same JSON values in other bytes is a warning: the guide's
//! single-document pattern re-marshals). A clean refusal is accepted when a
//! line is longer than `--max-size`, for arbitrary bytes, and for JSONL when
//! the plugin refuses all of it (its format is another); a plugin that accepts
//! some JSONL and refuses other JSONL without an over-long line fails. Its own
//! samples must always round-trip.

use std::sync::Arc;

use base64::Engine;
use serde_json::Value;

use crate::case::RoundTripCorpus;
use crate::checks::{Finding, compare_bytes};
use crate::generate::{Input, same_json};
use crate::results::StepReport;
use crate::runner::Outcome;
use crate::schema::{Schemas, decode_host_json};

/// Runs one invocation: label, arguments, stdin; returns what happened and
/// its report (with the host's universal rules already applied).
pub type Invoke<'a> = dyn FnMut(&str, Vec<String>, Arc<[u8]>) -> (Outcome, StepReport) + 'a;

/// What a round trip found.
#[derive(Default)]
pub struct Verdict {
    /// Every invocation, with its findings.
    pub steps: Vec<StepReport>,
    /// A note for the report (what went unverified).
    pub note: Option<String>,
}

/// How one input fared.
enum Attempt {
    /// Round-tripped (or failed, with findings recorded).
    Accepted,
    /// Refused cleanly where the rules allow it.
    AllowedRefusal,
    /// Refused cleanly although no line was too long (JSONL only).
    Refused(String),
    /// Stopped by a failure.
    Failed,
}

/// Stop after this many failing inputs: the first ones tell the story.
const MAX_FAILURES: usize = 3;

/// Runs the round trip over `inputs` (samples carry their names as shapes).
pub fn run(
    corpus: RoundTripCorpus,
    inputs: &[(String, Input)],
    seed: u64,
    have_samples: bool,
    schemas: &Schemas,
    invoke: &mut Invoke<'_>,
) -> Verdict {
    let mut verdict = Verdict::default();
    let (mut accepted, mut refused, mut failures) = (0, Vec::new(), 0);
    'inputs: for (label, input) in inputs {
        for max in sizes(corpus, input) {
            let what = format!("{label}, --max-size {max}");
            match attempt(corpus, input, max, &what, schemas, invoke, &mut verdict) {
                Attempt::Accepted => accepted += 1,
                Attempt::AllowedRefusal => {}
                Attempt::Refused(what) => refused.push(what),
                Attempt::Failed => {
                    failures += 1;
                    if failures >= MAX_FAILURES {
                        break 'inputs;
                    }
                }
            }
        }
    }
    if corpus == RoundTripCorpus::Jsonl && !refused.is_empty() {
        judge_refusals(&mut verdict, accepted, &refused, seed, have_samples);
    }
    verdict
}

/// The `--max-size` values for an input.
fn sizes(corpus: RoundTripCorpus, input: &Input) -> Vec<usize> {
    match corpus {
        RoundTripCorpus::Samples => {
            let len = input.bytes.len().max(1);
            vec![len, 50 * 1024 * 1024]
        }
        _ => input.max_sizes(),
    }
}

fn judge_refusals(
    verdict: &mut Verdict,
    accepted: usize,
    refused: &[String],
    seed: u64,
    have_samples: bool,
) {
    let Some(last) = verdict.steps.last_mut() else {
        return;
    };
    if accepted > 0 {
        last.findings.push(Finding::failure(format!(
            "chunk-transcript accepted {accepted} JSONL inputs but refused {} others in which \
             no line is longer than --max-size (seed {seed}; first: {}); a plugin may refuse \
             JSONL as a whole, not some of it",
            refused.len(),
            refused[0]
        )));
    } else if !have_samples {
        last.findings.push(Finding::warning(format!(
            "chunk-transcript refused every generated JSONL transcript (seed {seed}) and no \
             sample transcript of the plugin's own was given (transcripts: in a --cases file): \
             chunking is unverified"
        )));
    } else {
        verdict.note = Some(
            "the plugin refuses JSONL; its own sample transcripts are checked instead".to_string(),
        );
    }
}

fn attempt(
    corpus: RoundTripCorpus,
    input: &Input,
    max: usize,
    what: &str,
    schemas: &Schemas,
    invoke: &mut Invoke<'_>,
    verdict: &mut Verdict,
) -> Attempt {
    let stdin: Arc<[u8]> = Arc::from(input.bytes.as_slice());
    let args = vec![
        "chunk-transcript".to_string(),
        "--max-size".to_string(),
        max.to_string(),
    ];
    let (out, mut report) = invoke(&format!("chunk [{what}]"), args, stdin);
    if has_failure(&report) {
        verdict.steps.push(report);
        return Attempt::Failed;
    }
    if out.exit_code() != Some(0) {
        verdict.steps.push(report);
        return refusal(corpus, input, max, what);
    }
    let chunks = match chunks_of(&out.stdout, max, schemas) {
        Ok(chunks) => chunks,
        Err(finding) => {
            report.findings.push(finding.with_context(what));
            verdict.steps.push(report);
            return Attempt::Failed;
        }
    };
    verdict.steps.push(report);
    let stdin: Arc<[u8]> = Arc::from(out.stdout);
    let args = vec!["reassemble-transcript".to_string()];
    let (back, mut report) = invoke(&format!("reassemble [{what}]"), args, stdin);
    let result = judge_reassembly(&input.bytes, &back, chunks, what, &mut report);
    verdict.steps.push(report);
    result
}

fn has_failure(report: &StepReport) -> bool {
    report
        .findings
        .iter()
        .any(|f| f.severity == crate::case::Severity::Failure)
}

fn refusal(corpus: RoundTripCorpus, input: &Input, max: usize, what: &str) -> Attempt {
    let too_long = input.longest_line() > max;
    match corpus {
        RoundTripCorpus::Bytes => Attempt::AllowedRefusal,
        RoundTripCorpus::Jsonl if too_long => Attempt::AllowedRefusal,
        RoundTripCorpus::Jsonl => Attempt::Refused(what.to_string()),
        RoundTripCorpus::Samples => Attempt::Refused(what.to_string()),
    }
}

/// Decodes the chunk output as the host does and checks each chunk's size.
fn chunks_of(stdout: &[u8], max: usize, schemas: &Schemas) -> Result<usize, Finding> {
    let json = decode_host_json(stdout).map_err(Finding::failure)?;
    if let Some(violation) = schemas
        .violations("chunk-transcript", &json)
        .into_iter()
        .next()
    {
        return Err(Finding::failure(format!(
            "stdout does not match schema chunk-transcript: {violation}"
        )));
    }
    let chunks = json
        .get("chunks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, chunk) in chunks.iter().enumerate() {
        let text = chunk.as_str().unwrap_or_default();
        let len = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map(|b| b.len())
            .map_err(|e| {
                Finding::failure(format!("chunk {i} is not standard padded base64: {e}"))
            })?;
        if len > max {
            return Err(Finding::failure(format!(
                "chunk {i} decodes to {len} bytes, more than --max-size {max}"
            )));
        }
    }
    Ok(chunks.len())
}

fn judge_reassembly(
    input: &[u8],
    back: &Outcome,
    chunks: usize,
    what: &str,
    report: &mut StepReport,
) -> Attempt {
    if has_failure(report) {
        return Attempt::Failed;
    }
    if back.exit_code() != Some(0) {
        report.findings.push(Finding::failure(format!(
            "reassemble-transcript refused the {chunks} chunks chunk-transcript made ({what})"
        )));
        return Attempt::Failed;
    }
    let Some(mismatch) = compare_bytes("the reassembled transcript", input, &back.stdout) else {
        return Attempt::Accepted;
    };
    if same_json(input, &back.stdout) {
        report.findings.push(Finding::warning(format!(
            "the reassembled transcript holds the same JSON values in other bytes ({what}); \
                 the host stores those bytes"
        )));
        return Attempt::Accepted;
    }
    report.findings.push(mismatch.with_context(what));
    Attempt::Failed
}
