//! The common JUnit XSD (`tests/data/junit.xsd`), with xmllint, on JUnit
//! files of hand-made runs (tests/common/hand_made.rs) and of real runs of
//! the embedded suite, whose counts must match the human report's. Skipped
//! where xmllint is not installed.

use crate::common;

use std::path::Path;
use std::time::Duration;

use agent_conform::api::junit;
use agent_conform::api::{Counts, RunReport};
use common::hand_made::*;
use common::junit_xml::{assert_xsd_valid, check_junit, xmllint_available};
use common::report_schema::schemas;

/// Runs the embedded suite in-process on a plugin: the whole suite, or only
/// the gate and the cases whose id starts with one of `only` (to keep the
/// test short). The sandboxes of cases that did not pass are kept by the
/// harness; they are removed here, by the paths the report gives.
fn real_run(plugin: &Path, only: &[&str]) -> RunReport {
    let schemas = schemas();
    let mut suite = agent_conform::api::case::load(&[], &schemas).expect("the suite loads");
    if !only.is_empty() {
        suite
            .cases
            .retain(|c| c.gate || only.iter().any(|p| c.id.starts_with(p)));
    }
    let options = agent_conform::api::Options {
        timeout: Duration::from_secs(30),
        info_timeout: Duration::from_secs(10),
        keep_temp: false,
        jobs: 2,
        seed: 7,
        sandbox_base: std::env::temp_dir(),
        fail_fast: false,
        hosts: Default::default(),
        confine: false,
        max_write: 256 << 20,
        pedantic: false,
        worlds: Default::default(),
        explore: 0,
    };
    let run = agent_conform::api::run(
        plugin,
        &suite,
        &schemas,
        &options,
        &agent_conform::api::Silent,
    );
    for dir in run.cases.iter().filter_map(|c| c.sandbox.as_ref()) {
        let ours = dir
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("agent-conform-"));
        if ours {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    run
}

/// The human report's closing counts, as (passed, failed, warnings, skipped,
/// not run).
fn human_counts(run: &RunReport, strict: bool) -> Counts {
    let human = agent_conform::api::Human {
        color: false,
        verbosity: agent_conform::api::Verbosity::Quiet,
        strict,
        width: 100,
    };
    let text = human.render(run);
    let line = text
        .lines()
        .filter(|l| l.starts_with("PASSED: ") || l.starts_with("FAILED: "))
        .rfind(|l| l.contains(" passed, "))
        .unwrap_or_else(|| panic!("no verdict line in:\n{text}"));
    let numbers: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit() && c != '.')
        .filter(|w| !w.is_empty() && !w.contains('.'))
        .map(|w| w.parse().unwrap())
        .collect();
    Counts {
        passed: numbers[0],
        failed: numbers[1],
        warnings: numbers[2],
        notes: numbers[3],
        skipped: numbers[4],
        not_run: numbers[5],
    }
}

#[test]
fn junit_files_validate_against_the_common_xsd() {
    if !xmllint_available() {
        eprintln!(
            "note: xmllint is not installed (apt-get install libxml2-utils); \
             the JUnit XSD validation is skipped"
        );
        return;
    }
    // Hand-made runs: every outcome, strict or not.
    for (what, run) in [
        ("passing", passing_run()),
        ("failing", failing_run()),
        ("mixed", mixed_run()),
        ("gate", gate_run()),
        ("warning", warning_run()),
        ("empty", run_of(vec![], None)),
    ] {
        for strict in [false, true] {
            assert_xsd_valid(&junit::render(&run, strict).unwrap(), what);
        }
    }

    // Real runs: passing (the Python plugin), failing (a wrong round trip),
    // and a failed gate (bad info). Their counts match the human report's.
    // The passing run is cut to a few core cases, the hooks cases (declared)
    // and the transcript_analyzer ones (skipped); the failing run to the
    // round-trip cases. Both keep the gate.
    for (what, plugin, only, expect_failed) in [
        (
            "pyconform",
            "entire-agent-pyconform",
            &[
                "core.info.",
                "core.detect.",
                "hooks.",
                "compact_transcript.",
            ][..],
            false,
        ),
        (
            "bad-roundtrip",
            "broken/entire-agent-bad-roundtrip",
            &["core.chunk.", "core.reassemble."][..],
            true,
        ),
        ("bad-info", "broken/entire-agent-bad-info", &[][..], true),
    ] {
        let run = real_run(&common::plugin(plugin), only);
        assert_eq!(run.failed(true), expect_failed, "{what}");
        let xml = junit::render(&run, true).unwrap();
        assert_xsd_valid(&xml, what);
        let (tests, failures, _, skipped) = check_junit(&run, true, &xml);
        let human = human_counts(&run, true);
        assert_eq!(human, run.counts(), "{what}: human summary vs counts");
        assert_eq!(tests, human.total(), "{what}");
        assert_eq!(failures, human.failed + human.warnings, "{what} (strict)");
        assert_eq!(skipped, human.skipped + human.not_run, "{what}");
        if what == "pyconform" {
            assert!(human.passed > 0 && human.skipped > 0, "{what}: {human:?}");
        }
        if what == "bad-info" {
            assert_eq!(human.failed, 1);
            assert_eq!(human.not_run, run.cases.len() - 1);
        }
    }
}
