//! What the host does with each `entire-agent-*` on `PATH` (docs/host.md,
//! "Discovery and registration"): the first executable file of a name is
//! probed with `info` and registered when `info` answers protocol 1; the
//! rest are shadowed, unusable, or never run. Files found only through a
//! relative `PATH` entry are never run either: the host scans absolute
//! entries only.
//!
//! The judgement comes in two halves around the one call the host makes:
//! [`before_info`] decides from the file alone (and says which files to
//! probe: those left [`Registration::Registered`]), [`after_info`] reads
//! the probe's answer; [`finish`] then adds what the newest host lists as
//! broken and what differs by release. Making the calls is `execute`'s.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::host::discovery::{self, plugin_path::Entry, plugin_path::Kind};
use crate::host::invocation::PROTOCOL_VERSION;
use crate::host::range::HostRange;
use crate::host::releases::Fact;
use crate::outcome::discover::{Found, Registration};
use crate::running::runner::{Outcome, Termination};

/// Whether the host registers the agent.
pub fn registers(registration: Registration) -> bool {
    matches!(
        registration,
        Registration::Registered | Registration::NameDiffers
    )
}

/// Whether the newest host lists such a file under "broken external
/// agents" ("The host of September 2026", "Non-usable plugins are
/// listed"): found, but not loadable.
pub fn broken(registration: Registration) -> bool {
    matches!(
        registration,
        Registration::NotExecutable
            | Registration::Directory
            | Registration::InfoFailed
            | Registration::InfoTimedOut
            | Registration::ProtocolVersion
    )
}

/// `PATH` as the judged releases search it: the managed plugin directory
/// first where they put it there (0.6.1 and newer, "Binary path").
pub fn searched_path(path_var: &OsStr, hosts: &HostRange, managed_dir: Option<&Path>) -> OsString {
    let Some(dir) = managed_dir else {
        return path_var.to_owned();
    };
    if !hosts.with_fact(Fact::ManagedPluginDir).any() {
        return path_var.to_owned();
    }
    let dirs = std::iter::once(dir.to_path_buf()).chain(std::env::split_paths(path_var));
    std::env::join_paths(dirs).unwrap_or_else(|_| path_var.to_owned())
}

/// What the host decides before running anything, for every entry of a
/// `PATH` scan in order: [`Registration::Registered`] means "probe it with
/// `info`" ([`after_info`] then decides).
///
/// A file of a relative entry's directory that an absolute entry also
/// lists is found by the host there: only that one is kept.
pub fn before_info(mut entries: Vec<Entry>, hosts: &HostRange) -> Vec<Found> {
    let absolute: HashSet<PathBuf> = entries
        .iter()
        .filter(|e| e.relative_entry.is_none())
        .map(|e| e.path.clone())
        .collect();
    entries.retain(|e| e.relative_entry.is_none() || !absolute.contains(&e.path));
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| judge_statically(e, &entries[..i], hosts))
        .collect()
}

/// One entry, judged from the file alone, with the entries before it on
/// `PATH` (which shadow it when they hold an executable of its name).
fn judge_statically(entry: &Entry, earlier: &[Entry], hosts: &HostRange) -> Found {
    let name = entry.name.clone().unwrap_or_default();
    let found = |registration: Registration, reason: String| Found {
        name: name.clone(),
        path: entry.path.clone(),
        registration,
        registered: registers(registration),
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
        return found(Registration::RelativePath, reason);
    }
    let Some(agent) = &entry.name else {
        let reason = "the file name has no agent name after entire-agent-".to_string();
        return found(Registration::NoName, reason);
    };
    if let Some((registration, reason)) = unrunnable(entry) {
        return found(registration, reason);
    }
    let scope = discovery::built_in(agent).map(|b| hosts.built_in(b));
    if let Some(scope) = scope.filter(|s| s.everywhere()) {
        let reason = format!(
            "{}, {agent:?} is the name of an agent built into the host, which never runs this \
             file; rename it to entire-agent-<another name>",
            scope.prefix()
        );
        return found(Registration::BuiltIn, reason);
    }
    let winner = earlier.iter().find(|e| {
        e.name.as_ref() == Some(agent) && e.kind == Kind::Executable && e.relative_entry.is_none()
    });
    if let Some(winner) = winner {
        let reason = format!(
            "shadowed by {}, earlier on PATH, which the host runs instead",
            winner.path.display()
        );
        return found(Registration::Shadowed, reason);
    }
    found(Registration::Registered, String::new())
}

/// Why the host cannot run the file at all, when it cannot: a directory,
/// no execute bit, unreadable.
fn unrunnable(entry: &Entry) -> Option<(Registration, String)> {
    match &entry.kind {
        Kind::Directory => {
            let reason = "a directory, not an executable; the host reports it unusable";
            Some((Registration::Directory, reason.to_string()))
        }
        Kind::NotExecutable => {
            let reason = format!(
                "no execute bit, so the host cannot run it (chmod +x {})",
                entry.path.display()
            );
            Some((Registration::NotExecutable, reason))
        }
        Kind::NotAProgram => {
            let dir = entry.path.parent().unwrap_or(&entry.path).display();
            let reason = format!(
                "not a program (no execute bit, and it starts with neither #! nor an \
                 executable header: a build artefact?); the host never runs it, but \
                 reports it unusable (the newest lists it as broken): move it out of {dir}"
            );
            Some((Registration::NotExecutable, reason))
        }
        Kind::Unreadable(err) => {
            let reason = format!("cannot be read ({err}), so the host cannot run it");
            Some((Registration::NotExecutable, reason))
        }
        Kind::Executable => None,
    }
}

/// Records what the host makes of the `info` call's `outcome`, made with
/// the deadline `timeout`.
pub fn after_info(found: &mut Found, timeout: Duration, outcome: &Outcome) {
    let (registration, reason, info) = judge_info(&found.name, timeout, outcome);
    found.registration = registration;
    found.registered = registers(registration);
    found.reason = reason;
    found.info = info;
}

/// Records that `info` could not be called: agent-conform could not make
/// the sandbox to call it in (`why`). Not the plugin's doing, but the host
/// was not shown it registers either.
pub fn not_probed(found: &mut Found, why: &str) {
    found.registration = Registration::InfoFailed;
    found.registered = false;
    found.reason = format!("agent-conform could not make a sandbox to run info in: {why}");
}

/// The host's decision on an `info` answer.
fn judge_info(
    name: &str,
    timeout: Duration,
    outcome: &Outcome,
) -> (Registration, String, Option<Value>) {
    let failed = |reason: String| (Registration::InfoFailed, reason, None);
    match &outcome.termination {
        Termination::TimedOut => {
            let reason = format!(
                "info did not answer within {} s; the host gives it 10 s and then skips the plugin",
                timeout.as_secs_f64()
            );
            return (Registration::InfoTimedOut, reason, None);
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
fn judge_fields(name: &str, info: Value) -> (Registration, String, Option<Value>) {
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
        return (Registration::InfoFailed, reason, Some(info));
    };
    if version.to_string() != PROTOCOL_VERSION {
        let reason = format!(
            "info declares protocol_version {version}; the host speaks {PROTOCOL_VERSION} and \
             does not register it"
        );
        return (Registration::ProtocolVersion, reason, Some(info));
    }
    match info.get("name") {
        None | Some(Value::Null) => {}
        Some(Value::String(n)) if n == name => {}
        Some(Value::String(n)) => {
            let reason = format!(
                "registered as {name:?} (the file name); info.name is {n:?}, which the host \
                 ignores with a warning"
            );
            return (Registration::NameDiffers, reason, Some(info));
        }
        Some(other) => {
            let reason =
                format!("info's name is {other}, which the host cannot decode as a string");
            return (Registration::InfoFailed, reason, Some(info));
        }
    }
    let reason = format!("info answered protocol {PROTOCOL_VERSION}; the host registers {name:?}");
    (Registration::Registered, reason, Some(info))
}

/// The last of the judgement, once every probe has answered: whether the
/// newest host lists the entry as broken, and what differs by release.
pub fn finish(found: &mut Found, hosts: &HostRange, managed_dir: Option<&Path>) {
    found.broken = broken(found.registration);
    caveats(found, hosts, managed_dir);
}

/// What differs by release for one entry: a name built in on some of the
/// releases judged only, a file found in the managed directory that older
/// releases do not search.
fn caveats(found: &mut Found, hosts: &HostRange, managed_dir: Option<&Path>) {
    if let Some(built_in) = discovery::built_in(&found.name) {
        let scope = hosts.built_in(built_in);
        if scope.any() && !scope.everywhere() {
            found.caveats.push(format!(
                "{}, `{}` is a built-in agent: this file is never run there",
                scope.prefix(),
                found.name
            ));
        }
    }
    let managed = hosts.with_fact(Fact::ManagedPluginDir);
    let in_managed = managed_dir.is_some_and(|dir| found.path.parent() == Some(dir));
    if in_managed && !managed.everywhere() {
        found.caveats.push(format!(
            "found in the host's managed plugin directory, which {} put first on PATH; on \
             entire {} it is not searched",
            managed.prefix(),
            managed.elsewhere()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn info_fields_are_judged_as_the_host_decodes_them() {
        let judge = |v: Value| judge_fields("foo", v).0;
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": "foo"})),
            Registration::Registered
        );
        assert_eq!(
            judge(json!({"protocol_version": 1})),
            Registration::Registered
        );
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": "bar"})),
            Registration::NameDiffers
        );
        assert_eq!(
            judge(json!({"protocol_version": 2})),
            Registration::ProtocolVersion
        );
        assert_eq!(judge(json!({"name": "foo"})), Registration::ProtocolVersion);
        assert_eq!(
            judge(json!({"protocol_version": "1"})),
            Registration::InfoFailed
        );
        assert_eq!(
            judge(json!({"protocol_version": 1.0})),
            Registration::InfoFailed
        );
        assert_eq!(
            judge(json!({"protocol_version": 1, "name": 7})),
            Registration::InfoFailed
        );
    }
}
