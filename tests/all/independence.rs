//! A case's verdict does not depend on which other cases ran: for every wild plugin under tests/plugins/wild, and every Go plugin of tests/plugins/go where `go` is on `PATH` (with its own
//! `<name>-cases` directory when it has one, as tests/wild_*.rs run it), the
//! whole suite runs once (the run the wild_* tests share: common::shared,
//! seed 1), then every case that failed or warned, the notes of every
//! third plugin, and one case that passed, run alone (`--only ID`, one invocation each, seed 1), and the outcomes must
//! be the same. The passing case is taken in turn from [`PASSING_ALONE`],
//! plugin by plugin, so that each of them runs alone on a third of the
//! plugins: `session.agent` alone makes some thirty calls, and on every
//! plugin it was half this test's time.
//!
//! Two differences are by design and are allowed. A finding the full run
//! says once, at another case (`said-elsewhere`), must be said alone at a
//! warning or a failure. And a variable the agent sets and
//! the sandbox does not is a note, but a declared capability that such
//! refusals leave with nothing verified gets its one warning
//! (`execute::fold`): alone, no other case of the capability verifies it,
//! so a case noted for the variable in the full run (code `agent-variable`)
//! may warn alone. It is compared as "a note, or a warning alone", by the
//! finding's kind, never by its text.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Run, run_json};
use serde_json::Value;

/// Passing cases that also run alone, one per plugin in turn, when it passes
/// in the full run: the ones most shaped by the other cases' state (the
/// session replay, the store, an install).
const PASSING_ALONE: &[&str] = &[
    "session.agent",
    "core.resolve-session-file.distinct-ids",
    "hooks.lifecycle.install",
];

/// The outcome of a case whose finding the full run says once at another
/// case (`said-elsewhere`: an unverified capability, a finding of every work
/// tree): alone, it must say the finding itself (warn or fail), since the
/// run's verdict is the same either way.
const SAID_ELSEWHERE: &str = "said elsewhere";

/// The outcome of a case noted for a variable the agent sets: alone, it
/// is a note, or the capability's warning when no other case verifies it.
const VARIABLE: &str = "noted for a variable the agent sets";

/// How many alone runs of one plugin go at once (the machine is shared:
/// each is small).
const AT_ONCE: usize = 3;

/// The wild plugins, Python and Go, with the arguments tests/wild_*.rs
/// give each.
fn wild_plugins() -> Vec<(String, PathBuf, Vec<String>)> {
    let dir = common::plugin("wild");
    let mut found: Vec<(String, PathBuf, Vec<String>)> = std::fs::read_dir(&dir)
        .expect("tests/plugins/wild is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let file = path.file_name()?.to_string_lossy().into_owned();
            let name = file.strip_prefix("entire-agent-")?.to_string();
            if !path.is_file() {
                return None;
            }
            let cases = dir.join(format!("{name}-cases"));
            // As tests/wild_*.rs give them, so that the full run is the one
            // they make (common::shared; a run without --seed gets seed 1).
            let mut args = Vec::new();
            if cases.is_dir() {
                args.push("--cases".into());
                args.push(cases.to_string_lossy().into_owned());
            }
            Some((name, path, args))
        })
        .collect();
    for name in GO_PLUGINS {
        if let Some(path) = common::go::go_plugin(name, None) {
            found.push((name.to_string(), path, Vec::new()));
        }
    }
    found.sort();
    found
}

/// The Go plugins of tests/plugins/go (none has cases of its own).
const GO_PLUGINS: &[&str] = &["gohabits", "nullstrings", "userworld"];

/// Each case's outcome kind, as compared: a note with a finding of the
/// agent's variable counts as [`VARIABLE`] (see the module).
fn outcomes(run: &Run) -> BTreeMap<String, String> {
    let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
    cases
        .iter()
        .map(|case| {
            let id = case["id"].as_str().unwrap_or_default().to_string();
            let kind = case["outcome"]["kind"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let variable = findings(case).any(|f| f["code"] == "agent-variable");
            let elsewhere = findings(case).any(|f| f["code"] == "said-elsewhere");
            let kind = match kind.as_str() {
                "note" if variable => VARIABLE.to_string(),
                "note" if elsewhere => SAID_ELSEWHERE.to_string(),
                _ => kind,
            };
            (id, kind)
        })
        .collect()
}

fn findings(case: &Value) -> impl Iterator<Item = Value> {
    let steps = case["steps"].as_array().cloned().unwrap_or_default();
    steps
        .into_iter()
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
}

/// The cases to run alone: every one that failed or warned (skipped ones
/// excepted: a capability not declared is skipped alone too), the notes
/// of every third plugin (a note that turns into a failure alone is rarer
/// than a warning's, and the notes are most of the cases run alone), and
/// the passing one of [`PASSING_ALONE`] whose turn it is (the `turn`-th
/// plugin takes the case at `turn` modulo their number).
fn to_run_alone(full: &BTreeMap<String, String>, turn: usize) -> Vec<String> {
    let passing = PASSING_ALONE[turn % PASSING_ALONE.len()];
    let notes = turn.is_multiple_of(3);
    full.iter()
        .filter(|(id, kind)| match kind.as_str() {
            "failed" | "warning" | SAID_ELSEWHERE | VARIABLE => true,
            "note" => notes,
            "passed" => id.as_str() == passing,
            _ => false,
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// One case alone: its outcome.
fn alone(plugin: &Path, args: &[String], id: &str) -> String {
    let mut all: Vec<&str> = args.iter().map(String::as_str).collect();
    all.extend(["--seed", "1", "-j", "1", "--only", id]);
    let run = run_json(plugin, &all, &[]);
    outcomes(&run).remove(id).unwrap_or_else(|| "absent".into())
}

/// How many plugins go at once: a whole-suite run leaves a processor idle
/// while a call waits (a hook's deadline, a sleeping plugin).
const PLUGINS_AT_ONCE: usize = 2;

/// The differences of one plugin's cases alone from its full run.
fn differences_of(turn: usize, name: &str, plugin: &Path, args: &[String]) -> Vec<String> {
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let full = outcomes(&common::shared::shared_run(plugin, &arg_refs, &[]));
    let ids = to_run_alone(&full, turn);
    let next = AtomicUsize::new(0);
    let found = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                while let Some(id) = ids.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let got = alone(plugin, args, id);
                    let want = &full[id];
                    let said = want == SAID_ELSEWHERE && (got == "warning" || got == "failed");
                    let noted = want == VARIABLE && got == "warning";
                    if got != *want
                        && !said
                        && !noted
                        && let Ok(mut found) = found.lock()
                    {
                        found.push(format!(
                            "{name}: {id} is {want} in the full run, {got} alone"
                        ));
                    }
                }
            });
        }
    });
    found.into_inner().unwrap_or_default()
}

#[test]
fn every_case_of_every_wild_plugin_gives_the_same_outcome_alone() {
    let plugins = wild_plugins();
    let next = AtomicUsize::new(0);
    let differences = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PLUGINS_AT_ONCE {
            scope.spawn(|| {
                while let Some(turn) = Some(next.fetch_add(1, Ordering::SeqCst))
                    && let Some((name, plugin, args)) = plugins.get(turn)
                {
                    let found = differences_of(turn, name, plugin, args);
                    if let Ok(mut all) = differences.lock() {
                        all.extend(found);
                    }
                }
            });
        }
    });
    let mut differences = differences.into_inner().unwrap_or_default();
    differences.sort();
    assert!(
        differences.is_empty(),
        "outcomes that depend on the other cases:\n{}",
        differences.join("\n")
    );
}
