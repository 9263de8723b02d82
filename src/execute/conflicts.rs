//! The conflicts between plugins installed together (the rules are
//! [`crate::host::conflicts`]): one `info.type`, equal or nested session
//! directories, and hook files where uninstalling one plugin removes the
//! other's hooks. Run after the plugins' own suites, and by `discover`;
//! every call is made in a sandbox, never in the user's repository.
//!
//! The hook check installs each plugin with `hooks` alone first, to learn
//! which files it writes; only the pairs that write a file in common are
//! then played in one shared sandbox: install A, install B, uninstall A,
//! after which B's entries and B's `are-hooks-installed` answer must be as
//! they were.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::host::conflicts::{self as rules, SEVERITY};
use crate::judge::conflicts::{self as hooks, Files};
use crate::outcome::many::{Conflict, ConflictKind};
use crate::running::runner::{self, Invocation, Termination};
use crate::running::sandbox::{self, Sandbox};

/// A plugin to check against the others.
#[derive(Debug, Clone)]
pub struct Member {
    /// The agent name the host registers it under.
    pub name: String,
    /// The binary (absolute).
    pub path: PathBuf,
    /// Its `info`; a plugin without one is left out.
    pub info: Option<Value>,
}

/// How to make the calls.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Deadline of each call.
    pub timeout: Duration,
    /// Where the sandboxes are made.
    pub sandbox_base: PathBuf,
    /// Confine the plugins' writes to the sandbox.
    pub confine: bool,
    /// The most a call may write, in bytes.
    pub max_write: u64,
}

/// Every conflict between the members, in pair order.
pub fn check(members: &[Member], settings: &Settings) -> Vec<Conflict> {
    let members: Vec<&Member> = members.iter().filter(|m| m.info.is_some()).collect();
    if members.len() < 2 {
        return Vec::new();
    }
    let mut conflicts = same_types(&members);
    conflicts.extend(session_dirs(&members, settings));
    conflicts.extend(shared_hooks(&members, settings));
    conflicts
}

fn conflict(kind: ConflictKind, a: &str, b: &str, message: String) -> Conflict {
    Conflict {
        kind,
        plugins: [a.to_string(), b.to_string()],
        severity: SEVERITY,
        message,
    }
}

/// Every pair `(i, j)`, `i < j`.
fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
}

fn same_types(members: &[&Member]) -> Vec<Conflict> {
    let type_of = |m: &Member| -> String {
        // The host decodes with Go: a missing or non-string type is "".
        let info = m.info.as_ref();
        info.and_then(|i| i.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    pairs(members.len())
        .filter_map(|(i, j)| {
            let (a, b) = (members[i], members[j]);
            let (ta, tb) = (type_of(a), type_of(b));
            rules::same_type(&ta, &tb).then(|| {
                conflict(
                    ConflictKind::Type,
                    &a.name,
                    &b.name,
                    rules::type_message(&a.name, &b.name, &ta),
                )
            })
        })
        .collect()
}

fn session_dirs(members: &[&Member], settings: &Settings) -> Vec<Conflict> {
    let Some(sandbox) = make_sandbox("conflicts-sessions", settings) else {
        return Vec::new();
    };
    let repo = sandbox.repo().to_string_lossy().into_owned();
    let dirs: Vec<Option<PathBuf>> = members
        .iter()
        .map(|m| {
            let args = vec![
                "get-session-dir".to_string(),
                "--repo-path".to_string(),
                repo.clone(),
            ];
            let answer = json_answer(&call(m, &sandbox, args, settings))?;
            let dir = answer.get("session_dir")?.as_str()?;
            (!dir.is_empty()).then(|| PathBuf::from(dir))
        })
        .collect();
    let mut conflicts = Vec::new();
    for (i, j) in pairs(members.len()) {
        let (Some(da), Some(db)) = (&dirs[i], &dirs[j]) else {
            continue;
        };
        let (a, b) = (members[i], members[j]);
        if let Some(mut overlap) = rules::session_overlap((&a.name, da), (&b.name, db)) {
            let shown = |dir: &PathBuf| shown_in(&sandbox, dir);
            overlap.shared = shown(&overlap.shared);
            let message = rules::overlap_message(&overlap, &shown(da), &shown(db));
            conflicts.push(conflict(
                ConflictKind::SessionDir,
                &a.name,
                &b.name,
                message,
            ));
        }
    }
    conflicts
}

/// A path of the sandbox as the report shows it: `<repo>/...`, `~/...`.
fn shown_in(sandbox: &Sandbox, path: &std::path::Path) -> PathBuf {
    for (top, label) in [(sandbox.repo(), "<repo>"), (sandbox.home(), "~")] {
        if let Ok(rest) = path.strip_prefix(&top) {
            return PathBuf::from(label).join(rest);
        }
    }
    path.to_path_buf()
}

fn declares_hooks(m: &Member) -> bool {
    m.info
        .as_ref()
        .and_then(|i| i.pointer("/capabilities/hooks"))
        == Some(&Value::Bool(true))
}

fn shared_hooks(members: &[&Member], settings: &Settings) -> Vec<Conflict> {
    let with_hooks: Vec<&Member> = members
        .iter()
        .copied()
        .filter(|m| declares_hooks(m))
        .collect();
    let written: Vec<Vec<String>> = with_hooks
        .iter()
        .map(|m| written_alone(m, settings))
        .collect();
    let mut conflicts = Vec::new();
    for (i, j) in pairs(with_hooks.len()) {
        if !written[i].iter().any(|f| written[j].contains(f)) {
            continue;
        }
        for (a, b) in [
            (with_hooks[i], with_hooks[j]),
            (with_hooks[j], with_hooks[i]),
        ] {
            let lost = uninstall_one(a, b, settings);
            if !lost.is_empty() {
                let message = rules::hooks_message(&a.name, &b.name, &lost);
                conflicts.push(conflict(ConflictKind::Hooks, &a.name, &b.name, message));
            }
        }
    }
    conflicts
}

/// The files a plugin's install-hooks writes, installed alone.
fn written_alone(m: &Member, settings: &Settings) -> Vec<String> {
    let Some(sandbox) = make_sandbox("conflicts-hooks", settings) else {
        return Vec::new();
    };
    let before = hooks::files(&sandbox);
    if !succeeded(&call(m, &sandbox, words(&["install-hooks"]), settings)) {
        return Vec::new();
    }
    hooks::touched(&before, &hooks::files(&sandbox))
}

/// Installs `a`, then `b`, then uninstalls `a`, in one sandbox: what of `b`'s
/// hooks that took with it (empty when nothing, or when a call failed: the
/// plugins' own suites report that).
fn uninstall_one(a: &Member, b: &Member, settings: &Settings) -> Vec<String> {
    let Some(sandbox) = make_sandbox("conflicts-hooks", settings) else {
        return Vec::new();
    };
    let run = |m: &Member, sub: &str| call(m, &sandbox, words(&[sub]), settings);
    if !succeeded(&run(a, "install-hooks")) {
        return Vec::new();
    }
    let first: Files = hooks::files(&sandbox);
    if !succeeded(&run(b, "install-hooks")) {
        return Vec::new();
    }
    let both = hooks::files(&sandbox);
    let answer_before = installed(&run(b, "are-hooks-installed"));
    if !succeeded(&run(a, "uninstall-hooks")) {
        return Vec::new();
    }
    let mut lost = hooks::lost_entries(&first, &both, &hooks::files(&sandbox));
    let answer_after = installed(&run(b, "are-hooks-installed"));
    if answer_before != answer_after {
        lost.push(format!(
            "{}'s are-hooks-installed answered {} before and {} after",
            b.name,
            show(answer_before),
            show(answer_after)
        ));
    }
    lost
}

fn show(answer: Option<bool>) -> &'static str {
    match answer {
        Some(true) => "true",
        Some(false) => "false",
        None => "nothing readable",
    }
}

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn make_sandbox(prefix: &str, settings: &Settings) -> Option<Sandbox> {
    let mut sandbox = Sandbox::create(prefix, &settings.sandbox_base).ok()?;
    if settings.confine {
        sandbox.confine().ok()?;
    }
    Some(sandbox)
}

/// One call of a plugin in the sandbox, with the host's limits.
fn call(m: &Member, sandbox: &Sandbox, args: Vec<String>, settings: &Settings) -> runner::Outcome {
    let mut inv = Invocation::new(m.path.clone(), args, sandbox.repo(), settings.timeout);
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    inv.confine = sandbox.confinement().cloned();
    inv.guard = Some(sandbox.guard(settings.max_write));
    runner::run(&inv)
}

fn succeeded(outcome: &runner::Outcome) -> bool {
    matches!(outcome.termination, Termination::Exited(Some(0)))
}

fn json_answer(outcome: &runner::Outcome) -> Option<Value> {
    if !succeeded(outcome) {
        return None;
    }
    crate::host::decoding::decode_host_json(&outcome.stdout).ok()
}

fn installed(outcome: &runner::Outcome) -> Option<bool> {
    json_answer(outcome)?.get("installed")?.as_bool()
}

/// The members of a run: each report's plugin, its name and `info`.
pub fn members(reports: &[crate::outcome::results::RunReport]) -> Vec<Member> {
    reports
        .iter()
        .map(|r| Member {
            name: crate::outcome::many::plugin_name(r),
            path: r.plugin.clone(),
            info: r.info.clone(),
        })
        .collect()
}
