//! `calculate-tokens` (capability token_calculator).

use serde_json::{Value, json};

use crate::Request;
use crate::analysis;
use crate::context::Context;
use crate::error::Result;
use crate::faults::Fault;
use crate::output::Output;
use crate::protocol;
use crate::transcript;

/// `calculate-tokens --offset N`: the summed usage of assistant entries on lines
/// at index >= N of the transcript on stdin. The reference agent's transcript has
/// no subagent usage of its own, so `subagent_tokens` is `null` (the subagent
/// totals are `calculate-total-tokens`' job).
pub fn calculate_tokens(ctx: &Context, request: &Request) -> Result<Output> {
    let content = analysis::scanned(ctx, &request.stdin);
    let mut offset = analysis::offset_lines(ctx, content, request.args.value("--offset"))?;
    if ctx.fault(Fault::TokensIgnoreOffset) {
        offset = 0;
    }
    let usage = transcript::token_usage(content, offset);

    let mut answer = protocol::to_json(&usage)?;
    match ctx.fault {
        // Written as `1500.0`: a float where the host's decoder wants an int.
        Some(Fault::TokensFloat) => answer["input_tokens"] = json!(usage.input_tokens as f64),
        Some(Fault::TokensMissingOutput) => {
            if let Value::Object(object) = &mut answer {
                object.remove("output_tokens");
            }
        }
        _ => {}
    }
    Ok(Output::Json(answer))
}
