//! Hooks that can fire and hooks of the user's kept: a wild plugin that moves the user's hook script aside, chains to it
//! and restores it on uninstall passes `--strict`; its twins that overwrite
//! the user's hook, forget to chain, or never move it back do not; and each
//! hook fault of the reference plugin is caught by the generic suite.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{Run, run_json};

fn chainhook() -> PathBuf {
    common::plugin("wild/entire-agent-chainhook")
}

/// The hook-install cases, the only ones these twins change.
const HOOK_CASES: &[&str] = &["--only", "hooks.*"];

/// A copy of the chainhook plugin (with wildbase.py and wildio.py beside it) with `from`
/// replaced by `to` in its source: a faulty twin.
fn twin(dir: &Path, from: &str, to: &str) -> PathBuf {
    twin_of(dir, &[(from, to)])
}

/// A copy of the chainhook plugin with every `(from, to)` replaced.
fn twin_of(dir: &Path, edits: &[(&str, &str)]) -> PathBuf {
    let mut source = fs::read_to_string(chainhook()).expect("chainhook source");
    for (from, to) in edits {
        assert!(source.contains(from), "{from:?} in the chainhook source");
        source = source.replace(from, to);
    }
    for module in ["wildbase.py", "wildio.py"] {
        let base = common::plugin(&format!("wild/{module}"));
        fs::copy(&base, dir.join(module)).expect("copy the wild base");
    }
    let path = dir.join("entire-agent-chainhook");
    fs::write(&path, source).expect("write twin");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    path
}

fn failed_with(run: &Run, id: &str, needle: &str) {
    assert!(
        run.ids("failed").contains(&id.to_string()),
        "{id} fails: {:?}",
        run.ids("failed")
    );
    let messages = run.messages(id);
    assert!(messages.contains(needle), "{needle:?} in {messages}");
}

#[test]
fn a_user_hook_moved_aside_chained_and_restored_passes_strict() {
    let run = run_json(&chainhook(), &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "failures");
    assert_eq!(run.ids("warning"), Vec::<String>::new(), "warnings");
    assert_eq!(run.ids("note"), Vec::<String>::new(), "notes");
    assert_eq!(run.code, 0, "exit code");
    assert!(
        run.ids("passed")
            .contains(&"hooks.fire.reach-entire".to_string())
    );
}

#[test]
fn a_user_hook_overwritten_or_never_moved_back_still_fails() {
    let dir = tempfile::tempdir().expect("dir");
    // The real bug: the user's hook overwritten, nothing kept.
    let overwrites = twin(
        dir.path(),
        "os.rename(path, path + LEGACY)",
        "os.unlink(path)",
    );
    let run = run_json(&overwrites, HOOK_CASES, &[]);
    failed_with(&run, "hooks.user-data.existing-settings", "user data lost");

    let dir = tempfile::tempdir().expect("dir");
    let never_back = twin(
        dir.path(),
        "os.rename(path + LEGACY, path)  # the user's own, exactly as it was",
        "pass",
    );
    let run = run_json(&never_back, HOOK_CASES, &[]);
    failed_with(
        &run,
        "hooks.user-data.existing-settings",
        "is not back at its place",
    );
}

#[test]
fn a_user_hook_moved_aside_but_not_chained_warns() {
    let dir = tempfile::tempdir().expect("dir");
    // Its script runs only `entire hooks`, never the moved user hook.
    let unchained = twin_of(
        dir.path(),
        &[
            ("\"$0{legacy}\"", "\"$0.none\""),
            ("is <name>.legacy", "is elsewhere"),
        ],
    );
    let run = run_json(&unchained, HOOK_CASES, &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "failures");
    assert_eq!(
        run.ids("warning"),
        vec!["hooks.user-data.existing-settings".to_string()]
    );
    assert!(
        run.messages("hooks.user-data.existing-settings")
            .contains("does not name it"),
        "{}",
        run.messages("hooks.user-data.existing-settings")
    );
}

#[test]
fn hooks_that_never_reach_entire_fail() {
    let dir = tempfile::tempdir().expect("dir");
    // The installed script runs the plugin directly, not `entire hooks`.
    let direct = twin(
        dir.path(),
        "| entire hooks chainhook {hook} ||",
        "| entire-agent-chainhook parse-hook --hook {hook} ||",
    );
    let run = run_json(&direct, &["--only", "hooks.fire.*"], &[]);
    failed_with(
        &run,
        "hooks.fire.reach-entire",
        "host-side subcommand directly",
    );

    // A script that takes the payload, exits 0 and calls nothing without a
    // word: whether it fires for its agent's own input cannot be seen here,
    // either way: the one warning of hooks that cannot be seen, never a
    // failure.
    let dir = tempfile::tempdir().expect("dir");
    let quiet = twin(
        dir.path(),
        "| entire hooks chainhook {hook} ||",
        "| true ||",
    );
    let run = run_json(&quiet, &["--only", "hooks.fire.*"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "failures");
    assert_eq!(
        run.ids("warning"),
        vec!["hooks.fire.reach-entire".to_string()]
    );
    assert!(
        run.messages("hooks.fire.reach-entire")
            .contains("cannot be seen here")
    );

    let dir = tempfile::tempdir().expect("dir");
    let other = twin(
        dir.path(),
        "| entire hooks chainhook {hook} ||",
        "| entire hooks claude-code {hook} ||",
    );
    let run = run_json(&other, &["--only", "hooks.fire.*"], &[]);
    failed_with(&run, "hooks.fire.reach-entire", "`entire hooks claude-code");
}

/// Each hook fault of the reference plugin, and the generic case that
/// catches it (without the reference's own case files).
#[test]
fn the_reference_hook_faults_are_caught_by_the_generic_suite() {
    let faults = [
        (
            "parse-hook-wrong-flag",
            "hooks.parse-hook.host-flags",
            "refuses the host's own command line",
        ),
        (
            "hooks-never-call-entire",
            "hooks.fire.reach-entire",
            "host-side subcommand directly",
        ),
        (
            "install-marker-other-agent",
            "hooks.fire.reach-entire",
            "`entire hooks claude-code",
        ),
        (
            "hooks-one-type",
            "hooks.parse-hook.host-flags",
            "none is a TurnStart (2) or TurnEnd (3)",
        ),
        (
            "are-installed-with-user-hooks",
            "hooks.lifecycle.user-hooks-not-installed",
            "not the expected value",
        ),
    ];
    let only = [
        "--only",
        "hooks.fire.*",
        "--only",
        "hooks.parse-hook.host-flags",
        "--only",
        "hooks.lifecycle.user-hooks-not-installed",
    ];
    let clean = run_json(&common::reference(), &only, &[]);
    assert_eq!(
        clean.ids("failed"),
        Vec::<String>::new(),
        "the reference passes"
    );
    for (fault, case, needle) in faults {
        let run = run_json(
            &common::reference(),
            &only,
            &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
        );
        failed_with(&run, case, needle);
    }
    // A marker and no hook at all: whether anything fires cannot be seen
    // here, in either direction: one warning, never a failure.
    let marker = run_json(
        &common::reference(),
        &only,
        &[("ENTIRE_AGENT_REFERENCE_FAULT", "install-marker-only")],
    );
    assert_eq!(marker.ids("failed"), Vec::<String>::new());
    assert!(
        marker
            .ids("warning")
            .contains(&"hooks.fire.reach-entire".to_string())
    );
    assert!(
        marker
            .messages("hooks.fire.reach-entire")
            .contains("agent-conform record")
    );
}
