//! The chunking round trip over generated inputs and the plugin's own
//! samples (protocol "chunk-transcript", "reassemble-transcript";
//! docs/host.md "Chunking").
//!
//! Per input and `--max-size`: on exit 0 every chunk is standard padded
//! base64 of at most `--max-size` bytes, and reassembling gives the input back
//! byte for byte (the same JSON values in other bytes is a warning: the guide's
//! single-document pattern re-marshals). A clean refusal is accepted when a
//! line is longer than `--max-size`, for arbitrary bytes, and for JSONL when
//! the plugin refuses all of it (its format is another); a plugin that accepts
//! some JSONL and refuses other JSONL without an over-long line fails. Its own
//! samples must always round-trip.
//!
//! Over 500 lines: the round-trip property and its large-input variant share
//! the attempt/refusal logic.

use std::sync::Arc;

use base64::Engine;
use serde_json::Value;

use crate::host::chunker::{HOST_MAX_SIZE, reassembles_through_plugin};
use crate::host::decoding::decode_host_json;
use crate::host::invocation::OUTPUT_LIMIT;
use crate::judge::checks::{Finding, compare_bytes};
use crate::outcome::Kind;
use crate::outcome::results::StepReport;
use crate::running::runner::{Bytes, Outcome};
use crate::suite::case::RoundTripCorpus;
use crate::suite::generate::{Input, same_json};
use crate::suite::schema::Schemas;

/// One invocation a property asks for.
pub struct Call {
    /// The step's name in the report.
    pub label: String,
    /// Arguments after the binary.
    pub args: Vec<String>,
    /// stdin.
    pub stdin: Bytes,
    /// How much stdout to read (the host's limit unless a large case).
    pub stdout_limit: usize,
    /// Compare stdout with these bytes while reading, instead of keeping it.
    pub expect_stdout: Option<Bytes>,
}

impl Call {
    /// A call with the host's limits.
    pub fn new(label: String, args: &[&str], stdin: Bytes) -> Call {
        Call {
            label,
            args: args.iter().map(|a| a.to_string()).collect(),
            stdin,
            stdout_limit: OUTPUT_LIMIT,
            expect_stdout: None,
        }
    }
}

/// Runs one invocation; returns what happened and its report (with the
/// host's universal rules already applied).
pub type Invoke<'a> = dyn FnMut(Call) -> (Outcome, StepReport) + 'a;

/// What a round trip found.
#[derive(Default)]
pub struct RoundTripFindings {
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

/// What a round trip runs over.
pub struct Inputs<'a> {
    /// Where the inputs come from (it decides which refusals are allowed).
    pub corpus: RoundTripCorpus,
    /// The inputs, labelled for messages.
    pub inputs: &'a [(String, Input)],
    /// `--max-size` values for every input; empty: per input.
    pub max_sizes: &'a [usize],
    /// The seed of generated inputs, for messages.
    pub seed: u64,
    /// Whether the plugin names samples of its own.
    pub have_samples: bool,
}

/// How the attempts at one input went, for the rules that span inputs.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Attempts that round-tripped.
    pub accepted: usize,
    /// Clean refusals that no over-long line explains.
    pub refused: Vec<String>,
    /// Attempts stopped by a failure.
    pub failures: usize,
}

impl Tally {
    /// Adds another input's tally.
    pub fn add(&mut self, other: &Tally) {
        self.accepted += other.accepted;
        self.refused.extend(other.refused.iter().cloned());
        self.failures += other.failures;
    }
}

/// Runs the round trip over the inputs (samples carry their names as shapes).
pub fn run(what: Inputs<'_>, schemas: &Schemas, invoke: &mut Invoke<'_>) -> RoundTripFindings {
    let mut verdict = RoundTripFindings::default();
    let mut tally = Tally::default();
    for index in 0..what.inputs.len() {
        if tally.failures >= MAX_FAILURES {
            break;
        }
        let one = run_input(&what, index, schemas, invoke, &mut verdict.steps);
        tally.add(&one);
    }
    judge(&what, &tally, &mut verdict);
    verdict
}

/// Runs input `index` at each of its sizes: a unit of work of its own, which
/// the executor may schedule beside other units and cases.
pub fn run_input(
    what: &Inputs<'_>,
    index: usize,
    schemas: &Schemas,
    invoke: &mut Invoke<'_>,
    steps: &mut Vec<StepReport>,
) -> Tally {
    let mut tally = Tally::default();
    let Some((label, input)) = what.inputs.get(index) else {
        return tally;
    };
    let first = steps.len();
    let sizes = match what.max_sizes {
        [] => sizes(what.corpus, input),
        given => given.to_vec(),
    };
    for max in sizes {
        let at = format!("{label}, --max-size {max}");
        match attempt(what.corpus, input, max, &at, schemas, invoke, steps) {
            Attempt::Accepted => tally.accepted += 1,
            Attempt::AllowedRefusal => {}
            Attempt::Refused(at) => tally.refused.push(at),
            Attempt::Failed => {
                tally.failures += 1;
                if tally.failures >= MAX_FAILURES {
                    break;
                }
            }
        }
    }
    coded(&mut steps[first..]);
    tally
}

/// Gives the round trip's own findings (a case's expectation, not a crash
/// or a hang) the code `round-trip`, which `--allow` can name apart.
fn coded(steps: &mut [StepReport]) {
    let findings = steps.iter_mut().flat_map(|s| s.findings.iter_mut());
    for finding in findings.filter(|f| f.kind == Kind::Check) {
        finding.kind = Kind::RoundTrip;
    }
}

/// The rules that span inputs, on the tally of all of them: a plugin's own
/// sample must not be refused; JSONL is refused as a whole or not at all.
pub fn judge(what: &Inputs<'_>, tally: &Tally, verdict: &mut RoundTripFindings) {
    let corpus = what.corpus;
    if corpus == RoundTripCorpus::Samples
        && let (Some(first), Some(last)) = (tally.refused.first(), verdict.steps.last_mut())
    {
        last.findings.push(Finding::failure(format!(
            "chunk-transcript refused the plugin's own sample ({first}) although no line of it is \
             longer than --max-size: the host would fail to store this transcript"
        )));
    }
    let jsonl = matches!(corpus, RoundTripCorpus::Jsonl | RoundTripCorpus::Fixtures);
    if jsonl && !tally.refused.is_empty() {
        judge_refusals(
            verdict,
            corpus,
            tally.accepted,
            &tally.refused,
            what.seed,
            what.have_samples,
        );
    }
    coded(&mut verdict.steps);
}

/// The `--max-size` values for an input.
fn sizes(corpus: RoundTripCorpus, input: &Input) -> Vec<usize> {
    match corpus {
        RoundTripCorpus::Samples => {
            // Half its length makes the plugin split and reassemble its own
            // format; its length plus one holds it in one chunk by any
            // chunker's count; 50 MiB is what the host asks.
            let len = input.bytes.len();
            let mut sizes = vec![(len / 2).max(1), len + 1, HOST_MAX_SIZE];
            sizes.dedup();
            sizes
        }
        _ => input.max_sizes.clone(),
    }
}

fn judge_refusals(
    verdict: &mut RoundTripFindings,
    corpus: RoundTripCorpus,
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
             no line is longer than --max-size (counted with its newline, as the host's chunker \
             does; seed {seed}; first: {}); a plugin may refuse JSONL as a whole, not some of it",
            refused.len(),
            refused[0]
        )));
    } else if have_samples {
        verdict.note = Some(
            "the plugin refuses JSONL; its own sample transcripts are checked instead".to_string(),
        );
    } else if corpus == RoundTripCorpus::Fixtures {
        // core.chunk.generated-jsonl says it once, as a warning.
        last.findings.push(Finding::note(
            "chunk-transcript refused the JSONL transcripts (another agent's format for a \
             plugin of its own format); chunking is unverified, see core.chunk.generated-jsonl",
        ));
    } else {
        last.findings.push(Finding::warning(format!(
            "chunk-transcript refused every generated JSONL transcript (seed {seed}) and no \
             sample transcript of the plugin's own was given: chunking is unverified; name one \
             in a --cases file: `transcripts: [samples/<a transcript of yours>]`"
        )));
    }
}

fn attempt(
    corpus: RoundTripCorpus,
    input: &Input,
    max: usize,
    what: &str,
    schemas: &Schemas,
    invoke: &mut Invoke<'_>,
    steps: &mut Vec<StepReport>,
) -> Attempt {
    let stdin: Bytes = input.bytes.clone();
    let max_text = max.to_string();
    let args = ["chunk-transcript", "--max-size", max_text.as_str()];
    let (out, mut report) = invoke(Call::new(format!("chunk [{what}]"), &args, stdin));
    if has_failure(&report) {
        steps.push(report);
        return Attempt::Failed;
    }
    if out.exit_code() != Some(0) {
        steps.push(report);
        return refusal(corpus, input, max, what);
    }
    let chunks = match chunks_of(&out.stdout, max, schemas) {
        Ok(chunks) => chunks,
        Err(finding) => {
            report.findings.push(finding.with_context(what));
            steps.push(report);
            return Attempt::Failed;
        }
    };
    if chunks.null {
        report.findings.push(Finding::note(format!(
            "chunks is null for an empty transcript ({what}); the host decodes it as no \
             chunks, the protocol shows []"
        )));
    }
    // The host reassembles only two or more chunks through the plugin
    // (crate::host::chunker); fewer it rebuilds itself.
    if reassembles_through_plugin(chunks.decoded.len()) {
        steps.push(report);
        let stdin: Bytes = Arc::new(out.stdout);
        let call = Call::new(
            format!("reassemble [{what}]"),
            &["reassemble-transcript"],
            stdin,
        );
        let (back, mut report) = invoke(call);
        let result = judge_reassembly(&input.bytes, &back, chunks.decoded.len(), what, &mut report);
        steps.push(report);
        return result;
    }
    let (transcript, how): (&[u8], &str) = match chunks.decoded.first() {
        None => (b"", "no chunks (an empty transcript)"),
        Some(only) => (only, "its one chunk, decoded"),
    };
    let judged = judge_host_join(&input.bytes, transcript, how, what, &mut report);
    steps.push(report);
    judged
}

/// Fewer than two chunks: the host takes the transcript from the chunk
/// output itself, so it must be the input byte for byte.
fn judge_host_join(
    input: &[u8],
    transcript: &[u8],
    how: &str,
    what: &str,
    report: &mut StepReport,
) -> Attempt {
    let what_host_has = format!("the transcript the host rebuilds from {how}");
    match compare_bytes(&what_host_has, input, transcript) {
        None => Attempt::Accepted,
        Some(mismatch) => {
            report.findings.push(mismatch.with_context(what));
            Attempt::Failed
        }
    }
}

fn has_failure(report: &StepReport) -> bool {
    report
        .findings
        .iter()
        .any(|f| f.severity == crate::host::Severity::Failure)
}

fn refusal(corpus: RoundTripCorpus, input: &Input, max: usize, what: &str) -> Attempt {
    let too_long = input.longest_line() > max;
    match corpus {
        RoundTripCorpus::Bytes => Attempt::AllowedRefusal,
        _ if too_long => Attempt::AllowedRefusal,
        _ => Attempt::Refused(what.to_string()),
    }
}

/// A chunk output as the host reads it.
struct Chunks {
    /// Each chunk's bytes.
    decoded: Vec<Vec<u8>>,
    /// `"chunks": null` (a Go nil slice): the host reads no chunks.
    null: bool,
}

/// Decodes the chunk output as the host does and checks each chunk's size.
fn chunks_of(stdout: &[u8], max: usize, schemas: &Schemas) -> Result<Chunks, Finding> {
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
    let null = json.get("chunks").is_none_or(Value::is_null);
    let texts = json
        .get("chunks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut decoded = Vec::with_capacity(texts.len());
    let mut buf = vec![0u8; 48 * 1024];
    for (i, chunk) in texts.iter().enumerate() {
        let text = chunk.as_str().unwrap_or_default();
        check_chunk(i, text, max, &mut buf)?;
        decoded.push(
            base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|e| {
                    Finding::failure(format!("chunk {i} is not standard padded base64: {e}"))
                })?,
        );
    }
    Ok(Chunks { decoded, null })
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

/// Stdout the harness reads in a large case, past the host's limit.
fn large_limit(input: usize) -> usize {
    input * 2 + (1 << 20)
}

/// The large round trip: one generated JSONL transcript of `mib` MiB at each
/// `--max-size`. The chunk output is parsed in place (chunks borrowed, sizes
/// checked in 64 KiB slices) and the reassembled stdout is compared as it
/// streams in, so the harness holds the transcript and the chunk output, and
/// nothing else of that size. Output over the host's 10 MiB limit is noted:
/// the real host would fail such a call, which makes the rest informational.
pub fn large(
    mib: usize,
    max_sizes: &[usize],
    seed: u64,
    invoke: &mut Invoke<'_>,
) -> RoundTripFindings {
    let input: Bytes = Arc::new(crate::suite::generate::large_jsonl(mib << 20, seed));
    let mut verdict = RoundTripFindings::default();
    let mut notes = Vec::new();
    for &max in max_sizes {
        let what = format!("{mib} MiB JSONL, seed {seed}, --max-size {max}");
        let max_text = max.to_string();
        let mut call = Call::new(
            format!("chunk [{what}]"),
            &["chunk-transcript", "--max-size", max_text.as_str()],
            input.clone(),
        );
        call.stdout_limit = large_limit(input.len());
        let (out, mut report) = invoke(call);
        note_host_limit(&mut notes, "chunk-transcript", &out, &what);
        if has_failure(&report) || out.exit_code() != Some(0) {
            if out.exit_code().is_some_and(|c| c != 0) && !has_failure(&report) {
                report.findings.push(Finding::warning(format!(
                    "chunk-transcript refused the large JSONL transcript ({what}): unverified"
                )));
            }
            verdict.steps.push(report);
            continue;
        }
        let started = std::time::Instant::now();
        match check_chunks_streaming(&out.stdout, max) {
            Err(finding) => {
                report.findings.push(finding.with_context(&what));
                verdict.steps.push(report);
                continue;
            }
            Ok(Some(rebuilt)) => {
                let how = "the transcript the host rebuilds from fewer than two chunks";
                if let Some(mismatch) = compare_bytes(how, &input, &rebuilt) {
                    report.findings.push(mismatch.with_context(&what));
                }
                verdict.steps.push(report);
                continue;
            }
            Ok(None) => {}
        }
        let check_time = started.elapsed();
        let chunk_time = out.elapsed;
        verdict.steps.push(report);
        let mut call = Call::new(
            format!("reassemble [{what}]"),
            &["reassemble-transcript"],
            Arc::new(out.stdout),
        );
        call.stdout_limit = large_limit(input.len());
        call.expect_stdout = Some(input.clone());
        let (back, mut report) = invoke(call);
        note_host_limit(&mut notes, "reassemble-transcript", &back, &what);
        judge_streamed(&back, input.len(), &what, &mut report);
        notes.push(format!(
            "{what}: chunk {:.2} s, checking the chunks {:.2} s, reassemble {:.2} s",
            chunk_time.as_secs_f64(),
            check_time.as_secs_f64(),
            back.elapsed.as_secs_f64()
        ));
        verdict.steps.push(report);
    }
    verdict.note = Some(notes.join("; "));
    coded(&mut verdict.steps);
    verdict
}

fn note_host_limit(notes: &mut Vec<String>, sub: &str, out: &Outcome, what: &str) {
    if out.stdout_total > OUTPUT_LIMIT {
        notes.push(format!(
            "{sub} printed {} bytes ({what}), over the host's {OUTPUT_LIMIT}-byte stdout \
             limit: the real host would fail this call; the round trip was checked anyway \
             (informational)",
            out.stdout_total
        ));
    }
}

/// Checks a chunk-transcript output without copying it: the chunks are
/// borrowed from stdout and decoded 64 KiB at a time to count their bytes.
/// With fewer than two chunks, returns the transcript the host rebuilds
/// itself (nothing, or the one chunk decoded).
fn check_chunks_streaming(stdout: &[u8], max: usize) -> Result<Option<Vec<u8>>, Finding> {
    // `&str` borrows from stdout (base64 needs no JSON escapes); only an
    // encoder that escapes `/` as `\/` makes the owned fallback necessary.
    #[derive(serde::Deserialize)]
    struct Borrowed<'a> {
        #[serde(borrow)]
        chunks: Option<Vec<&'a str>>,
    }
    #[derive(serde::Deserialize)]
    struct Owned {
        chunks: Option<Vec<String>>,
    }
    let owned;
    let chunks: Vec<&str> = match serde_json::from_slice::<Borrowed<'_>>(stdout) {
        Ok(parsed) => parsed.chunks.unwrap_or_default(),
        Err(_) => {
            owned = serde_json::from_slice::<Owned>(stdout)
                .map_err(|e| {
                    Finding::failure(format!("stdout is not one JSON object with chunks: {e}"))
                })?
                .chunks
                .unwrap_or_default();
            owned.iter().map(String::as_str).collect()
        }
    };
    let mut buf = vec![0u8; 48 * 1024];
    for (i, chunk) in chunks.iter().enumerate() {
        check_chunk(i, chunk, max, &mut buf)?;
    }
    match chunks.as_slice() {
        [] => Ok(Some(Vec::new())),
        [only] => base64::engine::general_purpose::STANDARD
            .decode(only)
            .map(Some)
            .map_err(|e| Finding::failure(format!("chunk 0 is not standard padded base64: {e}"))),
        _ => Ok(None),
    }
}

/// Decodes chunk `i` 64 KiB of text at a time (no copy of the chunk) and
/// checks it is standard padded base64 of at most `max` bytes.
fn check_chunk(i: usize, text: &str, max: usize, buf: &mut [u8]) -> Result<(), Finding> {
    let mut len = 0;
    for piece in text.as_bytes().chunks(64 * 1024) {
        len += base64::engine::general_purpose::STANDARD
            .decode_slice(piece, buf)
            .map_err(|e| {
                Finding::failure(format!("chunk {i} is not standard padded base64: {e}"))
            })?;
    }
    if len > max {
        return Err(Finding::failure(format!(
            "chunk {i} decodes to {len} bytes, more than --max-size {max}"
        )));
    }
    Ok(())
}

fn judge_streamed(back: &Outcome, expected_len: usize, what: &str, report: &mut StepReport) {
    if has_failure(report) {
        return;
    }
    if back.exit_code() != Some(0) {
        report.findings.push(Finding::failure(format!(
            "reassemble-transcript refused the chunks chunk-transcript made ({what})"
        )));
        return;
    }
    let Some(compared) = &back.compared else {
        return;
    };
    if let Some(at) = compared.first_diff {
        report.findings.push(
            Finding::failure(format!(
                "({what}) the reassembled transcript differs from the input: first difference at \
                 byte {at} (expected {expected_len} bytes, got {})",
                compared.total
            ))
            .diff(
                format!(
                    "(the generated transcript from byte {})",
                    compared.excerpt_start
                ),
                String::from_utf8_lossy(&compared.excerpt).into_owned(),
            ),
        );
    }
}
