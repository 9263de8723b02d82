//! How the host chunks and reassembles transcripts (docs/host.md,
//! "Subcommand-specific facts", Chunking and `reassemble-transcript`): the
//! `--max-size` it asks, when it calls the plugin to reassemble, and where
//! its own JSONL chunker draws the line that plugins copy.

/// The `--max-size` the host passes to `chunk-transcript` (50 MiB); it asks
/// only for transcripts larger than that.
pub const HOST_MAX_SIZE: usize = 50 * 1024 * 1024;

/// Whether the host hands `chunks` chunks to `reassemble-transcript`: only
/// two or more. No chunk is an empty transcript, and one chunk the host
/// decodes into the transcript itself, without calling the plugin.
pub fn reassembles_through_plugin(chunks: usize) -> bool {
    chunks >= 2
}

/// The longest line of `transcript` as the host's JSONL chunker measures it:
/// with a `\n` appended to every line, the last one too, even when the
/// input does not end with one. The chunker refuses a `--max-size` below
/// it (a line of exactly `--max-size` bytes without its newline is refused
/// too); 0 for empty input, which has no line and gives zero chunks.
pub fn longest_line(transcript: &[u8]) -> usize {
    if transcript.is_empty() {
        return 0;
    }
    transcript
        .split(|b| *b == b'\n')
        .map(|line| line.len() + 1)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_measured_with_its_newline() {
        assert_eq!(longest_line(b""), 0);
        assert_eq!(longest_line(b"abc"), 4);
        assert_eq!(longest_line(b"abc\n"), 4);
        assert_eq!(longest_line(b"a\nabcde\nab"), 6);
        assert!(!reassembles_through_plugin(1) && reassembles_through_plugin(2));
    }
}
