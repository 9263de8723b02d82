//! JSON read as Go's `encoding/json` reads it (docs/host.md, "How output
//! is decoded"), where serde_json reads it otherwise. Each difference was
//! found by the Go differential (`tests/all/godiff`) and is kept there as
//! a regression case:
//! - a byte that is not UTF-8 in a string is U+FFFD (one a byte, as Go's
//!   `utf8.DecodeRune` gives it), and so is a `\u` escape of a lone
//!   surrogate: serde_json refuses both;
//! - nesting is allowed to 10 000 levels (Go's `maxNestingDepth`), where
//!   serde_json stops at 128;
//! - a number no float64 holds (`1e400`) is valid JSON: Go refuses it only
//!   where it decodes it into a number, and skips it in a member it
//!   ignores;
//! - `-0` is the integer 0, which Go's `int` takes (serde_json reads a
//!   float);
//! - only space, tab, line feed and carriage return are whitespace.
//!
//! The parser walks the bytes without recursion, so that ten thousand
//! levels cost no stack; what it keeps of a value nested more than
//! [`KEPT`] levels deep is only that it was there ([`Ordered::Elided`]):
//! no field of an answer is that deep, and the host's own reading of such
//! a value (inside a `map[string]any` or a raw message) asks nothing of it.

use serde_json::Value;

/// Go's `maxNestingDepth`: a document nested deeper fails.
const MAX_DEPTH: usize = 10_000;

/// How deep the values are kept (serde_json's old limit).
pub const KEPT: usize = 128;

/// An array or object being read.
struct Frame {
    /// An object (else an array).
    object: bool,
    /// Deeper than [`KEPT`]: nothing is kept.
    elided: bool,
    /// A number no float64 holds is somewhere inside an elided frame.
    huge: bool,
    /// The array's items.
    items: Vec<Ordered>,
    /// The object's members so far.
    members: Vec<(String, Ordered)>,
    /// The key of the member being read.
    key: String,
}

/// Reads one JSON value from the front of `bytes` (after whitespace), as
/// Go does, and returns it with the offset where it ends.
pub fn parse(bytes: &[u8]) -> Result<(Ordered, usize), String> {
    let mut p = Parser { b: bytes, i: 0 };
    let mut stack: Vec<Frame> = Vec::new();
    'value: loop {
        p.space();
        let mut value = match p.peek() {
            Some(open @ (b'[' | b'{')) => {
                p.i += 1;
                if stack.len() + 1 > MAX_DEPTH {
                    return Err(format!(
                        "exceeded max depth ({MAX_DEPTH} levels, Go's limit) at byte {}",
                        p.i
                    ));
                }
                let object = open == b'{';
                let close = if object { b'}' } else { b']' };
                let elided = stack.len() >= KEPT;
                p.space();
                if p.peek() == Some(close) {
                    p.i += 1;
                    empty(object, elided)
                } else {
                    let key = if object { p.key()? } else { String::new() };
                    stack.push(Frame {
                        object,
                        elided,
                        huge: false,
                        items: Vec::new(),
                        members: Vec::new(),
                        key,
                    });
                    continue 'value;
                }
            }
            Some(b'"') => Ordered::String(p.string()?),
            Some(b't') => p.literal("true", Ordered::Bool(true))?,
            Some(b'f') => p.literal("false", Ordered::Bool(false))?,
            Some(b'n') => p.literal("null", Ordered::Null)?,
            Some(b'-' | b'0'..=b'9') => p.number()?,
            _ => return Err(p.unexpected("looking for beginning of value")),
        };
        loop {
            let Some(frame) = stack.last_mut() else {
                return Ok((value, p.i));
            };
            if frame.elided {
                frame.huge |= matches!(value, Ordered::Huge(_) | Ordered::Elided { huge: true });
            } else if frame.object {
                frame.members.push((std::mem::take(&mut frame.key), value));
            } else {
                frame.items.push(value);
            }
            p.space();
            let close = if frame.object { b'}' } else { b']' };
            match p.peek() {
                Some(b',') => {
                    p.i += 1;
                    if frame.object {
                        frame.key = p.key()?;
                    }
                    continue 'value;
                }
                Some(c) if c == close => {
                    p.i += 1;
                    let Some(done) = stack.pop() else {
                        unreachable!("a frame was just read")
                    };
                    value = match (done.elided, done.object) {
                        (true, _) => Ordered::Elided { huge: done.huge },
                        (false, true) => Ordered::Object(done.members),
                        (false, false) => Ordered::Array(done.items),
                    };
                }
                _ if frame.object => return Err(p.unexpected("after object key:value pair")),
                _ => return Err(p.unexpected("after array element")),
            }
        }
    }
}

/// An empty array or object, or an elided one.
fn empty(object: bool, elided: bool) -> Ordered {
    match (elided, object) {
        (true, _) => Ordered::Elided { huge: false },
        (false, true) => Ordered::Object(Vec::new()),
        (false, false) => Ordered::Array(Vec::new()),
    }
}

/// Whitespace as Go's scanner has it.
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The bytes and where the parser is.
struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
    }

    /// Go's message for the byte here (or the end), `context` saying what
    /// was looked for.
    fn unexpected(&self, context: &str) -> String {
        match self.peek() {
            None => "unexpected end of JSON input".to_string(),
            Some(c) => format!(
                "invalid character {:?} {context} at byte {}",
                char::from(c),
                self.i
            ),
        }
    }

    /// An object's key and its colon.
    fn key(&mut self) -> Result<String, String> {
        self.space();
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("looking for beginning of object key string"));
        }
        let key = self.string()?;
        self.space();
        if self.peek() != Some(b':') {
            return Err(self.unexpected("after object key"));
        }
        self.i += 1;
        Ok(key)
    }

    fn literal(&mut self, word: &str, value: Ordered) -> Result<Ordered, String> {
        for &want in word.as_bytes() {
            if self.peek() != Some(want) {
                return Err(self.unexpected(&format!("in literal {word}")));
            }
            self.i += 1;
        }
        Ok(value)
    }

    /// A number: JSON's grammar, then its value (an integer when written
    /// as one and an i64 or u64 holds it, else a float64, else its text).
    fn number(&mut self) -> Result<Ordered, String> {
        let start = self.i;
        let mut integer = true;
        if self.peek() == Some(b'-') {
            self.i += 1;
        }
        match self.peek() {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.unexpected("in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            integer = false;
            self.i += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.unexpected("after decimal point in numeric literal"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            integer = false;
            self.i += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.i += 1;
            }
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.unexpected("in exponent of numeric literal"));
            }
            self.digits();
        }
        let text = std::str::from_utf8(&self.b[start..self.i]).unwrap_or("0");
        if integer {
            if let Ok(n) = text.parse::<i64>() {
                return Ok(Ordered::Number(n.into()));
            }
            if let Ok(n) = text.parse::<u64>() {
                return Ok(Ordered::Number(n.into()));
            }
        }
        Ok(text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Ordered::Huge(text.to_string()), Ordered::Number))
    }

    fn digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
    }

    /// A string, unquoted as Go's `unquote` does.
    fn string(&mut self) -> Result<String, String> {
        self.i += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => return Err("unexpected end of JSON input".to_string()),
                Some(b'"') => {
                    self.i += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.i += 1;
                    out.push(self.escape()?);
                }
                Some(c) if c < 0x20 => return Err(self.unexpected("in string literal")),
                Some(c) if c < 0x80 => {
                    out.push(char::from(c));
                    self.i += 1;
                }
                Some(_) => {
                    let rest = &self.b[self.i..self.b.len().min(self.i + 4)];
                    let valid = match std::str::from_utf8(rest) {
                        Ok(s) => s,
                        Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""),
                    };
                    match valid.chars().next() {
                        Some(c) => {
                            out.push(c);
                            self.i += c.len_utf8();
                        }
                        None => {
                            out.push(char::REPLACEMENT_CHARACTER);
                            self.i += 1;
                        }
                    }
                }
            }
        }
    }

    /// The character of the escape after a backslash.
    fn escape(&mut self) -> Result<char, String> {
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.i += 1;
                let high = self.hex4()?;
                if !(0xD800..0xE000).contains(&high) {
                    return Ok(char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER));
                }
                // A surrogate: with a low one after it, the pair is one
                // character; alone, U+FFFD (and what follows is read on
                // its own).
                let low = match self.b.get(self.i..self.i + 6) {
                    Some([b'\\', b'u', hex @ ..]) => {
                        u32::from_str_radix(std::str::from_utf8(hex).unwrap_or("x"), 16).ok()
                    }
                    _ => None,
                };
                return Ok(match low {
                    Some(low) if high < 0xDC00 && (0xDC00..0xE000).contains(&low) => {
                        self.i += 6;
                        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                            .unwrap_or(char::REPLACEMENT_CHARACTER)
                    }
                    _ => char::REPLACEMENT_CHARACTER,
                });
            }
            _ => return Err(self.unexpected("in string escape code")),
        };
        self.i += 1;
        Ok(c)
    }

    /// Four hex digits of a `\u` escape.
    fn hex4(&mut self) -> Result<u32, String> {
        let mut n = 0;
        for _ in 0..4 {
            let d = self
                .peek()
                .and_then(|c| char::from(c).to_digit(16))
                .ok_or_else(|| self.unexpected("in \\u hexadecimal character escape"))?;
            n = n * 16 + d;
            self.i += 1;
        }
        Ok(n)
    }
}

/// A JSON value as Go's decoder walks it: every object's members in
/// document order, a key written twice kept twice. `serde_json::Value`
/// keeps the last of two equal keys and sorts the rest, which loses what Go
/// does with `{"session_id": "a", "session_id": null}` (the null changes
/// nothing: `"a"`) or with `"Session_ID"` after `"session_id"` (both fill
/// the one field; the later wins). How a document becomes the host's
/// struct is `answers::go`.
#[derive(Debug, Clone, PartialEq)]
pub enum Ordered {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it (`1.0` stays a float).
    Number(serde_json::Number),
    /// A number no float64 holds (`1e400`), as written: valid JSON, which
    /// Go refuses only where it decodes it into a number.
    Huge(String),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Ordered>),
    /// An object: its members in document order, duplicates kept.
    Object(Vec<(String, Ordered)>),
    /// An array or object nested deeper than [`KEPT`]
    /// levels, not kept; `huge` when a [`Ordered::Huge`] is inside.
    Elided {
        /// A number no float64 holds is inside.
        huge: bool,
    },
}

impl Ordered {
    /// Whether a number no float64 holds is in this value, which Go
    /// refuses to decode into a `map[string]any`.
    pub fn holds_huge(&self) -> bool {
        match self {
            Ordered::Huge(_) | Ordered::Elided { huge: true } => true,
            Ordered::Array(items) => items.iter().any(Ordered::holds_huge),
            Ordered::Object(members) => members.iter().any(|(_, v)| v.holds_huge()),
            _ => false,
        }
    }

    /// The value as serde_json holds it (of two equal keys, the last).
    pub fn to_value(&self) -> Value {
        match self {
            Ordered::Null => Value::Null,
            Ordered::Bool(b) => Value::Bool(*b),
            Ordered::Number(n) => Value::Number(n.clone()),
            // serde_json's Value holds no such number: its text stands in.
            Ordered::Huge(text) => Value::String(text.clone()),
            Ordered::Elided { .. } => Value::String(ELIDED.to_string()),
            Ordered::String(s) => Value::String(s.clone()),
            Ordered::Array(items) => Value::Array(items.iter().map(Ordered::to_value).collect()),
            Ordered::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

impl From<&Value> for Ordered {
    fn from(value: &Value) -> Ordered {
        match value {
            Value::Null => Ordered::Null,
            Value::Bool(b) => Ordered::Bool(*b),
            Value::Number(n) => Ordered::Number(n.clone()),
            Value::String(s) => Ordered::String(s.clone()),
            Value::Array(items) => Ordered::Array(items.iter().map(Ordered::from).collect()),
            Value::Object(map) => Ordered::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), Ordered::from(v)))
                    .collect(),
            ),
        }
    }
}

/// What stands in for a value nested too deep to be kept.
const ELIDED: &str = "<nested too deep to be kept>";
