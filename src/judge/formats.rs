//! The formats of the files a hook install touches, as the user data check
//! reads and writes them: JSON, JSON with comments, TOML, YAML, INI, and
//! plain text for anything else.
//!
//! Each structured format is read into a JSON value, so that the user's
//! content can be compared semantically, whatever layout the plugin gives
//! the file back in (docs/host.md "Real bugs that these plugins carry":
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
        Format::Jsonc => parse_jsonc(text),
        Format::Toml => toml::from_str::<toml::Table>(text)
            .map_err(|e| one_line(&e.to_string()))
            .map(|table| toml_json(toml::Value::Table(table))),
        Format::Yaml => serde_saphyr::from_str::<Value>(text).map_err(|e| one_line(&e.to_string())),
        Format::Ini => parse_ini(text),
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

/// A TOML value as JSON, a date or time as the user wrote it
/// (`1979-05-27T07:32:00Z`): never the `toml` crate's inner form of one,
/// which a report would show.
fn toml_json(value: toml::Value) -> Value {
    match value {
        toml::Value::String(s) => Value::String(s),
        toml::Value::Integer(i) => Value::from(i),
        toml::Value::Float(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        toml::Value::Boolean(b) => Value::Bool(b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(items) => Value::Array(items.into_iter().map(toml_json).collect()),
        toml::Value::Table(table) => Value::Object(
            table
                .into_iter()
                .map(|(key, value)| (key, toml_json(value)))
                .collect::<Map<String, Value>>(),
        ),
    }
}

fn pretty_json(value: &Value) -> Result<String, String> {
    serde_json::to_string_pretty(value)
        .map(|text| text + "\n")
        .map_err(|e| e.to_string())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// JSON with comments (`//`, `/* */`, trailing commas), read by dprint's
/// `jsonc-parser`, the reader of VS Code-style settings files.
pub fn parse_jsonc(text: &str) -> Result<Value, String> {
    let options = jsonc_parser::ParseOptions::default();
    let value: Option<Value> =
        jsonc_parser::parse_to_serde_value(text, &options).map_err(|e| e.to_string())?;
    Ok(value.unwrap_or(Value::Null))
}

/// INI read as Python's `configparser` reads it, by the `configparser`
/// crate that mirrors it: `[section]` headers, `key = value` or `key:
/// value`, keys in lower case, values trimmed, indented lines continuing
/// the value before them, `#` and `;` lines comments. Keys before any
/// section sit at the top level; a key without a value is `""`. Every
/// value is a string.
pub fn parse_ini(text: &str) -> Result<Value, String> {
    let mut defaults = configparser::ini::Ini::new().defaults();
    defaults.multiline = true;
    let top = defaults.default_section.clone();
    let mut ini = configparser::ini::Ini::new_from_defaults(defaults);
    let sections = ini.read(text.to_string())?;
    let mut root = Map::new();
    let mut named: Vec<_> = sections.into_iter().collect();
    named.sort_by(|a, b| a.0.cmp(&b.0));
    for (section, keys) in named {
        let table: Map<String, Value> = keys
            .into_iter()
            .map(|(k, v)| (k, Value::String(v.unwrap_or_default())))
            .collect();
        if section == top {
            root.extend(table);
        } else {
            root.insert(section, Value::Object(table));
        }
    }
    Ok(Value::Object(root))
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
    fn a_toml_datetime_reads_as_the_user_wrote_it() {
        let text = "when = 1979-05-27T07:32:00Z\n[[hooks]]\nday = 1979-05-27\n";
        let value = parse(Format::Toml, text).expect("TOML");
        assert_eq!(
            value,
            json!({"when": "1979-05-27T07:32:00Z", "hooks": [{"day": "1979-05-27"}]})
        );
        assert!(!value.to_string().contains("toml_private"), "{value}");
    }

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
    fn reads_comments_and_trailing_commas_outside_strings() {
        let text = "{\n  // a comment\n  \"a\": \"http://x//y\", /* block\n */ \"b\": [1, 2,],\n  \"c\": \"\\\"//\",\n}\n";
        let value = parse_jsonc(text).expect("JSON with comments");
        assert_eq!(value, json!({"a": "http://x//y", "b": [1, 2], "c": "\"//"}));
    }

    #[test]
    fn reads_ini_as_configparser_does() {
        let text =
            "top = 1\n; comment\n[Core]\nModel = big\nurl: http://x=y\n  more\n# c\n[empty]\n";
        assert_eq!(
            parse_ini(text),
            Ok(
                json!({"top": "1", "core": {"model": "big", "url": "http://x=y\nmore"}, "empty": {}})
            )
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
