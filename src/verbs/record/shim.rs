//! The `entire` the recorded agent finds first on its `PATH`.
//!
//! A plugin's hooks call `entire hooks <agent> <hook-name>` with the agent's
//! payload on stdin (guide, "Hook Installation Patterns"): whoever answers
//! `entire` sees every real payload at the moment the host would. The shim
//! is a two-line `sh` script ([`script`]) that execs agent-conform's hidden
//! `__record-shim` verb ([`main`]), which records the call into the staging
//! directory and then answers as the user's Entire would: by forwarding to
//! the real `entire` found further on `PATH` (stdin, exit code, stdout and
//! stderr unchanged), or, without one, by exiting 0 silently, as the host
//! does when Entire is disabled.
//!
//! Recording never breaks the agent: every error is written to the
//! recording's log, and the call still answers as above.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::staging::{self, Answer, Call, State};
use crate::running::runner::{Invocation, Termination};

/// The host's deadline for `parse-hook` (docs/host.md, "Invocation").
const PARSE_HOOK_TIMEOUT: Duration = crate::host::invocation::CALL_TIMEOUT;

/// The `sh` script named `entire`: execs `agent_conform __record-shim` with
/// the staging directory and the real `entire` (when there is one), and the
/// call's own arguments and stdin. The real `entire` is in the script, not
/// in the staging directory, so that a hook firing after the recording
/// ended still reaches it.
pub fn script(agent_conform: &Path, state: &Path, real: Option<&Path>) -> String {
    let real = real.map_or_else(String::new, |path| format!(" --real {}", quote(path)));
    format!(
        "#!/bin/sh\n# agent-conform record: records every `entire hooks` call, then answers as Entire would.\nexec {} __record-shim --state {}{real} -- \"$@\"\n",
        quote(agent_conform),
        quote(state),
    )
}

/// A path as one `sh` word: single-quoted, with `'` written as `'\''`.
fn quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// `__record-shim`: records the call when it is `entire hooks <agent>
/// <hook>`, then forwards it. Returns the exit code the agent sees.
pub fn main(state_dir: &Path, real: Option<&Path>, args: &[OsString]) -> ExitCode {
    let Some(hook) = hook_call(args) else {
        return other_command(real, args);
    };
    let mut payload = Vec::new();
    if let Err(err) = io::stdin().lock().read_to_end(&mut payload) {
        staging::log(
            state_dir,
            &format!("{hook}: cannot read the payload: {err}"),
        );
    }
    let agent = args[1].to_string_lossy();
    if let Err(err) = record(state_dir, &agent, &hook, &payload) {
        staging::log(state_dir, &format!("{hook}: not recorded: {err}"));
    }
    match real {
        Some(real) => forward(real, args, Some(payload)),
        None => ExitCode::SUCCESS,
    }
}

/// The hook name of `hooks <agent> <hook> ...`; `None` for any other command.
fn hook_call(args: &[OsString]) -> Option<String> {
    match args {
        [verb, _agent, hook, ..] if verb == "hooks" => Some(hook.to_string_lossy().into_owned()),
        _ => None,
    }
}

/// A command other than a hook: the real `entire` runs it with the agent's
/// own stdin; without one it is refused in one line.
fn other_command(real: Option<&Path>, args: &[OsString]) -> ExitCode {
    if let Some(real) = real {
        return forward(real, args, None);
    }
    let shown: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    eprintln!(
        "entire: agent-conform record answers only `entire hooks`, and there is no other entire on PATH to run `entire {}`",
        shown.join(" ")
    );
    ExitCode::FAILURE
}

/// Runs the real `entire` with the same arguments; stdout and stderr are
/// the agent's. `payload` (already read) is written to its stdin; `None`
/// passes the agent's stdin itself.
fn forward(real: &Path, args: &[OsString], payload: Option<Vec<u8>>) -> ExitCode {
    let mut cmd = Command::new(real);
    cmd.args(args);
    if payload.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(err) => {
            eprintln!("entire: cannot run {}: {err}", real.display());
            return ExitCode::FAILURE;
        }
    };
    if let (Some(mut stdin), Some(bytes)) = (child.stdin.take(), payload) {
        // From a thread: an entire that never reads cannot block us.
        std::thread::spawn(move || {
            let _ = stdin.write_all(&bytes);
        });
    }
    match child.wait() {
        Ok(status) => ExitCode::from(exit_byte(status)),
        Err(err) => {
            eprintln!("entire: waiting for {} failed: {err}", real.display());
            ExitCode::FAILURE
        }
    }
}

/// The status as a shell reports it: the code, or 128 + the signal.
pub fn exit_byte(status: std::process::ExitStatus) -> u8 {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return u8::try_from(128 + signal).unwrap_or(255);
        }
    }
    status
        .code()
        .map_or(1, |code| u8::try_from(code & 0xff).unwrap_or(1))
}

/// Records one hook call: the payload, the plugin's answer and, when the
/// event names an existing transcript file, its bytes as they are now.
fn record(state_dir: &Path, agent: &str, hook: &str, payload: &[u8]) -> io::Result<()> {
    let state = staging::state(state_dir)?;
    if agent != state.agent {
        staging::log(
            state_dir,
            &format!(
                "a hook call for agent {agent:?} ({hook}) was forwarded, not recorded: the plugin is {:?}'s",
                state.agent
            ),
        );
        return Ok(());
    }
    let at_ms = staging::now_ms();
    let call_dir = staging::claim(state_dir)?;
    std::fs::write(call_dir.join(staging::PAYLOAD_FILE), payload)?;
    let answer = parse_hook(&state, hook, payload);
    let session_ref = match &answer {
        Answer::Event(event) => event
            .get("session_ref")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_string),
        Answer::Refused(_) => None,
    };
    let snapshot = match &session_ref {
        Some(reference) => snapshot(&state, reference, &call_dir.join(staging::SNAPSHOT_FILE))?,
        None => false,
    };
    let call = Call {
        hook: hook.to_string(),
        at_ms,
        answer,
        session_ref,
        snapshot,
        env: agent_set(&state.env_before, staging::vars()),
    };
    staging::finish(&call_dir, &call)
}

/// Variables a shell or a terminal sets on its own, whatever the agent:
/// not the agent's world.
const NOT_THE_AGENTS: &[&str] = &["PWD", "OLDPWD", "SHLVL", "_", "PATH", "COLUMNS", "LINES"];

/// The variables of `now` that are new or changed since `before` (what the
/// agent set for its hooks), less the shell's own and those the sandbox
/// sets itself (HOME, TMPDIR, ENTIRE_*, ...), which a case file cannot set.
pub fn agent_set(
    before: &BTreeMap<String, String>,
    now: impl IntoIterator<Item = (String, String)>,
) -> BTreeMap<String, String> {
    now.into_iter()
        .filter(|(name, value)| before.get(name) != Some(value))
        .filter(|(name, _)| !NOT_THE_AGENTS.contains(&name.as_str()))
        .filter(|(name, value)| {
            let one = BTreeMap::from([(name.clone(), value.replace("{{", "{ {"))]);
            crate::suite::case::check_env(&one).is_ok()
        })
        .collect()
}

/// Copies the transcript `reference` names, when it is an existing file
/// (relative references are taken from the repository root, the plugin's
/// cwd). Returns whether a snapshot was taken.
fn snapshot(state: &State, reference: &str, to: &Path) -> io::Result<bool> {
    let path = state.repo.join(reference);
    if !path.is_file() {
        return Ok(false);
    }
    std::fs::copy(&path, to)?;
    Ok(true)
}

/// Asks the plugin's `parse-hook` for the payload's event, as the host does:
/// cwd and `ENTIRE_REPO_ROOT` the repository root, the protocol's
/// environment, the payload on stdin, 30 s.
fn parse_hook(state: &State, hook: &str, payload: &[u8]) -> Answer {
    let mut inv = Invocation::new(
        state.plugin.clone(),
        vec!["parse-hook".into(), "--hook".into(), hook.into()],
        state.repo.clone(),
        PARSE_HOOK_TIMEOUT,
    );
    inv.env = host_env(&state.repo);
    inv.stdin = Some(Arc::new(payload.to_vec()));
    let outcome = crate::running::runner::run(&inv);
    match outcome.termination {
        Termination::Exited(Some(0)) => decode_event(&outcome.stdout),
        Termination::Exited(code) => {
            let stderr = String::from_utf8_lossy(&outcome.stderr);
            let why = stderr.trim().lines().next().unwrap_or_default().to_string();
            let code = code.map_or("a signal".to_string(), |c| format!("code {c}"));
            Answer::Refused(
                format!("exited with {code}: {why}")
                    .trim_end_matches(": ")
                    .into(),
            )
        }
        Termination::TimedOut => Answer::Refused("no answer within 30 s".into()),
        Termination::SpawnFailed(why) => Answer::Refused(why),
    }
}

/// The variables the host adds to its environment for every plugin call.
fn host_env(repo: &Path) -> Vec<(String, OsString)> {
    crate::host::invocation::environment(repo)
}

/// `null` (no event) or an event object; anything else is a refusal.
fn decode_event(stdout: &[u8]) -> Answer {
    match serde_json::from_slice::<Value>(stdout) {
        Ok(value @ (Value::Null | Value::Object(_))) => Answer::Event(value),
        Ok(_) => Answer::Refused("printed JSON that is neither an event nor null".into()),
        Err(err) => Answer::Refused(format!("printed no JSON event: {err}")),
    }
}

/// The first executable `entire` on `path_var` outside `skip` (the shim's
/// own directory): the user's Entire, which the shim forwards to.
pub fn find_real(path_var: &std::ffi::OsStr, skip: &Path) -> Option<PathBuf> {
    std::env::split_paths(path_var)
        .filter(|dir| !dir.as_os_str().is_empty() && dir != skip)
        .map(|dir| dir.join("entire"))
        .find(|candidate| {
            std::fs::metadata(candidate).is_ok_and(|meta| {
                meta.is_file() && crate::host::discovery::plugin_path::is_executable(&meta)
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_quotes_every_path() {
        let text = script(
            Path::new("/opt/it's/agent-conform"),
            Path::new("/tmp/state"),
            Some(Path::new("/usr/bin/entire")),
        );
        assert!(
            text.contains(r"exec '/opt/it'\''s/agent-conform' __record-shim --state '/tmp/state' --real '/usr/bin/entire' -- "),
            "{text}"
        );
        assert!(!script(Path::new("/a"), Path::new("/s"), None).contains("--real"));
    }

    #[test]
    fn only_hooks_calls_are_recorded() {
        let args = |list: &[&str]| list.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            hook_call(&args(&["hooks", "foo", "stop"])).as_deref(),
            Some("stop")
        );
        assert_eq!(hook_call(&args(&["hooks", "foo"])), None);
        assert_eq!(hook_call(&args(&["status"])), None);
    }

    #[test]
    fn answers_are_events_null_or_refusals() {
        assert!(matches!(
            decode_event(b"null\n"),
            Answer::Event(Value::Null)
        ));
        assert!(matches!(
            decode_event(br#"{"type": 1}"#),
            Answer::Event(Value::Object(_))
        ));
        assert!(matches!(decode_event(b"[1]"), Answer::Refused(_)));
        assert!(matches!(decode_event(b"nope"), Answer::Refused(_)));
    }
}
