//! The Go differential (issue 58, "Our Go, checked against Go"): a Go
//! program of the tests' own (`tests/go/decode`, standard library only,
//! its structs written from the protocol's field lists, none of the host's
//! code) decodes generated inputs with `encoding/json`, and the harness's
//! model of the host's decoding (`decode_ordered`, `judge_ordered`,
//! `parse_rfc3339`) decodes the same bytes; the two are compared field by
//! field. A disagreement is shrunk and printed as a byte literal, with its
//! seed, to be fixed in `src/host/` and kept in [`REGRESSIONS`].
//!
//! The inputs come from fixed seeds; `AGENT_CONFORM_GODIFF_SEED=N` and
//! `AGENT_CONFORM_GODIFF_COUNT=N` ask for others and more. Without `go` on
//! `PATH` (a user's clone) the test says so in one line and passes; CI has
//! Go.

mod canon;
mod generate;
mod shrink;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use agent_conform::api::{decode_ordered, judge_ordered, parse_rfc3339};
use base64::Engine;
use serde_json::Value;

use crate::common::{root, shared};
use generate::{Doc, Input, Rng, fields_of};

/// Inputs on which the model once disagreed with Go, each fixed in the
/// model (`src/host/gojson.rs`, `answers/go.rs`, `answers::go_base64`) and
/// kept here: (shape, bytes), as the shrinker printed them.
const REGRESSIONS: &[(&str, &[u8])] = &[
    // Invalid UTF-8 and lone surrogates are U+FFFD to Go.
    ("info", b"{\"\":\"\xed\"}"),
    ("get-transcript-position", b"{\"\xe2\":0}"),
    ("extract-summary", b"{\"\":\"\\ud800\"}"),
    ("resolve-session-file", b"{\"\":\"\\udfff\"}"),
    ("info", b"{\"\":\"\\ud800\\\"\"}"),
    // A number no float64 holds, in a member Go skips; where it decodes it.
    ("get-transcript-position", b"{\"\":1e400}"),
    ("event", b"{\"tool_input\":1e400}"),
    ("event", b"{\"metadata\":{\"\":1e400}}"),
    ("format-resume-command", b"{\"command\":1e309}"),
    ("extract-prompts", b"{\"prompts\":[1e309]}"),
    // Nesting deeper than serde_json's 128 levels, within Go's 10 000.
    ("install-hooks", b"{\"\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"),
    // Go's int is 64 bits.
    ("install-hooks", b"{\"hooks_installed\":18446744073709551615}"),
    ("info", b"{\"protocol_version\":9223372036854775808}"),
    // An error inside a member sticks when a later member replaces it.
    ("extract-prompts", b"{\"prompts\":[[]],\"prompts\":null}"),
    ("chunk-transcript", b"{\"chunks\":[\"A\"],\"chunks\":null}"),
    ("compact-transcript", b"{\"assets\":[{\"name\":1}],\"assets\":null}"),
    ("info", b"{\"CApabILItIES\":{\"subagent_aware_extractor\":\"\"},\"capabilities\":null}"),
    // ... but a time is parsed after decoding, the last one only.
    ("read-session", b"{\"start_time\":\"2\",\"sTarT_timE\":\"\"}"),
    // StdEncoding skips line breaks and takes non-zero trailing bits.
    ("chunk-transcript", b"{\"chunks\":[\"vJtA\\n\"]}"),
    ("compact-transcript", b"{\"transcript\":\"/sv\\r9wZQ=\"}"),
    ("compact-transcript", b"{\"assets\":[{\"data\":\"l/==\"}]}"),
    // An array decodes into the slice's old elements.
    ("compact-transcript", b"{\"assets\":[{\"name\":\"u\"}],\"assets\":[null]}"),
    // A []byte takes an array of numbers.
    ("compact-transcript", b"{\"transcript\":[]}"),
    ("read-session", b"{\"native_data\":[1,255]}"),
    // A value nested 10 000 levels is Go's limit.
    ("event", DEEPEST_GO),
];

/// `{"tool_input": …}` with 9 999 arrays inside: 10 000 levels.
const DEEPEST_GO: &[u8] = &{
    const N: usize = 9_999;
    let mut out = [0u8; 15 + 2 * N];
    let head = b"{\"tool_input\":";
    let mut i = 0;
    while i < head.len() {
        out[i] = head[i];
        i += 1;
    }
    let mut j = 0;
    while j < N {
        out[head.len() + j] = b'[';
        out[head.len() + N + j] = b']';
        j += 1;
    }
    out[head.len() + 2 * N] = b'}';
    out
};

/// What a decoder made of an input: the struct as compared, or an error.
type Decoded = Result<Value, String>;

/// The Go program, built once per `cargo test` into the target directory;
/// `None` when there is no `go` to build it with.
fn go_program() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let binary = shared::target_dir().join("godiff").join("decode");
            let marker = shared::invocation_dir().map(|d| d.join("godiff-built"));
            if marker.as_ref().is_some_and(|m| m.exists()) && binary.exists() {
                return Some(binary);
            }
            let status = Command::new("go")
                .args(["build", "-o"])
                .arg(&binary)
                .arg(".")
                .current_dir(root().join("tests").join("go").join("decode"))
                .env("GOTOOLCHAIN", "local")
                .status();
            match status {
                Ok(s) if s.success() => {}
                Ok(s) => panic!("building tests/go/decode failed: {s}"),
                Err(_) => return None,
            }
            if let Some(marker) = marker {
                let _ = std::fs::write(marker, "");
            }
            Some(binary)
        })
        .as_deref()
}

/// One running Go program, answering batches of inputs.
struct Go {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Go {
    /// Starts the program at `path`.
    fn start(path: &Path) -> Go {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the Go program starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Go {
            child,
            stdin,
            stdout,
        }
    }

    /// What Go made of each input, in order. The batch is written from a
    /// thread of its own while the answers are read, so that neither pipe
    /// fills with the other side waiting.
    fn decode(&mut self, inputs: &[Input]) -> Vec<Decoded> {
        let stdin = self.stdin.as_mut().expect("the Go program's stdin");
        let stdout = &mut self.stdout;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut out = std::io::BufWriter::new(stdin);
                for input in inputs {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(input.bytes());
                    writeln!(out, "{} {encoded}", input.shape).expect("writing to Go");
                }
                out.flush().expect("writing to Go");
            });
            inputs
                .iter()
                .map(|input| {
                    let mut line = String::new();
                    stdout.read_line(&mut line).expect("reading from Go");
                    let answer: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("Go's answer {line:?}: {e}"));
                    if answer["ok"] == Value::Bool(true) {
                        Ok(go_canon(input.shape, &answer["value"]))
                    } else {
                        Err(answer["error"].as_str().unwrap_or_default().to_string())
                    }
                })
                .collect()
        })
    }
}

impl Drop for Go {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// Go's struct as compared.
fn go_canon(shape: &str, value: &Value) -> Value {
    match shape {
        "time" => Value::Null,
        _ => canon::canon(fields_of(shape), value),
    }
}

/// The model's decoding of `bytes` as `shape`: the struct the host holds
/// (`judge_ordered`'s `seen`), or the reason the host's decoder fails.
fn model(shape: &str, bytes: &[u8]) -> Decoded {
    if shape == "time" {
        let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
        return parse_rfc3339(text).map(|()| Value::Null);
    }
    let fields = fields_of(shape);
    let doc = decode_ordered(bytes)?;
    let judged = judge_ordered(fields, &doc);
    if judged.undecodable() {
        let why: Vec<_> = judged
            .consequences
            .iter()
            .map(|c| c.message.as_str())
            .collect();
        return Err(why.join("; "));
    }
    Ok(canon::canon(fields, &judged.seen))
}

/// How the two decodings differ, if they do: one failed and not the other,
/// or the fields that hold different values.
fn differs(model: &Decoded, go: &Decoded) -> Option<String> {
    match (model, go) {
        (Err(_), Err(_)) => None,
        (Ok(_), Err(e)) => Some(format!("Go fails ({e}), the model decodes")),
        (Err(e), Ok(_)) => Some(format!("the model fails ({e}), Go decodes")),
        (Ok(m), Ok(g)) if m == g => None,
        (Ok(m), Ok(g)) => {
            let (Some(m), Some(g)) = (m.as_object(), g.as_object()) else {
                return Some(format!("model {m}, Go {g}"));
            };
            let fields: Vec<String> = m
                .iter()
                .filter(|(k, v)| g.get(*k) != Some(*v))
                .map(|(k, v)| format!("{k}: model {v}, Go {}", g.get(k).unwrap_or(&Value::Null)))
                .collect();
            Some(fields.join("; "))
        }
    }
}

/// A disagreement, shrunk: the smallest input found, and how it differs.
struct Found {
    seed: u64,
    input: Input,
    why: String,
}

/// Runs `count` inputs of `seed` through Go and `model`, and shrinks the
/// first few on which they differ.
fn differential(
    go: &mut Go,
    model: &dyn Fn(&str, &[u8]) -> Decoded,
    seed: u64,
    count: usize,
) -> Vec<Found> {
    let mut rng = Rng::new(seed);
    let inputs: Vec<Input> = (0..count).map(|_| generate::input(&mut rng)).collect();
    let mut found: Vec<Found> = Vec::new();
    for chunk in inputs.chunks(256) {
        let answers = go.decode(chunk);
        for (input, go_answer) in chunk.iter().zip(answers) {
            if found.len() >= 5 {
                break;
            }
            if differs(&model(input.shape, &input.bytes()), &go_answer).is_none() {
                continue;
            }
            let small = shrink::shrink(input.clone(), |candidates| {
                let answers = go.decode(candidates);
                candidates
                    .iter()
                    .zip(&answers)
                    .position(|(c, g)| differs(&model(c.shape, &c.bytes()), g).is_some())
            });
            let why = differs(
                &model(small.shape, &small.bytes()),
                &go.decode(std::slice::from_ref(&small))[0],
            )
            .unwrap_or_default();
            if !found.iter().any(|f| f.input == small) {
                found.push(Found {
                    seed,
                    input: small,
                    why,
                });
            }
        }
    }
    found
}

/// The report of what was found, one input a paragraph.
fn report(found: &[Found]) -> String {
    found
        .iter()
        .map(|f| {
            format!(
                "seed {}: ({:?}, {}),\n  {}\n",
                f.seed,
                f.input.shape,
                shrink::literal(&f.input.bytes()),
                f.why
            )
        })
        .collect()
}

/// The seeds and the number of inputs each: fixed, or the environment's.
fn seeds() -> (Vec<u64>, usize) {
    let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
    let count = env("AGENT_CONFORM_GODIFF_COUNT").unwrap_or(1_000) as usize;
    match env("AGENT_CONFORM_GODIFF_SEED") {
        Some(seed) => (vec![seed], count),
        None => (vec![1, 2, 3], count),
    }
}

#[test]
fn godiff_the_model_decodes_as_go_does() {
    let Some(program) = go_program() else {
        println!("godiff: no `go` on PATH, the Go differential is skipped");
        return;
    };
    let mut go = Go::start(program);
    let kept: Vec<Input> = REGRESSIONS
        .iter()
        .map(|(shape, bytes)| Input {
            shape,
            lead: Vec::new(),
            doc: Doc::Lit(bytes.to_vec()),
            trail: Vec::new(),
        })
        .collect();
    assert!(model("event", DEEPEST_GO).is_ok(), "10 000 levels decode");
    let answers = go.decode(&kept);
    let mut failures: Vec<String> = kept
        .iter()
        .zip(&answers)
        .filter_map(|(input, g)| {
            differs(&model(input.shape, &input.bytes()), g)
                .map(|why| format!("regression {}: {why}", shrink::literal(&input.bytes())))
        })
        .collect();
    let (seeds, count) = seeds();
    let mut found = Vec::new();
    for seed in seeds {
        found.extend(differential(&mut go, &model, seed, count));
    }
    if !found.is_empty() {
        failures.push(format!("the model and Go disagree:\n{}", report(&found)));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The model with keys matched case-sensitively: a bug planted by hand,
/// which the differential must catch and shrink.
fn case_sensitive_model(shape: &str, bytes: &[u8]) -> Decoded {
    let fields = fields_of(shape);
    match decode_ordered(bytes) {
        Ok(agent_conform::api::Ordered::Object(members)) if shape != "time" => {
            let members = members
                .into_iter()
                .map(|(k, v)| match fields.iter().any(|f| f.name == k) {
                    true => (k, v),
                    false => (format!("#{k}"), v),
                })
                .collect();
            let doc = agent_conform::api::Ordered::Object(members);
            let judged = judge_ordered(fields, &doc);
            match judged.undecodable() {
                true => Err("undecodable".to_string()),
                false => Ok(canon::canon(fields, &judged.seen)),
            }
        }
        _ => model(shape, bytes),
    }
}

#[test]
fn godiff_a_planted_bug_is_caught_and_shrunk() {
    let Some(program) = go_program() else {
        println!("godiff: no `go` on PATH, the Go differential is skipped");
        return;
    };
    let mut go = Go::start(program);
    let found = differential(&mut go, &case_sensitive_model, 1, 300);
    let first = found.first().expect("case-sensitive keys are caught");
    let bytes = first.input.bytes();
    println!("the planted bug, shrunk:\n{}", report(&found));
    assert!(bytes.len() <= 40, "shrunk to {}", shrink::literal(&bytes));
    assert!(
        differs(
            &case_sensitive_model(first.input.shape, &bytes),
            &go.decode(std::slice::from_ref(&first.input))[0]
        )
        .is_some()
    );
    assert!(
        differs(
            &model(first.input.shape, &bytes),
            &go.decode(std::slice::from_ref(&first.input))[0]
        )
        .is_none(),
        "the real model agrees with Go there"
    );
}

#[test]
fn godiff_the_comparer_and_shrinker_fire_without_go() {
    // The comparer tells a different field, a different verdict, and
    // nothing else.
    let a: Decoded = Ok(serde_json::json!({"n": 1}));
    let b: Decoded = Ok(serde_json::json!({"n": 2}));
    assert!(differs(&a, &b).is_some_and(|why| why.contains("n: model 1, Go 2")));
    assert!(differs(&a, &Err("no".into())).is_some());
    assert!(differs(&Err("a".into()), &Err("b".into())).is_none());
    assert!(differs(&a, &a).is_none());
    // A planted "disagreement" on any document holding the key "K" shrinks
    // to the smallest such document.
    let mut rng = Rng::new(7);
    let big = Input {
        shape: "event",
        lead: b" ".to_vec(),
        doc: Doc::Obj(vec![
            (b"a".to_vec(), generate::input(&mut rng).doc),
            (b"K".to_vec(), Doc::Arr(vec![Doc::Lit(b"12".to_vec()); 3])),
        ]),
        trail: b"\n".to_vec(),
    };
    let holds_k = |i: &Input| i.bytes().windows(3).any(|w| w == b"\"K\"");
    let small = shrink::shrink(big, |candidates| candidates.iter().position(holds_k));
    assert_eq!(small.bytes(), b"{\"K\":null}");
}
