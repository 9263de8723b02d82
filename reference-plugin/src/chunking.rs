//! `chunk-transcript` and `reassemble-transcript`.
//!
//! The host stores big transcripts in chunks and asks the plugin to split and
//! rejoin them. The one hard rule is that the round trip is byte-exact. This
//! plugin copies the host's own JSONL chunker (`ChunkJSONL`/`ReassembleJSONL`)
//! exactly, so a chunk always ends at a line boundary and holds whole JSON
//! objects:
//!
//! - the content is split at `\n`; every line but the last keeps its `\n`;
//! - a line (with its `\n`) longer than the maximum cannot be split: error;
//! - lines accumulate in the current chunk; when the next line would push a
//!   non-empty chunk over the maximum, the chunk is closed *without* its final
//!   `\n` (reassembly puts it back as the separator);
//! - the last chunk is kept as it is.

use serde_json::{Value, json};

use crate::Request;
use crate::args;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::faults::Fault;
use crate::output::Output;
use crate::protocol;
use crate::variants::Variant;

/// Split JSONL `content` into chunks of at most `max_size` bytes, the host's way.
pub fn chunk_jsonl(content: &[u8], max_size: usize) -> Result<Vec<Vec<u8>>> {
    let mut chunks = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    // `split_inclusive` keeps each line's `\n` and, unlike a plain split, yields
    // nothing for empty content, which therefore gives zero chunks.
    for (index, line) in content.split_inclusive(|&b| b == b'\n').enumerate() {
        if line.len() > max_size {
            return Err(Error::failed(format!(
                "line {} is {} bytes: cannot split a single JSON object longer than --max-size ({max_size} bytes)",
                index + 1,
                line.len()
            )));
        }
        if !current.is_empty() && current.len() + line.len() > max_size {
            let mut chunk = std::mem::take(&mut current);
            if chunk.last() == Some(&b'\n') {
                chunk.pop();
            }
            chunks.push(chunk);
        }
        current.extend_from_slice(line);
    }
    if !current.is_empty() {
        chunks.push(current);
    }
    Ok(chunks)
}

/// Rejoin JSONL chunks: the `\n` removed at each chunk boundary goes back.
pub fn reassemble_jsonl(chunks: &[Vec<u8>]) -> Vec<u8> {
    chunks.join(&b'\n')
}

/// The `chunk-bytes` variant: fixed slices of at most `max_size` bytes, blind to
/// line boundaries, so no input is ever too long.
pub fn chunk_bytes(content: &[u8], max_size: usize) -> Vec<Vec<u8>> {
    content.chunks(max_size).map(<[u8]>::to_vec).collect()
}

/// The `chunk-bytes` variant's reassembly: plain concatenation.
pub fn reassemble_bytes(chunks: &[Vec<u8>]) -> Vec<u8> {
    chunks.concat()
}

/// `chunk-transcript --max-size N`: stdin bytes in, `{"chunks":[base64...]}` out.
pub fn chunk_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    let max_size = if request.args.missing("--max-size") {
        // The missing-flag-ok fault: guess a maximum instead of refusing.
        Some(GUESSED_MAX_SIZE)
    } else {
        max_size(ctx, request.args.value("--max-size"))?
    };
    let mut content = request.stdin.as_slice();
    if ctx.fault(Fault::ChunkDropsTrailingNewline) {
        content = content.strip_suffix(b"\n").unwrap_or(content);
    }

    let chunks = if ctx.fault(Fault::ChunkIgnoresMaxSize) {
        whole(content)
    } else {
        match max_size {
            None => whole(content),
            Some(max) if ctx.variant(Variant::ChunkBytes) => chunk_bytes(content, max),
            Some(max) => chunk_jsonl(content, max)?,
        }
    };

    if chunks.is_empty() && ctx.fault(Fault::ChunksNull) {
        return Ok(Output::Json(json!({ "chunks": null })));
    }
    let encoded: Vec<String> = chunks.iter().map(|chunk| encode(ctx, chunk)).collect();
    Ok(Output::Json(json!({ "chunks": encoded })))
}

/// The maximum the `missing-flag-ok` fault assumes without `--max-size`: 50 MiB.
const GUESSED_MAX_SIZE: usize = 50 * 1024 * 1024;

/// The whole content as one chunk (none for empty content).
fn whole(content: &[u8]) -> Vec<Vec<u8>> {
    if content.is_empty() {
        Vec::new()
    } else {
        vec![content.to_vec()]
    }
}

/// Parse `--max-size`; `None` means "unlimited", which only faults produce.
fn max_size(ctx: &Context, raw: &str) -> Result<Option<usize>> {
    let parsed = args::parse_max_size(raw);
    if parsed.is_ok() {
        return parsed.map(Some);
    }
    let lenient = match args::parse_integer("--max-size", raw) {
        Ok(0) => ctx.fault(Fault::ChunkAcceptsZero),
        Ok(size) if size < 0 => ctx.fault(Fault::ChunkAcceptsNegative),
        Ok(_) => false,
        Err(_) => ctx.fault(Fault::ChunkAcceptsGarbageSize),
    };
    if lenient { Ok(None) } else { parsed.map(Some) }
}

/// Base64 of one chunk: standard and padded, unless a fault says otherwise.
fn encode(ctx: &Context, chunk: &[u8]) -> String {
    use base64::Engine as _;
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE};
    if ctx.fault(Fault::ChunkUrlsafe) {
        URL_SAFE.encode(chunk)
    } else if ctx.fault(Fault::ChunkUnpadded) {
        STANDARD_NO_PAD.encode(chunk)
    } else {
        protocol::encode_bytes(chunk)
    }
}

/// `reassemble-transcript`: `{"chunks":[base64...]}` in, the raw transcript out.
pub fn reassemble_transcript(ctx: &Context, request: &Request) -> Result<Output> {
    let message: Value = protocol::parse_object(ctx, &request.stdin, "chunks")?;
    let encoded = match message.get("chunks") {
        Some(Value::Array(items)) => items.as_slice(),
        _ if ctx.fault(Fault::ReassembleMissingChunksOk) => &[],
        Some(_) => return Err(Error::failed("\"chunks\" is not an array")),
        None => return Err(Error::failed("missing \"chunks\" array")),
    };
    if encoded.is_empty() && ctx.fault(Fault::ReassembleEmptyError) {
        return Err(Error::failed("no chunks to reassemble"));
    }

    let mut chunks = Vec::with_capacity(encoded.len());
    for (index, item) in encoded.iter().enumerate() {
        let decoded = match item {
            Value::String(text) => protocol::decode_bytes(text, &format!("chunk {index}")),
            // Go decodes a `null` element of a byte-slice array as empty bytes.
            Value::Null => Ok(Vec::new()),
            _ => Err(Error::failed(format!("chunk {index} is not a string"))),
        };
        match decoded {
            Ok(chunk) => chunks.push(chunk),
            Err(_) if ctx.fault(Fault::ReassembleLenientBase64) => {}
            Err(err) => return Err(err),
        }
    }

    let mut transcript =
        if ctx.variant(Variant::ChunkBytes) || ctx.fault(Fault::ReassembleNoSeparator) {
            reassemble_bytes(&chunks)
        } else {
            reassemble_jsonl(&chunks)
        };
    if ctx.fault(Fault::ReassembleTrailingNewline) {
        transcript.push(b'\n');
    }
    if ctx.fault(Fault::ChunkJsonReencode) {
        transcript = reencode_lines(&transcript)?;
    }
    Ok(Output::Raw(transcript))
}

/// The `chunk-json-reencode` fault: every line that is JSON written back
/// compactly by serde_json (same values, possibly different bytes); other lines
/// and the `\n` separators stay as they are.
fn reencode_lines(transcript: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(transcript.len());
    for (index, line) in transcript.split(|&b| b == b'\n').enumerate() {
        if index > 0 {
            out.push(b'\n');
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(value) => serde_json::to_writer(&mut out, &value)
                .map_err(|err| Error::failed(format!("re-encoding line {}: {err}", index + 1)))?,
            Err(_) => out.extend_from_slice(line),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(chunks: &[Vec<u8>]) -> Vec<String> {
        chunks
            .iter()
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect()
    }

    #[test]
    fn reencoding_keeps_values_but_not_bytes() {
        let input = b"{\"a\": 1, \"b\": [1, 2]}\nnot json\n\n{\"c\":true}";
        let output = reencode_lines(input).expect("re-encodes");
        assert_eq!(output, b"{\"a\":1,\"b\":[1,2]}\nnot json\n\n{\"c\":true}");
    }

    #[test]
    fn empty_input_gives_no_chunks() {
        assert!(chunk_jsonl(b"", 10).expect("chunks").is_empty());
        assert!(chunk_bytes(b"", 10).is_empty());
    }

    #[test]
    fn matches_the_host_chunker() {
        let cases: &[(&str, usize, &[&str])] = &[
            ("a\nb\nc\n", 100, &["a\nb\nc\n"]),
            ("a\nb\nc\n", 4, &["a\nb", "c\n"]),
            ("a\nb\nc\n", 2, &["a", "b", "c\n"]),
            ("a\nb\nc", 2, &["a", "b", "c"]),
            ("a\n", 2, &["a\n"]),
            ("\n\n", 1, &["", "\n"]),
            ("aa\nbb\n\n", 3, &["aa", "bb", "\n"]),
        ];
        for (content, max, expected) in cases {
            let chunks = chunk_jsonl(content.as_bytes(), *max).expect("chunks");
            assert_eq!(strings(&chunks), *expected, "{content:?} max {max}");
        }
    }

    #[test]
    fn refuses_a_line_longer_than_the_maximum() {
        let err = chunk_jsonl(b"abc\nd\n", 3).expect_err("line of 4 bytes");
        assert!(
            err.to_string()
                .contains("cannot split a single JSON object")
        );
        assert!(chunk_jsonl(b"abc", 3).is_ok(), "exactly the maximum fits");
    }

    #[test]
    fn round_trips_byte_exact() {
        let inputs: &[&[u8]] = &[
            b"",
            b"\n",
            b"\n\n\n",
            b"{\"a\":1}\n{\"b\":2}\n",
            b"{\"a\":1}\n{\"b\":2}",
            b"x\n\n\ny\n\n",
            b"\xff\xfe\n\x00\n",
        ];
        for input in inputs {
            let longest_line = input
                .split_inclusive(|&b| b == b'\n')
                .map(<[u8]>::len)
                .max();
            for max in 1..12 {
                match chunk_jsonl(input, max) {
                    Ok(chunks) => {
                        assert!(chunks.iter().all(|c| c.len() <= max));
                        assert_eq!(reassemble_jsonl(&chunks), *input, "{input:?} max {max}");
                    }
                    Err(_) => assert!(longest_line > Some(max), "{input:?} max {max}"),
                }

                let chunks = chunk_bytes(input, max);
                assert!(chunks.iter().all(|c| c.len() <= max));
                assert_eq!(reassemble_bytes(&chunks), *input);
            }
        }
    }
}
