//! The world a case that did not pass ran in, and what shrinking it found
//! (docs/worlds.md), in one line of the human report.

use crate::outcome::results::CaseReport;

/// `world: place=spaced, clock=india; fails only where clock=india (…)`
/// for a case whose finding needs its world; nothing where the finding
/// shows in the clean room too (it says nothing of the world: the JSON
/// report still names both) or the case was not shrunk.
pub fn line(case: &CaseReport) -> Option<String> {
    let shrunk = case.shrunk.as_ref()?;
    if shrunk.needs.is_empty() && !shrunk.bounded {
        return None;
    }
    let world = case.world.join(", ");
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
