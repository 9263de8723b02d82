//! `write-hook-response --message M` (capability hook_response_writer).

use serde_json::json;

use crate::Request;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::faults::Fault;
use crate::output::Output;

/// `write-hook-response --message M`: the message in the agent's own hook
/// response format, which for the reference agent is Claude Code's: a JSON
/// object whose `systemMessage` the agent shows to the user.
///
/// These bytes are read by the agent, not by the host, so the `extra-fields`
/// variant (which only concerns protocol objects) leaves them alone.
pub fn write_hook_response(ctx: &Context, request: &Request) -> Result<Output> {
    if ctx.fault(Fault::HookResponseEmpty) {
        return Ok(Output::Nothing);
    }
    let message = request.args.value("--message");
    let mut bytes = serde_json::to_vec(&json!({ "systemMessage": message }))
        .map_err(|err| Error::failed(format!("encoding hook response: {err}")))?;
    bytes.push(b'\n');
    Ok(Output::Raw(bytes))
}
