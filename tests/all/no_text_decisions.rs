//! Findings are data: no code reads a finding's message or a
//! case's note to decide anything. Decisions match on a finding's kind
//! (its stable code), subject, step and severity; text is only rendered.
//!
//! The first test greps the crate's sources (tests cut off: everything
//! from a file's first `#[cfg(test)]`) for the ways code reads a text to
//! decide, and names the file and line of each. The second checks that
//! every finding of the recorded JSON reports carries a code the crate
//! knows, which is what a report reader decides on instead.

use crate::common;

use std::path::{Path, PathBuf};

use agent_conform::api::Kind;
use serde_json::Value;

/// Reading a finding's message or a case's note to decide: looking into
/// it, comparing it, or taking a variable's name back out of it.
const READS_TEXT: &[&str] = &[
    "message.starts_with(",
    "message.ends_with(",
    "message.contains(",
    "message.find(",
    "message.rfind(",
    "message.split",
    "message.strip_prefix(",
    "message.strip_suffix(",
    "message.matches(",
    ".message ==",
    "== f.message",
    "message.as_str() ==",
    "note.contains(",
    "note.starts_with(",
    "note.split",
    "== note",
    "named_in(",
];

/// Readings that are no finding's or note's: (file, code, why).
const NOT_A_FINDING: &[(&str, &str, &str)] = &[(
    "src/suite/case/load.rs",
    "let rest = message.strip_prefix(\"line \")?;",
    "the YAML library's error, whose line and column it gives only in its text",
)];

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The lines of `source` before its tests (`#[cfg(test)]`) that read a
/// text to decide, as `(line number, line)`. Comments are skipped: a doc
/// comment may name what the code does not do.
fn readings(source: &str) -> Vec<(usize, String)> {
    let code = source.split("#[cfg(test)]").next().unwrap_or_default();
    code.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| READS_TEXT.iter().any(|p| line.contains(p)))
        .map(|(n, line)| (n + 1, line.trim().to_string()))
        .collect()
}

/// Every reading of a text in the sources under `src`, as
/// `file:line: code`.
fn readings_under(src: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for file in rust_files(src) {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        let shown = file
            .strip_prefix(src)
            .unwrap_or(&file)
            .display()
            .to_string();
        let shown = format!("src/{shown}");
        for (line, code) in readings(&source) {
            let allowed = NOT_A_FINDING
                .iter()
                .any(|(file, text, _)| *file == shown && *text == code);
            if !allowed {
                found.push(format!("{shown}:{line}: {code}"));
            }
        }
    }
    found
}

#[test]
fn no_code_reads_a_message_or_a_note_to_decide() {
    let found = readings_under(&common::root().join("src"));
    assert!(
        found.is_empty(),
        "code that reads a finding's message or a case's note to decide (match on the \
         finding's kind and subject instead, outcome::finding):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_grep_catches_a_planted_reading_and_skips_tests_and_comments() {
    let planted = "fn x(f: &Finding) -> bool {\n    // f.message.contains(\"a\") is not \
                   done\n    f.message.contains(\"not verified\")\n}\n#[cfg(test)]\nmod \
                   tests {\n    fn y() { assert!(f.message == \"z\"); }\n}\n";
    assert_eq!(
        readings(planted),
        vec![(3, "f.message.contains(\"not verified\")".to_string())]
    );
    assert_eq!(
        readings("if report.note.as_deref() == Some(x) || y == note {}").len(),
        1
    );
}

/// Every finding of a JSON report.
fn findings(report: &Value) -> Vec<Value> {
    let mut cases: Vec<Value> = report["cases"].as_array().cloned().unwrap_or_default();
    for plugin in report["plugins"].as_array().into_iter().flatten() {
        cases.extend(plugin["cases"].as_array().cloned().unwrap_or_default());
    }
    cases
        .iter()
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .flat_map(|s| s["findings"].as_array().cloned().unwrap_or_default())
        .collect()
}

#[test]
fn every_finding_of_the_recorded_reports_has_a_known_code() {
    let dir = common::root().join("tests/data/golden");
    let mut seen = 0;
    for name in ["reference", "failing", "two"] {
        let file = dir.join(format!("{name}.json"));
        let text = std::fs::read_to_string(&file).expect("a recorded report");
        let report: Value = serde_json::from_str(&text).expect("JSON");
        for finding in findings(&report) {
            let code = finding["code"].as_str().unwrap_or_default();
            assert!(
                Kind::from_code(code).is_some(),
                "{name}: a finding without a known code: {finding}"
            );
            seen += 1;
        }
    }
    assert!(seen > 0, "the recorded reports hold findings");
}

/// Severity is set through `Finding` only (`cap`, `set_severity`,
/// `rests_on`), where the evidence rule holds: an assumption about the
/// agent alone never makes a failure (ARCHITECTURE.md, "Invariants").
#[test]
fn severities_are_weighed_only_through_the_finding() {
    let mut found = Vec::new();
    for file in rust_files(&common::root().join("src")) {
        if file.ends_with("outcome/finding.rs") {
            continue;
        }
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        let code = source.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            if line.contains(".severity = ") && !line.trim_start().starts_with("//") {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "a severity set around the evidence rule (use Finding::set_severity):\n{}",
        found.join("\n")
    );
}
