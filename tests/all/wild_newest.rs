//! The newest host's rules (docs/host.md "The
//! newest host source (read December 2026)"): a wild plugin whose session
//! directory is its own inside the git dir passes `--strict`, in plain
//! repositories, linked worktrees and submodules; and the reference's
//! faults of the newest rules fail exactly their cases.

use crate::common;

use common::run_json;

#[test]
fn a_session_directory_of_its_own_inside_the_git_dir_passes_strict() {
    // docs/host.md "The session directory claims what is not the
    // plugin's": a directory of the plugin's own inside .git owns only its
    // own subtree. The plugin asks git for its git dir, so it works where
    // .git is a file (linked worktrees, submodules) too.
    let plugin = common::plugin("wild/entire-agent-gitsessions");
    let run = run_json(&plugin, &["--strict"], &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new(), "failures");
    assert_eq!(run.ids("warning"), Vec::<String>::new(), "warnings");
    assert_eq!(run.ids("note"), Vec::<String>::new(), "notes");
    assert_eq!(run.code, 0, "exit code");
    let passed = run.ids("passed");
    for id in [
        "core.get-session-dir.non-empty",
        "session.agent",
        "session.agent.linked-worktree",
        "session.agent.submodule",
    ] {
        assert!(passed.iter().any(|p| p == id), "{id} passes: {passed:?}");
    }
}

/// The cases a fault of the reference fails, with the reference's own cases.
fn failed_by(fault: &str, only: &str) -> Vec<String> {
    let cases = common::root().join("reference-plugin/conformance");
    let cases = cases.to_string_lossy();
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", fault)];
    let run = run_json(
        &common::reference(),
        &["--cases", &cases, "--only", only],
        &env,
    );
    run.ids("failed")
}

#[test]
fn a_type_from_the_hook_environment_fails() {
    // "Silent loss, since 0.6.0": a type that varies drops events silently.
    assert_eq!(
        failed_by("type-from-env", "discovery.info-type-stable"),
        ["discovery.info-type-stable"]
    );
    assert_eq!(
        failed_by("", "discovery.info-type-stable"),
        Vec::<String>::new()
    );
}

#[test]
fn session_files_named_by_timestamp_fail_on_the_newest_hosts_only() {
    // "Resume and rewind (newest variants)": ':' in a component is refused.
    assert_eq!(
        failed_by("session-file-timestamp", "core.resolve-session-file.*"),
        ["core.resolve-session-file.host-names"]
    );
    let cases = common::root().join("reference-plugin/conformance");
    let env = [("ENTIRE_AGENT_REFERENCE_FAULT", "session-file-timestamp")];
    let older = run_json(
        &common::reference(),
        &[
            "--cases",
            &cases.to_string_lossy(),
            "--only",
            "core.resolve-session-file.*",
            "--host-version",
            "<0.8",
        ],
        &env,
    );
    assert_eq!(older.ids("failed"), Vec::<String>::new());
}

#[test]
fn info_writing_into_the_work_tree_fails() {
    assert_eq!(
        failed_by("info-writes-cwd", "core.info.read-only"),
        ["core.info.read-only"]
    );
}

#[test]
fn a_session_id_with_a_leading_dash_fails_on_the_newest_hosts_only() {
    // "Session and tool ids (newest variants)": the June host had no dash
    // rule, the newest variants refuse it on every event.
    let plugin = common::plugin("broken/entire-agent-dash-session-id");
    let run = run_json(&plugin, &["--only", "hooks.parse-hook.payload"], &[]);
    assert_eq!(run.ids("failed"), ["hooks.parse-hook.payload"]);
    let message = run.messages("hooks.parse-hook.payload");
    assert!(message.contains("starts with -"), "{message}");
    let june = run_json(
        &plugin,
        &[
            "--only",
            "hooks.parse-hook.payload",
            "--host-version",
            "<0.8",
        ],
        &[],
    );
    assert_eq!(june.ids("failed"), Vec::<String>::new());
}
