//! Hook installation (capability hooks): `install-hooks`, `uninstall-hooks`,
//! `are-hooks-installed`.
//!
//! The reference agent reads its hooks from `.reference/settings.json` in the
//! repository, in Claude Code's shape:
//!
//! ```json
//! {"hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "entire hooks reference stop"}]}]}}
//! ```
//!
//! That file belongs to the user, who may keep their own settings and hooks in
//! it. So it is edited as an untyped JSON map (a typed struct would silently drop
//! every field it does not know), Entire's hooks are recognised by their command
//! prefix and only they are ever added or removed, and a file that cannot be
//! parsed is reported rather than overwritten.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::Request;
use crate::context::AGENT_DIR;
use crate::context::Context;
use crate::error::{Error, ErrorContext, Result};
use crate::faults::Fault;
use crate::output::Output;

/// One Entire hook: the hook name (the verb of `entire hooks reference <name>`)
/// and where it goes in the settings file.
#[derive(Debug)]
pub struct EntireHook {
    /// The hook name, as listed in `info.hook_names`.
    pub name: &'static str,
    /// The agent's event key in `settings.json`.
    pub event: &'static str,
    /// The tool matcher; `Task` scopes the tool hooks to subagents.
    pub matcher: &'static str,
}

/// Every hook Entire installs, in `info.hook_names` order.
pub const ENTIRE_HOOKS: &[EntireHook] = &[
    hook("session-start", "SessionStart", ""),
    hook("session-end", "SessionEnd", ""),
    hook("user-prompt-submit", "UserPromptSubmit", ""),
    hook("stop", "Stop", ""),
    hook("pre-task", "PreToolUse", "Task"),
    hook("post-task", "PostToolUse", "Task"),
    hook("pre-compact", "PreCompact", ""),
];

const fn hook(name: &'static str, event: &'static str, matcher: &'static str) -> EntireHook {
    EntireHook {
        name,
        event,
        matcher,
    }
}

/// Every command Entire installs starts with this; it is how Entire's hooks are
/// told apart from the user's.
const COMMAND_PREFIX: &str = "entire hooks reference ";

/// The settings file, relative to the agent directory.
const SETTINGS_FILE: &str = "settings.json";

/// The command prefix of the `hooks-never-call-entire` fault: the plugin
/// binary run directly, which never reaches Entire.
const DIRECT_PREFIX: &str = "entire-agent-reference parse-hook --hook ";

/// The prefix of the commands this run installs and recognises as Entire's.
fn command_prefix() -> String {
    match crate::faults::active().ok().flatten() {
        Some(Fault::HooksNeverCallEntire) => DIRECT_PREFIX.to_string(),
        // The `hook-unquoted-path` fault: the repository's path, unquoted.
        Some(Fault::HookUnquotedPath) => {
            let repo = std::env::var("ENTIRE_REPO_ROOT")
                .ok()
                .filter(|root| !root.is_empty())
                .or_else(|| {
                    std::env::current_dir()
                        .ok()
                        .map(|d| d.display().to_string())
                })
                .unwrap_or_default();
            format!("cd {repo} && {COMMAND_PREFIX}")
        }
        _ => COMMAND_PREFIX.to_string(),
    }
}

impl EntireHook {
    /// The command the agent runs for this hook.
    fn command(&self) -> String {
        format!("{}{}", command_prefix(), self.name)
    }
}

/// The hook names for `info`.
pub fn hook_names() -> Vec<&'static str> {
    ENTIRE_HOOKS.iter().map(|hook| hook.name).collect()
}

/// The settings file's top-level object.
type Settings = Map<String, Value>;

/// `install-hooks [--local-dev] [--force]`: add every missing Entire hook and
/// report how many were added (0 when all were there already).
///
/// `--force` first removes Entire's hooks and then adds them all again.
/// The `install-marker-only` fault: a marker file with the time of the
/// install, no hook the agent runs, and a count that says hooks were
/// installed.
fn install_marker_only(ctx: &Context) -> Result<Output> {
    let dir = ctx.repo_root()?.join(".reference");
    fs::create_dir_all(&dir).context(|| format!("creating {}", dir.display()))?;
    let marker = dir.join("installed");
    let stamp = format!(
        "{}\n",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    );
    fs::write(&marker, stamp).context(|| format!("writing {}", marker.display()))?;
    Ok(Output::Json(
        json!({ "hooks_installed": ENTIRE_HOOKS.len() }),
    ))
}

/// The `install-marker-other-agent` fault: a marker of the plugin's own
/// whose entries run another agent's hooks.
fn install_marker_other_agent(ctx: &Context) -> Result<Output> {
    let dir = ctx.repo_root()?.join(".reference");
    fs::create_dir_all(&dir).context(|| format!("creating {}", dir.display()))?;
    let entries: Vec<Value> = ENTIRE_HOOKS
        .iter()
        .map(|hook| json!({"hook": hook.name, "run": format!("entire hooks claude-code {}", hook.name)}))
        .collect();
    let marker = dir.join("hooks-marker.json");
    let text = serde_json::to_string_pretty(&json!({ "hooks": entries }))
        .map_err(|e| Error::failed(e.to_string()))?;
    fs::write(&marker, text + "\n").context(|| format!("writing {}", marker.display()))?;
    Ok(Output::Json(
        json!({ "hooks_installed": ENTIRE_HOOKS.len() }),
    ))
}

/// Whether the file at `path` has CRLF line ends (the `install-lf-only`
/// fault's blind spot).
fn has_crlf(path: &std::path::Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|text| text.contains("\r\n"))
}

/// `--local-dev` is accepted and ignored: newer hosts never send it, because a
/// development hook command let repository content run from installed hooks.
pub fn install_hooks(ctx: &Context, request: &Request) -> Result<Output> {
    let force = request.args.switch("--force");
    if request.args.switch("--local-dev") && ctx.fault(Fault::InstallRejectsLocalDev) {
        return Err(Error::failed("--local-dev is not supported"));
    }
    if force && ctx.fault(Fault::InstallRejectsForce) {
        return Err(Error::failed("--force is not supported"));
    }

    if ctx.fault(Fault::InstallMarkerOnly) {
        return install_marker_only(ctx);
    }
    if ctx.fault(Fault::InstallMarkerOtherAgent) {
        return install_marker_other_agent(ctx);
    }
    let path = settings_path(ctx)?;
    let existing = load(&path)?;
    let mut settings = existing.clone().unwrap_or_default();
    if force {
        remove_entire_hooks(&mut settings);
    }
    let keeps_record = ctx.fault(Fault::InstallTrustsOwnRecord);
    let recorded = (keeps_record && !force).then(|| record::trusted(&path));
    let missing: Vec<&EntireHook> = if recorded == Some(true) {
        Vec::new()
    } else if ctx.fault(Fault::InstallNotIdempotent)
        || recorded == Some(false)
        || (ctx.fault(Fault::InstallLfOnly) && has_crlf(&path))
    {
        ENTIRE_HOOKS.iter().collect()
    } else {
        ENTIRE_HOOKS
            .iter()
            .filter(|hook| !is_installed(&settings, hook))
            .collect()
    };

    if ctx.fault(Fault::InstallClobbersSettings) {
        settings = Settings::new();
        for hook in ENTIRE_HOOKS {
            add_hook(&mut settings, hook)?;
        }
    } else {
        if ctx.fault(Fault::InstallDropsUserHooks) {
            drop_user_hooks(&mut settings, &missing);
        }
        for hook in &missing {
            add_hook(&mut settings, hook)?;
        }
    }
    // Leave an unchanged file alone, formatting and all.
    if existing.as_ref() != Some(&settings) {
        save(&path, &settings)?;
    }
    if keeps_record {
        record::write(&path)?;
    }
    if ctx.fault(Fault::InstallOverwritesGitHook) {
        overwrite_git_hook(ctx, true)?;
    }
    if ctx.fault(Fault::InstallRemarshalsConfig) {
        crate::remarshal::install(&agent_dir(ctx)?)?;
    }
    if ctx.fault(Fault::InstallGitDirNaive) {
        let marker = ctx.repo_root()?.join(".git").join("entire-reference-hooks");
        fs::write(&marker, b"installed\n").context(|| format!("writing {}", marker.display()))?;
    }

    let installed = if ctx.fault(Fault::InstallReportsZero) {
        0
    } else {
        missing.len()
    };
    Ok(Output::Json(json!({ "hooks_installed": installed })))
}

/// `uninstall-hooks`: remove Entire's hooks and nothing else.
///
/// Matcher groups, event arrays and the `hooks` object that only held Entire's
/// hooks go with them. If that leaves the file as `{}` (so it was Entire's own),
/// the file is deleted, and then `.reference/` too if nothing else is in it.
pub fn uninstall_hooks(ctx: &Context, _request: &Request) -> Result<Output> {
    if ctx.fault(Fault::UninstallNoop) {
        return Ok(Output::Nothing);
    }
    if ctx.fault(Fault::InstallOverwritesGitHook) {
        overwrite_git_hook(ctx, false)?;
    }
    if ctx.fault(Fault::UninstallNeedsCliVersion)
        && std::env::var_os("ENTIRE_CLI_VERSION").is_none()
    {
        return Err(Error::failed("ENTIRE_CLI_VERSION is not set"));
    }
    let dir = agent_dir(ctx)?;
    if ctx.fault(Fault::InstallRemarshalsConfig) {
        crate::remarshal::uninstall(&dir)?;
    }
    if ctx.fault(Fault::UninstallDeletesDir) {
        match fs::remove_dir_all(&dir) {
            Err(err) if err.kind() != ErrorKind::NotFound => {
                return Err(err).context(|| format!("removing {}", dir.display()));
            }
            _ => return Ok(Output::Nothing),
        }
    }

    let path = dir.join(SETTINGS_FILE);
    if ctx.fault(Fault::InstallTrustsOwnRecord) {
        record::remove(&path);
    }
    let Some(mut settings) = load(&path)? else {
        if ctx.fault(Fault::UninstallFailsWhenNotInstalled) {
            return Err(Error::failed("no hooks installed"));
        }
        return Ok(Output::Nothing);
    };
    if !remove_entire_hooks(&mut settings) {
        return Ok(Output::Nothing);
    }
    if settings.is_empty() && !ctx.fault(Fault::UninstallLeavesFile) {
        fs::remove_file(&path).context(|| format!("removing {}", path.display()))?;
        remove_dir_if_empty(&dir);
    } else {
        save(&path, &settings)?;
    }
    Ok(Output::Nothing)
}

/// `are-hooks-installed`: `{"installed": true}` iff every Entire hook is present.
///
/// A settings file that cannot be read is an error, not `false`: the host reads
/// an error as "unknown", which is the truth.
pub fn are_hooks_installed(ctx: &Context, _request: &Request) -> Result<Output> {
    if ctx.fault(Fault::AreInstalledAlwaysTrue) {
        return Ok(Output::Json(json!({ "installed": true })));
    }
    let installed = load(&settings_path(ctx)?)?.is_some_and(|settings| {
        if ctx.fault(Fault::AreInstalledWithUserHooks) {
            return has_any_hook(&settings);
        }
        ENTIRE_HOOKS
            .iter()
            .all(|hook| is_installed(&settings, hook))
    });
    let answer = if ctx.fault(Fault::AreInstalledString) {
        json!({ "installed": installed.to_string() })
    } else {
        json!({ "installed": installed })
    };
    Ok(Output::Json(answer))
}

fn settings_path(ctx: &Context) -> Result<PathBuf> {
    Ok(agent_dir(ctx)?.join(SETTINGS_FILE))
}

/// The folder of the settings file: the agent's own, or Claude Code's
/// under the `hooks-in-wrapped-config` fault.
fn agent_dir(ctx: &Context) -> Result<PathBuf> {
    let fault = crate::faults::active().ok().flatten();
    if fault == Some(Fault::HooksInHome)
        && let Some(home) = ctx.home()
    {
        return Ok(home.join(AGENT_DIR));
    }
    let dir = if fault == Some(Fault::HooksInWrappedConfig) {
        ".claude"
    } else {
        AGENT_DIR
    };
    Ok(ctx.repo_root()?.join(dir))
}

/// Read the settings file; `None` when it does not exist. An empty file counts
/// as `{}`; anything that is not a JSON object is an error, so that a file the
/// user broke by hand is never overwritten.
fn load(path: &Path) -> Result<Option<Settings>> {
    let text = match fs::read(path) {
        Ok(text) => text,
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err).context(|| format!("reading {}", path.display())),
    };
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(Some(Settings::new()));
    }
    match serde_json::from_slice(&text) {
        Ok(Value::Object(settings)) => Ok(Some(settings)),
        Ok(_) => Err(Error::failed(format!(
            "{} is not a JSON object; fix it by hand",
            path.display()
        ))),
        Err(err) => Err(Error::failed(format!(
            "{} is not valid JSON ({err}); fix it by hand",
            path.display()
        ))),
    }
}

/// Write the settings file as pretty JSON, creating `.reference/` if needed.
///
/// The new content goes to a temporary file that is then renamed over the old
/// one, so an interrupted write never leaves the user with half a file.
fn save(path: &Path, settings: &Settings) -> Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    }
    let mut text = serde_json::to_vec_pretty(settings)
        .map_err(|err| Error::failed(format!("encoding settings: {err}")))?;
    text.push(b'\n');
    let temporary = path.with_extension(format!("json.tmp-{}", std::process::id()));
    fs::write(&temporary, text).context(|| format!("writing {}", temporary.display()))?;
    fs::rename(&temporary, path).context(|| format!("replacing {}", path.display()))
}

/// The `install-overwrites-git-hook` fault: write `.git/hooks/pre-commit`
/// whatever was there (`install`), or delete it.
fn overwrite_git_hook(ctx: &Context, install: bool) -> Result<()> {
    let dir = ctx.repo_root()?.join(".git").join("hooks");
    let path = dir.join("pre-commit");
    if !install {
        return match fs::remove_file(&path) {
            Err(err) if err.kind() != ErrorKind::NotFound => {
                Err(err).context(|| format!("removing {}", path.display()))
            }
            _ => Ok(()),
        };
    }
    fs::create_dir_all(&dir).context(|| format!("creating {}", dir.display()))?;
    let script = format!("#!/bin/sh\n{COMMAND_PREFIX}pre-commit \"$@\"\n");
    fs::write(&path, script).context(|| format!("writing {}", path.display()))
}

/// Remove `dir` if it is empty. Failure is ignored: the hooks are gone, and an
/// empty directory left behind harms no one.
fn remove_dir_if_empty(dir: &Path) {
    let is_empty = fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_none());
    if is_empty {
        let _ = fs::remove_dir(dir);
    }
}

/// The hook entries of a matcher group (`group.hooks`), if it has any.
fn entries(group: &Value) -> &[Value] {
    group
        .get("hooks")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// The command of a hook entry, if it has one.
fn command(entry: &Value) -> Option<&str> {
    entry.get("command").and_then(Value::as_str)
}

/// Whether `entry` is one of Entire's hooks.
fn is_entire_entry(entry: &Value) -> bool {
    let prefix = command_prefix();
    command(entry).is_some_and(|command| command.starts_with(&prefix))
}

/// Whether `hook` is installed: a group under its event, with its matcher (a
/// missing matcher means ""), runs exactly its command.
fn is_installed(settings: &Settings, hook: &EntireHook) -> bool {
    let wanted = hook.command();
    let groups = settings
        .get("hooks")
        .and_then(|events| events.get(hook.event))
        .and_then(Value::as_array);
    let first_only =
        crate::faults::active().ok().flatten() == Some(Fault::InstallFindsOwnHookFirstOnly);
    groups.is_some_and(|groups| {
        let looked_at = if first_only {
            &groups[..groups.len().min(1)]
        } else {
            &groups[..]
        };
        looked_at.iter().any(|group| {
            let matcher = group.get("matcher").and_then(Value::as_str).unwrap_or("");
            matcher == hook.matcher
                && entries(group)
                    .iter()
                    .any(|entry| command(entry) == Some(wanted.as_str()))
        })
    })
}

/// The `are-installed-with-user-hooks` fault: whether any event holds any
/// hook entry, whoever's it is.
fn has_any_hook(settings: &Settings) -> bool {
    settings
        .get("hooks")
        .and_then(Value::as_object)
        .is_some_and(|events| {
            events
                .values()
                .filter_map(Value::as_array)
                .flatten()
                .any(|group| !entries(group).is_empty())
        })
}

/// Add `hook` as a matcher group of its own, so the user's groups are never
/// edited on install.
fn add_hook(settings: &mut Settings, hook: &EntireHook) -> Result<()> {
    let Value::Object(events) = settings.entry("hooks").or_insert_with(|| json!({})) else {
        return Err(Error::failed(
            "settings.json: \"hooks\" is not an object; fix it by hand",
        ));
    };
    let Value::Array(groups) = events.entry(hook.event).or_insert_with(|| json!([])) else {
        return Err(Error::failed(format!(
            "settings.json: \"hooks\".{:?} is not an array; fix it by hand",
            hook.event
        )));
    };
    groups.push(json!({
        "matcher": hook.matcher,
        "hooks": [{ "type": "command", "command": hook.command() }],
    }));
    Ok(())
}

/// The `install-drops-user-hooks` fault: empties the event list of every
/// hook about to be added, the user's own entries with it.
fn drop_user_hooks(settings: &mut Settings, missing: &[&EntireHook]) {
    if let Some(Value::Object(events)) = settings.get_mut("hooks") {
        for hook in missing {
            if let Some(Value::Array(groups)) = events.get_mut(hook.event) {
                groups.clear();
            }
        }
    }
}

/// Remove every Entire hook entry, under any event. Groups, event arrays and the
/// `hooks` object that become empty *because of this* are removed too; ones the
/// user left empty stay. Returns whether anything was removed.
fn remove_entire_hooks(settings: &mut Settings) -> bool {
    let Some(Value::Object(events)) = settings.get_mut("hooks") else {
        return false;
    };
    let mut removed_any = false;
    events.retain(|_, groups| {
        let Value::Array(groups) = groups else {
            return true;
        };
        let mut removed_here = false;
        groups.retain_mut(|group| {
            let Some(Value::Array(entries)) = group.get_mut("hooks") else {
                return true;
            };
            let before = entries.len();
            entries.retain(|entry| !is_entire_entry(entry));
            if entries.len() == before {
                return true;
            }
            removed_here = true;
            !entries.is_empty()
        });
        removed_any |= removed_here;
        !(removed_here && groups.is_empty())
    });
    if removed_any && events.is_empty() {
        settings.remove("hooks");
    }
    removed_any
}

/// The `install-trusts-own-record` fault's record of the settings file
/// the install wrote: a hash of its bytes, beside it.
mod record {
    use std::fs;
    use std::hash::{DefaultHasher, Hash, Hasher};
    use std::path::{Path, PathBuf};

    use crate::error::{ErrorContext, Result};

    fn of(settings: &Path) -> PathBuf {
        settings.with_file_name("entire-installed")
    }

    fn hash(settings: &Path) -> String {
        let mut hasher = DefaultHasher::new();
        fs::read(settings).unwrap_or_default().hash(&mut hasher);
        format!("{:016x}\n", hasher.finish())
    }

    /// Whether the record says the file is as the install left it.
    pub fn trusted(settings: &Path) -> bool {
        fs::read_to_string(of(settings)).is_ok_and(|r| r == hash(settings))
    }

    pub fn write(settings: &Path) -> Result<()> {
        let record = of(settings);
        fs::write(&record, hash(settings)).context(|| format!("writing {}", record.display()))
    }

    pub fn remove(settings: &Path) {
        let _ = fs::remove_file(of(settings));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(value: Value) -> Settings {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn install_all(settings: &mut Settings) -> usize {
        let missing: Vec<_> = ENTIRE_HOOKS
            .iter()
            .filter(|hook| !is_installed(settings, hook))
            .collect();
        for hook in &missing {
            add_hook(settings, hook).expect("adds");
        }
        missing.len()
    }

    #[test]
    fn install_is_idempotent_and_keeps_user_content() {
        let user = json!({
            "theme": "dark",
            "hooks": {"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "my-stop"}]}]}
        });
        let mut current = settings(user.clone());
        assert_eq!(install_all(&mut current), ENTIRE_HOOKS.len());
        assert!(ENTIRE_HOOKS.iter().all(|hook| is_installed(&current, hook)));
        assert_eq!(install_all(&mut current), 0);
        assert_eq!(current["theme"], "dark");

        assert!(remove_entire_hooks(&mut current));
        assert_eq!(Value::Object(current), user);
    }

    #[test]
    fn uninstall_of_a_pure_entire_file_leaves_nothing() {
        let mut current = Settings::new();
        install_all(&mut current);
        assert!(remove_entire_hooks(&mut current));
        assert!(current.is_empty());
        assert!(!remove_entire_hooks(&mut current));
    }

    #[test]
    fn uninstall_keeps_groups_the_user_left_empty() {
        let user = json!({"hooks": {"Stop": [{"matcher": "", "hooks": []}]}});
        let mut current = settings(user.clone());
        install_all(&mut current);
        remove_entire_hooks(&mut current);
        assert_eq!(Value::Object(current), user);
    }

    #[test]
    fn a_hook_under_the_wrong_matcher_is_not_installed() {
        let current = settings(json!({"hooks": {"PreToolUse": [
            {"matcher": "", "hooks": [{"type": "command", "command": "entire hooks reference pre-task"}]}
        ]}}));
        let pre_task = ENTIRE_HOOKS
            .iter()
            .find(|hook| hook.name == "pre-task")
            .expect("pre-task hook");
        assert!(!is_installed(&current, pre_task));
    }
}
