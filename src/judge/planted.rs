//! The user's own content in a file a hook install touches, in that file's
//! format, and the check that it survives (docs/host.md "Real bugs that
//! these plugins carry": user data lost in a config file that is not JSON,
//! a trust or allow list rewritten, a git hook overwritten).
//!
//! From what the plugin wrote in a first install, the harness makes the
//! file a user would already have: keys, a nested table, an array and
//! comments of the user's, and beside each list or table of the plugin's
//! an entry of the same shape with the user's values (a hook running
//! `echo`, a folder the user trusts, one they distrust). A plugin that
//! rewrites the file from scratch or replaces a list loses them.

use serde_json::{Map, Value, json};

use crate::host::invocation::HOOK_MARK;
use crate::judge::formats::{self, Format};

/// The command of the user's own hook entries.
pub const USER_HOOK: &str = "echo agent-conform-user-hook";
/// The folder the user trusts, in the user's own entries.
const TRUSTED: &str = "/home/user/trusted-project";
/// The folder the user distrusts (in an entry with a flag to flip), or
/// another folder of theirs.
const UNTRUSTED: &str = "/home/user/untrusted-project";
const OTHER: &str = "/home/user/another-project";
/// The key of the user's entry beside the plugin's in a table.
const USER_ENTRY: &str = "agent_conform_user_entry";
/// The comments the harness writes into the user's files.
const COMMENTS: &[&str] = &["the user's own settings: agent-conform checks they are kept"];

/// What the user had in one file, to find again after the plugin ran.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// A structured file: every key, table and array item of this value.
    Doc(Value),
    /// A text file: these lines, in this order.
    Lines(Vec<String>),
}

/// The user's file for a file the plugin wrote as `plugin_text` in
/// `format`: its bytes and what must stay in it. `None` when the plugin's
/// file cannot be read in its format (nothing is planted there).
pub fn user_file(format: Format, plugin_text: &str) -> Option<(String, Expect)> {
    if format == Format::Text {
        let lines = user_lines(plugin_text);
        let text = lines.iter().map(|l| format!("{l}\n")).collect();
        return Some((text, Expect::Lines(lines)));
    }
    let plugin = formats::parse(format, plugin_text).ok()?;
    let doc = user_doc(format, &plugin);
    let mut text = formats::render(format, &doc, COMMENTS).ok()?;
    if plugin.is_object() {
        text = with_spellings(format, text);
    }
    // What the format reads back is what must stay (a number's or a
    // string's form may differ from the value built here).
    let expect = formats::parse(format, &text).ok()?;
    Some((text, Expect::Doc(expect)))
}

/// The user's own content for a file the plugin wrote as `plugin` in
/// `format`, as a value: keys, a nested table and an array of the user's,
/// and beside each list or table of the plugin's the user's entries of
/// the same shape (a hook running `echo`, a trusted and a distrusted
/// folder). Nothing of the plugin's is in it.
pub fn user_doc(format: Format, plugin: &Value) -> Value {
    let mut doc = base(format, plugin);
    add_siblings(plugin, &mut doc, true, format);
    doc
}

/// The key of the user's model setting in [`user_doc`], and its value.
pub const USER_MODEL: (&str, &str) = ("agent_conform_user_model", "user-model-7");

/// The comment lines the harness writes into the user's files.
pub fn comments() -> &'static [&'static str] {
    COMMENTS
}

/// An entry the user adds later beside their own `item` (of [`user_doc`]):
/// the same shape, its hook commands running `echo ... later`.
pub fn added_later(item: &Value) -> Value {
    match item {
        Value::String(s) if s.starts_with(USER_HOOK) => Value::String(format!("{USER_HOOK} later")),
        Value::Array(items) => Value::Array(items.iter().map(added_later).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), added_later(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The user's own keys, table and array, for a file whose top level is a
/// table; INI has sections of strings only.
fn base(format: Format, plugin: &Value) -> Value {
    if !plugin.is_object() {
        return match plugin {
            Value::Array(_) => Value::Array(Vec::new()),
            _ => Value::Object(Map::new()),
        };
    }
    if format == Format::Ini {
        return json!({
            "agent_conform_user": {"model": "user-model-7", "note": "the user's own setting"},
            "agent_conform_user_provider": {"name": "user-provider", "url": "https://example.invalid/v1"},
        });
    }
    json!({
        USER_MODEL.0: USER_MODEL.1,
        "agent_conform_user_list": ["first", "second"],
        "agent_conform_user_provider": {
            "name": "user-provider",
            "url": "https://example.invalid/v1",
            "limits": {"max_tokens": 4096},
        },
    })
}

/// The user's spellings block of each format: comments, a blank line, keys
/// out of alphabetical order, and the scalar spellings a map loses (`on`,
/// `yes`, `0755`, `1e3`, a date, quoted and unquoted strings, `~`; YAML
/// anchors and aliases; TOML inline tables and dotted keys). Appended to the
/// user's file (spliced into a JSON-with-comments object): a plugin that
/// re-marshals the file through a map rewrites these lines
/// ([`first_changed_line`]). Plain JSON has none: the host's own JSON
/// settings go through a map too.
fn spellings(format: Format) -> Option<&'static str> {
    match format {
        Format::Yaml => Some(
            "\n# the user's own spellings: kept byte for byte\n\
             agent_conform_user_spellings:\n  zeta: on\n  alpha: yes\n  mode: 0755\n  \
             ratio: 1e3\n  since: 2024-01-02\n  quoted: \"quoted string\"\n  \
             plain: plain string\n  nothing: ~\n\
             agent_conform_user_anchor: &agent_conform_user_list\n  - first\n  - second\n\
             agent_conform_user_alias: *agent_conform_user_list\n",
        ),
        Format::Toml => Some(
            "\n# the user's own spellings: kept byte for byte\n\
             [agent_conform_user_spellings]\nzeta = 1\nalpha = 0o755\nratio = 1e3\n\
             since = 2024-01-02\nquoted = \"quoted string\"\nliteral = 'literal string'\n\
             inline = { name = \"user\", size = 3 }\ndotted.key = \"dotted\"\n",
        ),
        Format::Ini => Some(
            "\n; the user's own spellings: kept byte for byte\n\
             [agent_conform_user_spellings]\nzeta = on\nalpha = 0755\nratio = 1e3\n",
        ),
        Format::Jsonc => Some(
            "  // the user's own spellings: kept byte for byte\n  \
             \"agent_conform_user_spellings\": {\"zeta\": 1, \"alpha\": 1e3, \"since\": \"2024-01-02\"}\n",
        ),
        Format::Json | Format::Text => None,
    }
}

/// `text` (the user's file, a table at its top level) with the spellings
/// block of `format` added; `text` as it was where none fits.
pub fn with_spellings(format: Format, text: String) -> String {
    let Some(block) = spellings(format) else {
        return text;
    };
    if format != Format::Jsonc {
        return text + block;
    }
    // Before the closing brace of the top-level object, after a comma.
    let Some(close) = text.rfind('}') else {
        return text;
    };
    let head = text[..close].trim_end();
    let body = text.lines().find(|l| !l.trim_start().starts_with("//"));
    if !body.is_some_and(|l| l.trim_start().starts_with('{')) || head.ends_with('{') {
        return text;
    }
    format!("{head},\n{block}{}", &text[close..])
}

/// The first line of the user's file `original` that is not in `now` in its
/// order (other lines may come between; a trailing comma and trailing
/// spaces are not compared), for the formats whose bytes the user edits by
/// hand (JSON with comments, TOML, YAML, INI): `Some((line number, line))`
/// when the file was rewritten rather than edited in place.
pub fn first_changed_line(format: Format, original: &str, now: &str) -> Option<(usize, String)> {
    first_lost_line(format, original, now, false)
}

/// [`first_changed_line`] while the plugin is installed: a line of the
/// user's may also be there with one run of text added in it (the
/// plugin's item added to the user's list on the user's line, `trusted =
/// ["/a", "/repo"]`), which is how such lists are kept. Whether every item
/// of the user's survived is [`losses`]'s to say, and the uninstall must
/// give the file's bytes back ([`first_changed_line`]).
pub fn first_line_not_kept(format: Format, original: &str, now: &str) -> Option<(usize, String)> {
    first_lost_line(format, original, now, true)
}

fn first_lost_line(
    format: Format,
    original: &str,
    now: &str,
    in_place: bool,
) -> Option<(usize, String)> {
    spellings(format)?;
    let norm = |l: &str| l.trim_end().trim_end_matches(',').to_string();
    let mut have = now.lines().map(norm);
    for (n, line) in original.lines().enumerate() {
        let want = norm(line);
        if !have.any(|h| h == want || (in_place && extended(&want, &h))) {
            return Some((n + 1, line.to_string()));
        }
    }
    None
}

/// Whether `now` is `line` with one run of text inserted somewhere in it
/// (nothing of `line` removed or changed).
fn extended(line: &str, now: &str) -> bool {
    if now.len() <= line.len() || line.trim().is_empty() {
        return false;
    }
    let prefix = line
        .bytes()
        .zip(now.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = line.as_bytes()[prefix..]
        .iter()
        .rev()
        .zip(now.as_bytes()[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    prefix + suffix == line.len()
}

/// Whether an object is one of the plugin's own entries (it holds a hook
/// command): the user's content never goes inside one.
/// A table whose every value is a hook command (`stop = "entire hooks x
/// stop"`) is a table of hooks, not an entry, unless its key names a
/// command.
fn is_own_entry(map: &Map<String, Value>) -> bool {
    let is_hook = |v: &Value| v.as_str().is_some_and(|s| s.contains(HOOK_MARK));
    if !map.values().any(is_hook) {
        return false;
    }
    let command_key = map.iter().any(|(k, v)| {
        is_hook(v)
            && ["command", "cmd", "run", "exec", "script", "hook"]
                .contains(&k.to_ascii_lowercase().as_str())
    });
    command_key || !map.values().all(is_hook)
}

fn mentions_entire(key: &str) -> bool {
    key.to_ascii_lowercase().contains("entire")
}

fn path_like(text: &str) -> bool {
    text.starts_with('/') || text.starts_with('~') || text.contains(":\\")
}

/// Adds, into `user`, an entry of the user's beside each list and table of
/// `plugin` (at the top level only where the keys are paths: a trust map).
fn add_siblings(plugin: &Value, user: &mut Value, top: bool, format: Format) {
    match plugin {
        Value::Object(map) if !is_own_entry(map) => {
            let Value::Object(slots) = user else { return };
            // A key that mentions "entire" is the plugin's own, as a path
            // that does (the `_entire_<agent>` record of what it installed).
            for (key, value) in map.iter().filter(|(k, _)| !mentions_entire(k)) {
                let empty = match value {
                    Value::Object(m) if !m.is_empty() && !is_own_entry(m) => {
                        Value::Object(Map::new())
                    }
                    Value::Array(a) if !a.is_empty() => Value::Array(Vec::new()),
                    _ => continue,
                };
                let slot = slots.entry(key.clone()).or_insert(empty);
                add_siblings(value, slot, false, format);
            }
            let Some((key, first)) = map.iter().find(|(k, _)| !mentions_entire(k)) else {
                return;
            };
            if path_like(key) {
                let flag = has_flag(first);
                slots.insert(TRUSTED.into(), sibling(first, false));
                slots.insert(
                    if flag { UNTRUSTED } else { OTHER }.into(),
                    sibling(first, true),
                );
            } else if !top && (format != Format::Ini || first.is_string()) {
                slots.insert(USER_ENTRY.into(), sibling(first, false));
            }
        }
        Value::Array(items) => {
            let (Some(first), Value::Array(slot)) = (items.first(), user) else {
                return;
            };
            slot.push(sibling(first, false));
            slot.push(sibling(first, true));
        }
        _ => {}
    }
}

/// Whether a value holds something the user's distrust flips: a bool, or
/// a string naming trust.
fn has_flag(value: &Value) -> bool {
    match value {
        Value::Bool(_) => true,
        Value::String(s) => s.to_ascii_lowercase().contains("trust"),
        Value::Array(items) => items.iter().any(has_flag),
        Value::Object(map) => map.values().any(has_flag),
        _ => false,
    }
}

/// An entry of the user's in the shape of the plugin's `value`: hook
/// commands run `echo`, paths are the user's folders, and in the `flipped`
/// one (the folder the user distrusts) every bool is negated and a trust
/// marker says "do not trust".
fn sibling(value: &Value, flipped: bool) -> Value {
    let folder = match (flipped, has_flag(value)) {
        (false, _) => TRUSTED,
        (true, true) => UNTRUSTED,
        (true, false) => OTHER,
    };
    sibling_with(value, flipped, folder)
}

fn sibling_with(value: &Value, flipped: bool, folder: &str) -> Value {
    match value {
        Value::String(s) if s.contains(HOOK_MARK) => Value::String(if flipped {
            format!("{USER_HOOK} again")
        } else {
            USER_HOOK.into()
        }),
        Value::String(s) if path_like(s) => Value::String(folder.into()),
        Value::String(s) if flipped && s.to_ascii_lowercase().contains("trust") => {
            Value::String("DO_NOT_TRUST".into())
        }
        Value::Bool(b) => Value::Bool(*b != flipped),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| sibling_with(v, flipped, folder))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), sibling_with(v, flipped, folder)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The user's lines of a text file: a shebang when the plugin's file has
/// one, a comment, a setting, and a command where the plugin's holds a
/// hook command.
fn user_lines(plugin_text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(first) = plugin_text.lines().next().filter(|l| l.starts_with("#!")) {
        lines.push(first.to_string());
    }
    lines.push("# the user's own lines: agent-conform checks they are kept".to_string());
    lines.push("AGENT_CONFORM_USER_SETTING=keep-me".to_string());
    if plugin_text.contains(HOOK_MARK) {
        lines.push(USER_HOOK.to_string());
    }
    lines
}

/// What of `expect` is gone from `text` (read in `format`): one sentence
/// per lost key, item or line, with its value before and after.
pub fn losses(format: Format, expect: &Expect, text: &str) -> Vec<String> {
    match expect {
        Expect::Lines(lines) => lost_lines(lines, text),
        Expect::Doc(want) => match formats::parse(format, text) {
            Err(err) => vec![format!("the file no longer reads as {format}: {err}")],
            Ok(got) => {
                let mut out = Vec::new();
                lost_values(want, Some(&got), "", &mut out);
                out
            }
        },
    }
}

/// The planted lines must all be there, in order (other lines may come
/// between them).
fn lost_lines(lines: &[String], text: &str) -> Vec<String> {
    let mut have = text.lines().map(str::trim_end);
    let mut out = Vec::new();
    for line in lines {
        if !have.any(|h| h == line) {
            let present = text.lines().any(|h| h.trim_end() == line);
            out.push(if present {
                format!("the user's line `{line}` is out of its order")
            } else {
                format!(
                    "the user's line `{line}` is gone (the file has {} lines now)",
                    text.lines().count()
                )
            });
            have = text.lines().map(str::trim_end);
        }
    }
    out
}

fn lost_values(want: &Value, got: Option<&Value>, at: &str, out: &mut Vec<String>) {
    let name = if at.is_empty() { "the top level" } else { at };
    match (want, got) {
        (Value::Object(want), Some(Value::Object(got))) => {
            for (key, value) in want {
                let at = if at.is_empty() {
                    key.clone()
                } else {
                    format!("{at}.{key}")
                };
                lost_values(value, got.get(key), &at, out);
            }
        }
        (Value::Array(items), Some(Value::Array(got))) => {
            let lost: Vec<&Value> = items.iter().filter(|i| !got.contains(i)).collect();
            let (changed, gone): (Vec<_>, Vec<_>) = lost
                .into_iter()
                .map(|item| (item, same_folder(item, got)))
                .partition(|(_, now)| now.is_some());
            for (item, now) in changed {
                let now = now.map_or(String::new(), short);
                out.push(format!(
                    "`{name}` has the user's item {} changed: now {now}",
                    short(item)
                ));
            }
            if !gone.is_empty() {
                let gone: Vec<String> = gone.iter().map(|(item, _)| short(item)).collect();
                out.push(format!(
                    "`{name}` lost the user's {} {} (after: {})",
                    if gone.len() == 1 { "item" } else { "items" },
                    gone.join(", "),
                    short(&Value::Array(got.clone()))
                ));
            }
        }
        (want, Some(got)) if want == got => {}
        (want, got) => out.push(format!(
            "`{name}` was {}, now {}",
            short(want),
            got.map_or("missing".to_string(), short)
        )),
    }
}

/// The item of `got` that names the same path as the user's object `item`
/// (the same folder of a trust list, with other values).
fn same_folder<'v>(item: &Value, got: &'v [Value]) -> Option<&'v Value> {
    let Value::Object(want) = item else {
        return None;
    };
    got.iter().find(|g| {
        want.iter()
            .any(|(k, v)| v.as_str().is_some_and(path_like) && g.get(k) == Some(v))
    })
}

/// At most `MAX_LOSSES` losses, then how many more there are.
pub fn summary(losses: &[String]) -> String {
    const MAX_LOSSES: usize = 4;
    let mut text = losses
        .iter()
        .take(MAX_LOSSES)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if losses.len() > MAX_LOSSES {
        text.push_str(&format!("; and {} more", losses.len() - MAX_LOSSES));
    }
    text
}

/// A value in at most 100 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(100) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_hand_edited_format_plants_its_spellings_and_reads_back() {
        let samples = [
            (Format::Toml, "[hooks]\nstop = \"entire hooks x stop\"\n"),
            (Format::Yaml, "hooks:\n  - command: entire hooks x stop\n"),
            (Format::Ini, "[hooks]\nstop = entire hooks x stop\n"),
            (
                Format::Jsonc,
                "{\"hooks\": [{\"command\": \"entire hooks x stop\"}]}\n",
            ),
        ];
        for (format, plugin) in samples {
            let (text, _) = user_file(format, plugin).unwrap_or_else(|| panic!("{format}"));
            assert!(
                text.contains("agent_conform_user_spellings"),
                "{format}: {text}"
            );
            assert_eq!(first_changed_line(format, &text, &text), None);
            let moved = format!("{}\n{text}", "added = 1");
            assert_eq!(first_changed_line(format, &text, &moved), None);
            let remarshalled =
                formats::render(format, &formats::parse(format, &text).unwrap(), &[]);
            let changed = first_changed_line(format, &text, &remarshalled.unwrap());
            assert!(changed.is_some(), "{format}: a re-marshalled file differs");
        }
        assert_eq!(first_changed_line(Format::Json, "{}", "[]"), None);
    }

    use super::*;

    fn doc(expect: &Expect) -> &Value {
        match expect {
            Expect::Doc(v) => v,
            Expect::Lines(_) => panic!("a text expectation"),
        }
    }

    #[test]
    fn a_hooks_table_gets_a_user_hook_of_the_same_shape() {
        let plugin = r#"{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks x stop"}]}]}}"#;
        let (text, expect) = user_file(Format::Json, plugin).expect("planted");
        let want = doc(&expect);
        let stop = &want["hooks"]["Stop"];
        assert_eq!(stop[0]["hooks"][0]["command"], USER_HOOK, "{text}");
        assert_eq!(stop[0]["hooks"][0]["type"], "command");
        assert_eq!(
            want["hooks"][USER_ENTRY][0]["hooks"][0]["command"],
            USER_HOOK
        );
        assert_eq!(want["agent_conform_user_model"], "user-model-7");
        assert!(!text.contains(HOOK_MARK), "{text}");
    }

    #[test]
    fn nothing_is_planted_under_a_key_of_the_plugins_own() {
        let plugin = r#"{"_entire_x": {"created_lists": ["Stop"], "created_file": true}, "hooks": {"Stop": []}}"#;
        let (_, expect) = user_file(Format::Json, plugin).expect("planted");
        assert!(doc(&expect).get("_entire_x").is_none(), "{expect:?}");
    }

    #[test]
    fn a_trust_list_gets_a_trusted_and_a_distrusted_folder() {
        let plugin = "[[folders]]\npath = \"/tmp/s/repo\"\ntrusted = true\n";
        let (text, expect) = user_file(Format::Toml, plugin).expect("planted");
        let folders = &doc(&expect)["folders"];
        assert_eq!(
            folders[0],
            json!({"path": TRUSTED, "trusted": true}),
            "{text}"
        );
        assert_eq!(folders[1], json!({"path": UNTRUSTED, "trusted": false}));
        let all_trusted = text.replace("trusted = false", "trusted = true");
        let lost = losses(Format::Toml, &expect, &all_trusted);
        assert_eq!(
            lost,
            vec![format!(
                "`folders` has the user's item {{\"path\":\"{UNTRUSTED}\",\"trusted\":false}} changed: now {{\"path\":\"{UNTRUSTED}\",\"trusted\":true}}"
            )]
        );
        let map = r#"{"/tmp/s/repo": "TRUST_FOLDER"}"#;
        let (_, expect) = user_file(Format::Json, map).expect("planted");
        assert_eq!(doc(&expect)[UNTRUSTED], "DO_NOT_TRUST");
        assert_eq!(doc(&expect)[TRUSTED], "TRUST_FOLDER");
    }

    #[test]
    fn a_rewritten_file_names_each_lost_key_and_item() {
        let plugin = "trusted = [\"/tmp/s/repo\"]\n";
        let (_, expect) = user_file(Format::Toml, plugin).expect("planted");
        let lost = losses(Format::Toml, &expect, "trusted = [\"/tmp/s/repo\"]\n");
        assert!(lost.iter().any(|l| l.contains("`agent_conform_user_model` was \"user-model-7\", now missing")), "{lost:?}");
        assert!(
            lost.iter()
                .any(|l| l
                    .contains("`trusted` lost the user's items \"/home/user/trusted-project\"")),
            "{lost:?}"
        );
        let (text, _) = user_file(Format::Toml, plugin).expect("planted");
        let merged = text.replace("trusted = [", "trusted = [\"/tmp/s/repo\", ");
        assert_eq!(
            losses(Format::Toml, &expect, &merged),
            Vec::<String>::new(),
            "{merged}"
        );
    }

    #[test]
    fn text_lines_must_stay_in_order() {
        let (text, expect) =
            user_file(Format::Text, "#!/bin/sh\nentire hooks x pre-commit\n").expect("planted");
        assert!(text.starts_with("#!/bin/sh\n"));
        let kept = format!("{text}entire hooks x pre-commit\n");
        assert!(losses(Format::Text, &expect, &kept).is_empty());
        let lost = losses(
            Format::Text,
            &expect,
            "#!/bin/sh\nentire hooks x pre-commit\n",
        );
        assert!(
            lost.iter()
                .any(|l| l.contains("AGENT_CONFORM_USER_SETTING=keep-me` is gone")),
            "{lost:?}"
        );
    }

    #[test]
    fn ini_sections_get_a_user_key() {
        let plugin = "[hooks]\nstop = entire hooks x stop\n";
        let (text, expect) = user_file(Format::Ini, plugin).expect("planted");
        assert_eq!(doc(&expect)["hooks"][USER_ENTRY], USER_HOOK, "{text}");
        assert_eq!(doc(&expect)["agent_conform_user"]["model"], "user-model-7");
    }
}
