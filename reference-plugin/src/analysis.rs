//! Subcommands that read a transcript file: `read-transcript`,
//! `prepare-transcript` (capability transcript_preparer), `compact-transcript`
//! (capability compact_transcript) and the transcript_analyzer group
//! (`get-transcript-position`, `extract-modified-files`, `extract-prompts`,
//! `extract-summary`).
//!
//! The parsing itself lives in `transcript`; this module only reads files,
//! parses flags and shapes the answers.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::Request;
use crate::args;
use crate::context::AGENT_DIR;
use crate::context::Context;
use crate::error::{Error, ErrorContext, Result};
use crate::fault_state;
use crate::faults::Fault;
use crate::output::Output;
use crate::protocol::{self, Asset, CompactedTranscript};
use crate::transcript;
use crate::variants::Variant;

/// Read a whole transcript file; a missing file, or a directory, is an error
/// naming the path.
pub fn read_file(path: &str) -> Result<Vec<u8>> {
    if path.is_empty() {
        return Err(Error::failed("transcript path is empty"));
    }
    if Path::new(path).is_dir() {
        return Err(Error::failed(format!(
            "transcript {path} is a directory, not a transcript file"
        )));
    }
    fs::read(path).context(|| format!("reading transcript {path}"))
}

/// Refuses a session reference with a `.` or `..` component. The host never
/// sends one (it rejects them itself, docs/host.md), so one arriving here
/// is a bug or an attempt to read a file outside the agent's sessions.
pub fn check_reference(reference: &str) -> Result<()> {
    let dotted = reference
        .split(['/', '\\'])
        .any(|component| component == "." || component == "..");
    if dotted {
        return Err(Error::failed(format!(
            "session reference {reference:?} has a . or .. component; refusing to follow it"
        )));
    }
    Ok(())
}

/// `read-transcript --session-ref P`: the file's bytes, unchanged.
pub fn read_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    if request.args.missing("--session-ref") {
        // The missing-flag-ok fault: guess a transcript instead of refusing.
        let guess = ctx.repo_root()?.join(AGENT_DIR).join("transcript.jsonl");
        return match fs::read(&guess) {
            Ok(content) => Ok(Output::Raw(content)),
            Err(_) => Ok(Output::Nothing),
        };
    }
    let reference = request.args.value("--session-ref");
    if !ctx.fault(Fault::SessionRefUnchecked) {
        check_reference(reference)?;
    }
    let mut content = read_file(reference)?;
    if ctx.fault(Fault::ReadTranscriptAddsNewline) {
        content.push(b'\n');
    }
    Ok(Output::Raw(content))
}

/// The marker the reference agent keeps beside a transcript while it is still
/// writing it: `P.writing` for the transcript `P`.
pub const WRITING_MARKER_SUFFIX: &str = ".writing";

/// How often `prepare-transcript` looks for the marker again.
const FLUSH_POLL: Duration = Duration::from_millis(50);

/// How long `prepare-transcript` waits for the marker to go, in total.
const FLUSH_LIMIT: Duration = Duration::from_secs(5);

/// `prepare-transcript --session-ref P`: wait for the transcript to be flushed.
///
/// The reference agent writes its transcript asynchronously and, while it
/// writes, keeps the marker file `P.writing` beside it. So: if the marker
/// exists, look again every 50 ms until it is gone, for at most 5 s in total,
/// and fail if it is still there then (the host calls this before every read
/// and must not wait forever). Then confirm that the transcript exists, so
/// that a wrong reference fails here, before the host tries to read it.
pub fn prepare_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    if ctx.fault(Fault::PrepareHang) {
        std::thread::sleep(Duration::from_secs(3600));
    }
    if ctx.fault(Fault::PrepareFails) {
        return Err(Error::failed("cannot prepare"));
    }
    let path = request.args.value("--session-ref");
    if !path.is_empty() {
        wait_for_flush(&format!("{path}{WRITING_MARKER_SUFFIX}"), FLUSH_LIMIT)?;
    }
    let is_file = fs::metadata(path).is_ok_and(|meta| meta.is_file());
    if !is_file && !ctx.fault(Fault::PrepareMissingOk) {
        return Err(Error::failed(format!(
            "transcript {path:?} does not exist or is not a file"
        )));
    }
    Ok(Output::Nothing)
}

/// Wait until `marker` is gone, looking every [`FLUSH_POLL`], for at most `limit`.
fn wait_for_flush(marker: &str, limit: Duration) -> Result<()> {
    // Any directory entry counts, even a dangling symlink: the agent owns it.
    let present = || fs::symlink_metadata(marker).is_ok();
    let deadline = Instant::now() + limit;
    while present() {
        let now = Instant::now();
        if now >= deadline {
            return Err(Error::failed(format!(
                "transcript still being written after {} s (marker {marker:?} is still there)",
                limit.as_secs()
            )));
        }
        std::thread::sleep(FLUSH_POLL.min(deadline - now));
    }
    Ok(())
}

/// `compact-transcript --session-ref P`: the conversation part of the
/// transcript (see [`transcript::compact`]) as `{"transcript": <base64>,
/// "assets": []}`. The same session-reference check as `read-transcript`
/// applies; a missing file is an error, and so is a transcript with nothing to
/// keep, since the answer's transcript must not be empty.
pub fn compact_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    let reference = request.args.value("--session-ref");
    check_reference(reference)?;
    let content = read_file(reference)?;
    if ctx.fault(Fault::CompactNeedsHeader) && !starts_the_session(&content) {
        return Err(Error::failed(format!(
            "{reference} does not start with the session's first entry; cannot compact it"
        )));
    }
    let compacted = transcript::compact(&content);
    if compacted.is_empty() {
        return Err(Error::failed(format!(
            "nothing to compact: {reference} has no user or assistant entries"
        )));
    }
    let mut answer = CompactedTranscript {
        transcript: protocol::encode_bytes(&compacted),
        assets: Vec::new(),
    };
    match ctx.fault {
        Some(Fault::CompactEmptyTranscript) => answer.transcript.clear(),
        Some(Fault::CompactBadAsset) => answer.assets.push(Asset {
            name: String::new(),
            media_type: "text/plain".to_owned(),
            data: protocol::encode_bytes(b"x"),
        }),
        _ => {}
    }
    Ok(Output::Json(protocol::to_json(&answer)?))
}

/// Under the `compact-needs-header` fault: whether the first line is the
/// session's first entry (its `uuid` ends in `-001`).
fn starts_the_session(content: &[u8]) -> bool {
    transcript::entries_from(content, 0)
        .next()
        .and_then(|entry| entry.get("uuid")?.as_str().map(|id| id.ends_with("-001")))
        .unwrap_or(false)
}

/// `content` as the `transcript-scanner-64k` fault reads it: its lines up
/// to the first of 64 KiB or more, where Go's `bufio.Scanner` with its
/// default limit stops (its error unchecked); all of it otherwise.
pub fn scanned<'a>(ctx: &Context, content: &'a [u8]) -> &'a [u8] {
    /// `bufio.MaxScanTokenSize`.
    const MAX_TOKEN: usize = 64 * 1024;
    if !ctx.fault(Fault::TranscriptScanner64k) {
        return content;
    }
    let mut start = 0;
    for line in content.split_inclusive(|&byte| byte == b'\n') {
        if line.strip_suffix(b"\n").unwrap_or(line).len() >= MAX_TOKEN {
            return &content[..start];
        }
        start += line.len();
    }
    content
}

/// `get-transcript-position --path P`: `{"position": <line count>}`.
pub fn get_transcript_position(ctx: &Context, request: &Request) -> Result<Output> {
    let path = request.args.value("--path");
    let position = match fs::read(path) {
        Ok(content) => position_of(ctx, scanned(ctx, &content)),
        Err(err)
            if err.kind() == ErrorKind::NotFound && ctx.variant(Variant::MissingTranscriptZero) =>
        {
            0
        }
        Err(err) => return Err(Error::failed(format!("reading transcript {path}: {err}"))),
    };
    if ctx.fault(Fault::AnalysisOffsetIgnoredWhenGrown) {
        remember_size(ctx, path);
    }
    let answer = match ctx.fault {
        Some(Fault::PositionString) => json!({ "position": position.to_string() }),
        Some(Fault::PositionNegative) => json!({ "position": -1 }),
        // `as f64` is the fault: the integer is written as `8.0`.
        Some(Fault::PositionFloat) => json!({ "position": position as f64 }),
        _ => json!({ "position": position }),
    };
    Ok(Output::Json(answer))
}

/// The position of `content`: its line count (under the `position-in-bytes`
/// fault, its size in bytes).
pub fn position_of(ctx: &Context, content: &[u8]) -> usize {
    if ctx.fault(Fault::PositionInBytes) {
        return content.len();
    }
    transcript::position(content)
}

/// `--offset` as a line index into `content`: the flag's value (under the
/// `position-in-bytes` and `offset-in-bytes` faults, a byte offset, taken to
/// the next line start).
pub fn offset_lines(ctx: &Context, content: &[u8], raw: &str) -> Result<usize> {
    let offset = args::parse_offset(raw)?;
    if !ctx.fault(Fault::PositionInBytes) && !ctx.fault(Fault::OffsetInBytes) {
        return Ok(offset);
    }
    Ok(transcript::position(&content[..offset.min(content.len())]))
}

/// The state file of the `analysis-offset-ignored-when-grown` fault: the size of
/// each transcript at its last `get-transcript-position`, by path.
const POSITION_SIZES: &str = "position-sizes";

/// Remember the size of `path` now (the `analysis-offset-ignored-when-grown` fault).
fn remember_size(ctx: &Context, path: &str) {
    let Ok(meta) = fs::metadata(path) else { return };
    let mut sizes = fault_state::load(ctx, POSITION_SIZES);
    sizes.insert(path.to_owned(), json!(meta.len()));
    fault_state::store(ctx, POSITION_SIZES, sizes);
}

/// Under the `analysis-offset-ignored-when-grown` fault: whether the transcript
/// at `path`, now `content`, is larger than at its last `get-transcript-position`.
/// False without the fault, without an earlier position call, or unchanged.
fn grown_since_position(ctx: &Context, path: &str, content: &[u8]) -> bool {
    if !ctx.fault(Fault::AnalysisOffsetIgnoredWhenGrown) {
        return false;
    }
    fault_state::load(ctx, POSITION_SIZES)
        .get(path)
        .and_then(serde_json::Value::as_u64)
        .is_some_and(|size| (content.len() as u64) > size)
}

/// [`grown_since_position`] for a transcript that comes on stdin
/// (`extract-all-modified-files`): true when one of the remembered transcripts
/// now holds exactly `content` and has grown since its position was taken.
pub fn stdin_grown_since_position(ctx: &Context, content: &[u8]) -> bool {
    if !ctx.fault(Fault::AnalysisOffsetIgnoredWhenGrown) {
        return false;
    }
    fault_state::load(ctx, POSITION_SIZES)
        .iter()
        .any(|(path, size)| {
            size.as_u64()
                .is_some_and(|size| (content.len() as u64) > size)
                && fs::read(path).is_ok_and(|now| now == content)
        })
}

/// The state file of the `subagent-end-files-fail` fault.
const SUBAGENT_ENDED: &str = "subagent-ended";

/// The `subagent-end-files-fail` fault: a SubagentEnd was answered in this
/// `$HOME`, so every later `extract-modified-files` fails.
pub fn subagent_ended(ctx: &Context) {
    let mut state = fault_state::load(ctx, SUBAGENT_ENDED);
    state.insert("ended".to_owned(), serde_json::Value::Bool(true));
    fault_state::store(ctx, SUBAGENT_ENDED, state);
}

/// `extract-modified-files --path P --offset N`: files written or edited on lines
/// at index >= N, and the position to resume from next time.
pub fn extract_modified_files(ctx: &Context, request: &Request) -> Result<Output> {
    if ctx.fault(Fault::SubagentEndFilesFail)
        && fault_state::load(ctx, SUBAGENT_ENDED).contains_key("ended")
    {
        return Err(Error::failed(
            "extract-modified-files: the subagent index is busy".to_string(),
        ));
    }
    let read = read_file(request.args.value("--path"))?;
    let content = scanned(ctx, &read);
    let mut offset = offset_lines(ctx, content, request.args.value("--offset"))?;
    if ctx.fault(Fault::ModifiedFilesIgnoreOffset)
        || grown_since_position(ctx, request.args.value("--path"), &read)
    {
        offset = 0;
    }
    let files = transcript::modified_files(content, offset);
    let current_position = if ctx.fault(Fault::PositionWrongCurrent) {
        0
    } else {
        position_of(ctx, content)
    };
    let answer = if ctx.fault(Fault::ModifiedFilesNull) {
        json!({ "files": null, "current_position": current_position })
    } else {
        json!({ "files": files, "current_position": current_position })
    };
    Ok(Output::Json(answer))
}

/// `extract-prompts --session-ref P --offset N`: the user's prompts on lines at
/// index >= N.
pub fn extract_prompts(ctx: &Context, request: &Request) -> Result<Output> {
    let read = read_file(request.args.value("--session-ref"))?;
    let content = scanned(ctx, &read);
    let mut offset = offset_lines(ctx, content, request.args.value("--offset"))?;
    if ctx.fault(Fault::PromptsIgnoreOffset)
        || grown_since_position(ctx, request.args.value("--session-ref"), &read)
    {
        offset = 0;
    }
    let prompts = transcript::prompts(content, offset);
    Ok(Output::Json(json!({ "prompts": prompts })))
}

/// `extract-summary --session-ref P`: the last summary entry, if there is one.
pub fn extract_summary(ctx: &Context, request: &Request) -> Result<Output> {
    let content = read_file(request.args.value("--session-ref"))?;
    let summary = transcript::summary(&content);
    let has_summary = summary.is_some() || ctx.fault(Fault::SummaryClaimedWithoutSummary);
    let answer = if ctx.fault(Fault::SummaryStringBool) {
        json!({ "summary": summary.unwrap_or_default(), "has_summary": has_summary.to_string() })
    } else {
        json!({ "summary": summary.unwrap_or_default(), "has_summary": has_summary })
    };
    Ok(Output::Json(answer))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_dotted_references() {
        assert!(check_reference("/a/b.jsonl").is_ok());
        assert!(check_reference("/a/../b.jsonl").is_err());
        assert!(check_reference("./b.jsonl").is_err());
    }

    #[test]
    fn waits_for_the_writing_marker() {
        let dir = std::env::temp_dir().join(format!("reference-flush-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("temp dir");
        let marker = dir.join("t.jsonl.writing");
        let marker_text = marker.to_string_lossy().into_owned();

        // No marker: no wait.
        assert!(wait_for_flush(&marker_text, Duration::ZERO).is_ok());

        // A marker that stays: an error once the limit has passed.
        fs::write(&marker, b"").expect("marker");
        let started = Instant::now();
        let err = wait_for_flush(&marker_text, Duration::from_millis(120)).expect_err("stuck");
        assert!(started.elapsed() >= Duration::from_millis(120));
        assert!(err.to_string().contains("still being written"), "{err}");

        // A marker the writer removes in time: success.
        let remover = {
            let marker = marker.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100));
                fs::remove_file(marker).expect("remove marker");
            })
        };
        assert!(wait_for_flush(&marker_text, Duration::from_secs(5)).is_ok());
        remover.join().expect("remover thread");
        let _ = fs::remove_dir_all(&dir);
    }
}
