//! Hooks that can fire: what `install-hooks` wrote must run `entire hooks
//! <this plugin's name> <hook>`, `parse-hook` must take the host's own
//! flags, and the Events of the declared hooks must be able to make a
//! checkpoint (docs/host.md, "The calls the host makes over a
//! session, in order"; "Discovery and registration"; "What the host does
//! with each answer").
//!
//! The commands are found here, in the files the install created or changed
//! (shell commands in JSON, TOML and YAML hook configs, executable hook
//! scripts); `execute` runs each in the sandbox and hands back the calls the
//! `entire` stand-in received, which are judged here.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::host::Severity;
use crate::host::hooks;
use crate::judge::checks::Finding;
use crate::judge::formats::{self, Format};
use crate::outcome::kind::Kind;

/// Keys whose string (or array of strings) value is a command an agent runs.
const COMMAND_KEYS: &[&str] = &[
    "command",
    "cmd",
    "bash",
    "run",
    "exec",
    "shell",
    "script",
    "powershell",
    "notify",
];

/// A file the install created or changed.
#[derive(Debug, Clone)]
pub struct Written {
    /// Sandbox-relative path.
    pub rel: String,
    /// What it held before the install (`None`: created).
    pub before: Option<String>,
    /// What it holds after.
    pub after: String,
    /// Whether it is executable (a hook script).
    pub executable: bool,
}

/// How an installed hook is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookRun {
    /// A shell command line found in a config file, run with `sh -c`.
    Shell(String),
    /// An executable script, run by its path.
    Script,
}

/// One installed hook: where it was found and how it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The sandbox-relative file it was found in (the script itself).
    pub file: String,
    /// How it runs.
    pub run: HookRun,
}

impl Installed {
    /// How the finding names it.
    fn label(&self) -> String {
        match &self.run {
            HookRun::Shell(cmd) => format!("`{cmd}` (in {})", self.file),
            HookRun::Script => format!("the hook script {}", self.file),
        }
    }
}

/// The hooks the install added: commands in structured configs that were not
/// there before, and executable scripts it created or changed. Anything else
/// (a plugin file of the agent's own library, text) is not run here.
pub fn installed(written: &[Written]) -> Vec<Installed> {
    let mut found = Vec::new();
    for file in written {
        let format = formats::detect(&file.rel, &file.after);
        if matches!(
            format,
            Format::Json | Format::Jsonc | Format::Toml | Format::Yaml
        ) {
            let was = file
                .before
                .as_deref()
                .and_then(|text| formats::parse(format, text).ok())
                .map(|v| commands_in(&v))
                .unwrap_or_default();
            let Ok(now) = formats::parse(format, &file.after) else {
                continue;
            };
            for cmd in commands_in(&now).difference(&was) {
                found.push(Installed {
                    file: file.rel.clone(),
                    run: HookRun::Shell(cmd.clone()),
                });
            }
        } else if file.executable && file.after.starts_with("#!") {
            found.push(Installed {
                file: file.rel.clone(),
                run: HookRun::Script,
            });
        }
    }
    found
}

/// Every command of a config value: strings under a command key (an array
/// of strings there is an argument vector), and any string that runs
/// `entire hooks`.
fn commands_in(value: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    collect(value, None, &mut found);
    found
}

fn collect(value: &Value, key: Option<&str>, found: &mut BTreeSet<String>) {
    let is_command_key =
        key.is_some_and(|k| COMMAND_KEYS.contains(&k.to_ascii_lowercase().as_str()));
    match value {
        Value::String(s)
            if (is_command_key || s.contains(crate::host::invocation::HOOK_MARK))
                && !s.trim().is_empty() =>
        {
            found.insert(s.clone());
        }
        Value::Array(items) if is_command_key && items.iter().all(Value::is_string) => {
            let words: Vec<String> = items
                .iter()
                .filter_map(Value::as_str)
                .map(shell_word)
                .collect();
            if !words.is_empty() {
                found.insert(words.join(" "));
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect(v, None, found)),
        Value::Object(map) => map.iter().for_each(|(k, v)| collect(v, Some(k), found)),
        _ => {}
    }
}

/// `word` quoted for `sh` when it needs it.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// One installed hook as run in the sandbox.
#[derive(Debug, Clone)]
pub struct Fired {
    /// The hook.
    pub hook: Installed,
    /// The arguments of every call the `entire` stand-in received meanwhile.
    pub calls: Vec<Vec<String>>,
    /// How the run ended, for the finding ("exit 127: sh: 1: x: not found").
    pub status: String,
}

/// What the installed hooks reached: a failure when none reaches `entire
/// hooks <agent>` (every hook is lost) or one names another agent; a warning
/// for a hook that reaches nothing while others do; a note when nothing
/// runnable was installed (an agent whose own library fires the hooks).
pub fn judge_fired(
    agent: &str,
    hook_names: &[String],
    wrote_any: bool,
    fired: &[Fired],
) -> Vec<Finding> {
    if fired.is_empty() && !wrote_any {
        // The agent's own library fires the hooks: exempt.
        return Vec::new();
    }
    if fired.is_empty() {
        return vec![
            Finding::note(
                "install-hooks wrote no hook command or executable hook script the harness can \
                 run (an agent whose own library fires the hooks is fine): that its hooks reach \
                 `entire hooks` is not verified here",
            )
            .kind(Kind::NotVerified),
        ];
    }
    let mut findings = Vec::new();
    let mut lost = Vec::new();
    let mut reached = 0;
    for one in fired {
        let calls: Vec<(&str, &str)> = one
            .calls
            .iter()
            .filter_map(|c| hooks::hook_call(c))
            .collect();
        let ours: Vec<&(&str, &str)> = calls.iter().filter(|(a, _)| *a == agent).collect();
        if let Some((_, hook)) = ours.first() {
            reached += 1;
            if let Some(wrapped) = hooks::built_in_config_of(&one.hook.file)
                && !findings.iter().any(|f: &Finding| f.kind == Kind::OwnerSkip)
            {
                findings.push(
                    Finding::note(format!(
                        "the install puts its hooks in {} of the built-in {wrapped}: this plugin \
                         wraps {wrapped}; {}",
                        one.hook.file,
                        hooks::WRAPPER_OWNER
                    ))
                    .kind(Kind::OwnerSkip),
                );
            }
            if !hook_names.iter().any(|h| h == hook) {
                findings.push(Finding::note(format!(
                    "{} runs `entire hooks {agent} {hook}`, a hook name info.hook_names does not \
                     list; the host accepts any name and passes it to parse-hook",
                    one.hook.label()
                )).kind(Kind::HooksInert));
            }
            continue;
        }
        if let Some((other, hook)) = calls.first() {
            findings.push(
                Finding::failure(format!(
                    "{} runs `entire hooks {other} {hook}`: the host hands that hook to the agent \
                 registered as {other:?}, never to this plugin (registered as {agent:?}, from its \
                 file name): this hook's events are lost, no checkpoint comes of them",
                    one.hook.label()
                ))
                .kind(Kind::HooksInert),
            );
            continue;
        }
        lost.push(format!("{} ({})", one.hook.label(), one.status));
    }
    if lost.is_empty() {
        return findings;
    }
    let severity = if reached == 0 {
        Severity::Failure
    } else {
        Severity::Warning
    };
    let what = if reached == 0 {
        "no hook the install wrote reaches Entire: every hook is lost, no session is recorded and \
         no checkpoint is ever made"
    } else {
        "these hooks reach nothing of Entire, so their events are lost"
    };
    let shown = if lost.len() > 3 {
        format!("{}; and {} more", lost[..3].join("; "), lost.len() - 3)
    } else {
        lost.join("; ")
    };
    let message = format!(
        "run as the agent runs them, {} installed hook(s) never called `entire hooks {agent} \
         <hook>` (the `entire` stand-in on PATH saw no such call): {shown}; {what}",
        lost.len()
    );
    let finding = match severity {
        Severity::Failure => Finding::failure(message),
        _ => Finding::warning(message),
    };
    findings.push(finding.kind(Kind::HooksInert).diff(
        format!("a call `entire hooks {agent} <hook>`"),
        "no such call",
    ));
    findings
}

/// One declared hook name's parse-hook answer to the full payload.
#[derive(Debug, Clone)]
pub struct HookAnswer {
    /// The hook name.
    pub hook: String,
    /// The exit code (`None`: killed, or never started).
    pub exit: Option<i32>,
    /// stdout.
    pub stdout: Vec<u8>,
    /// The start of stderr.
    pub stderr: String,
}

/// Whether `stderr` reads as a refusal of the command line's flags rather
/// than of the payload: argparse, clap, Go's flag and cobra name the flag
/// they did not expect, or the one they missed.
fn is_flag_refusal(stderr: &str) -> bool {
    let text = stderr.to_ascii_lowercase();
    let names_flag = text.contains("--hook") || text.contains("-hook") || text.contains("usage:");
    let words = [
        "unknown",
        "unrecognized",
        "unrecognised",
        "unexpected",
        "not defined",
        "required",
        "missing",
        "usage:",
        "invalid option",
        "no such option",
    ];
    names_flag && words.iter().any(|w| text.contains(w))
}

/// What the declared hooks' answers tell: a failure when every hook name
/// refuses the host's own `parse-hook --hook <name>` with a flag error
/// (every hook fails), and a failure when every hook gave an Event and none
/// is a TurnStart or TurnEnd (no checkpoint is ever made).
pub fn judge_events(answers: &[HookAnswer]) -> Vec<Finding> {
    if answers.is_empty() {
        return Vec::new();
    }
    let refused = |a: &HookAnswer| a.exit != Some(0);
    if answers.iter().all(refused) && answers.iter().all(|a| is_flag_refusal(&a.stderr)) {
        let first = answers[0]
            .stderr
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return vec![
            Finding::failure(format!(
                "parse-hook refuses the host's own command line `parse-hook --hook <name>` for \
                 every hook name it declares ({}), with a flag error: \"{}\"; the host calls \
                 exactly that in every `entire hooks` call, so every hook fails (exit 1) and \
                 nothing is ever recorded",
                answers.len(),
                first.trim()
            ))
            .kind(Kind::HooksInert)
            .diff(
                "parse-hook --hook <name> accepted",
                "a flag error for every hook name",
            ),
        ];
    }
    let mut types = Vec::new();
    for answer in answers {
        let event_type = crate::host::decoding::decode_host_json(&answer.stdout)
            .ok()
            .and_then(|v| v.get("type").and_then(Value::as_u64));
        match event_type {
            Some(t) if answer.exit == Some(0) => types.push((answer.hook.as_str(), t)),
            // A hook that gave no Event here may give one for its agent's
            // own payload: nothing can be said.
            _ => return Vec::new(),
        }
    }
    let all: Vec<u64> = types.iter().map(|(_, t)| *t).collect();
    if hooks::can_checkpoint(&all) {
        return Vec::new();
    }
    let listed: Vec<String> = types.iter().map(|(h, t)| format!("{h} → {t}")).collect();
    vec![
        Finding::failure(format!(
            "every declared hook gives an Event, and none is a TurnStart (2) or TurnEnd (3): {}; \
             the host makes checkpoints at TurnEnd and at commits during a turn, so with these \
             hooks no checkpoint is ever made",
            listed.join(", ")
        ))
        .kind(Kind::HooksInert)
        .diff("a hook giving TurnStart or TurnEnd", listed.join(", ")),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(rel: &str, before: Option<&str>, after: &str) -> Written {
        Written {
            rel: rel.into(),
            before: before.map(str::to_string),
            after: after.into(),
            executable: false,
        }
    }

    #[test]
    fn finds_the_commands_the_install_added() {
        let before = r#"{"hooks":{"Stop":[{"hooks":[{"command":"echo mine"}]}]}}"#;
        let after = r#"{"hooks":{"Stop":[{"hooks":[{"command":"echo mine"}]},
            {"hooks":[{"command":"entire hooks foo stop"}]}]}}"#;
        let found = installed(&[written(".foo/settings.json", Some(before), after)]);
        assert_eq!(
            found,
            vec![Installed {
                file: ".foo/settings.json".into(),
                run: HookRun::Shell("entire hooks foo stop".into())
            }]
        );
        let toml = "notify = [\"entire\", \"hooks\", \"foo\", \"turn end\"]\n";
        let found = installed(&[written("config.toml", None, toml)]);
        assert_eq!(
            found[0].run,
            HookRun::Shell("entire hooks foo 'turn end'".into())
        );
    }

    fn fired(calls: &[&[&str]]) -> Fired {
        Fired {
            hook: Installed {
                file: "f.json".into(),
                run: HookRun::Shell("x".into()),
            },
            calls: calls
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect(),
            status: "exit 127".into(),
        }
    }

    #[test]
    fn a_wrapper_of_a_built_in_agent_is_told_who_owns_the_session() {
        let names = vec!["stop".to_string()];
        let mut hook = fired(&[&["hooks", "foo", "stop"]]);
        hook.hook.file = ".claude/settings.json".into();
        let said = judge_fired("foo", &names, true, &[hook.clone(), hook]);
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            (said[0].severity, said[0].kind),
            (Severity::Note, Kind::OwnerSkip)
        );
        assert!(said[0].message.contains("SessionStart first owns"));
    }

    #[test]
    fn hooks_that_never_reach_entire_fail() {
        let names = vec!["stop".to_string()];
        assert!(
            judge_fired("foo", &names, true, &[fired(&[&["hooks", "foo", "stop"]])]).is_empty()
        );
        let none = judge_fired("foo", &names, true, &[fired(&[])]);
        assert_eq!(none[0].severity, Severity::Failure);
        let other = judge_fired("foo", &names, true, &[fired(&[&["hooks", "bar", "stop"]])]);
        assert_eq!(other[0].severity, Severity::Failure);
        let some = judge_fired(
            "foo",
            &names,
            true,
            &[fired(&[&["hooks", "foo", "stop"]]), fired(&[])],
        );
        assert_eq!(some[0].severity, Severity::Warning);
        assert_eq!(
            judge_fired("foo", &names, true, &[])[0].severity,
            Severity::Note
        );
        assert!(judge_fired("foo", &names, false, &[]).is_empty());
    }

    fn answer(hook: &str, exit: i32, stdout: &str, stderr: &str) -> HookAnswer {
        HookAnswer {
            hook: hook.into(),
            exit: Some(exit),
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.into(),
        }
    }

    #[test]
    fn a_flag_refusal_of_every_hook_fails_and_a_payload_refusal_does_not() {
        let flag = [
            answer("a", 1, "", "unknown flag: --hook"),
            answer("b", 1, "", "unknown flag: --hook"),
        ];
        assert_eq!(judge_events(&flag)[0].severity, Severity::Failure);
        let payload = [
            answer("a", 1, "", "invalid payload"),
            answer("b", 1, "", "invalid payload"),
        ];
        assert!(judge_events(&payload).is_empty());
    }

    #[test]
    fn one_event_type_without_turns_fails_only_when_every_hook_answered() {
        let starts = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, r#"{"type":1}"#, ""),
        ];
        assert_eq!(judge_events(&starts)[0].severity, Severity::Failure);
        let with_null = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, "null", ""),
        ];
        assert!(judge_events(&with_null).is_empty());
        let turns = [
            answer("a", 0, r#"{"type":1}"#, ""),
            answer("b", 0, r#"{"type":3}"#, ""),
        ];
        assert!(judge_events(&turns).is_empty());
    }
}
