//! The user's config written out in one shape of its format: TOML with its
//! lists as arrays of tables (`[[hooks]]`) or as inline arrays (`hooks =
//! [...]`), YAML with block (`- `) or flow (`[...]`) sequences. The
//! layout is the harness's own, one entry per line or block, so that the
//! user's later edit (`edit`) can find the end of a list in the text.
//!
//! Strings are written JSON-quoted, which TOML's basic strings and YAML's
//! double-quoted scalars both read as the same string.

use serde_json::{Map, Value};

/// The comment the harness writes before the user's own hooks.
pub const HOOKS_COMMENT: &str = "the user's own hooks, before Entire's";

/// A list of the plugin's hooks: the keys leading to it.
pub type Path = Vec<String>;

/// How lists of tables are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lists {
    /// TOML `[[a.b]]` tables, YAML block sequences.
    Block,
    /// TOML inline arrays, YAML flow sequences.
    Inline,
}

/// `doc` (a table at the top level) as TOML, its lists written as `lists`
/// says; a comment line before each list of `hooks`.
pub fn toml(doc: &Map<String, Value>, lists: Lists, hooks: &[Path]) -> String {
    let mut out = String::new();
    toml_table(&mut out, &[], doc, lists, hooks);
    out
}

/// Whether a TOML value is written as `key = value` in its table (not as a
/// table or an array of tables of its own).
fn toml_inline_here(value: &Value, lists: Lists) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => lists == Lists::Inline || !tables(items),
        _ => true,
    }
}

/// Whether every item of a non-empty list is a table.
fn tables(items: &[Value]) -> bool {
    !items.is_empty() && items.iter().all(Value::is_object)
}

fn toml_table(
    out: &mut String,
    at: &[String],
    map: &Map<String, Value>,
    lists: Lists,
    hooks: &[Path],
) {
    for (key, value) in map {
        if value.is_null() || !toml_inline_here(value, lists) {
            continue;
        }
        let path = joined(at, key);
        let multiline = matches!(value, Value::Array(items) if tables(items));
        if multiline {
            out.push('\n');
        }
        out.push_str(&format!("{} = ", toml_key(key)));
        if let (true, Value::Array(items)) = (multiline, value) {
            out.push_str("[\n");
            if hooks.contains(&path) {
                out.push_str(&format!("  # {HOOKS_COMMENT}\n"));
            }
            for item in items {
                out.push_str(&format!("  {},\n", toml_value(item)));
            }
            out.push_str("]\n");
        } else {
            out.push_str(&toml_value(value));
            out.push('\n');
        }
    }
    for (key, value) in map {
        if value.is_null() || toml_inline_here(value, lists) {
            continue;
        }
        let path = joined(at, key);
        let header = path
            .iter()
            .map(|k| toml_key(k))
            .collect::<Vec<_>>()
            .join(".");
        match value {
            Value::Object(sub) => {
                out.push_str(&format!("\n[{header}]\n"));
                toml_table(out, &path, sub, lists, hooks);
            }
            Value::Array(items) => {
                if hooks.contains(&path) {
                    out.push_str(&format!("\n# {HOOKS_COMMENT}"));
                }
                for item in items {
                    out.push_str(&format!("\n[[{header}]]\n"));
                    if let Value::Object(sub) = item {
                        toml_table(out, &path, sub, lists, hooks);
                    }
                }
            }
            _ => {}
        }
    }
}

/// One item of an array of tables at `path`, as a block appended to a
/// TOML file (`[[path]]` and its keys, its own tables below it).
pub fn toml_item(path: &[String], item: &Map<String, Value>) -> String {
    let header = path
        .iter()
        .map(|k| toml_key(k))
        .collect::<Vec<_>>()
        .join(".");
    let mut out = format!("\n[[{header}]]\n");
    toml_table(&mut out, path, item, Lists::Block, &[]);
    out
}

fn joined(at: &[String], key: &str) -> Path {
    let mut path = at.to_vec();
    path.push(key.to_string());
    path
}

/// A key, bare when TOML allows it, else quoted.
fn toml_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { quoted(key) }
}

fn quoted(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// A value in TOML's inline form (one line).
pub fn toml_value(value: &Value) -> String {
    match value {
        Value::String(s) => quoted(s),
        Value::Number(n) if n.is_f64() => {
            let text = n.to_string();
            if text.contains(['.', 'e', 'E']) {
                text
            } else {
                format!("{text}.0")
            }
        }
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(toml_value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) if map.is_empty() => "{}".to_string(),
        Value::Object(map) => {
            let pairs: Vec<String> = map
                .iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{} = {}", toml_key(k), toml_value(v)))
                .collect();
            format!("{{ {} }}", pairs.join(", "))
        }
        // TOML has no null; the caller leaves such keys out.
        Value::Null => "\"\"".to_string(),
    }
}

/// `doc` (a table at the top level) as YAML, its lists written as `lists`
/// says; a comment line before each list of `hooks`.
pub fn yaml(doc: &Map<String, Value>, lists: Lists, hooks: &[Path]) -> String {
    let mut out = String::new();
    yaml_map(&mut out, &[], doc, 0, lists, hooks);
    out
}

fn yaml_map(
    out: &mut String,
    at: &[String],
    map: &Map<String, Value>,
    indent: usize,
    lists: Lists,
    hooks: &[Path],
) {
    let pad = " ".repeat(indent);
    for (key, value) in map {
        let path = joined(at, key);
        let key = yaml_key(key);
        match value {
            Value::Object(sub) if !sub.is_empty() => {
                if indent == 0 {
                    out.push('\n');
                }
                out.push_str(&format!("{pad}{key}:\n"));
                yaml_map(out, &path, sub, indent + 2, lists, hooks);
            }
            Value::Array(items) if !items.is_empty() => {
                if indent == 0 && items.iter().any(|i| i.is_object()) {
                    out.push('\n');
                }
                if hooks.contains(&path) {
                    out.push_str(&format!("{pad}# {HOOKS_COMMENT}\n"));
                }
                if lists == Lists::Inline {
                    out.push_str(&format!("{pad}{key}: {}\n", flow(value)));
                    continue;
                }
                out.push_str(&format!("{pad}{key}:\n"));
                for item in items {
                    out.push_str(&yaml_item(item, indent + 2));
                }
            }
            _ => out.push_str(&format!("{pad}{key}: {value}\n")),
        }
    }
}

/// A value in YAML's flow style: JSON, spaced as people write it.
pub fn flow(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let pairs: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", quoted(k), flow(v)))
                .collect();
            format!("{{{}}}", pairs.join(", "))
        }
        other => other.to_string(),
    }
}

/// One item of a block sequence whose dashes are at `indent`.
pub fn yaml_item(item: &Value, indent: usize) -> String {
    let pad = " ".repeat(indent);
    match item {
        Value::Object(map) if !map.is_empty() => {
            let mut body = String::new();
            yaml_map(&mut body, &[], map, indent + 2, Lists::Block, &[]);
            // The first key goes on the dash's line.
            let body = body.trim_start_matches('\n');
            let inner = " ".repeat(indent + 2);
            match body.strip_prefix(inner.as_str()) {
                Some(rest) => format!("{pad}- {rest}"),
                None => format!("{pad}- {}\n", flow(item)),
            }
        }
        other => format!("{pad}- {}\n", flow(other)),
    }
}

/// A key, plain when YAML reads it back as that string, else quoted.
fn yaml_key(key: &str) -> String {
    let plain = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !matches!(
            key.to_ascii_lowercase().as_str(),
            "y" | "n" | "yes" | "no" | "on" | "off" | "true" | "false" | "null"
        );
    if plain { key.to_string() } else { quoted(key) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::formats::{self, Format};
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "model": "m",
            "hooks": [
                {"event": "stop", "command": "echo a", "when": {"tool": "Task"}},
                {"event": "stop", "command": "echo b", "with": [{"x": 1.5}]},
            ],
            "nested": {"Stop": [{"matcher": "", "hooks": [{"command": "echo c"}]}]},
            "odd key": {"on": true, "list": ["a", "b"], "empty": {}},
        })
    }

    #[test]
    fn every_shape_reads_back_as_the_same_value() {
        let doc = doc();
        let map = doc.as_object().expect("a table");
        let hooks = vec![vec!["hooks".to_string()]];
        for lists in [Lists::Block, Lists::Inline] {
            let text = toml(map, lists, &hooks);
            assert_eq!(
                formats::parse(Format::Toml, &text).ok(),
                Some(doc.clone()),
                "{text}"
            );
            let text = yaml(map, lists, &hooks);
            assert_eq!(
                formats::parse(Format::Yaml, &text).ok(),
                Some(doc.clone()),
                "{text}"
            );
        }
        let inline = toml(map, Lists::Inline, &hooks);
        assert!(
            inline.contains("hooks = [\n  # the user's own hooks"),
            "{inline}"
        );
        let tables = toml(map, Lists::Block, &hooks);
        assert!(
            tables.contains("[[nested.Stop]]\nmatcher = \"\"\n\n[[nested.Stop.hooks]]"),
            "{tables}"
        );
        let flow = yaml(map, Lists::Inline, &hooks);
        assert!(flow.contains("hooks: [{"), "{flow}");
    }

    #[test]
    fn an_item_appended_reads_as_one_more_entry() {
        let doc = doc();
        let map = doc.as_object().expect("a table");
        let text = toml(map, Lists::Block, &[]);
        let item = json!({"matcher": "", "hooks": [{"command": "echo d"}]});
        let path = vec!["nested".to_string(), "Stop".to_string()];
        let more = format!(
            "{text}{}",
            toml_item(&path, item.as_object().expect("a table"))
        );
        let got = formats::parse(Format::Toml, &more).expect("TOML");
        assert_eq!(got["nested"]["Stop"][1], item, "{more}");
        let block = yaml_item(&item, 2);
        assert!(block.starts_with("  - hooks:\n"), "{block}");
    }
}
