//! The wild corpus: independent plugins written outside this project, from
//! the protocol texts and the host notes only, each with bugs of the kinds
//! real plugins ship and its expected outcome (`../shared/wild/`, its
//! README). Every rule is tried on them in every run of the tests: our
//! reference plugin and our test plugins (`tests/plugins/wild`, a
//! different thing: plugins of ours, one per pattern) share our reading of
//! the spec, these do not.
//!
//! The harness runs over each plugin as the corpus's `check.py` runs it,
//! and each case outcome is compared with `expected.json` by its rules:
//! - a failure no `true_failures` glob matches is a false failure;
//! - a warning matched by neither `warnings_ok` nor `true_failures` is a
//!   false warning (it fails a working plugin under `--strict`);
//! - a `must_fail` group no failure matches, or a `must_report` group no
//!   failure or warning matches, is a missed bug.
//!
//! Where we hold an expectation wrong, `tests/data/field-disputes.json`
//! says so with the argument from the host; a disputed item does not fail
//! the test, and every dispute is printed on every run. A dispute that no
//! longer matches anything fails the test: it must be removed. Where the
//! corpus is absent (a user's clone), the test says so in one line and
//! passes.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Where the corpus is: `AGENT_CONFORM_WILD`, else `../shared/wild`
/// beside the repository.
fn corpus() -> PathBuf {
    std::env::var_os("AGENT_CONFORM_WILD")
        .map(PathBuf::from)
        .unwrap_or_else(|| common::root().join("..").join("shared").join("wild"))
}

/// Says `line` on the test's stderr even when the output is captured: the
/// skip and the disputes are read on every run, not only on a failure.
fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
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

/// Each plugin of `expected.json` with its expectation, run two at a time
/// (a run of a Python plugin leaves a processor idle while a call waits):
/// the problems of every run, in the corpus's order.
fn judge_all(corpus: &Path, plugins: &serde_json::Map<String, Value>) -> Vec<Problem> {
    let entries: Vec<(&String, &Value)> = plugins.iter().collect();
    let judge = |(name, expectation): &(&String, &Value)| -> Vec<Problem> {
        let path = corpus.join(expectation["path"].as_str().unwrap_or_default());
        match cases_of(&path) {
            Ok(cases) => compare(name, expectation, &cases),
            Err(why) => vec![Problem {
                plugin: name.to_string(),
                kind: "false failure",
                what: format!("(the run) {why}"),
            }],
        }
    };
    let mut problems = Vec::new();
    for pair in entries.chunks(2) {
        let found: Vec<Vec<Problem>> = std::thread::scope(|scope| {
            let handles: Vec<_> = pair.iter().map(|e| scope.spawn(move || judge(e))).collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_default())
                .collect()
        });
        problems.extend(found.into_iter().flatten());
    }
    problems
}

#[test]
fn the_wild_corpus_is_judged_as_expected() {
    let corpus = corpus();
    if !corpus.join("expected.json").is_file() {
        say(&format!(
            "wild corpus: {} is absent (a clone without ../shared/wild): skipped",
            corpus.display()
        ));
        return;
    }
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(corpus.join("expected.json")).expect("expected.json reads"),
    )
    .expect("expected.json is JSON");
    let disputes = disputes();
    let plugins = expected["plugins"].as_object().cloned().unwrap_or_default();
    let problems = judge_all(&corpus, &plugins);
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
            "wild dispute: {} {} {}{}: {}",
            dispute.plugin,
            dispute.kind,
            dispute.what,
            if *used { "" } else { " (no longer met)" },
            dispute.argument
        ));
    }
    say(&format!(
        "wild: {} plugins, {} disagreements with expected.json, {} disputed",
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
        "the wild corpus disagrees with expected.json (a false failure or warning fails a plugin \
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
