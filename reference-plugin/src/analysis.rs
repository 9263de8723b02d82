//! Subcommands that read a transcript file: `read-transcript`,
//! `prepare-transcript` (capability transcript_preparer) and the
//! transcript_analyzer group (`get-transcript-position`, `extract-modified-files`,
//! `extract-prompts`, `extract-summary`).
//!
//! The parsing itself lives in `transcript`; this module only reads files,
//! parses flags and shapes the answers.

use std::fs;
use std::io::ErrorKind;

use serde_json::json;

use crate::Request;
use crate::args;
use crate::context::Context;
use crate::error::{Error, ErrorContext, Result};
use crate::faults::Fault;
use crate::output::Output;
use crate::transcript;
use crate::variants::Variant;

/// Read a whole transcript file; a missing file is an error naming the path.
pub fn read_file(path: &str) -> Result<Vec<u8>> {
    if path.is_empty() {
        return Err(Error::failed("transcript path is empty"));
    }
    fs::read(path).context(|| format!("reading transcript {path}"))
}

/// `read-transcript --session-ref P`: the file's bytes, unchanged.
pub fn read_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    let mut content = read_file(request.args.value("--session-ref"))?;
    if ctx.fault(Fault::ReadTranscriptAddsNewline) {
        content.push(b'\n');
    }
    Ok(Output::Raw(content))
}

/// `prepare-transcript --session-ref P`.
///
/// The reference agent writes its transcript synchronously, so there is nothing
/// to flush; the subcommand only confirms that the transcript exists, so that a
/// wrong reference fails here, before the host tries to read it.
pub fn prepare_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    let path = request.args.value("--session-ref");
    let is_file = fs::metadata(path).is_ok_and(|meta| meta.is_file());
    if !is_file && !ctx.fault(Fault::PrepareMissingOk) {
        return Err(Error::failed(format!(
            "transcript {path:?} does not exist or is not a file"
        )));
    }
    Ok(Output::Nothing)
}

/// `get-transcript-position --path P`: `{"position": <line count>}`.
pub fn get_transcript_position(ctx: &Context, request: &Request) -> Result<Output> {
    let path = request.args.value("--path");
    let position = match fs::read(path) {
        Ok(content) => transcript::position(&content),
        Err(err)
            if err.kind() == ErrorKind::NotFound && ctx.variant(Variant::MissingTranscriptZero) =>
        {
            0
        }
        Err(err) => return Err(Error::failed(format!("reading transcript {path}: {err}"))),
    };
    let answer = match ctx.fault {
        Some(Fault::PositionString) => json!({ "position": position.to_string() }),
        Some(Fault::PositionNegative) => json!({ "position": -1 }),
        _ => json!({ "position": position }),
    };
    Ok(Output::Json(answer))
}

/// `extract-modified-files --path P --offset N`: files written or edited on lines
/// at index >= N, and the position to resume from next time.
pub fn extract_modified_files(ctx: &Context, request: &Request) -> Result<Output> {
    let mut offset = args::parse_offset(request.args.value("--offset"))?;
    let content = read_file(request.args.value("--path"))?;
    if ctx.fault(Fault::ModifiedFilesIgnoreOffset) {
        offset = 0;
    }
    let files = transcript::modified_files(&content, offset);
    let current_position = if ctx.fault(Fault::PositionWrongCurrent) {
        0
    } else {
        transcript::position(&content)
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
    let mut offset = args::parse_offset(request.args.value("--offset"))?;
    let content = read_file(request.args.value("--session-ref"))?;
    if ctx.fault(Fault::PromptsIgnoreOffset) {
        offset = 0;
    }
    let prompts = transcript::prompts(&content, offset);
    Ok(Output::Json(json!({ "prompts": prompts })))
}

/// `extract-summary --session-ref P`: the last summary entry, if there is one.
pub fn extract_summary(ctx: &Context, request: &Request) -> Result<Output> {
    let content = read_file(request.args.value("--session-ref"))?;
    let summary = transcript::summary(&content);
    let has_summary = summary.is_some();
    let answer = if ctx.fault(Fault::SummaryStringBool) {
        json!({ "summary": summary.unwrap_or_default(), "has_summary": has_summary.to_string() })
    } else {
        json!({ "summary": summary.unwrap_or_default(), "has_summary": has_summary })
    };
    Ok(Output::Json(answer))
}
