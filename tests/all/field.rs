//! The field corpus: public plugins written by others for real agents, with
//! audited outcomes (`../shared/field/`, its README). Every rule is tried on
//! them in every run of the tests: our reference plugin and our test
//! plugins share our reading of the spec, these do not.
//!
//! The corpus is laid out by its own `setup.sh` (once, under the target
//! directory), the harness runs over each plugin as `check.py` runs it, and
//! each case outcome is compared with `expected.json`:
//! - a failure no `true_failures` glob matches is a false failure;
//! - a warning matched by neither `warnings_ok` nor `true_failures` is a
//!   false warning (it fails a working plugin under `--strict`);
//! - a `must_fail` group no failure matches, or a `must_report` group no
//!   failure or warning matches, is a missed known bug.
//!
//! Where we hold an expectation wrong, `tests/data/field-disputes.json`
//! says so with the argument from the host's source; a disputed item does
//! not fail the test, and every dispute is printed on every run. A dispute
//! that no longer matches anything fails the test: it must be removed.
//! Where the corpus is absent (a user's clone), the test says so in one
//! line and passes.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// Where the corpus is: `AGENT_CONFORM_FIELD`, else `../shared/field`
/// beside the repository.
fn corpus() -> PathBuf {
    std::env::var_os("AGENT_CONFORM_FIELD")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("..").join("shared").join("field"))
}

/// Says `line` on the test's stderr even when the output is captured: the
/// skip and the disputes are read on every run, not only on a failure.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Lays the corpus out under the target directory (kept between runs: its
/// `setup.sh` builds a Python package once) and returns the directory. The
/// first time, `setup.sh` runs from a copy of the corpus: the package is
/// built in its source tree, and `shared/` may be read-only.
fn laid_out(corpus: &Path) -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("target"));
    let dest = target.join("field-corpus");
    let built = dest.join("venv").join("bin").join("entire-agent-langgraph");
    let copy = tempfile::tempdir().expect("a temporary directory");
    let from = if built.exists() {
        corpus.to_path_buf()
    } else {
        let status = Command::new("cp")
            .arg("-R")
            .arg(corpus)
            .arg(copy.path().join("field"))
            .status()
            .expect("cp runs");
        assert!(status.success(), "copying the field corpus failed");
        copy.path().join("field")
    };
    // A link put back by an earlier run (`relink`) must go first: setup.sh
    // copies the flattened file over it, and `cp` writes through a link.
    unlink_all(&dest.join("bin"));
    let out = Command::new("bash")
        .arg(from.join("setup.sh"))
        .arg(&dest)
        .output()
        .expect("bash runs setup.sh");
    assert!(
        out.status.success(),
        "the field corpus's setup.sh failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    relink(&dest.join("bin"));
    dest
}

/// Removes the symbolic links directly in `bin` (the links of an earlier
/// `relink`; setup.sh lays the corpus out again).
fn unlink_all(bin: &Path) {
    let Ok(entries) = std::fs::read_dir(bin) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        let ours = entry
            .file_name()
            .to_string_lossy()
            .starts_with("entire-agent-");
        if link && ours {
            let _ = Command::new("chmod").arg("u+w").arg(bin).status();
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Puts back a symbolic link that a checkout flattened into a file holding
/// its target (git with `core.symlinks` off): `bin/entire-agent-devin` is
/// a link to `devin/bin/entire-agent-devin` upstream, and a file of those 28
/// bytes is no program (exec format error). Only a small file whose whole
/// text is the relative path of a file beside it in `bin/` is relinked.
fn relink(bin: &Path) {
    let Ok(entries) = std::fs::read_dir(bin) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if !meta.is_file() || meta.len() > 256 {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let target = text.trim();
        let plausible = !target.is_empty()
            && !target.starts_with('/')
            && !target.contains('\n')
            && !target.starts_with("#!");
        if plausible && bin.join(target).is_file() {
            let _ = Command::new("chmod").arg("u+w").arg(bin).status();
            let _ = std::fs::remove_file(&path);
            let _ = std::os::unix::fs::symlink(target, &path);
        }
    }
}

/// A case id matches a glob (`*` any run of characters, `?` one).
fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[char], t: &[char]) -> bool {
        match (p.first(), t.first()) {
            (None, None) => true,
            (Some('*'), _) => go(&p[1..], t) || (!t.is_empty() && go(p, &t[1..])),
            (Some('?'), Some(_)) => go(&p[1..], &t[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &t[1..]),
            _ => false,
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    go(&p, &t)
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

fn groups(v: &Value) -> Vec<Vec<String>> {
    v.as_array().into_iter().flatten().map(strings).collect()
}

fn any_match(patterns: &[String], id: &str) -> bool {
    patterns.iter().any(|p| glob(p, id))
}

/// One disagreement with the audit: what and where.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Problem {
    plugin: String,
    /// "false failure", "false warning" or "missed".
    kind: &'static str,
    /// The case id, or the globs of the missed group joined by spaces.
    what: String,
}

/// The problems of one plugin's run against its expectation.
fn compare(plugin: &str, expected: &Value, cases: &[Value]) -> Vec<Problem> {
    let ids = |kind: &str| -> Vec<String> {
        cases
            .iter()
            .filter(|c| c["outcome"]["kind"] == kind)
            .filter_map(|c| c["id"].as_str().map(str::to_string))
            .collect()
    };
    let (failed, warned) = (ids("failed"), ids("warning"));
    let true_failures = strings(&expected["true_failures"]);
    let problem = |kind, what: String| Problem {
        plugin: plugin.to_string(),
        kind,
        what,
    };
    let mut problems: Vec<Problem> = failed
        .iter()
        .filter(|id| !any_match(&true_failures, id))
        .map(|id| problem("false failure", id.clone()))
        .collect();
    for group in groups(&expected["must_fail"]) {
        if !failed.iter().any(|id| any_match(&group, id)) {
            problems.push(problem("missed", group.join(" ")));
        }
    }
    for group in groups(&expected["must_report"]) {
        if !failed.iter().chain(&warned).any(|id| any_match(&group, id)) {
            problems.push(problem("missed", group.join(" ")));
        }
    }
    if !expected["warnings_ok"].is_null() {
        let mut ok = strings(&expected["warnings_ok"]);
        ok.extend(true_failures);
        problems.extend(
            warned
                .iter()
                .filter(|id| !any_match(&ok, id))
                .map(|id| problem("false warning", id.clone())),
        );
    }
    problems
}

/// A dispute of the audit, from `tests/data/field-disputes.json`.
#[derive(Debug)]
struct Dispute {
    plugin: String,
    kind: String,
    what: String,
    argument: String,
}

fn disputes() -> Vec<Dispute> {
    let path = common::root().join("tests/data/field-disputes.json");
    let text = std::fs::read_to_string(&path).expect("tests/data/field-disputes.json");
    let doc: Value = serde_json::from_str(&text).expect("the disputes file is JSON");
    doc["disputes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| Dispute {
            plugin: d["plugin"].as_str().unwrap_or_default().to_string(),
            kind: d["kind"].as_str().unwrap_or_default().to_string(),
            what: d["case"].as_str().unwrap_or_default().to_string(),
            argument: d["argument"].as_str().unwrap_or_default().to_string(),
        })
        .collect()
}

fn disputed(dispute: &Dispute, problem: &Problem) -> bool {
    dispute.plugin == problem.plugin
        && dispute.kind == problem.kind
        && glob(&dispute.what, &problem.what)
}

/// Runs the harness over one plugin as `check.py` does.
fn cases_of(plugin: &Path) -> Result<Vec<Value>, String> {
    let out = common::harness()
        .args(["--format", "json", "--timeout", "10"])
        .arg(plugin)
        .output()
        .map_err(|e| format!("agent-conform does not start: {e}"))?;
    let report: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        format!(
            "no JSON report (exit {:?}): {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    report["cases"]
        .as_array()
        .cloned()
        .ok_or_else(|| "the report has no cases".to_string())
}

#[test]
fn the_field_corpus_is_judged_as_audited() {
    let corpus = corpus();
    if !corpus.join("expected.json").is_file() {
        say(&format!(
            "field corpus: {} is absent (a clone without ../shared/field): skipped",
            corpus.display()
        ));
        return;
    }
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("expected.json")).expect("expected.json reads"),
    )
    .expect("expected.json is JSON");
    let dest = laid_out(&corpus);
    let disputes = disputes();
    let mut problems = Vec::new();
    let plugins = expected["plugins"].as_object().cloned().unwrap_or_default();
    for (name, expectation) in &plugins {
        let path = dest.join("bin").join(format!("entire-agent-{name}"));
        match cases_of(&path) {
            Ok(cases) => problems.extend(compare(name, expectation, &cases)),
            Err(why) => problems.push(Problem {
                plugin: name.clone(),
                kind: "false failure",
                what: format!("(the run) {why}"),
            }),
        }
    }
    let mut used = vec![false; disputes.len()];
    let mut left = Vec::new();
    for problem in problems {
        match disputes.iter().position(|d| disputed(d, &problem)) {
            Some(n) => used[n] = true,
            None => left.push(format!(
                "{:14} {}: {}",
                problem.plugin, problem.kind, problem.what
            )),
        }
    }
    for (dispute, used) in disputes.iter().zip(&used) {
        say(&format!(
            "field dispute: {} {} {}{}: {}",
            dispute.plugin,
            dispute.kind,
            dispute.what,
            if *used { "" } else { " (no longer met)" },
            dispute.argument
        ));
    }
    say(&format!(
        "field: {} plugins, {} disagreements with the audit, {} disputed",
        plugins.len(),
        left.len(),
        used.iter().filter(|u| **u).count()
    ));
    let stale: Vec<&Dispute> = disputes
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(d, _)| d)
        .collect();
    assert!(
        left.is_empty(),
        "the field corpus disagrees with its audit (a false failure or warning fails a plugin \
         that works; a missed bug passes one that breaks):\n{}",
        left.join("\n")
    );
    assert!(
        stale.is_empty(),
        "disputes that no longer match a disagreement (remove them): {stale:?}"
    );
}

#[test]
fn globs_match_as_fnmatch_does() {
    assert!(glob("core.chunk.*", "core.chunk.round-trip"));
    assert!(glob("*session-dir*", "core.get-session-dir.non-empty"));
    assert!(glob("session.agent*", "session.agent"));
    assert!(!glob("core.session.*", "core.sessions"));
    assert!(glob("a?c", "abc"));
}

#[test]
fn a_false_failure_a_false_warning_and_a_missed_bug_are_told() {
    let expected = serde_json::json!({
        "true_failures": ["core.session.*"],
        "must_fail": [["core.session.*"], ["hooks.*"]],
        "must_report": [["core.chunk.*"]],
        "warnings_ok": ["token_calculator.*"],
    });
    let case = |id: &str, kind: &str| serde_json::json!({"id": id, "outcome": {"kind": kind}});
    let cases = [
        case("core.session.write-then-read", "failed"),
        case("core.info.schema", "failed"),
        case("token_calculator.from-start", "warning"),
        case("hostile.x", "warning"),
    ];
    let found: Vec<(&str, String)> = compare("p", &expected, &cases)
        .into_iter()
        .map(|p| (p.kind, p.what))
        .collect();
    assert_eq!(
        found,
        vec![
            ("false failure", "core.info.schema".to_string()),
            ("missed", "hooks.*".to_string()),
            ("missed", "core.chunk.*".to_string()),
            ("false warning", "hostile.x".to_string()),
        ]
    );
}
