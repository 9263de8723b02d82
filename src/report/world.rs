//! The world a case that did not pass ran in, and what shrinking it found
//! (docs/worlds.md), in one line of the human report.

use crate::outcome::results::CaseReport;

/// `world: place=spaced, clock=india; fails only where clock=india (…)`,
/// or nothing for a case that ran in the clean room.
pub fn line(case: &CaseReport) -> Option<String> {
    if case.world.is_empty() {
        return None;
    }
    let world = case.world.join(", ");
    let Some(shrunk) = &case.shrunk else {
        return Some(format!("  world: {world}"));
    };
    let reruns = match shrunk.reruns {
        1 => "1 rerun".to_string(),
        n => format!("{n} reruns"),
    };
    let found = match (shrunk.needs.is_empty(), shrunk.bounded) {
        (true, false) => format!("shows in the clean room too ({reruns}): nothing of the world"),
        (true, true) => format!("not shrunk: the run's reruns ran out ({reruns})"),
        (false, bounded) => format!(
            "fails only where {} ({reruns}{}; again: --only {} --world {})",
            shrunk.needs.join(", "),
            if bounded { ", reruns ran out" } else { "" },
            case.id,
            shrunk.needs.join(",")
        ),
    };
    Some(format!("  world: {world}; {found}"))
}
