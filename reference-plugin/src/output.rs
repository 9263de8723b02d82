//! Writing answers to stdout.
//!
//! The host reads stdout as exactly one JSON value (or raw bytes for transcripts),
//! so everything a subcommand prints goes through here, in one write, and nothing
//! else ever touches stdout.

use std::io::Write;

use serde_json::Value;

use crate::context::Context;
use crate::error::{Error, Result};
use crate::variants::Variant;

/// What a subcommand prints on success.
#[derive(Debug)]
pub enum Output {
    /// One JSON value, printed compactly with a trailing newline.
    Json(Value),
    /// Bytes printed exactly as they are (transcripts, native hook responses).
    Raw(Vec<u8>),
    /// Nothing at all (`write-session`, `uninstall-hooks`, ...).
    Nothing,
}

/// The extra field of the `extra-fields` variant: unknown to the host, which must
/// ignore it.
const EXTRA_FIELD: &str = "x_reference_extra";

/// Render a JSON answer as the bytes to print.
pub fn json_bytes(ctx: &Context, mut value: Value) -> Result<Vec<u8>> {
    if ctx.variant(Variant::ExtraFields)
        && let Value::Object(object) = &mut value
    {
        object.insert(
            EXTRA_FIELD.to_owned(),
            serde_json::json!({"note": "ignored by the host"}),
        );
    }
    let mut bytes = serde_json::to_vec(&value)
        .map_err(|err| Error::failed(format!("encoding answer: {err}")))?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Print an answer on stdout.
pub fn write(ctx: &Context, output: Output) -> Result<()> {
    let bytes = match output {
        Output::Json(value) => json_bytes(ctx, value)?,
        Output::Raw(bytes) => bytes,
        Output::Nothing => return Ok(()),
    };
    write_stdout(&bytes)
}

/// Write bytes to stdout and flush, reporting failure (e.g. a closed pipe)
/// instead of panicking as `print!` would.
pub fn write_stdout(bytes: &[u8]) -> Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(bytes)
        .and_then(|()| stdout.flush())
        .map_err(|err| Error::failed(format!("writing to stdout: {err}")))
}

/// Write `size` bytes of `x` to `sink`, ignoring errors: a flood is a fault
/// (testing aid) whose reader may well stop listening.
pub fn flood(mut sink: impl Write, size: usize) {
    let block = [b'x'; 64 * 1024];
    let mut left = size;
    while left > 0 {
        let n = left.min(block.len());
        if sink.write_all(&block[..n]).is_err() {
            return;
        }
        left -= n;
    }
    let _ = sink.flush();
}

/// Size of a flood: 11 MiB, just over the host's 10 MiB output limit.
pub const FLOOD_SIZE: usize = 11 * 1024 * 1024;
