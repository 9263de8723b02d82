//! The fault matrix: proof that the suite bites.
//!
//! The reference plugin takes a fault name from ENTIRE_AGENT_REFERENCE_FAULT
//! and then misbehaves in exactly one way. This test runs the whole suite
//! (embedded cases plus the reference plugin's own conformance cases) once per
//! fault (the long-lines cases only with the faults of the analysis calls
//! they ask again: see [`ANALYSIS`]) and checks that:
//! - every fault is caught (the run exits 1 under --strict);
//! - every case catches at least one fault (a case that cannot fail is a
//!   defect);
//! - the cases each fault trips are exactly those recorded in
//!   docs/fault-matrix.md, so a reader sees what every case is for and a
//!   change in what the suite catches shows up in review.
//!
//! After an intended change, regenerate the document with
//! `UPDATE_FAULT_MATRIX=1 cargo test --test all fault_matrix`.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::sync::Mutex;

use common::{reference, root, run_json};

/// Faults of deployment rather than behaviour: the reference binary copied
/// under a file name the host's discovery rejects or ignores.
const RENAMES: &[&str] = &[
    "reference-plugin-binary",
    "entire-agent-cursor",
    "entire-agent-codex",
    "entire-agent-antigravity",
];

/// The faults of the analysis calls the long-lines cases ask again
/// (position, files, prompts, tokens, reading a transcript): only their
/// runs ask them. Each long-lines case reads a 9 MiB transcript four times,
/// half a second of a run for the other faults, which never touch those
/// calls; `docs/fault-matrix.md` is the same either way.
const ANALYSIS: &[&str] = &[
    "transcript-",
    "tokens-",
    "position-",
    "offset-",
    "modified-files-",
    "prompts-",
    "analysis-",
];

/// What one fault's run gave: its exit code, the ids of the cases that
/// failed, warned or noted, and what each case of the run came to (its
/// outcome and its findings' codes and messages), to explain a row that
/// differs from the recorded one.
struct Caught {
    code: i32,
    ids: BTreeSet<String>,
    outcomes: BTreeMap<String, String>,
}

/// Runs the suite with one fault; returns the ids of the cases that failed
/// or warned. A fault `file:NAME` runs a copy of the plugin named NAME.
fn caught_by(fault: &str) -> Caught {
    let cases = root().join("reference-plugin").join("conformance");
    let cases = cases.to_string_lossy().into_owned();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (plugin, env) = match fault.strip_prefix("file:") {
        Some(name) => {
            let copy = dir.path().join(name);
            std::fs::copy(reference(), &copy).expect("the reference plugin copies");
            (copy, vec![])
        }
        None => (reference(), vec![("ENTIRE_AGENT_REFERENCE_FAULT", fault)]),
    };
    // An info past the hooks' 5 s deadline needs discovery's own 10 s to
    // pass the gate at all.
    let timeout = if fault.contains("hook-deadline") {
        "10"
    } else {
        "3"
    };
    // --pedantic: the protocol-only cases run too (by default they are
    // skipped), so every case of the suite is in the matrix.
    let mut args = vec![
        "--strict",
        "--pedantic",
        "--timeout",
        timeout,
        "--seed",
        "1",
        "--cases",
        &cases,
    ];
    // After a timeout the breaker makes no more calls of that subcommand;
    // with several jobs, whether a later case had already started one
    // depends on timing. One job makes the matrix of a hang deterministic.
    if fault.contains("hang") {
        args.extend(["-j", "1"]);
    }
    if !ANALYSIS.iter().any(|prefix| fault.starts_with(prefix)) {
        args.extend(["--skip", "*.long-lines"]);
    }
    let run = run_json(&plugin, &args, &env);
    let mut ids: BTreeSet<String> = run.ids("failed").into_iter().collect();
    ids.extend(run.ids("warning"));
    ids.extend(run.ids("note").into_iter().map(|id| format!("{id} (note)")));
    Caught {
        code: run.code,
        ids,
        outcomes: outcomes(&run.report),
    }
}

/// Each case's outcome and findings, one line each: `kind: reason` and then
/// `[step] code: message` per finding.
fn outcomes(report: &serde_json::Value) -> BTreeMap<String, String> {
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    let mut out = BTreeMap::new();
    for case in report["cases"].as_array().into_iter().flatten() {
        let outcome = &case["outcome"];
        let mut lines = vec![format!(
            "{}{}",
            text(&outcome["kind"]),
            outcome
                .get("reason")
                .map(|r| format!(": {}", text(r)))
                .unwrap_or_default()
        )];
        for step in case["steps"].as_array().into_iter().flatten() {
            for finding in step["findings"].as_array().into_iter().flatten() {
                lines.push(format!(
                    "[{}, {}, {} ms] {}: {}",
                    text(&step["name"]),
                    text(&step["termination"]),
                    step["duration_ms"],
                    text(&finding["code"]),
                    text(&finding["message"])
                ));
            }
        }
        out.insert(text(&case["id"]), lines.join("\n      "));
    }
    out
}

/// The rows of the recorded matrix's "By fault" table: fault → case ids.
fn recorded_rows(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let by_fault = doc.split("## By case").next().unwrap_or_default();
    by_fault
        .lines()
        .filter_map(|line| {
            let mut cells = line.strip_prefix("| `")?.split(" | ");
            let fault = cells.next()?.trim_end_matches('`').to_string();
            let ids = cells
                .next()?
                .trim_end_matches(" |")
                .split(", ")
                .map(|id| id.trim_matches('`').to_string())
                .filter(|id| !id.is_empty())
                .collect();
            Some((fault, ids))
        })
        .collect()
}

/// For each fault whose row differs from the recorded one: the cases it
/// caught that the record does not have, and those it no longer caught,
/// each with what it came to in this run (outcome, findings), so that a
/// flaky row shows its cause in the test's output.
fn explain(recorded: &str, results: &BTreeMap<String, Caught>) -> String {
    let rows = recorded_rows(recorded);
    let mut out = String::new();
    for (fault, caught) in results {
        let want = rows.get(fault).cloned().unwrap_or_default();
        let plain = |id: &String| id.trim_end_matches(" (note)").to_string();
        for (sign, ids) in [
            ("+", caught.ids.difference(&want)),
            ("-", want.difference(&caught.ids)),
        ] {
            for id in ids {
                let found = caught.outcomes.get(&plain(id));
                out.push_str(&format!(
                    "{sign} {fault}: {id}\n      {}\n",
                    found.map_or("not in this run", String::as_str)
                ));
            }
        }
    }
    out
}

fn faults() -> Vec<String> {
    let out = Command::new(reference())
        .arg("--list-faults")
        .output()
        .expect("the reference plugin runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .chain(RENAMES.iter().map(|name| format!("file:{name}")))
        .collect()
}

/// Every case id of the suite the matrix runs.
fn all_cases() -> BTreeSet<String> {
    let cases = root().join("reference-plugin").join("conformance");
    let run = run_json(
        &reference(),
        &["--pedantic", "--cases", &cases.to_string_lossy()],
        &[],
    );
    let mut ids: BTreeSet<String> = run.ids("passed").into_iter().collect();
    ids.extend(run.ids("skipped"));
    ids
}

fn render(matrix: &BTreeMap<String, BTreeSet<String>>) -> String {
    let mut by_case: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (fault, ids) in matrix {
        for id in ids {
            by_case.entry(id).or_default().push(fault);
        }
    }
    let mut out = String::from(
        "# Fault matrix\n\n\
         Generated by `tests/all/fault_matrix.rs` (`UPDATE_FAULT_MATRIX=1 cargo test --test all fault_matrix`).\n\
         Each fault of the reference plugin (`ENTIRE_AGENT_REFERENCE_FAULT`, see\n\
         `reference-plugin/src/faults.rs`) makes it misbehave in one way; the run uses\n\
         `--strict --pedantic --seed 1 --cases reference-plugin/conformance` (`--pedantic`: the\n\
         protocol-only cases, which the default run skips, are in it too, their findings\n\
         warnings). `file:NAME` runs a copy of the\n\
         plugin named NAME (a deployment fault). A case that no fault trips could not\n\
         fail, and the test rejects it. `(note)` marks a case that only notes the fault\n\
         (it never fails a run); every other entry failed or warned under `--strict`.\n\n\
         ## By fault\n\n| fault | cases that catch it |\n|---|---|\n",
    );
    for (fault, ids) in matrix {
        let ids: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
        out.push_str(&format!("| `{fault}` | {} |\n", ids.join(", ")));
    }
    out.push_str("\n## By case\n\n| case | faults it catches |\n|---|---|\n");
    for (id, faults) in by_case {
        let faults: Vec<String> = faults.iter().map(|f| format!("`{f}`")).collect();
        out.push_str(&format!("| `{id}` | {} |\n", faults.join(", ")));
    }
    out
}

#[test]
fn every_fault_is_caught_and_every_case_catches_a_fault() {
    let faults = faults();
    assert!(faults.len() >= 40, "only {} faults", faults.len());
    let results = Mutex::new(BTreeMap::new());
    let next = Mutex::new(faults.clone().into_iter());
    // Four runs at once: the faults that hang or wait for a deadline leave
    // the processors idle for seconds, which the other runs then use.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let Some(fault) = next.lock().unwrap().next() else {
                        break;
                    };
                    let caught = caught_by(&fault);
                    results.lock().unwrap().insert(fault, caught);
                }
            });
        }
    });
    let results = results.into_inner().unwrap();
    // A fault is caught when the strict run fails, or, for a fault that only
    // breaks a rule no host enforces, when a case notes it.
    let uncaught: Vec<&String> = results
        .iter()
        .filter(|(_, caught)| {
            let noted = caught.ids.iter().any(|id| id.ends_with(" (note)"));
            caught.ids.is_empty() || (caught.code != 1 && !noted)
        })
        .map(|(fault, _)| fault)
        .collect();
    assert!(uncaught.is_empty(), "faults no case catches: {uncaught:?}");

    let matrix: BTreeMap<String, BTreeSet<String>> = results
        .iter()
        .map(|(f, caught)| (f.clone(), caught.ids.clone()))
        .collect();
    let caught_somewhere: BTreeSet<&str> = matrix
        .values()
        .flatten()
        .map(|id| id.trim_end_matches(" (note)"))
        .collect();
    let idle: Vec<String> = all_cases()
        .into_iter()
        .filter(|id| !caught_somewhere.contains(id.as_str()))
        .collect();
    assert!(
        idle.is_empty(),
        "cases that no fault trips (they cannot be shown to fail): {idle:?}"
    );

    let rendered = render(&matrix);
    let path = root().join("docs").join("fault-matrix.md");
    if std::env::var_os("UPDATE_FAULT_MATRIX").is_some() {
        std::fs::write(&path, &rendered).expect("docs/ is writable");
        return;
    }
    let recorded = std::fs::read_to_string(&path).unwrap_or_default();
    if recorded != rendered {
        let diff = similar::TextDiff::from_lines(&recorded, &rendered)
            .unified_diff()
            .header("docs/fault-matrix.md", "this run")
            .to_string();
        panic!(
            "what the suite catches changed; review the diff and regenerate with \
             UPDATE_FAULT_MATRIX=1 cargo test --test all fault_matrix\n{diff}\n\
             the rows that differ (+ caught now, - no longer caught), with what each case \
             came to in this run:\n{}",
            explain(&recorded, &results)
        );
    }
}

#[test]
fn a_differing_row_names_each_case_with_what_it_came_to() {
    let doc = "## By fault\n\n| fault | cases that catch it |\n|---|---|\n\
               | `f` | `a`, `b (note)` |\n\n## By case\n\n| `a` | `f` |\n";
    let rows = recorded_rows(doc);
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows["f"],
        BTreeSet::from(["a".to_string(), "b (note)".to_string()])
    );
    let report = serde_json::json!({"cases": [
        {"id": "a", "outcome": {"kind": "failed"}, "steps": []},
        {"id": "b", "outcome": {"kind": "passed"}, "steps": []},
        {"id": "c", "outcome": {"kind": "failed"}, "steps": [{"name": "step 1",
            "termination": "timed-out", "duration_ms": 3000.0,
            "findings": [{"code": "timeout", "message": "timed out after 3 s"}]}]},
    ]});
    let caught = Caught {
        code: 1,
        ids: BTreeSet::from(["a".to_string(), "c".to_string()]),
        outcomes: outcomes(&report),
    };
    let explained = explain(doc, &BTreeMap::from([("f".to_string(), caught)]));
    assert!(
        explained.contains("+ f: c\n      failed\n      [step 1, timed-out, 3000.0 ms] timeout: timed out after 3 s"),
        "{explained}"
    );
    assert!(
        explained.contains("- f: b (note)\n      passed"),
        "{explained}"
    );
    assert!(!explained.contains("f: a"), "{explained}");
}
