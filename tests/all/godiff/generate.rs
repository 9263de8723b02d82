//! The inputs of the Go differential: documents of every answer's shape,
//! written the ways Go's decoder is known to read differently from a naive
//! one (nulls, missing and duplicate keys, keys in other cases, numbers in
//! every JSON form, invalid UTF-8, trailing data, deep nesting, big values,
//! times in Go's layouts, base64 in every alphabet and padding), from a
//! seeded generator of our own, so that a seed names the same inputs on
//! every machine.

use agent_conform::api::{Field, GoType};
use base64::Engine;

/// A small PRNG (splitmix64): no dependency, the same stream everywhere.
pub struct Rng(u64);

impl Rng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5DEE_CE66_D1CE_5EED)
    }

    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 for `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// True with probability `p` percent.
    pub fn chance(&mut self, p: usize) -> bool {
        self.below(100) < p
    }

    /// One of `items`.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A JSON document as written, so that a shrinker can take it apart and
/// every byte of it (an escape, an invalid byte, a number's form) stays as
/// generated.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc {
    /// Bytes written as they are: `null`, `true`, a number, or anything.
    Lit(Vec<u8>),
    /// A string: the bytes between its quotes, escapes as written.
    Str(Vec<u8>),
    /// An array.
    Arr(Vec<Doc>),
    /// An object: each member's key (as written between quotes) and value.
    Obj(Vec<(Vec<u8>, Doc)>),
    /// `depth` arrays around `inner` (written without recursion, so that
    /// ten thousand levels cost no stack).
    Deep(usize, Box<Doc>),
}

/// One input: the shape it is decoded as, and the document with what
/// comes before and after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// The shape: an answer's name, `event`, or `time` (the bytes are then
    /// a time's text, for `time.Parse(time.RFC3339, …)`).
    pub shape: &'static str,
    /// Bytes before the document.
    pub lead: Vec<u8>,
    /// The document.
    pub doc: Doc,
    /// Bytes after the document.
    pub trail: Vec<u8>,
}

impl Input {
    /// The bytes the two decoders are given.
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = self.lead.clone();
        match (&self.doc, self.shape) {
            (Doc::Str(text), "time") => out.extend_from_slice(text),
            (doc, _) => render(doc, &mut out),
        }
        out.extend_from_slice(&self.trail);
        out
    }
}

/// Writes `doc` into `out`.
pub fn render(doc: &Doc, out: &mut Vec<u8>) {
    match doc {
        Doc::Lit(bytes) => out.extend_from_slice(bytes),
        Doc::Str(text) => {
            out.push(b'"');
            out.extend_from_slice(text);
            out.push(b'"');
        }
        Doc::Arr(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                render(item, out);
            }
            out.push(b']');
        }
        Doc::Obj(members) => {
            out.push(b'{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                render(&Doc::Str(key.clone()), out);
                out.push(b':');
                render(value, out);
            }
            out.push(b'}');
        }
        Doc::Deep(depth, inner) => {
            out.extend(std::iter::repeat_n(b'[', *depth));
            render(inner, out);
            out.extend(std::iter::repeat_n(b']', *depth));
        }
    }
}

/// The shapes, each with its fields (`event` is parse-hook's Event).
pub const SHAPES: &[&str] = &[
    "info",
    "detect",
    "get-session-id",
    "get-session-dir",
    "resolve-session-file",
    "read-session",
    "chunk-transcript",
    "format-resume-command",
    "install-hooks",
    "are-hooks-installed",
    "get-transcript-position",
    "extract-modified-files",
    "extract-all-modified-files",
    "extract-prompts",
    "extract-summary",
    "calculate-tokens",
    "calculate-total-tokens",
    "generate-text",
    "compact-transcript",
    "event",
];

/// The fields of a shape, as the model knows them.
pub fn fields_of(shape: &str) -> &'static [Field] {
    agent_conform::api::answer_shape(shape).unwrap_or(&[])
}

/// One input of a shape chosen by `rng`.
pub fn input(rng: &mut Rng) -> Input {
    if rng.chance(8) {
        return Input {
            shape: "time",
            lead: Vec::new(),
            doc: Doc::Str(time(rng)),
            trail: Vec::new(),
        };
    }
    let shape = rng.pick(SHAPES);
    let doc = match rng.below(100) {
        0..=3 => Doc::Lit(b"null".to_vec()),
        4..=7 => any(rng, 2),
        _ => object(rng, fields_of(shape)),
    };
    let lead = if rng.chance(10) {
        space(rng)
    } else {
        Vec::new()
    };
    let trail = match rng.below(100) {
        0..=9 => space(rng),
        10..=14 => rng
            .pick(&[&b"{}"[..], b"null", b"x", b"\0", b" 1", b"]", b"\xff"])
            .to_vec(),
        _ => Vec::new(),
    };
    Input {
        shape,
        lead,
        doc,
        trail,
    }
}

/// Whitespace as JSON has it, and bytes that are whitespace elsewhere only.
fn space(rng: &mut Rng) -> Vec<u8> {
    let pieces: &[&[u8]] = &[
        b" ",
        b"\t",
        b"\n",
        b"\r",
        b"\x0c",
        b"\x0b",
        b"\xc2\xa0",
        b"\xef\xbb\xbf",
    ];
    (0..1 + rng.below(3))
        .flat_map(|_| rng.pick(pieces).to_vec())
        .collect()
}

/// An object of `fields`: some of them, under their names or others of
/// another case, some twice, among unknown members, in any order.
fn object(rng: &mut Rng, fields: &[Field]) -> Doc {
    let mut members = Vec::new();
    for f in fields {
        if rng.chance(60) {
            members.push((key(rng, f.name), value(rng, f.ty)));
        }
        if rng.chance(12) {
            members.push((key(rng, f.name), value(rng, f.ty)));
        }
    }
    for _ in 0..rng.below(3) {
        if rng.chance(30) {
            let name = rng.pick(&["extra", "Extra", "x", ""]).as_bytes().to_vec();
            members.push((name, any(rng, 2)));
        }
    }
    for i in (1..members.len()).rev() {
        members.swap(i, rng.below(i + 1));
    }
    Doc::Obj(members)
}

/// A key for the field `name`: itself mostly, else another case of it, a
/// Kelvin sign or long s for its k or s, or a near miss.
fn key(rng: &mut Rng, name: &str) -> Vec<u8> {
    match rng.below(100) {
        0..=69 => name.as_bytes().to_vec(),
        70..=84 => name
            .chars()
            .map(|c| {
                if rng.chance(50) {
                    c.to_ascii_uppercase()
                } else {
                    c
                }
            })
            .collect::<String>()
            .into_bytes(),
        85..=91 => name
            .replace('k', "\u{212A}")
            .replace('s', "\u{17F}")
            .into_bytes(),
        92..=95 => name.replace('_', "").into_bytes(),
        _ => format!("{name}\\u0000").into_bytes(),
    }
}

/// A value for a field of type `ty`: mostly of its kind, sometimes `null`
/// or of another kind.
fn value(rng: &mut Rng, ty: GoType) -> Doc {
    match rng.below(100) {
        0..=9 => return Doc::Lit(b"null".to_vec()),
        10..=17 => return any(rng, 2),
        _ => {}
    }
    match ty {
        GoType::Str => Doc::Str(string(rng)),
        GoType::Int => Doc::Lit(number(rng)),
        GoType::Bool => Doc::Lit(rng.pick(&[&b"true"[..], b"false"]).to_vec()),
        GoType::Bytes => Doc::Str(base64(rng)),
        GoType::Time => Doc::Str(time(rng)),
        GoType::BytesList => Doc::Arr(
            (0..rng.below(4))
                .map(|_| match rng.chance(15) {
                    true => Doc::Lit(b"null".to_vec()),
                    false => Doc::Str(base64(rng)),
                })
                .collect(),
        ),
        GoType::Strings => Doc::Arr(
            (0..rng.below(4))
                .map(|_| match rng.below(10) {
                    0 => Doc::Lit(b"null".to_vec()),
                    1 => any(rng, 1),
                    _ => Doc::Str(string(rng)),
                })
                .collect(),
        ),
        GoType::Object => match any(rng, 3) {
            Doc::Obj(m) => Doc::Obj(m),
            other => Doc::Obj(vec![(b"k".to_vec(), other)]),
        },
        GoType::Struct(fields) => object(rng, fields),
        GoType::Structs(fields) => Doc::Arr(
            (0..rng.below(3))
                .map(|_| match rng.chance(15) {
                    true => Doc::Lit(b"null".to_vec()),
                    false => object(rng, fields),
                })
                .collect(),
        ),
        GoType::Raw => any(rng, 3),
    }
}

/// Any JSON value, nested at most `depth` levels, or ten thousand in one
/// chain now and then.
fn any(rng: &mut Rng, depth: usize) -> Doc {
    match rng.below(if depth == 0 { 5 } else { 8 }) {
        0 => Doc::Lit(rng.pick(&[&b"null"[..], b"true", b"false"]).to_vec()),
        1 | 2 => Doc::Lit(number(rng)),
        3 | 4 => Doc::Str(string(rng)),
        5 => Doc::Arr((0..rng.below(4)).map(|_| any(rng, depth - 1)).collect()),
        6 => Doc::Obj(
            (0..rng.below(4))
                .map(|_| (string(rng), any(rng, depth - 1)))
                .collect(),
        ),
        _ => {
            let depth = rng.pick(&[100, 127, 128, 129, 200, 1000, 9_998, 9_999, 10_000, 10_001]);
            Doc::Deep(depth, Box::new(Doc::Lit(b"1".to_vec())))
        }
    }
}

/// A number in one of the forms JSON allows (and a few it does not).
fn number(rng: &mut Rng) -> Vec<u8> {
    const FORMS: &[&str] = &[
        "0",
        "-0",
        "1",
        "-1",
        "42",
        "1.0",
        "-0.0",
        "1e3",
        "1E3",
        "1e+3",
        "1e-3",
        "0.5",
        "2.5e1",
        "9223372036854775807",
        "9223372036854775808",
        "-9223372036854775808",
        "-9223372036854775809",
        "18446744073709551615",
        "18446744073709551616",
        "123456789012345678901234567890",
        "1e308",
        "1e309",
        "1e400",
        "-1e400",
        "4.9e-324",
        "1e-400",
        "01",
        "+1",
        ".5",
        "1.",
        "1e",
        "-",
        "0x10",
        "Infinity",
        "NaN",
    ];
    if rng.chance(70) {
        return rng.pick(FORMS).as_bytes().to_vec();
    }
    let mut out = String::new();
    if rng.chance(30) {
        out.push('-');
    }
    out.push_str(&(rng.next() % 1_000_000_000_000).to_string());
    if rng.chance(20) {
        out.push_str(&format!(".{}", rng.below(1000)));
    }
    if rng.chance(15) {
        out.push_str(rng.pick(&["e", "E", "e+", "e-"]));
        out.push_str(&rng.below(30).to_string());
    }
    out.into_bytes()
}

/// A string's contents as written: text, escapes of every kind, raw UTF-8
/// and bytes that are not UTF-8 (which Go reads as U+FFFD).
fn string(rng: &mut Rng) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"a",
        b"abc",
        b"Z",
        b" ",
        b"/",
        b"\\\"",
        b"\\\\",
        b"\\/",
        b"\\b\\f\\n\\r\\t",
        b"\\u00e9",
        b"\\u0041",
        b"\\ud83d\\ude00",
        b"\\ud800",
        b"\\udfff",
        b"\\ud800\\u0041",
        b"\\ud800\\ud800",
        b"\\uDBFF\\uDFFF",
        b"\\u0000",
        b"\xc3\xa9",
        b"\xf0\x9f\x98\x80",
        b"\xe2\x80\xa8",
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\xc0\xaf",
        b"\xf4\x90\x80\x80",
        b"\xe2\x82",
        b"\xef\xbf\xbd",
        b"\x7f",
    ];
    const RARE: &[&[u8]] = &[b"\x01", b"\\U00e9", b"\\x41", b"\t"];
    let mut out = Vec::new();
    for _ in 0..rng.below(4) {
        out.extend_from_slice(rng.pick(PIECES));
    }
    if rng.chance(2) {
        out.extend_from_slice(rng.pick(RARE));
    }
    if rng.chance(2) {
        out.extend(std::iter::repeat_n(b'x', 70_000));
    }
    out
}

/// Bytes as base64: the standard alphabet padded (what Go takes), unpadded,
/// URL-safe, with line breaks or spaces, with bits after the last byte.
fn base64(rng: &mut Rng) -> Vec<u8> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
    let bytes: Vec<u8> = (0..rng.below(9)).map(|_| rng.next() as u8).collect();
    let mut text = match rng.below(10) {
        0 => STANDARD_NO_PAD.encode(&bytes),
        1 => URL_SAFE.encode(&bytes),
        2 => URL_SAFE_NO_PAD.encode(&bytes),
        _ => STANDARD.encode(&bytes),
    };
    match rng.below(12) {
        0 if !text.is_empty() => {
            let at = rng.below(text.len() + 1);
            text.insert_str(at, rng.pick(&["\\n", "\\r\\n", "\\r", " ", "\\t"]));
        }
        1 => {
            // A last symbol whose unused bits are not zero.
            let at = text.trim_end_matches('=').len();
            if at > 0 && text.len() > at {
                text.replace_range(at - 1..at, "/");
            }
        }
        2 => text.push_str(rng.pick(&["=", "==", "A", "\\n"])),
        3 => {
            text = rng
                .pick(&["", "=", "====", "A", "AA==", "AB==", "AAA=", "AAB="])
                .to_string()
        }
        _ => {}
    }
    text.into_bytes()
}

/// A time as a Go program prints it, in one of its layouts (RFC 3339 and
/// the others), with components now and then out of range.
fn time(rng: &mut Rng) -> Vec<u8> {
    let year = rng.pick(&[0, 1, 999, 1970, 2024, 2025, 2026, 9999]);
    let month = rng.pick(&[1, 2, 6, 12, 0, 13]);
    let day = rng.pick(&[1, 13, 28, 29, 30, 31, 0, 32]);
    let hour = rng.pick(&[0, 1, 9, 12, 23, 24]);
    let minute = rng.pick(&[0, 30, 59, 60]);
    let second = rng.pick(&[0, 7, 59, 60]);
    let frac = rng.pick(&[
        "",
        ".5",
        ".123",
        ".123456",
        ".123456789",
        ".1234567890123",
        ",5",
        ".",
    ]);
    let zone = rng.pick(&[
        "Z", "z", "+00:00", "-00:00", "+05:30", "-03:30", "+0530", "+05", "+24:00", "+23:59",
        "+25:00", "+05:60", "+05:61", " IST", "",
    ]);
    let text = match rng.below(14) {
        0 => format!("{year:04}-{month:02}-{day:02}t{hour:02}:{minute:02}:{second:02}{zone}"),
        1 => format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}{frac}{zone}"),
        2 => format!("{year:04}-{month:02}-{day:02}T{hour}:{minute:02}:{second:02}{frac}{zone}"),
        3 => format!("Mon Jan  2 15:04:05 {year}"),
        4 => format!("Mon, {day:02} Jan {year} {hour:02}:{minute:02}:{second:02} MST"),
        5 => format!("{year:04}-{month:02}-{day:02}"),
        6 => format!("{hour:02}:{minute:02}:{second:02}"),
        7 => format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}:{second:02}.5 +0530 IST"),
        8 => format!("{year:02}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"),
        _ => format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{frac}{zone}"),
    };
    text.into_bytes()
}
