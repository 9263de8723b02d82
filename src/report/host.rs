//! The human report's part of the replay through a real host (`--host`):
//! the build and what it is run as, each command with its exit, what the
//! host made of it, the host's word on each finding it reached, and the
//! findings it contradicted with both outcomes; without `--host`, one line
//! when `entire` is on `PATH`.

use std::fmt::Write as _;

use crate::host::replay::{Verdict, on_path_hint};
use crate::outcome::host_replay::HostReplay;
use crate::outcome::results::RunReport;

/// The section, or the hint line, or nothing.
pub fn section(out: &mut String, run: &RunReport) {
    let Some(replay) = &run.host_replay else {
        if let Some(entire) = &run.entire_on_path {
            let _ = writeln!(
                out,
                "\nnote: {}",
                on_path_hint(&entire.display().to_string())
            );
        }
        return;
    };
    let _ = writeln!(
        out,
        "\nThe real host ({}): {}",
        replay.host, replay.build.line
    );
    if let Some(why) = &replay.build.unknown {
        let _ = writeln!(out, "  {why}");
    }
    for step in &replay.steps {
        let exit = match step.exit_code {
            Some(code) => format!("exit {code}"),
            None => step.termination.clone(),
        };
        let _ = writeln!(out, "  {:<24} {exit:<8} {}", step.what, step.command);
        if step.exit_code != Some(0) {
            for line in step.stderr.lines() {
                let _ = writeln!(out, "      {line}");
            }
        }
    }
    seen(out, replay);
    if let Some(why) = &replay.stopped {
        let _ = writeln!(out, "  the replay stopped: {why}");
    }
    words(out, run);
    if !replay.contradicted.is_empty() {
        let _ = writeln!(
            out,
            "\nNot confirmed by the host ({}): lowered, a bug of the model to fix",
            replay.contradicted.len()
        );
        for c in &replay.contradicted {
            let _ = writeln!(out, "  {} · {}", c.case, c.step);
            let _ = writeln!(out, "    predicted ({}): {}", c.was.label(), c.predicted);
            let _ = writeln!(out, "    {}", c.host_showed);
        }
    }
}

/// What the host made: checkpoint, restore, hooks left.
fn seen(out: &mut String, replay: &HostReplay) {
    let s = &replay.seen;
    let yes = |b: Option<bool>, y: &str, n: &str| match b {
        Some(true) => y.to_string(),
        Some(false) => n.to_string(),
        None => "not reached".to_string(),
    };
    let failed = s.hooks.iter().filter(|(_, ok, _)| !ok).count();
    let _ = writeln!(
        out,
        "  hooks: {} fired, {failed} failed · checkpoint: {} · resume: {} · rewind: {} · hook \
         lines left after uninstall: {}",
        s.hooks.len(),
        yes(s.checkpoint, "made", "none"),
        yes(s.resume_bytes, "the transcript's bytes", "other bytes"),
        yes(s.rewind_bytes, "the transcript's bytes", "other bytes"),
        s.hooks_left
            .map_or("not reached".to_string(), |n| n.to_string()),
    );
}

/// The host's word on the findings, one line per case and word (how
/// many findings, the first one's sentence); the contradicted are listed
/// after.
fn words(out: &mut String, run: &RunReport) {
    if let Some(replay) = &run.host_replay {
        let [c, b, n] = replay.words;
        let _ = writeln!(
            out,
            "  the host's word: {c} confirmed, {b} beyond its sight, {n} not confirmed"
        );
    }
    for case in &run.cases {
        let mut said: Vec<(Verdict, usize, String)> = Vec::new();
        let words = case
            .steps
            .iter()
            .flat_map(|s| &s.findings)
            .filter_map(|f| f.host_word.as_ref());
        for word in words.filter(|w| w.verdict != Verdict::NotConfirmed) {
            match said.iter_mut().find(|(v, _, _)| *v == word.verdict) {
                Some(entry) => entry.1 += 1,
                None => said.push((word.verdict, 1, word.text.clone())),
            }
        }
        for (_, n, text) in said {
            let text: String = text.chars().take(200).collect();
            let _ = writeln!(out, "  {} ({n}): {text}", case.id);
        }
    }
}
