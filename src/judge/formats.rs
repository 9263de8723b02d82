//! The formats of the files a hook install touches, as the user data check
//! reads and writes them: JSON, JSON with comments, TOML, YAML, INI, and
//! plain text for anything else.
//!
//! Each structured format is read into a JSON value, so that the user's
//! content can be compared semantically, whatever layout the plugin gives
//! the file back in (host-behaviour "Real bugs that these plugins carry":
//! user data lost in a config file that is not JSON). TOML is read and
//! written by the `toml` crate, YAML by serde-saphyr (already the suite's
//! parser); JSON with comments and INI by the small readers below.

use std::fmt;

use serde_json::{Map, Value};

/// The format of a file, from its name and its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Strict JSON.
    Json,
    /// JSON with `//` and `/* */` comments and trailing commas.
    Jsonc,
    /// TOML.
    Toml,
    /// YAML.
    Yaml,
    /// INI: `[section]` and `key = value` (or `key: value`) lines.
    Ini,
    /// Anything else: whole lines (a shell script, a git hook, `.env`).
    Text,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Json => "JSON",
            Format::Jsonc => "JSON with comments",
            Format::Toml => "TOML",
            Format::Yaml => "YAML",
            Format::Ini => "INI",
            Format::Text => "plain text",
        })
    }
}

/// The format of the file at `rel` holding `text`: by extension; a file of
/// no known extension that holds a JSON object is JSON, anything else text.
pub fn detect(rel: &str, text: &str) -> Format {
    let name = rel.rsplit('/').next().unwrap_or(rel).to_ascii_lowercase();
    let ext = name.rsplit_once('.').map_or("", |(_, ext)| ext);
    match ext {
        "json" if serde_json::from_str::<Value>(text).is_ok() => Format::Json,
        "json" | "jsonc" | "json5" => Format::Jsonc,
        "toml" => Format::Toml,
        "yaml" | "yml" => Format::Yaml,
        "ini" | "cfg" => Format::Ini,
        _ if matches!(serde_json::from_str(text), Ok(Value::Object(_))) => Format::Json,
        _ => Format::Text,
    }
}

/// The file's content as a JSON value; an error for text.
pub fn parse(format: Format, text: &str) -> Result<Value, String> {
    match format {
        Format::Json => serde_json::from_str(text).map_err(|e| e.to_string()),
        Format::Jsonc => serde_json::from_str(&strip_jsonc(text)).map_err(|e| e.to_string()),
        Format::Toml => toml::from_str::<toml::Table>(text)
            .map_err(|e| one_line(&e.to_string()))
            .and_then(|table| serde_json::to_value(table).map_err(|e| e.to_string())),
        Format::Yaml => serde_saphyr::from_str::<Value>(text).map_err(|e| one_line(&e.to_string())),
        Format::Ini => Ok(parse_ini(text)),
        Format::Text => Err("plain text has no structure".to_string()),
    }
}

/// `value` written in `format`, after the comment lines `comments` (in the
/// format's own comment syntax). Text renders nothing: its lines are made
/// by the caller.
pub fn render(format: Format, value: &Value, comments: &[&str]) -> Result<String, String> {
    let (mark, body) = match format {
        Format::Json => return pretty_json(value),
        Format::Jsonc => ("//", pretty_json(value)?),
        Format::Toml => ("#", toml::to_string(value).map_err(|e| e.to_string())?),
        Format::Yaml => (
            "#",
            serde_saphyr::to_string(value).map_err(|e| e.to_string())?,
        ),
        Format::Ini => (";", render_ini(value)),
        Format::Text => return Ok(String::new()),
    };
    let mut out: String = comments.iter().map(|c| format!("{mark} {c}\n")).collect();
    out.push_str(&body);
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

fn pretty_json(value: &Value) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// JSON with comments made JSON: `//` and `/* */` comments become spaces
/// (newlines kept), and a comma before `}` or `]` goes. Strings are copied
/// as they are, escapes included.
pub fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => out.extend(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push('\n');
                    }
                    if last == '*' && s == '/' {
                        break;
                    }
                    last = s;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    drop_trailing_commas(&out)
}

/// Removes a `,` that only whitespace separates from a following `}` or `]`
/// (outside strings).
fn drop_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.get(i + 1) {
                    out.push(*next);
                    i += 1;
                }
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c == ',' {
            let next = chars[i + 1..].iter().find(|n| !n.is_whitespace());
            if !matches!(next, Some('}') | Some(']')) {
                out.push(c);
            }
        } else {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// INI read as Python's `configparser` reads it: `[section]` headers,
/// `key = value` or `key: value` (whichever separator comes first), keys
/// in lower case, values trimmed, indented lines continuing the value
/// before them, `#` and `;` lines comments. Keys before any section sit at
/// the top level. Every value is a string.
pub fn parse_ini(text: &str) -> Value {
    let mut root = Map::new();
    let mut section: Option<String> = None;
    let mut last: Option<String> = None;
    for raw in text.lines() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let table = match &section {
            Some(name) => root
                .entry(name.clone())
                .or_insert_with(|| Value::Object(Map::new()))
                .as_object_mut(),
            None => Some(&mut root),
        };
        let Some(table) = table else { continue };
        if raw.starts_with([' ', '\t']) {
            if let Some(Value::String(value)) = last.as_ref().and_then(|k| table.get_mut(k)) {
                value.push('\n');
                value.push_str(line);
            }
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(name.trim().to_string());
            root.entry(name.trim().to_string())
                .or_insert_with(|| Value::Object(Map::new()));
            last = None;
            continue;
        }
        let split = line.find(['=', ':']);
        let (key, value) = match split {
            Some(at) => (&line[..at], line[at + 1..].trim()),
            None => (line, ""),
        };
        let key = key.trim().to_lowercase();
        table.insert(key.clone(), Value::String(value.to_string()));
        last = Some(key);
    }
    Value::Object(root)
}

/// A JSON object written as INI: its scalars first, then a section per
/// object (whose own scalars become its keys; deeper levels and arrays
/// have no INI form and are left out).
fn render_ini(value: &Value) -> String {
    let Value::Object(root) = value else {
        return String::new();
    };
    let mut out = String::new();
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Object(_) | Value::Array(_) | Value::Null => None,
        other => Some(other.to_string()),
    };
    for (key, v) in root {
        if let Some(text) = scalar(v) {
            out.push_str(&format!("{key} = {text}\n"));
        }
    }
    for (name, v) in root {
        let Value::Object(table) = v else { continue };
        out.push_str(&format!("\n[{name}]\n"));
        for (key, v) in table {
            if let Some(text) = scalar(v) {
                out.push_str(&format!("{key} = {text}\n"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn detects_by_extension_and_content() {
        assert_eq!(detect("home/.a/config.toml", ""), Format::Toml);
        assert_eq!(detect("nest/repo/.a/x.yml", ""), Format::Yaml);
        assert_eq!(detect("home/.a/a.INI", ""), Format::Ini);
        assert_eq!(detect("home/.a/a.json", "{}"), Format::Json);
        assert_eq!(detect("home/.a/a.json", "{// c\n}"), Format::Jsonc);
        assert_eq!(detect("home/.a/state", "{\"a\": 1}"), Format::Json);
        assert_eq!(
            detect("nest/repo/.git/hooks/pre-commit", "#!/bin/sh\n"),
            Format::Text
        );
        assert_eq!(detect("nest/repo/.env", "A=1\n"), Format::Text);
    }

    #[test]
    fn strips_comments_and_trailing_commas_outside_strings() {
        let text = "{\n  // a comment\n  \"a\": \"http://x//y\", /* block\n */ \"b\": [1, 2,],\n  \"c\": \"\\\"//\",\n}\n";
        let value: Value = serde_json::from_str(&strip_jsonc(text)).expect("stripped JSON");
        assert_eq!(value, json!({"a": "http://x//y", "b": [1, 2], "c": "\"//"}));
    }

    #[test]
    fn reads_ini_as_configparser_does() {
        let text =
            "top = 1\n; comment\n[Core]\nModel = big\nurl: http://x=y\n  more\n# c\n[empty]\n";
        assert_eq!(
            parse_ini(text),
            json!({"top": "1", "Core": {"model": "big", "url": "http://x=y\nmore"}, "empty": {}})
        );
    }

    #[test]
    fn every_structured_format_reads_back_what_it_wrote() {
        let value = json!({
            "model": "m",
            "list": ["a", "b"],
            "hooks": {"stop": [{"command": "echo user", "timeout": 5, "on": true}]},
            "provider": {"name": "p", "limits": {"max": 3}}
        });
        for format in [Format::Json, Format::Jsonc, Format::Toml, Format::Yaml] {
            let text = render(format, &value, &["the user's comment"]).expect("renders");
            assert_eq!(parse(format, &text), Ok(value.clone()), "{format}: {text}");
        }
        let ini = json!({"core": {"model": "m", "n": "3"}, "hooks": {"stop": "echo user"}});
        let text = render(Format::Ini, &ini, &["c"]).expect("renders");
        assert_eq!(parse(Format::Ini, &text), Ok(ini), "{text}");
    }
}
