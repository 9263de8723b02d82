//! `generate-text --model M` (capability text_generator).
//!
//! A real agent would send the prompt to its model. The reference agent is
//! fictional, so it answers deterministically and offline, which is what a
//! conformance harness needs: the same prompt always gives the same text.

use serde_json::json;

use crate::Request;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::faults::Fault;
use crate::output::Output;

/// How much of the prompt's first line the answer echoes, in characters.
const ECHO_CHARS: usize = 200;

/// `generate-text --model M`, stdin the prompt:
/// `{"text": "reference(<M>): <first line of the prompt, at most 200 chars>"}`.
///
/// Leading blank lines are passed over, so the echoed line is the first one with
/// text; a prompt with no text at all is an error.
pub fn generate_text(ctx: &Context, request: &Request) -> Result<Output> {
    let model = request.args.value("--model");
    let prompt = String::from_utf8_lossy(&request.stdin);
    let first_line = prompt.trim_start().lines().next().unwrap_or("").trim_end();
    if first_line.is_empty() {
        return Err(Error::failed("empty prompt on stdin"));
    }
    let echo: String = first_line.chars().take(ECHO_CHARS).collect();
    let mut text = format!("reference({model}): {echo}");
    if ctx.fault(Fault::GenerateTextEmpty) {
        text.clear();
    }
    if ctx.fault(Fault::GenerateTextPlain) {
        return Ok(Output::Raw(format!("{text}\n").into_bytes()));
    }
    Ok(Output::Json(json!({ "text": text })))
}
