//! Plugins in the wild (docs/host.md "Plugins in the wild"): one
//! independent test plugin per pattern of a working public plugin, under
//! tests/plugins/wild/ (Python) and tests/plugins/go/ (Go: `super::go`).
//! Each must pass without `--strict`, with exactly the
//! warnings and notes its test lists, so that a new false positive fails CI;
//! the plugin whose `write-session` always fails must fail exactly that.
//!
//! The helpers of the `wild_*` tests: the plugins and their cases, the runs
//! that must pass with exactly these warnings and notes, and the faulty twins
//! (the reference plugin with one of its faults) that must fail.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{Run, run_json};

/// A plugin under tests/plugins/wild.
pub fn wild(name: &str) -> PathBuf {
    super::plugin(&format!("wild/entire-agent-{name}"))
}

/// The cases directory of a plugin under tests/plugins/wild.
pub fn cases(name: &str) -> String {
    super::plugin(&format!("wild/{name}-cases"))
        .to_string_lossy()
        .into_owned()
}

pub fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// Runs a plugin without --strict and checks: no failure, exit 0, and
/// exactly these warnings and notes; returns the run, for the test's other
/// checks. The run is shared (see [`super::shared`]): the same plugin and
/// arguments are run once per `cargo test`, here and in
/// `tests/all/independence.rs`.
pub fn passes_with(name: &str, args: &[&str], warnings: &[&str], notes: &[&str]) -> Run {
    passes_as(&wild(name), name, args, warnings, notes)
}

/// [`passes_with`] for the Go plugin `entire-agent-<name>` of
/// tests/plugins/go; `None` where `go` is not on `PATH` (said in one line).
pub fn go_passes_with(name: &str, args: &[&str], warnings: &[&str], notes: &[&str]) -> Option<Run> {
    let plugin = super::go::go_plugin(name, None)?;
    Some(passes_as(&plugin, name, args, warnings, notes))
}

/// [`passes_with`] for the plugin at `plugin`, named `name` in messages.
fn passes_as(plugin: &Path, name: &str, args: &[&str], warnings: &[&str], notes: &[&str]) -> Run {
    let run = super::shared::shared_run(plugin, args, &[]);
    let failed = run.ids("failed");
    assert_eq!(failed, Vec::<String>::new(), "{name} {args:?}: failures");
    assert_eq!(
        outcome(&run, "warning"),
        set(warnings),
        "{name} {args:?}: warnings"
    );
    assert_eq!(outcome(&run, "note"), set(notes), "{name} {args:?}: notes");
    assert_eq!(run.code, 0, "{name} {args:?}: exit code");
    assert!(
        run.ids("passed").len() > 20,
        "{name} {args:?}: most cases pass"
    );
    run
}

pub fn outcome(run: &Run, kind: &str) -> BTreeSet<String> {
    run.ids(kind).into_iter().collect()
}

/// The names of the steps of a case that carry a failure finding.
pub fn failed_steps(run: &Run, id: &str) -> Vec<String> {
    let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
    let steps = cases
        .iter()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default());
    steps
        .filter(|s| {
            s["findings"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f["severity"] == "failure"))
        })
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// Runs the reference plugin with one of its faults, without --strict, and
/// checks that these cases fail, one of them with `needle` in its messages:
/// the faulty twin of a pattern that passes.
pub fn twin_fails(fault: &str, failing: &[&str], needle: &str) {
    let run = run_json(
        &super::reference(),
        &[],
        &[("ENTIRE_AGENT_REFERENCE_FAULT", fault)],
    );
    let failed = outcome(&run, "failed");
    for id in failing {
        assert!(
            failed.contains(*id),
            "{fault}: {id} fails; failed: {failed:?}"
        );
    }
    let messages: String = failing.iter().map(|id| run.messages(id)).collect();
    assert!(
        messages.contains(needle),
        "{fault}: {needle:?} in {messages}"
    );
    assert_eq!(run.code, 1, "{fault}: exit code");
}
