//! The subagent_aware_extractor group: `extract-all-modified-files` and
//! `calculate-total-tokens`.
//!
//! When the reference agent spawns a subagent (its Task tool), the subagent
//! writes its own JSONL transcript into the subagents directory the host names.
//! Those transcripts are read whole: every file they touched and every token
//! they spent belongs to the current checkpoint. The main transcript comes on
//! stdin and is read from `--offset` on, like `calculate-tokens`.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Request;
use crate::analysis;
use crate::context::Context;
use crate::error::{Error, ErrorContext, Result};
use crate::faults::Fault;
use crate::output::Output;
use crate::protocol::{self, TokenUsage};
use crate::transcript;

/// The `*.jsonl` files in `dir`, sorted by name so answers are deterministic.
/// A missing directory means there were no subagents.
fn subagent_transcripts(dir: &str) -> Result<Vec<PathBuf>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(err).context(|| format!("reading subagents directory {dir}")),
    };
    let mut files = Vec::new();
    for entry in entries {
        let path = entry
            .context(|| format!("reading subagents directory {dir}"))?
            .path();
        if path.extension().is_some_and(|ext| ext == "jsonl") && path.is_file() {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// [`subagent_transcripts`] for the subcommands, with the
/// `subagent-empty-dir-error` fault: an existing directory without transcripts
/// is an error instead of "no subagents".
fn transcripts_for(ctx: &Context, dir: &str) -> Result<Vec<PathBuf>> {
    let files = subagent_transcripts(dir)?;
    if files.is_empty() && ctx.fault(Fault::SubagentEmptyDirError) && Path::new(dir).is_dir() {
        return Err(Error::failed(format!("no subagent transcripts in {dir}")));
    }
    Ok(files)
}

fn read(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).context(|| format!("reading subagent transcript {}", path.display()))
}

/// `extract-all-modified-files --offset N --subagents-dir D`: the files of the
/// main transcript (from line N) and of every subagent transcript, deduplicated,
/// main transcript first.
pub fn extract_all_modified_files(ctx: &Context, request: &Request) -> Result<Output> {
    let mut offset = analysis::offset_lines(ctx, &request.stdin, request.args.value("--offset"))?;
    if analysis::stdin_grown_since_position(ctx, &request.stdin) {
        offset = 0;
    }
    let mut files = transcript::modified_files(&request.stdin, offset);
    if !ctx.fault(Fault::SubagentFilesIgnoreDir) {
        for path in transcripts_for(ctx, request.args.value("--subagents-dir"))? {
            for file in transcript::modified_files(&read(&path)?, 0) {
                transcript::push_unique(&mut files, file);
            }
        }
    }
    Ok(Output::Json(json!({ "files": files })))
}

/// `calculate-total-tokens --offset N --subagents-dir D`: the main transcript's
/// usage from line N, with the summed usage of all subagent transcripts in
/// `subagent_tokens` (`null` when there are no subagent transcripts).
pub fn calculate_total_tokens(ctx: &Context, request: &Request) -> Result<Output> {
    let offset = analysis::offset_lines(ctx, &request.stdin, request.args.value("--offset"))?;
    let mut usage = transcript::token_usage(&request.stdin, offset);

    let subagents = transcripts_for(ctx, request.args.value("--subagents-dir"))?;
    if !subagents.is_empty() && !ctx.fault(Fault::SubagentTokensNull) {
        let mut total = TokenUsage::default();
        for path in &subagents {
            total.add(&transcript::token_usage(&read(path)?, 0));
        }
        usage.subagent_tokens = Some(Box::new(total));
    }
    let mut answer = protocol::to_json(&usage)?;
    if ctx.fault(Fault::SubagentTokensString)
        && let Some(total) = &usage.subagent_tokens
        && let Some(Value::Object(object)) = answer.get_mut("subagent_tokens")
    {
        object.insert(
            "input_tokens".to_owned(),
            json!(total.input_tokens.to_string()),
        );
    }
    Ok(Output::Json(answer))
}
