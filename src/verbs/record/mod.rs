//! `agent-conform record PLUGIN [--out DIR] [--force] [--redact REGEX] --
//! COMMAND...`: captures a real agent session once, as a case file the
//! suite replays in CI forever.
//!
//! The hooks a plugin installs call `entire hooks <agent> <hook-name>` with
//! the agent's payload on stdin; that is the seam. `record` runs COMMAND (the
//! agent, interactive: stdin, stdout and the terminal are its own) with a
//! directory first on its `PATH` holding a shim named `entire` ([`shim`]),
//! which records every such call into a staging directory ([`staging`]).
//! When the agent exits, the calls are redacted ([`redact`]) and written as
//! payloads, transcript snapshots and a case file in the recorded-session
//! format (docs/session-format.md, [`write`](mod@write)), and a summary goes to stderr
//! ([`summary`]), so that stdout stays the agent's. `record` exits with the
//! agent's exit code.

pub mod place;
pub mod redact;
pub mod shim;
pub mod staging;
pub mod summary;
pub mod write;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::verbs::usage::UsageError;
use redact::Redactor;

/// What `record` was asked to do.
#[derive(Debug, Clone)]
pub struct Request {
    /// The plugin binary, absolute.
    pub plugin: PathBuf,
    /// The plugin as the user wrote it (shown in the replay command).
    pub plugin_shown: String,
    /// The output directory.
    pub out: PathBuf,
    /// Replace an earlier recording in `out`.
    pub force: bool,
    /// `--redact` patterns.
    pub redact: Vec<String>,
    /// The agent's command line.
    pub command: Vec<OsString>,
}

/// Runs `record`; returns the agent's exit code.
pub fn run(request: &Request) -> Result<ExitCode, UsageError> {
    let redactor = Redactor::new(&request.redact)?;
    let Some((program, args)) = request.command.split_first() else {
        return Err(UsageError {
            message: "no agent command given after --".into(),
            hint: Some(format!(
                "agent-conform record {} -- <the agent's command, e.g. claude>",
                request.plugin_shown
            )),
        });
    };
    if !cfg!(unix) {
        return Err(UsageError {
            message: "record needs a Unix system: its `entire` shim is an sh script".into(),
            hint: Some("record on Linux or macOS; the recording replays anywhere".into()),
        });
    }
    let info = crate::verbs::init::query_info(&request.plugin)?;
    let agent = agent_name(&request.plugin).unwrap_or_else(|| info.name.clone());
    write::check_free(&request.out, &agent, request.force)?;
    let repo = repo_root().map_err(|err| io_error("cannot find the current directory", err))?;
    let staging = tempfile::Builder::new()
        .prefix("agent-conform-record-")
        .tempdir()
        .map_err(|err| io_error("cannot make the recording's staging directory", err))?;
    let state = staging::State {
        plugin: request.plugin.clone(),
        agent: agent.clone(),
        repo: repo.clone(),
        started_ms: staging::now_ms(),
        env_before: staging::vars(),
    };
    let path_var = prepare(staging.path(), &state)?;
    let status = run_agent(program, args, &path_var)?;
    let calls = staging::calls(&staging.path().join("state"))
        .map_err(|err| io_error("cannot read the recording back", err))?;
    let mut warnings = Vec::new();
    let written = if calls.is_empty() {
        None
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let world = write::world_dirs(&calls, &repo, home.as_deref(), &info.protected_dirs);
        let transcript = write::primary_transcript(&calls);
        let seen = place::Seen {
            plugin: &request.plugin,
            repo: &repo,
            home: home.as_deref(),
            transcript: transcript.as_deref(),
        };
        let place = place::find(&calls, &seen);
        let target = write::Target {
            out: &request.out,
            agent: &agent,
            repo: &repo,
            home,
            started_ms: state.started_ms,
            redactor: &redactor,
            world: &world,
            agent_vars: &info.env,
            place: &place,
        };
        warnings.clone_from(&place.warnings);
        Some(write::write(&calls, &target).map_err(|err| {
            io_error(
                &format!("cannot write the recording to {}", request.out.display()),
                err,
            )
        })?)
    };
    let facts = summary::Facts {
        calls: &calls,
        hook_names: &info.hook_names,
        written: written.as_ref(),
        log: &staging::log_lines(&staging.path().join("state")),
        out_shown: request.out.display().to_string(),
        plugin_shown: request.plugin_shown.clone(),
    };
    eprint!("{}", summary::render(&facts));
    for warning in &warnings {
        eprintln!("agent-conform: record: {warning}");
    }
    Ok(ExitCode::from(status))
}

/// The agent name the host registers the plugin under: its file name
/// without `entire-agent-`.
fn agent_name(plugin: &Path) -> Option<String> {
    let name = plugin.file_name()?.to_string_lossy().into_owned();
    name.strip_prefix("entire-agent-")
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// The repository the agent runs in: git's top level of the current
/// directory, else the directory itself.
fn repo_root() -> std::io::Result<PathBuf> {
    let cwd = std::env::current_dir()?;
    let toplevel = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&cwd)
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|top| !top.is_empty());
    Ok(toplevel.map_or(cwd, PathBuf::from))
}

/// Makes the staging directory (`state/`) and the shim (`bin/entire`);
/// returns the agent's `PATH`: the shim's directory, then the user's.
fn prepare(staging: &Path, state: &staging::State) -> Result<OsString, UsageError> {
    let state_dir = staging.join("state");
    let bin = staging.join("bin");
    let failed = |err| io_error("cannot make the recording's staging directory", err);
    staging::init(&state_dir, state).map_err(failed)?;
    std::fs::create_dir_all(&bin).map_err(failed)?;
    let user_path = std::env::var_os("PATH").unwrap_or_default();
    let real = shim::find_real(&user_path, &bin);
    let me = std::env::current_exe()
        .map_err(|err| io_error("cannot find agent-conform's own executable", err))?;
    let shim = bin.join("entire");
    std::fs::write(&shim, shim::script(&me, &state_dir, real.as_deref())).map_err(failed)?;
    make_executable(&shim).map_err(failed)?;
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&user_path));
    std::env::join_paths(dirs).map_err(|err| UsageError {
        message: format!("cannot put the shim on PATH: {err}"),
        hint: Some("remove the ':' from the temporary directory's path (TMPDIR)".into()),
    })
}

#[cfg(unix)]
fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
}

#[cfg(not(unix))]
fn make_executable(_path: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Runs the agent with inherited stdio and the shim first on `PATH`, and
/// waits for it; returns its exit code (128 + the signal if one ended it).
/// Ctrl-C and Ctrl-\ reach the agent (the terminal signals the whole
/// foreground group); `record` itself outlives them, to write what the
/// session recorded once the agent exits.
fn run_agent(program: &OsString, args: &[OsString], path_var: &OsString) -> Result<u8, UsageError> {
    let mut child = Command::new(program)
        .args(args)
        .env("PATH", path_var)
        .spawn()
        .map_err(|err| UsageError {
            message: format!("cannot run {}: {err}", Path::new(program).display()),
            hint: Some("pass the agent's command after --, as you would run it".into()),
        })?;
    let _ignored = TerminalSignals::ignore();
    let status = child
        .wait()
        .map_err(|err| io_error("lost track of the agent process", err))?;
    Ok(shim::exit_byte(status))
}

/// SIGINT and SIGQUIT ignored by this process while it lives (the agent,
/// already started, keeps its own dispositions).
struct TerminalSignals;

impl TerminalSignals {
    #[cfg(unix)]
    fn ignore() -> TerminalSignals {
        // SAFETY: signal(2) with SIG_IGN installs no handler code; it only
        // changes this process's disposition.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_IGN);
            libc::signal(libc::SIGQUIT, libc::SIG_IGN);
        }
        TerminalSignals
    }

    #[cfg(not(unix))]
    fn ignore() -> TerminalSignals {
        TerminalSignals
    }
}

impl Drop for TerminalSignals {
    fn drop(&mut self) {
        #[cfg(unix)]
        // SAFETY: as above, back to the default disposition.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGQUIT, libc::SIG_DFL);
        }
    }
}

fn io_error(what: &str, err: std::io::Error) -> UsageError {
    UsageError {
        message: format!("{what}: {err}"),
        hint: Some("check the permissions and free space of the directories involved".into()),
    }
}
