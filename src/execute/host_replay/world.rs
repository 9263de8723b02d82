//! The replay's world and its calls: a sandbox set up as a user sets it up
//! (HOME and the git identity inside it, the plugin's directory and the
//! host's on `PATH`, no terminal, no telemetry, no update check), and every
//! call (`entire`, `git`, the plugin's own `parse-hook` asked for a hook's
//! Event type) made through [`crate::running::runner`] with a deadline,
//! confined to the sandbox where the kernel allows.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::host::replay::USER_ENV;
use crate::outcome::host_replay::HostStep;
use crate::running::runner::{self, Invocation, Outcome, Termination};
use crate::running::sandbox::{self, Sandbox};

/// The deadline of each `entire` or `git` call: a commit runs the host's
/// git hooks, which call the plugin several times (fifth pass: a preparer
/// of 20 s made a commit take 61 s).
pub(super) const HOST_TIMEOUT: Duration = Duration::from_secs(90);

/// The sandbox and how every call of the replay runs in it.
pub(super) struct World {
    /// The sandbox (repository, HOME, scratch).
    pub sandbox: Sandbox,
    /// The host binary.
    pub host: PathBuf,
    /// The plugin binary.
    pub plugin: PathBuf,
    /// The user's variables (see [`World::user_env`]).
    env: Vec<(String, OsString)>,
    /// Inherited variables removed.
    env_remove: Vec<String>,
    /// Each command so far.
    pub steps: Vec<HostStep>,
}

/// One call's answer.
pub(super) struct Said {
    /// The exit code, `None` when it did not exit on its own.
    pub code: Option<i32>,
    /// Its stdout.
    pub stdout: Vec<u8>,
    /// The first line of its stderr.
    pub first_err: String,
}

impl Said {
    /// Exited 0.
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
}

impl World {
    /// Makes the sandbox under `base` and sets it up as a user does: a git
    /// identity in the sandbox's HOME, and the repository's first commit.
    pub fn new(base: &Path, host: &Path, plugin: &Path, confine: bool) -> std::io::Result<World> {
        let mut sandbox = Sandbox::create("host-replay", base)?;
        if confine {
            sandbox.confine()?;
        }
        let gitconfig = "[user]\n\tname = A User\n\temail = user@example.invalid\n\
                         [init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n";
        std::fs::write(sandbox.home().join(".gitconfig"), gitconfig)?;
        let env = World::user_env(&sandbox, host, plugin);
        // Git's variables would point git elsewhere; the host's own
        // variables for a plugin are the host's to set.
        let mut env_remove = sandbox::env_remove();
        env_remove.extend(
            crate::host::invocation::environment(&sandbox.repo())
                .into_iter()
                .map(|(k, _)| k),
        );
        Ok(World {
            sandbox,
            host: host.to_path_buf(),
            plugin: plugin.to_path_buf(),
            env,
            env_remove,
            steps: Vec::new(),
        })
    }

    /// The user's environment: the sandbox's HOME, XDG and TMPDIR, without
    /// the variables the host itself sets for a plugin, in the replay's
    /// zone, with [`USER_ENV`] and `PATH` = the plugin's directory, the
    /// host's, then the inherited one.
    fn user_env(sandbox: &Sandbox, host: &Path, plugin: &Path) -> Vec<(String, OsString)> {
        let plugin_vars: Vec<String> = crate::host::invocation::environment(&sandbox.repo())
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let mut env: Vec<(String, OsString)> = sandbox
            .env()
            .into_iter()
            .filter(|(k, _)| !plugin_vars.contains(k))
            .collect();
        let zone = sandbox::tz(crate::host::clock::REPLAY_ZONE);
        for (key, value) in &mut env {
            if key == crate::host::clock::TZ_VAR {
                *value = zone.clone().into();
            }
        }
        env.extend(
            USER_ENV
                .iter()
                .map(|(k, v)| (k.to_string(), OsString::from(v))),
        );
        let mut dirs: Vec<PathBuf> = [plugin, host]
            .iter()
            .filter_map(|p| p.parent().map(Path::to_path_buf))
            .collect();
        dirs.extend(
            std::env::var_os("PATH")
                .iter()
                .flat_map(std::env::split_paths),
        );
        if let Ok(path) = std::env::join_paths(dirs) {
            env.push(("PATH".into(), path));
        }
        env
    }

    /// Runs `program` with `args` in the repository (`stdin`, if any),
    /// recorded as a step `what`.
    fn call(
        &mut self,
        what: &str,
        program: PathBuf,
        args: Vec<String>,
        stdin: Option<Vec<u8>>,
    ) -> Said {
        let repo = self.sandbox.repo();
        let mut inv = Invocation::new(program, args, repo, HOST_TIMEOUT);
        inv.env = self.env.clone();
        inv.env_remove = self.env_remove.clone();
        inv.confine = self.sandbox.confinement().cloned();
        inv.stdin = stdin.map(Arc::new);
        let outcome = runner::run(&inv);
        self.steps.push(step(what, &inv, &outcome));
        Said {
            code: outcome.exit_code(),
            first_err: first_line(&outcome),
            stdout: outcome.stdout,
        }
    }

    /// `entire <args>`.
    pub fn entire(&mut self, what: &str, args: Vec<String>, stdin: Option<Vec<u8>>) -> Said {
        let host = self.host.clone();
        self.call(what, host, args, stdin)
    }

    /// `git <args>`, as the user runs it.
    pub fn git(&mut self, what: &str, args: &[&str]) -> Said {
        let args = args.iter().map(|a| a.to_string()).collect();
        self.call(what, PathBuf::from("git"), args, None)
    }

    /// The plugin's own `parse-hook --hook <hook>` with `payload`: asked
    /// by the harness, not by the host, for the hook's Event type.
    pub fn event_type(&mut self, hook: &str, payload: Vec<u8>) -> Option<i64> {
        let args = vec!["parse-hook".to_string(), "--hook".into(), hook.into()];
        let mut inv = Invocation::new(self.plugin.clone(), args, self.sandbox.repo(), HOST_TIMEOUT);
        inv.env = self.sandbox.env();
        inv.env_remove = self.env_remove.clone();
        inv.confine = self.sandbox.confinement().cloned();
        inv.stdin = Some(Arc::new(payload));
        let outcome = runner::run(&inv);
        let event: serde_json::Value = serde_json::from_slice(&outcome.stdout).ok()?;
        event.get("type")?.as_i64()
    }

    /// Every file the agent's config may be in: under the repository
    /// (not `.git`, not the host's `.entire`) and HOME (not the git
    /// identity), up to 1 MiB each.
    pub fn config_files(&self) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let skip = [".git", ".entire", ".gitconfig"];
        let mut dirs = vec![self.sandbox.repo(), self.sandbox.home()];
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if skip.iter().any(|s| entry.file_name() == *s) {
                    continue;
                }
                match entry.file_type() {
                    Ok(t) if t.is_dir() => dirs.push(path),
                    Ok(t) if t.is_file() && entry.metadata().is_ok_and(|m| m.len() <= 1 << 20) => {
                        found.push(path)
                    }
                    _ => {}
                }
            }
        }
        found.sort();
        found
    }
}

/// The step as the report shows it.
fn step(what: &str, inv: &Invocation, outcome: &Outcome) -> HostStep {
    let program = inv
        .program
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut command = program;
    for arg in &inv.args {
        command.push(' ');
        command.push_str(&crate::outcome::repro::quote(arg));
    }
    if inv.stdin.is_some() {
        command.push_str(" < payload");
    }
    let termination = match &outcome.termination {
        Termination::Exited(Some(_)) => "exited".to_string(),
        Termination::Exited(None) => "signal".to_string(),
        Termination::TimedOut => "timed-out".to_string(),
        Termination::SpawnFailed(why) => why.clone(),
    };
    let stderr: Vec<String> = String::from_utf8_lossy(&outcome.stderr)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(4)
        .map(|l| l.chars().take(200).collect())
        .collect();
    HostStep {
        what: what.to_string(),
        command,
        exit_code: outcome.exit_code(),
        termination,
        stderr: stderr.join("\n"),
        ms: outcome.elapsed.as_millis() as u64,
    }
}

/// The first non-empty line of a call's stderr (or how it ended).
fn first_line(outcome: &Outcome) -> String {
    let text = String::from_utf8_lossy(&outcome.stderr);
    match text.lines().find(|l| !l.trim().is_empty()) {
        Some(line) => line.chars().take(200).collect(),
        None => match &outcome.termination {
            Termination::TimedOut => "timed out".to_string(),
            Termination::SpawnFailed(why) => why.clone(),
            _ => "nothing on stderr".to_string(),
        },
    }
}
