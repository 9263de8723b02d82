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

/// One generated transcript.
#[derive(Debug, Clone)]
pub struct Input {
    /// What it is, for messages (`many-lines`, `crlf`, ...).
    pub shape: &'static str,
    /// The bytes.
    pub bytes: Vec<u8>,
}

impl Input {
    /// The longest line as the host's JSONL chunker measures it: with a
    /// `\n` appended to every line, the last one too, even when the input
    /// does not end with one (host-behaviour, "Chunking"). The chunker refuses
    /// a `--max-size` below it; 0 for empty input, which has no line.
    pub fn longest_line(&self) -> usize {
        if self.bytes.is_empty() {
            return 0;
        }
        self.bytes
            .split(|b| *b == b'\n')
            .map(|line| line.len() + 1)
            .max()
            .unwrap_or(0)
    }

    /// The `--max-size` values to try: 1, 2, small, exactly the longest
    /// line (the host's boundary), and large; one size for empty input.
    pub fn max_sizes(&self) -> Vec<usize> {
        if self.bytes.is_empty() {
            return vec![1];
        }
        let mut sizes = vec![1, 2, 16, self.longest_line(), 1 << 20];
        sizes.sort_unstable();
        sizes.dedup();
        sizes
    }
}

/// The inputs of a corpus for a seed.
pub fn corpus(corpus: Corpus, seed: u64) -> Vec<Input> {
    let mut rng = Rng::new(seed);
    match corpus {
        Corpus::Jsonl => jsonl(&mut rng),
        Corpus::Bytes => bytes(&mut rng),
    }
}

fn jsonl(rng: &mut Rng) -> Vec<Input> {
    let lines = |rng: &mut Rng, n: usize, fancy: bool| -> Vec<String> {
        (0..n).map(|i| json_line(rng, i, fancy)).collect()
    };
    let join = |lines: &[String], end: &str, final_end: bool| -> Vec<u8> {
        let mut text = lines.join(end);
        if final_end {
            text.push_str(end);
        }
        text.into_bytes()
    };
    let one = lines(rng, 1, false);
    let many_n = rng.range(20, 60);
    let many = lines(rng, many_n, false);
    let fancy_n = rng.range(8, 20);
    let fancy = lines(rng, fancy_n, true);
    let long = long_lines(rng);
    vec![
        Input {
            shape: "one-line",
            bytes: join(&one, "\n", true),
        },
        Input {
            shape: "one-line-no-final-newline",
            bytes: join(&one, "\n", false),
        },
        Input {
            shape: "many-lines",
            bytes: join(&many, "\n", true),
        },
        Input {
            shape: "many-lines-no-final-newline",
            bytes: join(&many, "\n", false),
        },
        Input {
            shape: "crlf",
            bytes: join(&many, "\r\n", true),
        },
        Input {
            shape: "utf8-and-escapes",
            bytes: join(&fancy, "\n", true),
        },
        Input {
            shape: "lines-longer-than-small-max",
            bytes: join(&long, "\n", true),
        },
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

fn long_lines(rng: &mut Rng) -> Vec<String> {
    (0..rng.range(3, 6))
        .map(|i| {
            let size = rng.range(200, 2000);
            serde_json::json!({"type": "assistant", "index": i, "blob": "x".repeat(size)})
                .to_string()
        })
        .collect()
}

fn bytes(rng: &mut Rng) -> Vec<Input> {
    let random: Vec<u8> = (0..rng.range(64, 512))
        .map(|_| rng.next_u64() as u8)
        .collect();
    // 0xfb 0xff 0xbf encodes as "+/+/": both characters the URL-safe alphabet replaces.
    let plus_slash: Vec<u8> = [0xfb, 0xff, 0xbf].repeat(rng.range(5, 40));
    vec![
        Input {
            shape: "empty",
            bytes: Vec::new(),
        },
        Input {
            shape: "blank-lines",
            bytes: b"\n\n\n".to_vec(),
        },
        Input {
            shape: "invalid-utf8",
            bytes: b"{\"a\":\"\xff\xfe\"}\n\xc3\x28\n".to_vec(),
        },
        Input {
            shape: "binary-with-base64-plus-and-slash",
            bytes: plus_slash,
        },
        Input {
            shape: "random-binary",
            bytes: random,
        },
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
            let text = String::from_utf8(input.bytes.clone()).unwrap();
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
        let inputs = corpus(Corpus::Bytes, 1);
        let b64 = base64::engine::general_purpose::STANDARD.encode(&inputs[3].bytes);
        assert!(b64.contains('+') && b64.contains('/'));
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
