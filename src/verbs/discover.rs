//! `agent-conform discover`: every `entire-agent-*` on `PATH`, and what the
//! host makes of it (docs/host.md, "Discovery and registration"): the
//! first executable file of a name is probed with `info` (all at once, each
//! with the host's 10 s, each in its own sandbox) and registered when `info`
//! answers protocol 1; the rest are shadowed, unusable, or never run. Files
//! found only through a relative `PATH` entry are never run either: the host
//! scans absolute entries only.
//!
//! Discovery is also per repository: the host discovers no plugin unless the
//! repository's `.entire/settings.local.json` sets `external_agents`
//! (docs/host.md, "What each answer costs the user"), so the report says
//! whether the current repository does ([`settings`]).
//!
//! Between the registered plugins it checks what breaks when they are
//! installed together ([`crate::execute::together`]): the same type, equal
//! or nested session directories, and hooks that one's uninstall removes of
//! the other; every call in a sandbox, none in the user's repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::host::discovery::plugin_path::{self, Entry, Kind};
use crate::host::discovery::{self, SETTINGS_FILE};
use crate::host::invocation::PROTOCOL_VERSION;
use crate::host::range::HostRange;
use crate::host::releases::Fact;
use crate::outcome::together::Conflict;
use crate::running::runner::{self, Invocation, Termination};
use crate::running::sandbox::{self, Sandbox};

/// What the host does with one `PATH` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Registered under its file name.
    Registered,
    /// Registered under its file name; `info.name` says otherwise.
    NameDiffers,
    /// An earlier `PATH` entry of the same name wins; never run.
    Shadowed,
    /// No execute bit (or unreadable): the host cannot run it.
    NotExecutable,
    /// A directory.
    Directory,
    /// The name of an agent built into the host; never run.
    BuiltIn,
    /// `entire-agent-` with nothing after it: no agent name.
    NoName,
    /// `info` failed: did not start, exited non-zero, or printed no usable JSON.
    InfoFailed,
    /// `info` did not answer within the deadline.
    InfoTimedOut,
    /// `info` declared another protocol version.
    ProtocolVersion,
    /// Found only through a relative `PATH` entry, which the host skips; never run.
    RelativePath,
}

impl Verdict {
    /// Whether the host registers the agent.
    pub fn registered(self) -> bool {
        matches!(self, Verdict::Registered | Verdict::NameDiffers)
    }

    /// A short label for the text report.
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Registered => "registered",
            Verdict::NameDiffers => "registered (name differs)",
            Verdict::Shadowed => "shadowed",
            Verdict::NotExecutable => "not executable",
            Verdict::Directory => "a directory",
            Verdict::BuiltIn => "built-in name",
            Verdict::NoName => "no agent name",
            Verdict::InfoFailed => "info failed",
            Verdict::InfoTimedOut => "info timed out",
            Verdict::ProtocolVersion => "other protocol version",
            Verdict::RelativePath => "relative PATH entry",
        }
    }
}

/// One `PATH` entry and the host's verdict on it.
#[derive(Debug, Clone, Serialize)]
pub struct Found {
    /// The agent name (from the file name; empty when there is none).
    pub name: String,
    /// The full path.
    pub path: PathBuf,
    /// What the host does with it.
    pub verdict: Verdict,
    /// Whether the host registers it.
    pub registered: bool,
    /// Why, in a sentence.
    pub reason: String,
    /// The `info` output, when the file was probed and printed JSON.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info: Option<Value>,
    /// Whether the newest host lists it under "broken external agents"
    /// (found, but not loadable), with [`Found::reason`] as the reason.
    pub broken: bool,
    /// What differs on some releases of the range judged (a name built in
    /// on some only, the managed plugin directory on PATH from 0.6.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub caveats: Vec<String>,
}

/// How to probe.
#[derive(Debug, Clone)]
pub struct Options {
    /// Deadline of each `info` (the host's is [`INFO_TIMEOUT`](crate::host::invocation::INFO_TIMEOUT)).
    pub timeout: Duration,
    /// Where the probes' sandboxes go.
    pub sandbox_base: PathBuf,
    /// The host releases judged (`--host-version`).
    pub hosts: HostRange,
    /// The host's managed plugin directory, put first on `PATH` by the
    /// releases that do so (`--managed-dir`).
    pub managed_dir: Option<PathBuf>,
}

impl Verdict {
    /// Whether the newest host lists such a file under "broken external
    /// agents" ("The host of September 2026", "Non-usable plugins are
    /// listed"): found, but not loadable.
    pub fn broken(self) -> bool {
        matches!(
            self,
            Verdict::NotExecutable
                | Verdict::Directory
                | Verdict::InfoFailed
                | Verdict::InfoTimedOut
                | Verdict::ProtocolVersion
        )
    }
}

/// `PATH` as the judged releases search it: the managed plugin directory
/// first where they put it there (0.6.1 and newer, "Binary path").
fn searched_path(path_var: &std::ffi::OsStr, options: &Options) -> std::ffi::OsString {
    let Some(dir) = &options.managed_dir else {
        return path_var.to_owned();
    };
    if !options.hosts.from_fact(Fact::ManagedPluginDir).any() {
        return path_var.to_owned();
    }
    let dirs = std::iter::once(dir.clone()).chain(std::env::split_paths(path_var));
    std::env::join_paths(dirs).unwrap_or_else(|_| path_var.to_owned())
}

/// What differs by release for one entry: a name built in on some of the
/// releases judged only, a file found in the managed directory that older
/// releases do not search.
fn caveats(found: &mut Found, options: &Options) {
    if let Some(built_in) = discovery::built_in(&found.name) {
        let scope = options.hosts.built_in(built_in);
        if scope.any() && !scope.everywhere() {
            found.caveats.push(format!(
                "{}, `{}` is a built-in agent: this file is never run there",
                scope.prefix(),
                found.name
            ));
        }
    }
    let managed = options.hosts.from_fact(Fact::ManagedPluginDir);
    let in_managed = options
        .managed_dir
        .as_ref()
        .is_some_and(|dir| found.path.parent() == Some(dir.as_path()));
    if in_managed && !managed.everywhere() {
        found.caveats.push(format!(
            "found in the host's managed plugin directory, which {} put first on PATH; on \
             entire {} it is not searched",
            managed.prefix(),
            managed.elsewhere()
        ));
    }
}

/// Judges every `entire-agent-*` entry of `path_var`, in `PATH` order; the
/// entries the host would run are probed concurrently.
pub fn discover(path_var: &std::ffi::OsStr, options: &Options) -> Vec<Found> {
    let path_var = searched_path(path_var, options);
    let mut entries = plugin_path::scan(&path_var);
    // A file of a relative entry's directory that an absolute entry also
    // lists is found by the host there: keep only that one.
    let absolute: std::collections::HashSet<PathBuf> = entries
        .iter()
        .filter(|e| e.relative_entry.is_none())
        .map(|e| e.path.clone())
        .collect();
    entries.retain(|e| e.relative_entry.is_none() || !absolute.contains(&e.path));
    let mut found: Vec<Found> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| judge_statically(e, &entries[..i], &options.hosts))
        .collect();
    std::thread::scope(|scope| {
        let probes: Vec<_> = found
            .iter_mut()
            .filter(|f| f.verdict == Verdict::Registered)
            .map(|f| scope.spawn(move || probe(f, options)))
            .collect();
        for probe in probes {
            let _ = probe.join();
        }
    });
    for f in &mut found {
        f.broken = f.verdict.broken();
        caveats(f, options);
    }
    found
}

/// The verdict before running anything; `Registered` means "probe it".
fn judge_statically(entry: &Entry, earlier: &[Entry], hosts: &HostRange) -> Found {
    let name = entry.name.clone().unwrap_or_default();
    let found = |verdict: Verdict, reason: String| Found {
        name: name.clone(),
        path: entry.path.clone(),
        verdict,
        registered: verdict.registered(),
        reason,
        info: None,
        broken: false,
        caveats: Vec::new(),
    };
    if let Some(written) = &entry.relative_entry {
        let dir = entry.path.parent().unwrap_or(Path::new(""));
        let reason = format!(
            "found through the relative PATH entry {:?} ({}); the host scans absolute \
             entries only: not registered (put {} in PATH as an absolute path)",
            written.display().to_string(),
            dir.display(),
            dir.display()
        );
        return found(Verdict::RelativePath, reason);
    }
    let Some(agent) = &entry.name else {
        let reason = "the file name has no agent name after entire-agent-".to_string();
        return found(Verdict::NoName, reason);
    };
    match &entry.kind {
        Kind::Directory => {
            let reason = "a directory, not an executable; the host reports it unusable";
            return found(Verdict::Directory, reason.to_string());
        }
        Kind::NotExecutable => {
            let reason = format!(
                "no execute bit, so the host cannot run it (chmod +x {})",
                entry.path.display()
            );
            return found(Verdict::NotExecutable, reason);
        }
        Kind::Unreadable(err) => {
            let reason = format!("cannot be read ({err}), so the host cannot run it");
            return found(Verdict::NotExecutable, reason);
        }
        Kind::Executable => {}
    }
    let scope = discovery::built_in(agent).map(|b| hosts.built_in(b));
    if let Some(scope) = scope.filter(|s| s.everywhere()) {
        let reason = format!(
            "{}, {agent:?} is the name of an agent built into the host, which never runs this \
             file; rename it to entire-agent-<another name>",
            scope.prefix()
        );
        return found(Verdict::BuiltIn, reason);
    }
    let winner = earlier.iter().find(|e| {
        e.name.as_ref() == Some(agent) && e.kind == Kind::Executable && e.relative_entry.is_none()
    });
    if let Some(winner) = winner {
        let reason = format!(
            "shadowed by {}, earlier on PATH, which the host runs instead",
            winner.path.display()
        );
        return found(Verdict::Shadowed, reason);
    }
    found(Verdict::Registered, String::new())
}

/// Runs `info` as the host's discovery does and records the verdict.
fn probe(found: &mut Found, options: &Options) {
    let sandbox = match Sandbox::create("discover", &options.sandbox_base) {
        Ok(sandbox) => sandbox,
        Err(err) => {
            found.verdict = Verdict::InfoFailed;
            found.registered = false;
            found.reason = format!("agent-conform could not make a sandbox to run info in: {err}");
            return;
        }
    };
    let mut inv = Invocation::new(
        found.path.clone(),
        vec!["info".to_string()],
        sandbox.repo(),
        options.timeout,
    );
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    // Nothing the call leaves running outlives it.
    inv.guard = Some(sandbox.guard(crate::running::bounds::DEFAULT_MAX_WRITE_MIB << 20));
    let outcome = runner::run(&inv);
    let (verdict, reason, info) = judge_info(&found.name, options.timeout, &outcome);
    found.verdict = verdict;
    found.registered = verdict.registered();
    found.reason = reason;
    found.info = info;
}

/// The host's verdict on an `info` answer.
fn judge_info(
    name: &str,
    timeout: Duration,
    outcome: &runner::Outcome,
) -> (Verdict, String, Option<Value>) {
    let failed = |reason: String| (Verdict::InfoFailed, reason, None);
    match &outcome.termination {
        Termination::TimedOut => {
            let reason = format!(
                "info did not answer within {} s; the host gives it 10 s and then skips the plugin",
                timeout.as_secs_f64()
            );
            return (Verdict::InfoTimedOut, reason, None);
        }
        Termination::SpawnFailed(err) => return failed(err.clone()),
        Termination::Exited(Some(0)) => {}
        Termination::Exited(code) => {
            let status = code.map_or("was killed by a signal".to_string(), |c| {
                format!("exited {c}")
            });
            let stderr = crate::judge::checks::excerpt(&outcome.stderr);
            let stderr = stderr.lines().next().unwrap_or("nothing on stderr");
            return failed(format!("info {status}: {stderr}"));
        }
    }
    if outcome.stdout_overflow {
        return failed("info printed more than the host's 10 MiB limit".to_string());
    }
    let info = match crate::host::decoding::decode_host_json(&outcome.stdout) {
        Ok(Value::Object(map)) => Value::Object(map),
        Ok(other) => return failed(format!("info printed {other}, not a JSON object")),
        Err(err) => return failed(format!("info: {err}")),
    };
    judge_fields(name, info)
}

/// `protocol_version` and `name`, decoded as the host's Go structs do.
fn judge_fields(name: &str, info: Value) -> (Verdict, String, Option<Value>) {
    let version = match info.get("protocol_version") {
        None | Some(Value::Null) => Some(0),
        Some(Value::Number(n)) if !n.to_string().contains(['.', 'e', 'E']) => n.as_i64(),
        Some(_) => None,
    };
    let Some(version) = version else {
        let reason = format!(
            "info's protocol_version is {}, which the host cannot decode as an integer",
            info["protocol_version"]
        );
        return (Verdict::InfoFailed, reason, Some(info));
    };
    if version.to_string() != PROTOCOL_VERSION {
        let reason = format!(
            "info declares protocol_version {version}; the host speaks {PROTOCOL_VERSION} and \
             does not register it"
        );
        return (Verdict::ProtocolVersion, reason, Some(info));
    }
    match info.get("name") {
        None | Some(Value::Null) => {}
        Some(Value::String(n)) if n == name => {}
        Some(Value::String(n)) => {
            let reason = format!(
                "registered as {name:?} (the file name); info.name is {n:?}, which the host \
                 ignores with a warning"
            );
            return (Verdict::NameDiffers, reason, Some(info));
        }
        Some(other) => {
            let reason =
                format!("info's name is {other}, which the host cannot decode as a string");
            return (Verdict::InfoFailed, reason, Some(info));
        }
    }
    let reason = format!("info answered protocol {PROTOCOL_VERSION}; the host registers {name:?}");
    (Verdict::Registered, reason, Some(info))
}

/// The text report: one line per entry, then a count, then what the
/// current repository's settings mean for discovery.
pub fn render_text(
    found: &[Found],
    conflicts: &[Conflict],
    path_var: &std::ffi::OsStr,
    settings: &Settings,
) -> String {
    let settings_line = format!("\n{}\n", settings.message);
    if found.is_empty() {
        let dirs = std::env::split_paths(path_var).count();
        return format!(
            "no entire-agent-* files in the {dirs} directories of PATH; the host would find \
             no plugin\n{settings_line}"
        );
    }
    let width = |f: fn(&Found) -> usize| found.iter().map(f).max().unwrap_or(0);
    let name_w = width(|f| f.name.len()).max(4);
    let path_w = width(|f| f.path.display().to_string().len());
    let mut out = String::new();
    for f in found {
        out.push_str(&format!(
            "{:<name_w$}  {:<path_w$}  {}: {}\n",
            if f.name.is_empty() { "-" } else { &f.name },
            f.path.display(),
            f.verdict.label(),
            f.reason
        ));
        for caveat in &f.caveats {
            out.push_str(&format!("{:<name_w$}  {caveat}\n", ""));
        }
    }
    let registered = found.iter().filter(|f| f.registered).count();
    out.push_str(&format!(
        "\n{} entire-agent-* on PATH: {registered} registered, {} not\n",
        found.len(),
        found.len() - registered
    ));
    let broken: Vec<&Found> = found.iter().filter(|f| f.broken).collect();
    if !broken.is_empty() {
        out.push_str("\nbroken external agents (as the newest host lists them):\n");
        for f in broken {
            out.push_str(&format!("  {}: {}\n", f.path.display(), f.reason));
        }
    }
    conflicts_text(&mut out, conflicts);
    out.push_str(&settings_line);
    out
}

/// The conflicts between the registered plugins, when there are two or more.
fn conflicts_text(out: &mut String, conflicts: &[Conflict]) {
    if conflicts.is_empty() {
        return;
    }
    out.push_str(&format!(
        "
{} conflict(s) between the plugins installed together:\n",
        conflicts.len()
    ));
    for c in conflicts {
        out.push_str(&format!(
            "  {}: {} and {} ({}): {}\n",
            c.severity.label(),
            c.plugins[0],
            c.plugins[1],
            c.kind.label(),
            c.message
        ));
    }
}

/// The members of the conflict checks: the plugins the host registers.
pub fn members(found: &[Found]) -> Vec<crate::execute::together::Member> {
    found
        .iter()
        .filter(|f| f.registered)
        .map(|f| crate::execute::together::Member {
            name: f.name.clone(),
            path: f.path.clone(),
            info: f.info.clone(),
        })
        .collect()
}

/// The JSON report: `{"plugins": [...], "conflicts": [...], "settings":
/// {...}}`, the plugins in `PATH` order, the conflicts between the
/// registered ones as in a run's report.
pub fn render_json(found: &[Found], conflicts: &[Conflict], settings: &Settings) -> String {
    /// The document: the entries in `PATH` order, their conflicts and the
    /// repository's settings.
    #[derive(Serialize)]
    struct Doc<'a> {
        plugins: &'a [Found],
        conflicts: &'a [Conflict],
        settings: &'a Settings,
    }
    let doc = Doc {
        plugins: found,
        conflicts,
        settings,
    };
    format!(
        "{}\n",
        serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_string())
    )
}

/// What the current repository's settings mean for discovery.
#[derive(Debug, Clone, Serialize)]
pub struct Settings {
    /// The root of the git work tree holding the current directory; `None`
    /// outside one.
    pub repository: Option<PathBuf>,
    /// The settings file that grants discovery (`<root>/.entire/settings.local.json`).
    pub file: Option<PathBuf>,
    /// Whether that file sets `external_agents` to `true`.
    pub external_agents: bool,
    /// One sentence for the user: the fix when discovery is off.
    pub message: String,
}

/// Reads the discovery setting of the git work tree that holds `dir`.
///
/// The host discovers plugins only when the untracked
/// `.entire/settings.local.json` of the repository sets `external_agents`
/// (the committed `.entire/settings.json` cannot grant it); a JSON `true` is
/// taken as enabled, anything else (a missing file or key, `false`, another
/// value, a file that is not a JSON object) as off.
pub fn settings(dir: &Path) -> Settings {
    let Some(root) = work_tree_root(dir) else {
        return Settings {
            repository: None,
            file: None,
            external_agents: false,
            message: format!(
                "not in a git work tree: the host's discovery setting (\"external_agents\": \
                 true in {SETTINGS_FILE}) is per repository; run discover in yours to check it"
            ),
        };
    };
    let file = root.join(SETTINGS_FILE);
    let problem = match std::fs::read(&file) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => "does not exist".to_string(),
        Err(err) => format!("cannot be read ({err})"),
        Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
            Err(err) => format!("is not valid JSON ({err})"),
            Ok(settings) => discovery::grants_discovery(&settings)
                .err()
                .unwrap_or_default(),
        },
    };
    let external_agents = problem.is_empty();
    let message = if external_agents {
        format!(
            "{} sets \"external_agents\": true: the host discovers plugins in {}",
            file.display(),
            root.display()
        )
    } else {
        format!(
            "{} {problem}: the host discovers no plugin in {}, and hooks of an installed \
             plugin fail with \"unknown agent\"; add \"external_agents\": true to {}",
            file.display(),
            root.display(),
            file.display()
        )
    };
    Settings {
        repository: Some(root),
        file: Some(file),
        external_agents,
        message,
    }
}

/// The root of the git work tree that holds `dir`: the nearest directory,
/// `dir` itself or above, with a `.git` entry (a directory, or the file of a
/// linked worktree or submodule).
fn work_tree_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_settings_line_says_when_discovery_is_off() {
        let repo = tempfile::tempdir().expect("a temporary directory");
        let root = repo.path();
        std::fs::create_dir(root.join(".git")).expect(".git");
        let nested = root.join("src");
        std::fs::create_dir(&nested).expect("src");
        let off = settings(&nested);
        assert_eq!(off.repository.as_deref(), Some(root));
        assert!(!off.external_agents);
        assert!(off.message.contains("does not exist"), "{}", off.message);
        assert!(off.message.contains("add \"external_agents\": true to"));

        std::fs::create_dir(root.join(".entire")).expect(".entire");
        let file = root.join(SETTINGS_FILE);
        for (text, want) in [
            ("{}", "does not set"),
            (r#"{"external_agents": false}"#, "to false, not true"),
            (r#"{"external_agents": "true"}"#, "not true"),
            ("[]", "not a JSON object"),
            ("{", "not valid JSON"),
        ] {
            std::fs::write(&file, text).expect("settings");
            let off = settings(root);
            assert!(!off.external_agents, "{text}");
            assert!(off.message.contains(want), "{text}: {}", off.message);
        }
        std::fs::write(&file, r#"{"external_agents": true}"#).expect("settings");
        assert!(settings(root).external_agents);
    }

    #[test]
    fn info_fields_are_judged_as_the_host_decodes_them() {
        let judge = |v: Value| judge_fields("foo", v).0;
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": "foo"})),
            Verdict::Registered
        );
        assert_eq!(judge(json!({"protocol_version": 1})), Verdict::Registered);
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": "bar"})),
            Verdict::NameDiffers
        );
        assert_eq!(
            judge(json!({"protocol_version": 2})),
            Verdict::ProtocolVersion
        );
        assert_eq!(judge(json!({"name": "foo"})), Verdict::ProtocolVersion);
        assert_eq!(judge(json!({"protocol_version": "1"})), Verdict::InfoFailed);
        assert_eq!(judge(json!({"protocol_version": 1.0})), Verdict::InfoFailed);
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": 7})),
            Verdict::InfoFailed
        );
    }
}
