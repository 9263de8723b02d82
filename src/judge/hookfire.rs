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

use crate::host::hooks;
use crate::judge::checks::Finding;
use crate::judge::formats::{self, Format};
use crate::outcome::finding::Evidence;
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
    /// Whether it is surely one of the agent's hooks for Entire: a command
    /// under a command key of an agent's config, or an executable script,
    /// outside `.git`. A string that only mentions `entire hooks` elsewhere
    /// (a trust list's pattern, a description) and a git hook (which git
    /// fires, for a feature of the plugin's own) may be neither: they count
    /// when they reach Entire, and are never judged lost.
    pub certain: bool,
    /// Whether its command, or its script's text, runs a host-side
    /// subcommand of a plugin directly ([`hooks::runs_host_side_directly`]).
    pub bypasses: bool,
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
        let in_git = is_in_git_dir(&file.rel);
        let format = formats::detect(&file.rel, &file.after);
        if matches!(
            format,
            Format::Json | Format::Jsonc | Format::Toml | Format::Yaml
        ) {
            let was: BTreeSet<String> = file
                .before
                .as_deref()
                .and_then(|text| formats::parse(format, text).ok())
                .map(|v| commands_in(&v).into_keys().collect())
                .unwrap_or_default();
            let Ok(now) = formats::parse(format, &file.after) else {
                continue;
            };
            for (cmd, under_key) in commands_in(&now) {
                if !was.contains(&cmd) {
                    found.push(Installed {
                        file: file.rel.clone(),
                        bypasses: hooks::runs_host_side_directly(&cmd),
                        run: HookRun::Shell(cmd),
                        certain: under_key && !in_git,
                    });
                }
            }
        } else if file.executable && file.after.starts_with("#!") {
            found.push(Installed {
                file: file.rel.clone(),
                run: HookRun::Script,
                certain: !in_git,
                bypasses: hooks::runs_host_side_directly(&file.after),
            });
        }
    }
    found
}

/// Whether a sandbox-relative path lies in a `.git` directory (a git hook,
/// git's own config): git fires those, not the agent.
fn is_in_git_dir(rel: &str) -> bool {
    rel.split('/').any(|part| part == ".git")
}

/// Every command of a config value, and whether it stands under a command
/// key: strings under a command key (an array of strings there is an
/// argument vector), and, not under one, any string that mentions `entire
/// hooks` (a command under a key of the agent's own naming, or only a
/// pattern or a description).
fn commands_in(value: &Value) -> std::collections::BTreeMap<String, bool> {
    let mut found = std::collections::BTreeMap::new();
    collect(value, None, &mut found);
    found
}

fn collect(value: &Value, key: Option<&str>, found: &mut std::collections::BTreeMap<String, bool>) {
    let is_command_key =
        key.is_some_and(|k| COMMAND_KEYS.contains(&k.to_ascii_lowercase().as_str()));
    match value {
        Value::String(s)
            if (is_command_key || s.contains(crate::host::invocation::HOOK_MARK))
                && !s.trim().is_empty() =>
        {
            let certain = found.get(s).copied().unwrap_or(false) || is_command_key;
            found.insert(s.clone(), certain);
        }
        Value::Array(items) if is_command_key && items.iter().all(Value::is_string) => {
            let words: Vec<String> = items
                .iter()
                .filter_map(Value::as_str)
                .map(shell_word)
                .collect();
            if !words.is_empty() {
                found.insert(words.join(" "), true);
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
    /// It exited 0 and said nothing on stderr: it took the payload and did
    /// nothing of Entire's without a word. One that refused it, or said
    /// what it lacked (its agent's own conversation id), waits for input
    /// only its agent gives.
    pub silent: bool,
    /// The path with a space that sh splits in the hook's command, written
    /// unquoted there ([`crate::judge::shell::split_path`]).
    pub split: Option<String>,
}

/// What the install said and left, beside the hooks found in it.
#[derive(Debug, Clone, Default)]
pub struct InstallSaid {
    /// The install created or changed some file.
    pub wrote_any: bool,
    /// Its `hooks_installed` (`None`: not a number).
    pub reported: Option<u64>,
    /// Some file it wrote names this plugin's registered name together
    /// with one of the hook names `info` declares: the two arguments of
    /// `entire hooks <agent> <hook>`, in data the agent reads and fires
    /// itself (`{"agent": "foo", "hook": "stop"}`, or an extension's
    /// `["hooks", "foo", hookName]`). A marker that names neither, or the
    /// hooks without the plugin, addresses nothing the host would route.
    pub addresses_hooks: bool,
    /// The author recorded a session of the agent (`agent-conform record`):
    /// the hooks it fired there reached `entire hooks`, seen.
    pub recorded: bool,
}

/// Whether a file's text names the plugin registered as `agent` and one of
/// its declared `hooks`, each as a quoted string (`"foo"`, `'stop'`): the
/// two arguments of `entire hooks <agent> <hook>`, in data the agent reads
/// ([`InstallSaid::addresses_hooks`]).
pub fn addresses(text: &str, agent: &str, hooks: &[String]) -> bool {
    let quoted = |word: &str| {
        !word.is_empty()
            && (text.contains(&format!("\"{word}\"")) || text.contains(&format!("'{word}'")))
    };
    quoted(agent) && hooks.iter().any(|h| quoted(h))
}

/// How one installed hook ended, as the stand-in and its command tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach<'a> {
    /// It called `entire hooks <this agent> <hook>`.
    Ours(&'a str),
    /// It called `entire hooks <other agent> <hook>`.
    Other(&'a str, &'a str),
    /// It runs a host-side subcommand of a plugin directly: it cannot lead
    /// to `entire hooks`.
    Bypass,
    /// It called nothing; it may need input only the agent gives.
    Quiet,
}

fn reach_of<'a>(agent: &str, one: &'a Fired) -> Reach<'a> {
    let calls: Vec<(&str, &str)> = one
        .calls
        .iter()
        .filter_map(|c| hooks::hook_call(c))
        .collect();
    if let Some((_, hook)) = calls.iter().find(|(a, _)| *a == agent) {
        return Reach::Ours(hook);
    }
    if let Some((other, hook)) = calls.first() {
        return Reach::Other(other, hook);
    }
    if one.hook.bypasses {
        Reach::Bypass
    } else {
        Reach::Quiet
    }
}

/// What the installed hooks reached. A failure needs positive evidence, of
/// the plugin's own making: a hook of its config that names another agent;
/// every hook of its config running a host-side subcommand directly (which
/// cannot lead to `entire hooks`); or an install that reported hooks and
/// left nothing that runs nor names a hook. A hook that ran and called
/// nothing may need input only its agent gives: not verified here, a note.
/// Strings that only mention `entire hooks` and git hooks count only when
/// they reach Entire ([`Installed::certain`]).
pub fn judge_fired(
    agent: &str,
    hook_names: &[String],
    said: &InstallSaid,
    fired: &[Fired],
) -> Vec<Finding> {
    let reaches: Vec<(Reach, &Fired)> = fired.iter().map(|f| (reach_of(agent, f), f)).collect();
    let mut findings = reached_notes(agent, hook_names, &reaches);
    let reached = reaches
        .iter()
        .filter(|(r, _)| matches!(r, Reach::Ours(_)))
        .count();
    let certain: Vec<&(Reach, &Fired)> = reaches.iter().filter(|(_, f)| f.hook.certain).collect();
    for (reach, one) in &certain {
        if let Reach::Other(other, hook) = reach {
            findings.push(other_agent(agent, other, hook, one));
        }
    }
    if certain.is_empty() {
        if reached == 0 {
            findings.extend(nothing_runs(agent, said));
        }
        return findings;
    }
    let bypass: Vec<String> = certain
        .iter()
        .filter(|(r, _)| *r == Reach::Bypass)
        .map(|(_, f)| f.hook.label())
        .collect();
    let (split, quiet): (Vec<&Fired>, Vec<&Fired>) = certain
        .iter()
        .filter(|(r, _)| *r == Reach::Quiet)
        .map(|(_, f)| *f)
        .partition(|f| f.split.is_some());
    let quiet: Vec<String> = quiet
        .iter()
        .map(|f| format!("{} ({})", f.hook.label(), f.status))
        .collect();
    if !bypass.is_empty() {
        findings.push(bypassed(
            agent,
            &bypass,
            reached == 0 && quiet.is_empty() && split.is_empty(),
        ));
    }
    if let Some(finding) = split_paths(agent, &split) {
        findings.push(finding);
    }
    if !quiet.is_empty() && reached == 0 {
        let silent = certain.iter().all(|(r, f)| *r != Reach::Quiet || f.silent);
        findings.push(match silent {
            true => unseen(agent, &UnseenBecause::Silent(&quiet), said.recorded),
            false => quiet_note(agent, &quiet),
        });
    }
    findings
}

/// The notes on hooks that reached this plugin: a wrapper of a built-in
/// agent's config, and a hook name `info` does not declare.
fn reached_notes(agent: &str, hook_names: &[String], reaches: &[(Reach, &Fired)]) -> Vec<Finding> {
    let mut findings: Vec<Finding> = Vec::new();
    for (reach, one) in reaches {
        let Reach::Ours(hook) = reach else { continue };
        if let Some(wrapped) = hooks::built_in_config_of(&one.hook.file)
            && !findings.iter().any(|f| f.kind == Kind::OwnerSkip)
        {
            findings.push(
                Finding::note(format!(
                    "the install puts its hooks in {} of the built-in {wrapped}: this plugin \
                     wraps {wrapped}; {}",
                    one.hook.file,
                    hooks::WRAPPER_OWNER
                ))
                .kind(Kind::OwnerSkip)
                .rests_on(Evidence::OwnAnswers),
            );
        }
        if !hook_names.iter().any(|h| h == hook) {
            findings.push(
                Finding::note(format!(
                    "{} runs `entire hooks {agent} {hook}`, a hook name info.hook_names does not \
                     list; the host accepts any name and passes it to parse-hook",
                    one.hook.label()
                ))
                .kind(Kind::HooksInert)
                .rests_on(Evidence::OwnAnswers),
            );
        }
    }
    findings
}

/// A hook of the plugin's config that calls `entire hooks` for another
/// agent: a failure (its events go to that agent).
fn other_agent(agent: &str, other: &str, hook: &str, one: &Fired) -> Finding {
    Finding::failure(format!(
        "{} runs `entire hooks {other} {hook}`: the host hands that hook to the agent registered \
         as {other:?}, never to this plugin (registered as {agent:?}, from its file name): this \
         hook's events are lost, no checkpoint comes of them",
        one.hook.label()
    ))
    .kind(Kind::HooksInert)
    .rests_on(Evidence::OwnAnswers)
    .diff(
        format!("a call `entire hooks {agent} {hook}`"),
        format!("a call `entire hooks {other} {hook}`"),
    )
}

/// Hooks that run the host's side of the protocol themselves: a failure
/// when they are every hook the install wrote, a warning beside others.
fn bypassed(agent: &str, labels: &[String], every_hook: bool) -> Finding {
    let what = if every_hook {
        "no hook the install wrote can reach Entire: every hook is lost, no session is recorded \
         and no checkpoint is ever made (`entire enable`, then a turn and `git commit`, records \
         nothing)"
    } else {
        "these hooks' events are lost"
    };
    let message = format!(
        "{} installed hook(s) run the plugin's own host-side subcommand directly ({}): the host \
         calls that subcommand inside `entire hooks {agent} <hook>`; run directly, its answer \
         goes to the agent's hook output and nothing of Entire hears of it; {what}",
        labels.len(),
        shown(labels)
    );
    let finding = if every_hook {
        Finding::failure(message)
    } else {
        Finding::warning(message)
    };
    finding
        .kind(Kind::HooksInert)
        .rests_on(Evidence::OwnAnswers)
        .diff(
            format!("a hook that runs `entire hooks {agent} <hook>`"),
            "the plugin's own subcommand, run directly",
        )
}

/// Hooks that called nothing of Entire and whose command sh splits at a
/// space of the repository's path or HOME, written unquoted: a failure
/// (docs/host.md, "The user's machine, not a clean room": users keep
/// repositories in folders with spaces, and agents run hook commands
/// through a shell), resting on the command the install wrote.
fn split_paths(agent: &str, hooks: &[&Fired]) -> Option<Finding> {
    let path = hooks.first()?.split.clone()?;
    let first = hooks.first()?;
    let more = match hooks.len() {
        1 => String::new(),
        n => format!("; and {} more", n - 1),
    };
    let example = format!("{} ({}){more}", first.hook.label(), first.status);
    Some(
        Finding::failure(format!(
            "{} installed hook(s) called nothing of Entire, because sh splits the path {path:?} \
             at its space: the command writes it unquoted ({example}); users keep repositories and \
             HOME in folders with spaces, and the agent runs each hook through a shell, so \
             there every such hook fails and its events never reach `entire hooks {agent} \
             <hook>` (`entire enable`, then a turn: no checkpoint); quote the path, or let \
             the hook find it itself",
            hooks.len(),
        ))
        .kind(Kind::HooksInert)
        .rests_on(Evidence::OwnAnswers)
        .diff(
            format!("the path quoted: '{path}'"),
            "the path split into words at its space",
        ),
    )
}

/// Hooks that ran and called nothing: not verified here.
fn quiet_note(agent: &str, labels: &[String]) -> Finding {
    Finding::note(format!(
        "run as the agent runs them (a small payload on stdin, the plugin on PATH), {} installed \
         hook(s) called nothing of Entire: {}; a hook may need input only its agent gives (its \
         own conversation id, a variable it sets), so that they reach `entire hooks {agent} \
         <hook>` is not verified here",
        labels.len(),
        shown(labels)
    ))
    .kind(Kind::NotVerified)
    .rests_on(Evidence::Assumption)
}

/// An install that wrote no hook the harness can run: nothing to say when
/// it wrote nothing and reported none (the agent's own library fires the
/// hooks); a note when what it wrote names this plugin with its hooks
/// (hooks the agent reads as data, which carry what `entire hooks` needs);
/// else the one warning of hooks whose firing cannot be seen (a marker,
/// hooks named without the plugin, a runner that calls `entire hooks`
/// itself): whether anything fires cannot be seen here, in either
/// direction, so never a failure and never only a note.
fn nothing_runs(agent: &str, said: &InstallSaid) -> Vec<Finding> {
    let reported = said.reported.unwrap_or(0);
    if !said.wrote_any && reported == 0 {
        return Vec::new();
    }
    if said.addresses_hooks {
        return vec![
            Finding::note(format!(
                "install-hooks wrote no hook command or executable hook script the harness can \
                 run, but data that names `{agent}` with its hooks, which the agent reads and \
                 fires itself: that they reach `entire hooks {agent} <hook>` is not verified here"
            ))
            .kind(Kind::NotVerified)
            .rests_on(Evidence::OwnAnswers),
        ];
    }
    vec![unseen(
        agent,
        &UnseenBecause::Marker {
            reported,
            wrote_any: said.wrote_any,
        },
        said.recorded,
    )]
}

/// Why the firing of the installed hooks cannot be seen.
enum UnseenBecause<'a> {
    /// The install wrote files holding no command, no hook script and
    /// nothing that names the plugin with a hook (a marker), or nothing.
    Marker { reported: u64, wrote_any: bool },
    /// Its hooks ran, took the payload, exited 0 and called nothing,
    /// saying nothing.
    Silent(&'a [String]),
}

/// The one warning of hooks whose firing cannot be seen here: what was not
/// verified, and how the author verifies it.
fn unseen(agent: &str, because: &UnseenBecause, recorded: bool) -> Finding {
    let what = match because {
        UnseenBecause::Marker {
            reported,
            wrote_any: true,
        } => format!(
            "install-hooks reported {reported} hook(s) and wrote only files that hold no \
             command, no executable hook script and nothing naming `{agent}` with a hook it \
             declares (a marker)"
        ),
        UnseenBecause::Marker { reported, .. } => {
            format!("install-hooks reported {reported} hook(s) and wrote no file at all")
        }
        UnseenBecause::Silent(labels) => format!(
            "run as the agent runs them (a small payload on stdin, the plugin on PATH), {} \
             installed hook(s) took the payload, exited 0 and called nothing of Entire, without \
             a word: {}",
            labels.len(),
            shown(labels)
        ),
    };
    if recorded {
        return Finding::note(format!(
            "{what}: that they fire cannot be seen here, but the author's recording shows the \
             agent firing `entire hooks {agent} <hook>` (`session:` in its own cases)"
        ))
        .kind(Kind::NotVerified)
        .rests_on(Evidence::Samples);
    }
    Finding::warning(format!(
        "{what}: whether the agent, or a runner of its own, fires `entire hooks {agent} <hook>` \
         cannot be seen here, so that `entire enable` leads to checkpoints is not verified. \
         Verify it with a recording of a real session (`agent-conform record`, then the \
         `session:` it writes in your own cases), or say why in your case file: `allow: [{{code: \
         hooks-unseen, reason: \"our runner calls entire hooks {agent} itself\"}}]`"
    ))
    .kind(Kind::HooksUnseen)
    .with_subject("hooks")
    .rests_on(Evidence::OwnAnswers)
    .diff(
        format!("a hook that runs `entire hooks {agent} <hook>`"),
        "nothing seen to call it",
    )
}

/// At most three labels, and how many more.
fn shown(labels: &[String]) -> String {
    if labels.len() > 3 {
        format!("{}; and {} more", labels[..3].join("; "), labels.len() - 3)
    } else {
        labels.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;

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
                run: HookRun::Shell("entire hooks foo stop".into()),
                certain: true,
                bypasses: false,
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
        fired_by("x", calls)
    }

    fn fired_by(cmd: &str, calls: &[&[&str]]) -> Fired {
        Fired {
            hook: Installed {
                file: "f.json".into(),
                bypasses: hooks::runs_host_side_directly(cmd),
                run: HookRun::Shell(cmd.into()),
                certain: true,
            },
            calls: calls
                .iter()
                .map(|c| c.iter().map(|s| s.to_string()).collect())
                .collect(),
            status: "exit 127".into(),
            silent: false,
            split: None,
        }
    }

    fn wrote() -> InstallSaid {
        InstallSaid {
            wrote_any: true,
            reported: Some(1),
            addresses_hooks: false,
            recorded: false,
        }
    }

    #[test]
    fn a_wrapper_of_a_built_in_agent_is_told_who_owns_the_session() {
        let names = vec!["stop".to_string()];
        let mut hook = fired(&[&["hooks", "foo", "stop"]]);
        hook.hook.file = ".claude/settings.json".into();
        let said = judge_fired("foo", &names, &wrote(), &[hook.clone(), hook]);
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            (said[0].severity, said[0].kind),
            (Severity::Note, Kind::OwnerSkip)
        );
        assert!(said[0].message.contains("SessionStart first owns"));
    }

    #[test]
    fn a_failure_needs_positive_evidence_of_the_plugins_own_making() {
        let names = vec!["stop".to_string()];
        let ours = fired(&[&["hooks", "foo", "stop"]]);
        assert!(judge_fired("foo", &names, &wrote(), std::slice::from_ref(&ours)).is_empty());
        // Another agent's name: a failure, on the plugin's own config.
        let other = judge_fired(
            "foo",
            &names,
            &wrote(),
            &[fired(&[&["hooks", "bar", "stop"]])],
        );
        assert_eq!(
            (other[0].severity, other[0].evidence()),
            (Severity::Failure, Evidence::OwnAnswers)
        );
        // Every hook runs the host's side itself: a failure; beside a
        // working hook, a warning.
        let direct = fired_by("entire-agent-foo parse-hook --hook stop", &[]);
        let all = judge_fired("foo", &names, &wrote(), std::slice::from_ref(&direct));
        assert_eq!(all[0].severity, Severity::Failure);
        let some = judge_fired("foo", &names, &wrote(), &[ours, direct]);
        assert_eq!(some[0].severity, Severity::Warning);
        // A hook that called nothing may need the agent's own input: a note.
        let quiet = judge_fired("foo", &names, &wrote(), &[fired(&[])]);
        assert_eq!(
            (quiet[0].severity, quiet[0].kind),
            (Severity::Note, Kind::NotVerified)
        );
        // One that took the payload, exited 0 and said nothing: unseen.
        let mut silent = fired(&[]);
        silent.silent = true;
        let said = judge_fired("foo", &names, &wrote(), &[silent]);
        assert_eq!(
            (said[0].severity, said[0].kind),
            (Severity::Warning, Kind::HooksUnseen)
        );
    }

    #[test]
    fn data_that_names_the_plugin_with_a_hook_addresses_it() {
        let hooks = vec!["stop".to_string(), "session-start".to_string()];
        assert!(addresses(
            r#"{"agent": "foo", "hook": "stop"}"#,
            "foo",
            &hooks
        ));
        assert!(addresses(
            r#"execFile("entire", ["hooks", "foo", hookName]); on("stop")"#,
            "foo",
            &hooks
        ));
        // The hooks without the plugin, or nothing: a marker.
        assert!(!addresses(
            r#"{"hooks": ["stop", "session-start"]}"#,
            "foo",
            &hooks
        ));
        assert!(!addresses(r#"{"schema": "foo-hooks.v1"}"#, "foo", &hooks));
    }

    #[test]
    fn a_hook_that_splits_a_path_fails_unless_it_reached_entire() {
        let names = vec!["stop".to_string()];
        let mut split = fired_by("cd /s/Café projects/repo && entire hooks foo stop", &[]);
        split.split = Some("/s/Café projects".into());
        let said = judge_fired("foo", &names, &wrote(), std::slice::from_ref(&split));
        assert_eq!(said.len(), 1, "{said:?}");
        assert_eq!(
            (said[0].severity, said[0].kind, said[0].evidence),
            (
                Severity::Failure,
                Kind::HooksInert,
                Some(Evidence::OwnAnswers)
            )
        );
        assert!(said[0].message.contains("Café projects"), "{said:?}");
        split.calls = vec![vec!["hooks".into(), "foo".into(), "stop".into()]];
        assert!(judge_fired("foo", &names, &wrote(), &[split]).is_empty());
    }

    #[test]
    fn a_mention_or_a_git_hook_is_judged_only_when_it_reaches() {
        let names = vec!["stop".to_string()];
        let mut pattern = fired_by("sh -c 'entire hooks *", &[]);
        pattern.hook.certain = false;
        // Only a mention, which reached nothing: as if nothing ran, the one
        // warning of hooks whose firing cannot be seen.
        let said = judge_fired("foo", &names, &wrote(), std::slice::from_ref(&pattern));
        assert_eq!(
            (said[0].severity, said[0].kind),
            (Severity::Warning, Kind::HooksUnseen),
            "{said:?}"
        );
        let hooked = InstallSaid {
            addresses_hooks: true,
            ..wrote()
        };
        let said = judge_fired("foo", &names, &hooked, &[pattern]);
        assert_eq!(said[0].severity, Severity::Note, "{said:?}");
        let found = installed(&[Written {
            executable: true,
            ..written(".git/hooks/pre-commit", None, "#!/bin/sh\nexit 0\n")
        }]);
        assert!(!found[0].certain);
        let trust = r#"{"trusted": ["sh -c 'entire hooks *"], "hooks": {"stop": {"command": "entire hooks foo stop"}}}"#;
        let found = installed(&[written(".x/settings.json", None, trust)]);
        let certain: Vec<bool> = found.iter().map(|i| i.certain).collect();
        assert_eq!(certain, vec![true, false], "{found:?}");
    }

    #[test]
    fn a_marker_warns_once_and_a_library_install_is_exempt() {
        let names = vec!["stop".to_string()];
        // Whether a marker's hooks fire cannot be seen, either way: never a
        // failure from its text, never only a note.
        let marker = judge_fired("foo", &names, &wrote(), &[]);
        assert_eq!(
            (marker.len(), marker[0].weight(), marker[0].kind),
            (1, Severity::Warning, Kind::HooksUnseen)
        );
        assert!(marker[0].message.contains("agent-conform record"));
        let data = InstallSaid {
            addresses_hooks: true,
            ..wrote()
        };
        assert_eq!(
            judge_fired("foo", &names, &data, &[])[0].severity,
            Severity::Note
        );
        let library = InstallSaid {
            wrote_any: false,
            reported: Some(0),
            addresses_hooks: false,
            recorded: false,
        };
        assert!(judge_fired("foo", &names, &library, &[]).is_empty());
    }
}
