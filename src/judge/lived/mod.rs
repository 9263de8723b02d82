//! The agent's config as its users have it (docs/host.md "The user's
//! machine, not a clean room"): users keep their own hooks for the same
//! events in the same lists the plugin writes to, in whatever shape the
//! format allows, with their own keys, comments and blank lines around
//! them, and they edit the file between two `entire enable`s.
//!
//! From the plugin's own first install (in a fresh sandbox) the harness
//! learns which files hold its hooks, the lists its entries go in and the
//! commands they run ([`HookConfig::learn`]). It then lays each file down
//! as a user has it before Entire, once per shape of its format
//! ([`Shape`]: TOML arrays of tables and inline arrays, JSON arrays, YAML
//! block and flow sequences), with the user's hooks in those lists. What
//! this module judges, after each install and after the uninstall:
//!
//! - exactly as many entries running each of the plugin's commands as its
//!   own first install wrote: a second copy makes the agent fire the hook
//!   twice (docs/host.md "What each answer costs the user": install-hooks
//!   twice), none means the hook never fires;
//! - the file still reads in its format, every key, item and line of the
//!   user's kept, the user's later edit too ([`edit`]);
//! - after the uninstall, the file as the user had it: its bytes (its
//!   values, for plain JSON, which the host itself re-marshals);
//! - a clean refusal of a shape the plugin cannot edit, the file left
//!   untouched, loses nothing: `entire enable` fails for that user, a
//!   warning.
//!
//! Each finding rests on the plugin's own answers: the shape of its entry
//! and its commands are what its own install wrote.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::host::invocation::HOOK_MARK;
use crate::judge::checks::Finding;
use crate::judge::formats::{self, Format};
use crate::judge::planted::{self, Expect};
use crate::outcome::finding::Evidence;
use crate::outcome::kind::Kind;

pub mod edit;
mod render;

pub use render::Path;

/// A file the plugin's first install wrote its hooks into.
#[derive(Debug, Clone)]
pub struct HookConfig {
    /// Sandbox-relative path.
    pub rel: String,
    /// Its format.
    pub format: Format,
    /// What the plugin wrote there, read in its format.
    plugin: Value,
    /// The lists that hold the plugin's entries (the outermost, under
    /// tables only).
    pub lists: Vec<Path>,
    /// Every string holding an `entire hooks` command, and how often the
    /// first install wrote it.
    commands: BTreeMap<String, usize>,
}

/// A shape the user's file may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// JSON (strict): arrays.
    Json,
    /// JSON with comments: arrays, a comment above.
    Jsonc,
    /// TOML, its lists of tables as `[[a.b]]` tables.
    TomlTables,
    /// TOML, its lists as inline arrays `b = [ {...}, ]`.
    TomlInline,
    /// YAML block sequences (`- `).
    YamlBlock,
    /// YAML flow sequences (`[...]`).
    YamlFlow,
}

impl Shape {
    /// The shape, for messages and step names.
    pub fn describe(self) -> &'static str {
        match self {
            Shape::Json => "JSON arrays",
            Shape::Jsonc => "JSON with comments, arrays",
            Shape::TomlTables => "TOML arrays of tables ([[...]])",
            Shape::TomlInline => "TOML inline arrays (key = [...])",
            Shape::YamlBlock => "YAML block sequences (- ...)",
            Shape::YamlFlow => "YAML flow sequences ([...])",
        }
    }
}

impl HookConfig {
    /// The hook config a first install wrote at `rel` as `text`: a JSON,
    /// TOML or YAML file holding at least one `entire hooks` command in its
    /// values; `None` otherwise (a script, INI, a marker).
    pub fn learn(rel: &str, text: &str) -> Option<HookConfig> {
        let format = formats::detect(rel, text);
        if !matches!(
            format,
            Format::Json | Format::Jsonc | Format::Toml | Format::Yaml
        ) {
            return None;
        }
        let plugin = formats::parse(format, text).ok()?;
        let commands = commands(&plugin);
        if commands.is_empty() || !plugin.is_object() {
            return None;
        }
        let mut lists = Vec::new();
        hook_lists(&plugin, &mut Vec::new(), &mut lists);
        Some(HookConfig {
            rel: rel.to_string(),
            format,
            plugin,
            lists,
            commands,
        })
    }

    /// The shapes its format allows for its lists (one when it has none:
    /// hooks as keys of a table).
    pub fn shapes(&self) -> Vec<Shape> {
        let of_tables = self.lists.iter().any(|path| {
            at(&self.plugin, path)
                .and_then(Value::as_array)
                .is_some_and(|items| items.iter().all(Value::is_object))
        });
        match self.format {
            Format::Json => vec![Shape::Json],
            Format::Jsonc => vec![Shape::Jsonc],
            Format::Toml if of_tables => vec![Shape::TomlTables, Shape::TomlInline],
            Format::Toml => vec![Shape::TomlInline],
            Format::Yaml if !self.lists.is_empty() => vec![Shape::YamlBlock, Shape::YamlFlow],
            _ => vec![Shape::YamlBlock],
        }
    }

    /// The user's file in `shape`, as a user of the agent has it before
    /// Entire; `None` when it cannot be written so.
    pub fn lay(&self, shape: Shape) -> Option<Laid> {
        let user = planted::user_doc(self.format, &self.plugin);
        let map = user.as_object()?;
        let mark = if self.format == Format::Jsonc {
            "//"
        } else {
            "#"
        };
        let comments: String = planted::comments()
            .iter()
            .map(|c| format!("{mark} {c}\n"))
            .collect();
        let body = match shape {
            Shape::Json => return laid(self.format, format!("{user:#}\n")),
            Shape::Jsonc => formats::render(Format::Jsonc, &user, planted::comments()).ok()?,
            Shape::TomlTables => comments + &render::toml(map, render::Lists::Block, &self.lists),
            Shape::TomlInline => comments + &render::toml(map, render::Lists::Inline, &self.lists),
            Shape::YamlBlock => comments + &render::yaml(map, render::Lists::Block, &self.lists),
            Shape::YamlFlow => comments + &render::yaml(map, render::Lists::Inline, &self.lists),
        };
        laid(self.format, planted::with_spellings(self.format, body))
    }

    /// The user's edit of `text` (a file of this config), as in
    /// [`edit::edit`], of everything (`wanted` `None`) or of what was made
    /// in another copy.
    pub fn edit(
        &self,
        text: &str,
        user: &Value,
        wanted: Option<&edit::Edit>,
    ) -> (String, edit::Edit) {
        let all = edit::Edit {
            setting: true,
            lists: self.lists.clone(),
        };
        edit::edit(self.format, text, user, wanted.unwrap_or(&all))
    }
}

/// The user's file as laid down: its bytes and its content as the format
/// reads it back.
#[derive(Debug, Clone)]
pub struct Laid {
    /// The bytes.
    pub text: String,
    /// What must stay of it.
    pub user: Value,
}

impl Laid {
    /// What the user has before the first install: all of it, byte for
    /// byte.
    pub fn users(&self) -> Users<'_> {
        Users {
            text: &self.text,
            doc: &self.user,
            exact: true,
        }
    }
}

fn laid(format: Format, text: String) -> Option<Laid> {
    let user = formats::parse(format, &text).ok()?;
    Some(Laid { text, user })
}

fn at<'v>(value: &'v Value, path: &[String]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, k| v.get(k))
}

/// Every string of `value` holding an `entire hooks` command, counted.
fn commands(value: &Value) -> BTreeMap<String, usize> {
    fn walk(value: &Value, out: &mut BTreeMap<String, usize>) {
        match value {
            Value::String(s) if s.contains(HOOK_MARK) => *out.entry(s.clone()).or_default() += 1,
            Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    walk(value, &mut out);
    out
}

/// The lists under `value` (reached through tables only) that hold an
/// `entire hooks` command, outermost first.
fn hook_lists(value: &Value, at: &mut Path, out: &mut Vec<Path>) {
    let Value::Object(map) = value else { return };
    for (key, child) in map {
        at.push(key.clone());
        match child {
            Value::Array(_) if !commands(child).is_empty() => out.push(at.clone()),
            Value::Object(_) => hook_lists(child, at, out),
            _ => {}
        }
        at.pop();
    }
}

/// Which install a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// The first `entire enable` over the user's config.
    Install,
    /// The second, after the user's own edit.
    Again,
    /// The uninstall.
    Uninstall,
}

impl When {
    fn describe(self) -> &'static str {
        match self {
            When::Install => "install-hooks over the user's own config",
            When::Again => "a second install-hooks, after the user's own edit",
            When::Uninstall => "uninstall-hooks",
        }
    }
}

/// What the user had at one point of the round: the bytes of their file
/// (without the plugin's entries) and its content.
#[derive(Debug, Clone, Copy)]
pub struct Users<'u> {
    /// The user's bytes.
    pub text: &'u str,
    /// Its content.
    pub doc: &'u Value,
    /// Whether `text` is known byte for byte (see `edit::users_lines`);
    /// else only its lines outside the plugin's lists are.
    pub exact: bool,
}

impl HookConfig {
    /// After an install that exited 0: the file reads in its format, holds
    /// every key, item and line of the user's, and each of the plugin's
    /// commands as often as the first install wrote it.
    pub fn after_install(
        &self,
        shape: Shape,
        users: Users<'_>,
        now: Option<&str>,
        when: When,
    ) -> Vec<Finding> {
        let Some(now) = now else {
            return vec![self.lost(shape, when, "the file was deleted")];
        };
        let mut findings = self.content(shape, users, now, when);
        if let Ok(doc) = formats::parse(self.format, now) {
            findings.extend(self.entries(shape, &doc, when));
        }
        findings
    }

    /// After an uninstall that exited 0: no entry of the plugin's left, the
    /// user's content kept, and the file as the user had it.
    pub fn after_uninstall(
        &self,
        shape: Shape,
        users: Users<'_>,
        now: Option<&str>,
    ) -> Vec<Finding> {
        let when = When::Uninstall;
        let Some(now) = now else {
            return vec![self.lost(shape, when, "the file was deleted")];
        };
        let mut findings = self.content(shape, users, now, when);
        if !findings.is_empty() {
            return findings;
        }
        let Ok(doc) = formats::parse(self.format, now) else {
            return findings;
        };
        let left: usize = commands(&doc)
            .iter()
            .filter(|(c, _)| self.commands.contains_key(*c))
            .map(|(_, n)| n)
            .sum();
        if left > 0 {
            findings.push(self.weighed(Finding::failure(format!(
                "uninstall-hooks exited 0 and left {left} entries running the plugin's own \
                 `entire hooks` commands in {} ({}): the host reports \"Removed\" and never asks \
                 again, so the hooks keep firing for this user",
                self.rel,
                shape.describe()
            ))));
            return findings;
        }
        findings.extend(self.as_it_was(shape, users, now, &doc));
        findings
    }

    /// After an install that failed: what it lost of the user's when it
    /// changed the file all the same (`before`: the file before the call).
    pub fn after_refusal(
        &self,
        shape: Shape,
        users: Users<'_>,
        before: &str,
        now: Option<&str>,
        when: When,
    ) -> Vec<Finding> {
        match now {
            Some(now) if now == before => Vec::new(),
            Some(now) => self.content(shape, users, now, when),
            None => vec![self.lost(shape, when, "the file was deleted")],
        }
    }

    /// The file reads in its format and keeps the user's values and lines.
    fn content(&self, shape: Shape, users: Users<'_>, now: &str, when: When) -> Vec<Finding> {
        let expect = Expect::Doc(users.doc.clone());
        let losses = planted::losses(self.format, &expect, now);
        if let Err(err) = formats::parse(self.format, now) {
            return vec![
                self.weighed(
                    Finding::failure(format!(
                        "{} left {} unreadable as {} ({err}): it held the user's own config, its \
                     lists in {}, and the agent can no longer read it, the user's settings and \
                     hooks included",
                        when.describe(),
                        self.rel,
                        self.format,
                        shape.describe()
                    ))
                    .kind(Kind::UserData),
                ),
            ];
        }
        if !losses.is_empty() {
            return vec![self.lost(shape, when, &planted::summary(&losses))];
        }
        match planted::first_changed_line(self.format, &outside_lists(users.text), now) {
            Some((n, line)) => vec![
                self.weighed(
                    Finding::failure(format!(
                        "user data rewritten in {} ({}) by {}: line {n} of the user's file, \
                     `{line}`, is changed or gone: the user's comments, layout and spellings \
                     are lost on every entire enable and disable; add and remove only the \
                     plugin's own lines",
                        self.rel,
                        shape.describe(),
                        when.describe()
                    ))
                    .kind(Kind::UserData),
                ),
            ],
            None => Vec::new(),
        }
    }

    /// Each of the plugin's commands as often as its first install wrote
    /// it: one finding for the commands there more often, one for those
    /// there less often.
    fn entries(&self, shape: Shape, doc: &Value, when: When) -> Vec<Finding> {
        let now = commands(doc);
        let (mut more, mut fewer) = (Vec::new(), Vec::new());
        for (command, want) in &self.commands {
            let got = now.get(command).copied().unwrap_or(0);
            let entry = format!("`{command}` {got} times ({want} then)");
            match got.cmp(want) {
                std::cmp::Ordering::Greater => more.push(entry),
                std::cmp::Ordering::Less => fewer.push(entry),
                std::cmp::Ordering::Equal => {}
            }
        }
        let file = format!("{} ({})", self.rel, shape.describe());
        let mut findings = Vec::new();
        if !more.is_empty() {
            findings.push(self.weighed(Finding::failure(format!(
                "{} left the plugin's entries in {file} more often than its own first install \
                 wrote them: {}; the agent fires each such hook that many times (a second \
                 TurnStart records the prompt again, starts a new turn and clears the turn's \
                 checkpoints)",
                when.describe(),
                listed(&more)
            ))));
        }
        if !fewer.is_empty() {
            findings.push(self.weighed(Finding::failure(format!(
                "{} exited 0 and left the plugin's entries in {file} less often than its own \
                 first install wrote them: {}; for a user whose config has this shape such a \
                 hook never fires, and the host records nothing of it",
                when.describe(),
                listed(&fewer)
            ))));
        }
        findings
    }

    /// After the uninstall: the file byte for byte as the user had it (by
    /// its values for plain JSON): a warning when more than blank lines
    /// differ (a diff in the user's config after every enable and
    /// disable), a note when only blank lines or spaces do.
    fn as_it_was(&self, shape: Shape, users: Users<'_>, now: &str, doc: &Value) -> Vec<Finding> {
        if self.format == Format::Json {
            let mut extra = Vec::new();
            extras(doc, Some(users.doc), "", &mut extra);
            if extra.is_empty() {
                return Vec::new();
            }
            return vec![self.weighed(
                Finding::warning(format!(
                    "after uninstall-hooks {} ({}) is not as the user had it: it still holds {} \
                     that the user never wrote",
                    self.rel,
                    shape.describe(),
                    extra.join(", ")
                ))
                .kind(Kind::UserData),
            )];
        }
        if now == users.text || !users.exact {
            return Vec::new();
        }
        let squeeze = |t: &str| -> Vec<String> {
            t.lines()
                .map(|l| l.trim_end().to_string())
                .filter(|l| !l.is_empty())
                .collect()
        };
        let extra = squeeze(now)
            .into_iter()
            .zip(
                squeeze(users.text)
                    .into_iter()
                    .map(Some)
                    .chain(std::iter::repeat(None)),
            )
            .find(|(got, want)| want.as_ref() != Some(got))
            .map(|(got, _)| got);
        let finding = match extra {
            Some(line) => Finding::warning(format!(
                "after uninstall-hooks {} ({}) is not byte for byte as the user had it: it holds \
                 `{line}`, which the user's file did not: every entire enable and disable leaves \
                 a diff in the user's config",
                self.rel,
                shape.describe()
            )),
            None if squeeze(now) == squeeze(users.text) => Finding::note(format!(
                "after uninstall-hooks {} ({}) differs from the user's file in blank lines or \
                 trailing spaces only",
                self.rel,
                shape.describe()
            )),
            None => Finding::warning(format!(
                "after uninstall-hooks {} ({}) is not byte for byte as the user had it",
                self.rel,
                shape.describe()
            )),
        };
        vec![self.weighed(finding.kind(Kind::UserData))]
    }

    fn lost(&self, shape: Shape, when: When, what: &str) -> Finding {
        self.weighed(
            Finding::failure(format!(
                "user data lost in {} ({}, the user's own config, its lists in {}) by {}: {what}",
                self.rel,
                self.format,
                shape.describe(),
                when.describe()
            ))
            .kind(Kind::UserData),
        )
    }

    /// Every finding here rests on the plugin's own first install.
    fn weighed(&self, finding: Finding) -> Finding {
        finding.rests_on(Evidence::OwnAnswers)
    }
}

/// A refusal of an install over the user's own `files` (each with its
/// shape): a warning, since `entire enable` fails for every user whose
/// config has such a shape; whether they were left `untouched` says what
/// else there is (`HookConfig::after_refusal`).
pub fn refusal(when: When, said: &str, files: &[(&HookConfig, Shape)], untouched: bool) -> Finding {
    let said = match said.trim() {
        "" => "nothing on stderr".to_string(),
        s => format!("`{s}`"),
    };
    let files: Vec<String> = files
        .iter()
        .map(|(cfg, shape)| format!("{} in {}", shape.describe(), cfg.rel))
        .collect();
    Finding::warning(format!(
        "{} failed ({said}) over the user's own config ({}) and {}; `entire enable` fails for \
         every user whose config has this shape",
        when.describe(),
        files.join(", "),
        if untouched {
            "left it untouched: nothing is lost"
        } else {
            "changed it"
        }
    ))
    .kind(Kind::UserData)
    .rests_on(Evidence::OwnAnswers)
}

/// The user's text without the lines that hold a list of their hooks on
/// one line (a flow sequence): a plugin adds its entry inside such a line,
/// which is then judged by its items (the values), not its bytes.
fn outside_lists(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|l| l.matches(planted::USER_HOOK).count() < 2)
        .collect()
}

/// At most four items, then how many more.
fn listed(items: &[String]) -> String {
    let mut text = items.iter().take(4).cloned().collect::<Vec<_>>().join(", ");
    if items.len() > 4 {
        text.push_str(&format!(" and {} more", items.len() - 4));
    }
    text
}

/// What `got` holds that `want` does not (keys and items), as pointers.
fn extras(got: &Value, want: Option<&Value>, at: &str, out: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(got), Some(Value::Object(want))) => {
            for (key, value) in got {
                extras(value, want.get(key), &format!("{at}/{key}"), out);
            }
        }
        (Value::Array(got), Some(Value::Array(want))) => {
            let more = got.iter().filter(|g| !want.contains(g)).count();
            if more > 0 {
                out.push(format!("{more} more items in `{at}`"));
            }
        }
        (got, Some(want)) if got == want => {}
        (got, Some(_)) => out.push(format!("`{at}` = {got}")),
        (got, None) => out.push(format!("`{at}` = {got}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;

    const TOML_PLUGIN: &str = "[[hooks]]\nevent = \"stop\"\ncommand = \"entire hooks x stop\"\n\n\
                               [[hooks]]\nevent = \"session-start\"\ncommand = \"entire hooks x session-start\"\n";

    fn config() -> HookConfig {
        HookConfig::learn(".x/config.toml", TOML_PLUGIN).expect("a hook config")
    }

    /// The plugin's install as a correct plugin makes it in an inline
    /// array: its entries before the closing bracket.
    fn install_inline(text: &str) -> String {
        text.replacen(
            "\n]\n",
            "\n  { event = \"stop\", command = \"entire hooks x stop\" },\n  { event = \"session-start\", command = \"entire hooks x session-start\" },\n]\n",
            1,
        )
    }

    #[test]
    fn a_config_is_learnt_with_its_lists_commands_and_shapes() {
        let cfg = config();
        assert_eq!(cfg.lists, vec![vec!["hooks".to_string()]]);
        assert_eq!(cfg.commands.len(), 2);
        assert_eq!(cfg.shapes(), vec![Shape::TomlTables, Shape::TomlInline]);
        assert!(HookConfig::learn("hook.sh", "#!/bin/sh\nentire hooks x stop\n").is_none());
        assert!(HookConfig::learn("x.json", "{\"a\": 1}").is_none());
        let yaml =
            HookConfig::learn("c.yaml", "hooks:\n  stop: entire hooks x stop\n").expect("yaml");
        assert_eq!(yaml.shapes(), vec![Shape::YamlBlock]);
    }

    #[test]
    fn an_install_that_edits_in_place_passes_every_step_of_a_round() {
        let cfg = config();
        let laid = cfg.lay(Shape::TomlInline).expect("laid");
        assert!(laid.text.contains("hooks = [\n"), "{}", laid.text);
        let users = laid.users();
        let installed = install_inline(&laid.text);
        let found = cfg.after_install(Shape::TomlInline, users, Some(&installed), When::Install);
        assert!(found.is_empty(), "{found:?}");
        let (edited, done) = cfg.edit(&installed, &laid.user, None);
        assert!(done.setting && done.lists.len() == 1, "{edited}");
        let (mine, same) = cfg.edit(&laid.text, &laid.user, Some(&done));
        assert_eq!(same, done);
        let user_text = edit::users_lines(&laid.text, &installed, &edited).expect("lines");
        assert_eq!(
            user_text, mine,
            "the user's lines where they would have been without Entire"
        );
        let user_doc = edit::applied(&laid.user, &done);
        let users = Users {
            text: &user_text,
            doc: &user_doc,
            exact: true,
        };
        let found = cfg.after_install(Shape::TomlInline, users, Some(&edited), When::Again);
        assert!(found.is_empty(), "{found:?}");
        let removed: String = edited
            .split_inclusive('\n')
            .filter(|l| !l.contains("entire hooks"))
            .collect();
        let found = cfg.after_uninstall(Shape::TomlInline, users, Some(&removed));
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn tables_appended_after_an_inline_array_make_the_file_unreadable() {
        let cfg = config();
        let laid = cfg.lay(Shape::TomlInline).expect("laid");
        let users = laid.users();
        let broken = format!(
            "{}\n[[hooks]]\nevent = \"stop\"\ncommand = \"entire hooks x stop\"\n",
            laid.text
        );
        let found = cfg.after_install(Shape::TomlInline, users, Some(&broken), When::Install);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Failure);
        assert!(
            found[0].message.contains("unreadable as TOML"),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].evidence, Some(Evidence::OwnAnswers));
    }

    #[test]
    fn a_second_copy_of_an_entry_and_a_refusal_are_weighed() {
        let cfg = config();
        let laid = cfg.lay(Shape::TomlTables).expect("laid");
        let users = laid.users();
        let once = format!("{}\n{TOML_PLUGIN}", laid.text);
        let found = cfg.after_install(Shape::TomlTables, users, Some(&once), When::Install);
        assert!(found.is_empty(), "{found:?}");
        let twice = format!("{once}\n{TOML_PLUGIN}");
        let found = cfg.after_install(Shape::TomlTables, users, Some(&twice), When::Again);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Failure);
        assert!(
            found[0]
                .message
                .contains("`entire hooks x stop` 2 times (1 then)"),
            "{}",
            found[0].message
        );
        let lost = cfg.after_refusal(
            Shape::TomlTables,
            users,
            &laid.text,
            Some(&laid.text),
            When::Install,
        );
        assert!(lost.is_empty(), "{lost:?}");
        let refused = refusal(
            When::Install,
            "cannot edit",
            &[(&cfg, Shape::TomlTables)],
            true,
        );
        assert_eq!(refused.severity, Severity::Warning);
        assert!(
            refused.message.contains("left it untouched"),
            "{}",
            refused.message
        );
        let left = format!("{}[extra]\n", laid.text);
        let found = cfg.after_uninstall(Shape::TomlTables, users, Some(&left));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(
            found[0].message.contains("`[extra]`"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn plain_json_is_judged_by_its_values_after_the_uninstall() {
        let plugin = r#"{"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks x stop"}]}]}}"#;
        let cfg = HookConfig::learn(".x/settings.json", plugin).expect("json");
        assert_eq!(
            cfg.lists,
            vec![vec!["hooks".to_string(), "Stop".to_string()]]
        );
        let laid = cfg.lay(Shape::Json).expect("laid");
        let users = laid.users();
        let compact = laid.user.to_string();
        let found = cfg.after_uninstall(Shape::Json, users, Some(&compact));
        assert!(found.is_empty(), "{found:?}");
        let mut more = laid.user.clone();
        more["hooks"]["Stop"] = Value::Array(vec![]);
        let found = cfg.after_uninstall(Shape::Json, users, Some(&more.to_string()));
        assert_eq!(found[0].severity, Severity::Failure, "{found:?}");
    }
}
