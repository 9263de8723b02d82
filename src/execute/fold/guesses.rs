//! The scaffold's guessed samples (`guess: true`, written by
//! `agent-conform init`) that the plugin refused: said once, as one note
//! that says what to fill in, at the first such case; the others are skips
//! that point there. A guess is another agent's payload, which the host
//! never sends the plugin: never a failure.

use crate::outcome::Finding;
use crate::outcome::results::{CaseOutcome, CaseReport, StepReport};

/// What the run says once.
fn guess_message(count: usize) -> String {
    let cases = if count == 1 {
        "1 case".to_string()
    } else {
        format!("{count} cases")
    };
    format!(
        "your samples are still the scaffold's guess: record a session (`agent-conform record`) \
         or paste a real payload, then delete `guess: true` ({cases} of your case file refused \
         the guessed payload)"
    )
}

/// The first refused guess becomes the one note; the others skips.
pub(super) fn guesses_once(reports: &mut [CaseReport]) {
    let refused: Vec<usize> = (0..reports.len())
        .filter(|&i| reports[i].refused_guess && reports[i].outcome == CaseOutcome::Note)
        .collect();
    let Some((&first, rest)) = refused.split_first() else {
        return;
    };
    let first_id = reports[first].id.clone();
    let said = StepReport::without_invocation(
        "scaffold guess",
        "action",
        vec![Finding::note(guess_message(refused.len()))],
    );
    reports[first].steps.insert(0, said);
    for &i in rest {
        reports[i].outcome = CaseOutcome::Skipped(format!(
            "the scaffold's guessed payload, refused (see {first_id}, where the run says it once)"
        ));
    }
}
