//! The user's own edit of their config between two `entire enable`s, made
//! in the text as a user makes it: one setting changed, and a hook of
//! their own added at the end of each list that holds the plugin's entry
//! (after the plugin's entry, wherever the plugin put it).
//!
//! Each change is made by one of a few text methods (after the last item
//! inside a list's brackets; a `[[table]]` block at the end of a TOML file;
//! an item at the end of a YAML block sequence) and kept only when the
//! file then reads as the value expected: the user's edit never breaks
//! the file, whatever layout the plugin left.

use serde_json::Value;

use super::render::{self, Path};
use crate::judge::formats::{self, Format};
use crate::judge::planted;

/// What the user changed: the setting, and the lists that got a hook.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Edit {
    /// The user's model setting was changed.
    pub setting: bool,
    /// The lists that got a hook of the user's, at their end.
    pub lists: Vec<Path>,
}

/// The new value of the user's setting.
pub const CHANGED_MODEL: &str = "user-model-8";

/// The user's edit of `text` (in `format`): `wanted` says what to change
/// (all of it, or what was made in another copy of the file); the new text
/// and what was changed. `user` is the user's own content (the items added
/// are made from its first entry of each list).
pub fn edit(format: Format, text: &str, user: &Value, wanted: &Edit) -> (String, Edit) {
    let mut done = Edit::default();
    let Ok(mut expected) = formats::parse(format, text) else {
        return (text.to_string(), done);
    };
    let mut now = text.to_string();
    let (key, old) = planted::USER_MODEL;
    let quoted_old = Value::String(old.to_string()).to_string();
    if wanted.setting && expected.get(key) == Some(&Value::String(old.to_string())) {
        let changed = now.replacen(
            &quoted_old,
            &Value::String(CHANGED_MODEL.into()).to_string(),
            1,
        );
        expected[key] = Value::String(CHANGED_MODEL.into());
        if formats::parse(format, &changed).ok().as_ref() == Some(&expected) {
            now = changed;
            done.setting = true;
        } else {
            expected[key] = Value::String(old.to_string());
        }
    }
    for path in &wanted.lists {
        let Some(item) = first_item(user, path).map(planted::added_later) else {
            continue;
        };
        let Some(list) = at_mut(&mut expected, path).and_then(Value::as_array_mut) else {
            continue;
        };
        list.push(item.clone());
        let added = methods(format, &now, path, &item)
            .into_iter()
            .find(|t| formats::parse(format, t).ok().as_ref() == Some(&expected));
        match added {
            Some(t) => {
                now = t;
                done.lists.push(path.clone());
            }
            None => {
                if let Some(list) = at_mut(&mut expected, path).and_then(Value::as_array_mut) {
                    list.pop();
                }
            }
        }
    }
    (now, done)
}

/// What the user has after their edit, without the plugin's entries: the
/// lines of `edited` (the user's edit of `installed`, the file as the
/// install left the user's `laid` one) but those the install added. This
/// is what an uninstall must leave, byte for byte: the user's lines where
/// they were, their edit where they made it. A line of the plugin's that
/// the edit touched (a comma added after it) is still the plugin's; a line
/// of the user's that the install changed only by a comma is the user's.
/// `None` when the install changed a line of the user's otherwise (an
/// entry added inside a list written on one line): which of its bytes are
/// whose is then not known.
pub fn users_lines(laid: &str, installed: &str, edited: &str) -> Option<String> {
    use similar::{Algorithm, DiffTag, capture_diff_slices};
    let lines = |t: &str| -> Vec<String> { t.split_inclusive('\n').map(String::from).collect() };
    let (laid, installed, edited) = (lines(laid), lines(installed), lines(edited));
    let norm = |l: &str| l.trim_end().trim_end_matches(',').trim_end().to_string();
    let mut plugins = vec![false; installed.len()];
    for op in capture_diff_slices(Algorithm::Myers, &laid, &installed) {
        let (tag, old, new) = op.as_tag_tuple();
        let users: Vec<String> = old.map(|o| norm(&laid[o])).collect();
        let mut matched = vec![false; users.len()];
        for n in new.clone().filter(|_| tag != DiffTag::Equal) {
            match users.iter().position(|u| *u == norm(&installed[n])) {
                Some(at) => matched[at] = true,
                None => plugins[n] = true,
            }
        }
        if tag == DiffTag::Replace && matched.iter().any(|m| !m) {
            return None;
        }
    }
    let mut out = String::new();
    for op in capture_diff_slices(Algorithm::Myers, &installed, &edited) {
        let (tag, old, new) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => old
                .zip(new)
                .filter(|(o, _)| !plugins[*o])
                .for_each(|(_, n)| out.push_str(&edited[n])),
            DiffTag::Delete => {}
            DiffTag::Insert | DiffTag::Replace => {
                let theirs: Vec<String> = old
                    .filter(|o| plugins[*o])
                    .map(|o| norm(&installed[o]))
                    .collect();
                new.filter(|n| !theirs.contains(&norm(&edited[*n])))
                    .for_each(|n| out.push_str(&edited[n]));
            }
        }
    }
    Some(out)
}

/// The user's doc after `edit`: the setting changed, an item added to each
/// list.
pub fn applied(user: &Value, edit: &Edit) -> Value {
    let mut doc = user.clone();
    if edit.setting {
        doc[planted::USER_MODEL.0] = Value::String(CHANGED_MODEL.into());
    }
    for path in &edit.lists {
        let Some(item) = first_item(user, path).map(planted::added_later) else {
            continue;
        };
        if let Some(list) = at_mut(&mut doc, path).and_then(Value::as_array_mut) {
            list.push(item);
        }
    }
    doc
}

fn first_item<'v>(doc: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter()
        .try_fold(doc, |v, k| v.get(k))?
        .as_array()?
        .first()
}

fn at_mut<'v>(doc: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(doc, |v, k| v.get_mut(k))
}

/// The texts the item could be added by, in the order to try.
fn methods(format: Format, text: &str, path: &Path, item: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let trailing = format == Format::Toml;
    let inline = match format {
        Format::Toml => render::toml_value(item),
        Format::Yaml => render::flow(item),
        _ => item.to_string(),
    };
    let open = match format {
        Format::Json | Format::Jsonc => json_open(text, path),
        Format::Toml => toml_open(text, path),
        Format::Yaml => yaml_key_line(text, path).and_then(|(line, _)| flow_open(text, line)),
        _ => None,
    };
    if let Some(t) = open.and_then(|at| in_brackets(text, at, &inline, trailing)) {
        out.push(t);
    }
    match (format, item) {
        (Format::Toml, Value::Object(map)) => {
            let mut t = text.to_string();
            if !t.ends_with('\n') {
                t.push('\n');
            }
            t.push_str(&render::toml_item(path, map));
            out.push(t);
        }
        (Format::Yaml, _) => out.extend(yaml_block(text, path, item)),
        _ => {}
    }
    out
}

/// Where the list at `path` opens (`[`) in a JSON (with comments) text.
fn json_open(text: &str, path: &[String]) -> Option<usize> {
    use jsonc_parser::ast;
    let parsed = jsonc_parser::parse_to_ast(text, &Default::default(), &Default::default()).ok()?;
    let mut value = parsed.value?;
    for key in path {
        let ast::Value::Object(object) = value else {
            return None;
        };
        value = object
            .properties
            .into_iter()
            .find(|p| p.name.as_str() == key)?
            .value;
    }
    match value {
        ast::Value::Array(array) => Some(array.range.start),
        _ => None,
    }
}

/// Where the inline array at `path` opens in a TOML text: `key = [` at the
/// top (before any header) or in the section of its parent's `[header]`.
fn toml_open(text: &str, path: &[String]) -> Option<usize> {
    let (last, parents) = path.split_last()?;
    let header = parents.join(".");
    let mut in_section = parents.is_empty();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with('[') {
            let name: String = trimmed
                .trim_start_matches('[')
                .split(']')
                .next()
                .unwrap_or("")
                .split('.')
                .map(|k| k.trim().trim_matches('"'))
                .collect::<Vec<_>>()
                .join(".");
            in_section = !trimmed.starts_with("[[") && !parents.is_empty() && name == header;
        } else if in_section
            && let Some(rest) = strip_key(trimmed, last)
            && let Some(value) = rest.trim_start().strip_prefix('=')
            && value.trim_start().starts_with('[')
        {
            let lead = line.len() - line.trim_start().len();
            let at = lead + (trimmed.len() - value.trim_start().len());
            return Some(offset + at);
        }
        offset += line.len();
    }
    None
}

/// The rest of `line` after the key `key` (bare or quoted).
fn strip_key<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let quoted = Value::String(key.to_string()).to_string();
    line.strip_prefix(quoted.as_str())
        .or_else(|| line.strip_prefix(key))
        .filter(|rest| rest.starts_with([' ', '=', ':', '\t']))
}

/// The line (index) of the YAML key leading to `path`, and its indent:
/// each key looked for among the lines indented deeper than its parent's
/// (the first at the top level).
fn yaml_key_line(text: &str, path: &[String]) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut from = 0;
    let mut parent: Option<usize> = None;
    for key in path {
        let mut hit = None;
        for (n, line) in lines.iter().enumerate().skip(from) {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let indent = indent_of(line);
            match parent {
                Some(p) if indent <= p => break,
                None if indent > 0 => continue,
                _ => {}
            }
            if strip_key(trimmed, key).is_some_and(|rest| rest.trim_start().starts_with(':')) {
                hit = Some((n, indent));
                break;
            }
        }
        let (n, indent) = hit?;
        parent = Some(indent);
        from = n + 1;
    }
    parent.map(|indent| (from - 1, indent))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// Where a flow sequence opens on YAML line `line` (`key: [`).
fn flow_open(text: &str, line: usize) -> Option<usize> {
    let offset: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let this = text.split_inclusive('\n').nth(line)?;
    let colon = this.find(':')?;
    let after = &this[colon + 1..];
    let bracket = after.len() - after.trim_start().len();
    after
        .trim_start()
        .starts_with('[')
        .then_some(offset + colon + 1 + bracket)
}

/// `text` with `item` added after the last item of the list that opens at
/// `open`: on a line of its own when the list's items are on lines of
/// their own (with a comma after it when `trailing`), else after a comma.
fn in_brackets(text: &str, open: usize, item: &str, trailing: bool) -> Option<String> {
    let (close, last) = scan(text, open)?;
    let own_line = text[..close]
        .rsplit('\n')
        .next()
        .is_some_and(|l| l.trim().is_empty())
        && text[open..close].contains('\n');
    let mut out = String::with_capacity(text.len() + item.len() + 8);
    if own_line {
        let line_start = text[..close].rfind('\n').map_or(0, |n| n + 1);
        let indent = match last {
            Some(last) => {
                let start = text[..last].rfind('\n').map_or(0, |n| n + 1);
                text[start..].len() - text[start..].trim_start().len()
            }
            None => indent_of(&text[line_start..]) + 2,
        };
        let comma = last.is_some_and(|l| text.as_bytes()[l] != b',');
        match last {
            Some(l) => {
                out.push_str(&text[..=l]);
                if comma {
                    out.push(',');
                }
                out.push_str(&text[l + 1..line_start]);
            }
            None => out.push_str(&text[..line_start]),
        }
        out.push_str(&" ".repeat(indent));
        out.push_str(item);
        if trailing {
            out.push(',');
        }
        out.push('\n');
        out.push_str(&text[line_start..]);
        return Some(out);
    }
    match last {
        Some(l) => {
            out.push_str(&text[..=l]);
            out.push_str(if text.as_bytes()[l] == b',' {
                " "
            } else {
                ", "
            });
            out.push_str(item);
            out.push_str(&text[l + 1..]);
        }
        None => {
            out.push_str(&text[..=open]);
            out.push_str(item);
            out.push_str(&text[open + 1..]);
        }
    }
    Some(out)
}

/// From the `[` at `open`: the offset of its closing `]` and of the last
/// character of the list's content before it (outside strings and `#` or
/// `//` comments), `None` for an empty list.
fn scan(text: &str, open: usize) -> Option<(usize, Option<usize>)> {
    let bytes = text.as_bytes();
    if bytes.get(open) != Some(&b'[') {
        return None;
    }
    let mut depth = 0usize;
    let mut last = None;
    let mut i = open;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' | b'\'' => {
                let end = string_end(bytes, i)?;
                last = Some(end);
                i = end;
            }
            b'#' => i = line_end(bytes, i),
            b'/' if bytes.get(i + 1) == Some(&b'/') => i = line_end(bytes, i),
            b'[' | b'{' => {
                depth += 1;
                if i != open {
                    last = Some(i);
                }
            }
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some((i, last));
                }
                last = Some(i);
            }
            _ if b.is_ascii_whitespace() => {}
            _ => last = Some(i),
        }
        i += 1;
    }
    None
}

/// The offset of the quote closing the string that opens at `start`.
fn string_end(bytes: &[u8], start: usize) -> Option<usize> {
    let quote = bytes[start];
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 1,
            b if b == quote => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |n| from + n)
        .saturating_sub(1)
}

/// `text` with `item` added at the end of the YAML block sequence at
/// `path`, at the indent of its dashes.
fn yaml_block(text: &str, path: &[String], item: &Value) -> Option<String> {
    let (line, indent) = yaml_key_line(text, path)?;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut end = line + 1;
    let mut dash = None;
    for (n, l) in lines.iter().enumerate().skip(line + 1) {
        let trimmed = l.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let here = indent_of(l);
        let item_line = trimmed.starts_with("- ") || trimmed == "-";
        if here > indent || (here == indent && item_line) {
            if item_line && dash.is_none() {
                dash = Some(here);
            }
            end = n + 1;
        } else {
            break;
        }
    }
    let dash = dash?;
    let mut out: String = lines[..end].concat();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&render::yaml_item(item, dash));
    out.push_str(&lines[end..].concat());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::lived::render::Lists;
    use serde_json::json;

    fn user() -> Value {
        json!({
            "agent_conform_user_model": "user-model-7",
            "hooks": [
                {"event": "stop", "command": "echo agent-conform-user-hook"},
                {"event": "stop", "command": "echo agent-conform-user-hook again"},
            ],
        })
    }

    fn all() -> Edit {
        Edit {
            setting: true,
            lists: vec![vec!["hooks".to_string()]],
        }
    }

    #[test]
    fn every_shape_gets_the_setting_changed_and_a_hook_at_the_end() {
        let user = user();
        let map = user.as_object().expect("a table");
        let hooks = [vec!["hooks".to_string()]];
        let texts = [
            (Format::Toml, render::toml(map, Lists::Block, &hooks)),
            (Format::Toml, render::toml(map, Lists::Inline, &hooks)),
            (Format::Yaml, render::yaml(map, Lists::Block, &hooks)),
            (Format::Yaml, render::yaml(map, Lists::Inline, &hooks)),
            (Format::Json, format!("{user:#}\n")),
            (Format::Jsonc, format!("// mine\n{user:#}\n")),
        ];
        for (format, text) in texts {
            let (now, done) = edit(format, &text, &user, &all());
            assert_eq!(done, all(), "{format}: {text}");
            let got = formats::parse(format, &now).expect("reads");
            assert_eq!(got, applied(&user, &all()), "{format}: {now}");
            assert_eq!(
                got["hooks"][2]["command"],
                "echo agent-conform-user-hook later"
            );
        }
    }

    #[test]
    fn the_hook_goes_after_an_entry_the_plugin_added_last() {
        let text = "hooks = [\n  { command = \"echo agent-conform-user-hook\" },\n  { command = \"entire hooks x stop\" }\n]\n";
        let user = json!({"hooks": [{"command": "echo agent-conform-user-hook"}]});
        let wanted = Edit {
            setting: false,
            lists: vec![vec!["hooks".to_string()]],
        };
        let (now, done) = edit(Format::Toml, text, &user, &wanted);
        assert_eq!(done, wanted);
        assert!(
            now.ends_with(
                "stop\" },\n  { command = \"echo agent-conform-user-hook later\" },\n]\n"
            ),
            "{now}"
        );
        let flow = "hooks: [{\"command\": \"echo agent-conform-user-hook\"}]  # mine\nother: 1\n";
        let (now, _) = edit(Format::Yaml, flow, &user, &wanted);
        assert!(
            now.starts_with(
                "hooks: [{\"command\": \"echo agent-conform-user-hook\"}, {\"command\":"
            ),
            "{now}"
        );
    }

    #[test]
    fn the_users_lines_are_the_edited_file_without_the_plugins() {
        let laid = "hooks:\n  - a\n\n# next\nnext: 1\n";
        let installed = "hooks:\n  - a\n\n# next\n  - entire hooks x stop\nnext: 1\n";
        let edited = "hooks:\n  - a\n\n# next\n  - entire hooks x stop\n  - later\nnext: 2\n";
        let users = users_lines(laid, installed, edited);
        assert_eq!(
            users.as_deref(),
            Some("hooks:\n  - a\n\n# next\n  - later\nnext: 2\n")
        );
        let installed = "x = [\n  1,\n  \"entire hooks x stop\"\n]\n";
        let edited = "x = [\n  1,\n  \"entire hooks x stop\",\n  2,\n]\n";
        let users = users_lines("x = [\n  1,\n]\n", installed, edited);
        assert_eq!(users.as_deref(), Some("x = [\n  1,\n  2,\n]\n"));
        let json = "[\n  1\n]\n";
        let installed = "[\n  1,\n  \"entire hooks x stop\"\n]\n";
        let edited = "[\n  1,\n  \"entire hooks x stop\",\n  2\n]\n";
        assert_eq!(
            users_lines(json, installed, edited).as_deref(),
            Some("[\n  1,\n  2\n]\n")
        );
        let flow = "hooks: [1, 2]\n";
        let installed = "hooks: [1, 2, \"entire hooks x\"]\n";
        assert_eq!(users_lines(flow, installed, installed), None);
    }

    #[test]
    fn a_list_it_cannot_find_is_left_alone() {
        let user = user();
        let (now, done) = edit(Format::Toml, "hooks = 3\n", &user, &all());
        assert_eq!(now, "hooks = 3\n");
        assert_eq!(done, Edit::default());
    }
}
