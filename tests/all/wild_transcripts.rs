//! Plugins in the wild (tests/common/wild.rs): transcripts. A transcript
//! format of the agent's own, with and without samples; the host's own
//! chunker, also on the generated round trips of 40 seeds; empty answers to
//! another agent's transcript; and a database-backed store that reads
//! nothing of a transcript file.

use crate::common;

use std::path::PathBuf;

use common::wild::{cases, outcome, passes_with, set, twin_fails, wild};
use common::{Run, run_json};

/// The case sandboxes (`agent-conform-<case>-…`) under `dir`, looked for
/// `depth` levels down (the runs folder, a run's folder).
fn case_sandboxes(dir: &std::path::Path, depth: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("a readable sandbox dir") {
        let path = entry.expect("a sandbox dir entry").path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("agent-conform-") && name != "agent-conform-runs" {
            found.push(path);
        } else if path.is_dir() && depth > 0 {
            found.extend(case_sandboxes(&path, depth - 1));
        } else if name != ".agent-conform-run" {
            // A run folder's marker file is no sandbox.
            found.push(path);
        }
    }
    found
}

/// The names of the steps of a case.
fn step_names(run: &Run, id: &str) -> Vec<String> {
    let cases = run.report["cases"].as_array().cloned().unwrap_or_default();
    cases
        .iter()
        .filter(|c| c["id"] == id)
        .flat_map(|c| c["steps"].as_array().cloned().unwrap_or_default())
        .map(|s| s["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn own_transcript_format_without_samples_passes_with_unverified_warnings() {
    // It refuses the generic JSONL transcript everywhere and names no sample:
    // each transcript capability gets one "unverified" warning (on the case
    // marked `unverified: warning`), the capability's other cases a note;
    // chunking is unverified once (generated-jsonl), the fixed JSONL round
    // trip notes it.
    passes_with(
        "ownformat",
        &[],
        &[
            "core.chunk.generated-jsonl",
            "transcript_analyzer.position",
            "transcript_preparer.prepare",
            "token_calculator.from-start",
            "subagent_aware_extractor.empty-dir",
            "compact_transcript.compact",
        ],
        &[
            "core.chunk.round-trip",
            "transcript_analyzer.long-lines",
            "transcript_analyzer.modified-files",
            "transcript_analyzer.modified-files-at-end",
            "transcript_analyzer.modified-files-from-offset",
            "transcript_analyzer.prompts",
            "token_calculator.long-lines",
            "token_calculator.past-end",
            "subagent_aware_extractor.populated-dir",
        ],
    );
}

#[test]
fn own_transcript_format_with_samples_gets_the_full_transcript_checks() {
    // With its samples every transcript check runs on them and passes; the
    // refusal of the generic JSONL is neither a warning nor a note. Its
    // positions are message indexes of one JSON document, not the host's
    // line count: the note that the host counts the file's newlines after a
    // commit (docs/host.md "Positions and offsets: the host counts lines").
    let sandboxes = tempfile::tempdir().expect("temp dir");
    let dir = sandboxes.path().to_str().expect("utf-8 temp dir");
    let args = ["--cases", &cases("ownformat"), "--sandbox-dir", dir];
    let run = run_json(&wild("ownformat"), &args, &[]);
    assert_eq!(run.ids("failed"), Vec::<String>::new());
    assert_eq!(outcome(&run, "warning"), set(&[]));
    assert_eq!(
        outcome(&run, "note"),
        set(&[
            "transcript_analyzer.position",
            "transcript_analyzer.modified-files",
            // A checkpoint's lines alone are no JSON document: what it finds
            // from the offset is not verified here.
            "transcript_analyzer.modified-files-from-offset",
        ])
    );
    assert_eq!(run.code, 0);
    // Every other case passed, so no other sandbox is left: not even those
    // of the round trip's units that refused a generated input (kept until
    // the merged case was judged). The two noted cases keep theirs.
    let left = case_sandboxes(sandboxes.path(), 3);
    let noted = |p: &PathBuf| {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        name.contains("transcript-analyzer-position-")
            || name.contains("transcript-analyzer-modified-files-")
    };
    let other: Vec<_> = left.iter().filter(|p| !noted(p)).collect();
    assert!(other.is_empty(), "sandboxes left behind: {other:?}");
    // The checks really ran on the samples: every transcript case has steps
    // named after a sample, and they passed.
    for id in [
        "transcript_analyzer.position",
        "transcript_analyzer.modified-files-at-end",
        "token_calculator.past-end",
        "compact_transcript.compact",
        "subagent_aware_extractor.populated-dir",
        "core.chunk.own-samples",
    ] {
        let steps = step_names(&run, id);
        assert!(
            steps.iter().any(|s| s.contains("sample")),
            "{id} did not run on a sample: {steps:?}"
        );
    }
    // Its samples (one JSON document) lengthened too: the same answers.
    for id in [
        "transcript_analyzer.long-lines",
        "token_calculator.long-lines",
    ] {
        let steps = step_names(&run, id);
        assert!(
            steps.iter().any(|s| s.contains("[long lines] [sample")),
            "{id} did not lengthen a sample: {steps:?}"
        );
    }
}

#[test]
fn the_hosts_own_chunker_passes() {
    // The host's chunker is conforming; nothing to warn or note.
    passes_with("hostchunker", &[], &[], &[]);
}

#[test]
fn the_hosts_own_chunker_passes_the_generated_round_trips_for_40_seeds() {
    // 40 seeds, each a run of its own (a Python call is some 50 ms): 200
    // took a minute and a half of the suite's CI budget.
    const SEEDS: u64 = 40;
    const THREADS: u64 = 2;
    let plugin = wild("hostchunker");
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let plugin = &plugin;
                scope.spawn(move || {
                    let mut failures = Vec::new();
                    for seed in (1..=SEEDS).filter(|s| s % THREADS == t) {
                        let seed = seed.to_string();
                        let args = [
                            "--only",
                            "core.chunk.generated-jsonl",
                            "--seed",
                            seed.as_str(),
                            "--jobs",
                            "1",
                        ];
                        let run = run_json(plugin, &args, &[]);
                        let passed = run.ids("passed");
                        if run.code != 0
                            || !passed.iter().any(|id| id == "core.chunk.generated-jsonl")
                        {
                            failures.push(format!(
                                "seed {seed}: exit {}, {}",
                                run.code,
                                run.messages("core.chunk.generated-jsonl")
                            ));
                        }
                    }
                    failures
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a seed worker panicked"))
            .collect()
    });
    assert!(
        failures.is_empty(),
        "{} of {SEEDS} seeds failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn empty_answers_to_another_agents_transcript_are_unverified_not_broken() {
    // {} / position 0 / no files with exit 0 for the generic JSONL: treated
    // like a clean refusal, one warning per capability, notes for the rest.
    passes_with(
        "emptyforeign",
        &[],
        &[
            "token_calculator.from-start",
            "transcript_analyzer.position",
        ],
        &[
            "token_calculator.long-lines",
            "token_calculator.past-end",
            "transcript_analyzer.long-lines",
            "transcript_analyzer.modified-files",
            "transcript_analyzer.modified-files-at-end",
            "transcript_analyzer.prompts",
        ],
    );
    // With its own sample every transcript check runs on it and passes.
    passes_with(
        "emptyforeign",
        &["--cases", &cases("emptyforeign")],
        &[],
        &[],
    );
}

#[test]
fn a_database_backed_plugin_reads_nothing_of_a_foreign_transcript_and_is_not_verified() {
    // A position measured from the file's size, then no files and position
    // 0, {} for tokens: not verified here, never judged as values. Its
    // position case notes the byte position (not verified here): the
    // capability's one "unverified" warning is said where the run first
    // read nothing (modified-files), not as notes pointing to a warning
    // never printed.
    passes_with(
        "dbstore",
        &[],
        &[
            "token_calculator.from-start",
            "transcript_analyzer.modified-files",
        ],
        &[
            "token_calculator.long-lines",
            "token_calculator.past-end",
            "transcript_analyzer.long-lines",
            // The byte position: not verified here, a note.
            "transcript_analyzer.position",
            "transcript_analyzer.prompts",
        ],
    );
    let run = run_json(&wild("dbstore"), &["--only", "transcript_analyzer.*"], &[]);
    let message = run.messages("transcript_analyzer.modified-files");
    assert!(
        message.contains("not verified here") && message.contains("measured from the file"),
        "{message}"
    );
    // Its position of the generic transcript is the file's size: not
    // verified here either, a note that says why.
    let message = run.messages("transcript_analyzer.position");
    assert!(
        message.contains("not verified here") && message.contains("can only measure the file"),
        "{message}"
    );
    // The twin: a plugin that reads the format and answers byte positions
    // fails where its own Events show it (the replay's turns), and where
    // the host uses a position (the files from a checkpoint's start).
    twin_fails(
        "position-in-bytes",
        &[
            "session.agent",
            "transcript_analyzer.modified-files-from-offset",
        ],
        "the host counts",
    );
}
