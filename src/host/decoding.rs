//! How the host reads a plugin's stdout (docs/host.md, "How output is
//! decoded"): Go's `encoding/json`, which takes exactly one JSON value and
//! rejects `1.0` or `1e3` where a Go integer is expected. What each decoded
//! field's zero value then costs is `host::answers`.

use serde_json::Value;

/// Decodes stdout as the host does: exactly one JSON value, surrounded by
/// whitespace at most. Returns a message naming the problem otherwise.
pub fn decode_host_json(bytes: &[u8]) -> Result<Value, String> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err("stdout is empty; the host expects one JSON value".to_string());
    }
    let mut stream = serde_json::Deserializer::from_slice(bytes).into_iter::<Value>();
    let value = match stream.next() {
        Some(Ok(value)) => value,
        Some(Err(err)) => return Err(format!("stdout is not valid JSON: {err}")),
        None => return Err("stdout holds no JSON value".to_string()),
    };
    let rest = &bytes[stream.byte_offset()..];
    match rest.iter().position(|b| !b.is_ascii_whitespace()) {
        None => Ok(value),
        Some(at) => Err(format!(
            "stdout holds more than one JSON value: {:?} follows the first at byte {}; \
             the host's decoder rejects anything but whitespace after it",
            excerpt(&rest[at..]),
            stream.byte_offset() + at
        )),
    }
}

/// Whether Go's decoder takes `value` for an integer field: a number written
/// without a fraction or an exponent (serde_json keeps `1.0` and `1e3` as
/// floats, which is how they are told from `1` after parsing); anything but
/// a number is left to the type check.
pub fn decodes_as_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => true,
    }
}

/// Why Go's decoder refuses `value` for an integer field.
pub fn not_an_integer(value: &Value) -> String {
    format!(
        "{value} is written with a fraction or an exponent; the host's decoder \
         (Go encoding/json) accepts only a plain integer here"
    )
}

fn excerpt(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned();
    if bytes.len() > 40 {
        format!("{text}…")
    } else {
        text
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
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Ordered>),
    /// An object: its members in document order, duplicates kept.
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// The value as serde_json holds it (of two equal keys, the last).
    pub fn to_value(&self) -> Value {
        match self {
            Ordered::Null => Value::Null,
            Ordered::Bool(b) => Value::Bool(*b),
            Ordered::Number(n) => Value::Number(n.clone()),
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

impl<'de> serde::Deserialize<'de> for Ordered {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Ordered, D::Error> {
        deserializer.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> serde::de::Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }
    fn visit_none<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Ordered, E> {
        serde_json::Number::from_f64(n)
            .map(Ordered::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Ordered, E> {
        Ok(Ordered::String(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut members = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
            members.push((key, value));
        }
        Ok(Ordered::Object(members))
    }
}

/// Decodes stdout as the host does ([`decode_host_json`]'s rules), keeping
/// the members of every object in document order ([`Ordered`]).
pub fn decode_ordered(bytes: &[u8]) -> Result<Ordered, String> {
    decode_host_json(bytes)?;
    serde_json::from_slice(bytes).map_err(|err| format!("stdout is not valid JSON: {err}"))
}

/// Whether Go's decoder puts the member `key` into the struct field whose
/// JSON name is `name`: the same name, or the same under Go's case folding
/// (`foldName`: ASCII letters without case, and the two non-ASCII runes
/// whose fold set holds an ASCII letter, the Kelvin sign `K` and the long
/// `ſ`). An exact match of another field wins first: see
/// `answers::go`.
pub fn go_key_matches(key: &str, name: &str) -> bool {
    fn fold(c: char) -> char {
        match c {
            '\u{212A}' => 'K',
            '\u{17F}' => 'S',
            c => c.to_ascii_uppercase(),
        }
    }
    key == name
        || (key.chars().count() == name.chars().count()
            && key
                .chars()
                .zip(name.chars())
                .all(|(a, b)| fold(a) == fold(b)))
}

/// A string field of an Event or answer as the host holds it: `""` for a
/// missing field, `null` or anything else (Go's zero value). Read Events
/// Go-normalised first (`answers::go::event`) so that
/// `"Session_ID"` and duplicate keys are already resolved.
pub fn field_str<'a>(doc: &'a Value, name: &str) -> &'a str {
    doc.get(name).and_then(Value::as_str).unwrap_or("")
}

/// An integer field as the host holds it: 0 when missing or `null`.
pub fn field_int(doc: &Value, name: &str) -> i64 {
    doc.get(name).and_then(Value::as_i64).unwrap_or(0)
}
