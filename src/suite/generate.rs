//! Generated transcripts for the chunking round trip, from a seed.
//!
//! One fixed input per subcommand passes plugins that corrupt data (a chunker
//! that adds a newline to the last chunk, or ignores `--max-size` for long
//! lines, passes 100 identical lines ending in a newline). So the round trip
//! runs over inputs generated from a seed that the report prints and
//! `--seed` sets: every failure names the seed and the shape, and reruns
//! exactly.

/// A small, fast, well-mixed generator (SplitMix64); no dependency needed
/// for test inputs.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: usize, high: usize) -> usize {
        let span = (high - low + 1) as u64;
        low + (self.next_u64() % span) as usize
    }

    /// One element of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.range(0, items.len() - 1)]
    }
}

/// Which inputs to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Corpus {
    /// JSONL, the host's default format: every line one JSON object.
    Jsonl,
    /// Arbitrary bytes: empty, blank lines, invalid UTF-8, binary.
    Bytes,
}

/// One generated transcript and the `--max-size` values it is tried at.
#[derive(Debug, Clone)]
pub struct Input {
    /// What it is, for messages (`mixed`, `one-line`, ...).
    pub shape: &'static str,
    /// The bytes, shared: every chunk call of the input sends them as its
    /// stdin without a copy.
    pub bytes: std::sync::Arc<Vec<u8>>,
    /// The `--max-size` values that tell something for this input (empty:
    /// the caller's own choice, as for samples).
    pub max_sizes: Vec<usize>,
}

impl Input {
    /// An input tried at `sizes` (a size of 0 stands for its longest line).
    fn new(shape: &'static str, bytes: Vec<u8>, sizes: &[usize]) -> Input {
        let mut input = Input {
            shape,
            bytes: std::sync::Arc::new(bytes),
            max_sizes: Vec::new(),
        };
        let longest = input.longest_line().max(1);
        input.max_sizes = sizes
            .iter()
            .map(|&s| if s == 0 { longest } else { s })
            .collect();
        input
    }

    /// The longest line as the host's JSONL chunker measures it (see
    /// [`crate::host::chunker::longest_line`]).
    pub fn longest_line(&self) -> usize {
        crate::host::chunker::longest_line(&self.bytes)
    }
}

/// The longest line: its size depends on the seed, so inputs name it as 0.
const LONGEST: usize = 0;

/// Large enough for one chunk: the host rebuilds the transcript from it
/// without calling the plugin.
const ONE_CHUNK: usize = 1 << 20;

/// The inputs of a corpus for a seed.
pub fn corpus(corpus: Corpus, seed: u64) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    match corpus {
        Corpus::Jsonl => jsonl(&mut rng),
        Corpus::Bytes => bytes(&mut rng),
    }
}

/// Three JSONL transcripts that carry every shape between them, each at the
/// sizes that tell something about it (a handful of invocations, not one
/// per shape and size):
/// - `one-line`, ending in a newline, at `--max-size` 1 (a refusal is
///   certain: tried once for the corpus) and at its own length;
/// - `one-line-no-final-newline` at its length (the host's chunker refuses a
///   line of exactly `--max-size` bytes, the last one too) and one more;
/// - `mixed`: many lines, multi-byte UTF-8 and escapes, CRLF line ends on
///   some lines, one line far longer than the others, no final newline; at a
///   size that fits the short lines but not the long one (a refusal is
///   allowed), at its longest line (several chunks, reassembled by the
///   plugin) and at 1 MiB (one chunk).
fn jsonl(rng: &mut Rng) -> Vec<Input> {
    let one = json_line(rng, 0, false);
    let count = rng.range(20, 40);
    // Line 0 has every fragment once: escapes, multi-byte UTF-8, JSON
    // metacharacters; the others are plain or fancy at random.
    let content = FRAGMENTS.join(" ");
    let mut lines =
        vec![serde_json::json!({"type": "user", "index": 0, "message": {"role": "user", "content": content}}).to_string()];
    for i in 1..count {
        let fancy = rng.range(0, 2) == 0;
        lines.push(json_line(rng, i, fancy));
    }
    // Room for two short lines per chunk, and a line that does not fit.
    let short_max = lines.iter().map(|l| l.len() + 2).max().unwrap_or(2);
    let long_at = rng.range(1, count - 2);
    lines[long_at] = long_line(rng, long_at, short_max * 2);
    let mut mixed = String::new();
    for (i, line) in lines.iter().enumerate() {
        mixed.push_str(line);
        if i + 1 < count {
            let crlf = i == 0 || rng.range(0, 3) == 0;
            mixed.push_str(if crlf { "\r\n" } else { "\n" });
        }
    }
    let one_len = one.len();
    vec![
        Input::new("one-line", format!("{one}\n").into_bytes(), &[1, LONGEST]),
        Input::new(
            "one-line-no-final-newline",
            one.into_bytes(),
            &[one_len, one_len + 1],
        ),
        Input::new(
            "mixed",
            mixed.into_bytes(),
            &[short_max * 2, LONGEST, ONE_CHUNK],
        ),
    ]
}

/// Text fragments with multi-byte UTF-8, escapes and JSON metacharacters.
const FRAGMENTS: &[&str] = &[
    "fix the login bug",
    "naïve café",
    "日本語のテキスト",
    "emoji 🚀✓",
    "quote \" and backslash \\",
    "tab\tand newline\n",
    "<html> & 'single'",
    "\u{2028}line separator",
    "{\"looks\": [\"like\", \"json\"]}",
];

fn json_line(rng: &mut Rng, index: usize, fancy: bool) -> String {
    let role = *rng.pick(&["user", "assistant"]);
    let words = rng.range(1, 12);
    let text: Vec<&str> = (0..words)
        .map(|_| {
            if fancy {
                *rng.pick(FRAGMENTS)
            } else {
                *rng.pick(&["alpha", "beta", "gamma", "delta", "src/main.rs", "ok"])
            }
        })
        .collect();
    let value = serde_json::json!({
        "type": role,
        "index": index,
        "message": {"role": role, "content": text.join(" ")},
        "timestamp": format!("2026-01-13T12:{:02}:{:02}Z", rng.range(0, 59), rng.range(0, 59)),
    });
    value.to_string()
}

/// A JSON line longer than `more_than` bytes (by up to 2000).
fn long_line(rng: &mut Rng, index: usize, more_than: usize) -> String {
    let size = rng.range(more_than, more_than + 2000);
    serde_json::json!({"type": "assistant", "index": index, "blob": "x".repeat(size)}).to_string()
}

/// Arbitrary bytes: the empty transcript (zero chunks: the host needs no
/// call to rebuild it), and one input with blank lines, invalid UTF-8,
/// binary whose base64 has `+` and `/` (the characters the URL-safe
/// alphabet replaces) and random bytes, at its longest line (several
/// chunks) and at 1 MiB (one chunk).
fn bytes(rng: &mut Rng) -> Vec<Input> {
    // First, so that every chunker's first chunk starts with it: 0xfb 0xff
    // 0xbf encodes as "+/+/".
    let mut mixed = [0xfb, 0xff, 0xbf].repeat(rng.range(5, 40));
    mixed.extend(b"\n\n\n{\"a\":\"\xff\xfe\"}\n\xc3\x28\n\n");
    mixed.extend((0..rng.range(64, 512)).map(|_| rng.next_u64() as u8));
    vec![
        Input::new("empty", Vec::new(), &[1]),
        Input::new("mixed-bytes", mixed, &[LONGEST, ONE_CHUNK]),
    ]
}

/// A JSONL transcript of exactly `size` bytes (lines of about 1 KiB, each a
/// JSON object, the last one padded to fit), for the large round trips.
pub fn large_jsonl(size: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(size);
    let mut index = 0usize;
    while out.len() < size {
        let left = size - out.len();
        let text_len = rng.range(600, 1400);
        let line = format!(
            "{{\"type\":\"assistant\",\"index\":{index},\"text\":\"{}\"}}\n",
            "y".repeat(text_len)
        );
        if line.len() + 64 > left {
            // The last line fills exactly what is left (at least `{}` and a newline).
            let pad = left.saturating_sub(r#"{"type":"end","pad":""}"#.len() + 1);
            let last = format!("{{\"type\":\"end\",\"pad\":\"{}\"}}\n", "z".repeat(pad));
            out.extend_from_slice(&last.as_bytes()[..left.min(last.len())]);
            break;
        }
        out.extend_from_slice(line.as_bytes());
        index += 1;
    }
    out
}

/// Whether two transcripts are the same JSON document in other bytes. The
/// guide's pattern for single-document JSON transcripts re-marshals them,
/// which changes bytes but not the value; JSONL (several values) has no such
/// excuse: its bytes are the transcript.
pub fn same_json(a: &[u8], b: &[u8]) -> bool {
    let whole = |x: &[u8]| serde_json::from_slice::<serde_json::Value>(x).ok();
    matches!((whole(a), whole(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_inputs() {
        let a = corpus(Corpus::Jsonl, 42);
        let b = corpus(Corpus::Jsonl, 42);
        let c = corpus(Corpus::Jsonl, 43);
        assert_eq!(
            a.iter().map(|i| &i.bytes).collect::<Vec<_>>(),
            b.iter().map(|i| &i.bytes).collect::<Vec<_>>()
        );
        assert_ne!(a[2].bytes, c[2].bytes);
    }

    #[test]
    fn jsonl_lines_are_json_objects() {
        for input in corpus(Corpus::Jsonl, 7) {
            let text = String::from_utf8(input.bytes.to_vec()).unwrap();
            for line in text.split('\n').filter(|l| !l.is_empty()) {
                let value: serde_json::Value =
                    serde_json::from_str(line.trim_end_matches('\r')).unwrap();
                assert!(value.is_object(), "{}: {line}", input.shape);
            }
        }
    }

    #[test]
    fn the_binary_shape_has_plus_and_slash_in_base64() {
        use base64::Engine;
        for seed in 0..50 {
            let inputs = corpus(Corpus::Bytes, seed);
            let b64 = base64::engine::general_purpose::STANDARD.encode(inputs[1].bytes.as_slice());
            assert!(b64.contains('+') && b64.contains('/'), "seed {seed}");
        }
    }

    #[test]
    fn the_mixed_jsonl_carries_every_shape() {
        for seed in 0..50 {
            let mixed = &corpus(Corpus::Jsonl, seed)[2];
            let text = String::from_utf8(mixed.bytes.to_vec()).unwrap();
            assert!(text.contains("\r\n"), "seed {seed}: CRLF");
            assert!(text.contains("\\\""), "seed {seed}: escapes");
            assert!(text.chars().any(|c| c.len_utf8() > 1), "seed {seed}: UTF-8");
            assert!(!text.ends_with('\n'), "seed {seed}: no final newline");
            // A size that fits the short lines but not the long one.
            assert!(mixed.max_sizes[0] < mixed.longest_line(), "seed {seed}");
        }
    }

    #[test]
    fn large_jsonl_has_the_exact_size_and_json_lines() {
        for size in [1000, 65_536, 1 << 20] {
            let bytes = large_jsonl(size, 3);
            assert_eq!(bytes.len(), size);
            assert!(bytes.ends_with(b"\n"));
            for line in bytes.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
                serde_json::from_slice::<serde_json::Value>(line).unwrap();
            }
        }
    }

    #[test]
    fn same_json_accepts_reencoding_only() {
        assert!(same_json(b"{\"a\": 1}", b"{\"a\":1}"));
        assert!(!same_json(
            b"{\"a\":1}\n{\"b\":2}\n",
            b"{\"a\":1}\n{\"b\":2}"
        ));
        assert!(!same_json(b"{\"a\":1}", b"{\"a\":2}"));
        assert!(!same_json(b"\xff", b"\xfe"));
    }
}
