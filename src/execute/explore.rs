//! `--explore N`: N more worlds, sampled from the run's seed, for an author
//! who wants a deeper search than the covering design. Each draw is one case
//! of a kind (among those that passed in their world) run alone in a world
//! drawn at random from the values its kind reads; a case that fails or
//! warns there takes that report in place of its design run's, and is
//! shrunk like any other. The run's seed is in the report, and the same seed
//! draws the same worlds.

use crate::execute::Run;
use crate::execute::worlds::calls_of;
use crate::outcome::results::{CaseOutcome, CaseReport};
use crate::suite::case::Case;
use crate::suite::generate::Rng;
use crate::suite::worlds::{Axes, World};

impl Run<'_> {
    /// Draws `n` worlds (see the module); returns how many found something
    /// the design's runs had not.
    pub(super) fn explore(&self, n: usize, cases: &[&Case], reports: &mut [CaseReport]) -> usize {
        let axes = Axes::embedded();
        let mut rng = Rng::new(self.options.seed ^ 0x6578_706c_6f72_6521);
        let mut found = 0;
        for _ in 0..n {
            let candidates: Vec<usize> = reports
                .iter()
                .enumerate()
                .filter(|(_, r)| matches!(r.outcome, CaseOutcome::Passed | CaseOutcome::Note))
                .filter_map(|(i, r)| {
                    let case = cases.iter().find(|c| c.id == r.id)?;
                    let open = case.property.is_none() && axes.kind_of(&case.id).is_some();
                    open.then_some(i)
                })
                .collect();
            if candidates.is_empty() {
                break;
            }
            let at = *rng.pick(&candidates);
            let Some(case) = cases.iter().find(|c| c.id == reports[at].id) else {
                continue;
            };
            let world = draw(axes, case, &mut rng);
            let again = self.in_world(case, &world);
            if matches!(again.outcome, CaseOutcome::Failed | CaseOutcome::Warning) {
                found += 1;
                // Its calls count once: the design run's stand in the run's
                // tally in place of the report they made.
                let (kept, gone) = (calls_of(&again), calls_of(&reports[at]));
                self.off_steps
                    .fetch_add(gone, std::sync::atomic::Ordering::Relaxed);
                self.off_steps
                    .fetch_sub(kept, std::sync::atomic::Ordering::Relaxed);
                reports[at] = again;
                // The shrinking that follows starts from this world.
                self.worlds.keep_trying(&case.id, world);
            }
        }
        found
    }
}

/// A world for `case` drawn at random: for every axis its kind reads, one
/// of the values that mean something to that kind (those a case's own
/// mechanism lays down excepted).
fn draw(axes: &Axes, case: &Case, rng: &mut Rng) -> World {
    let mut world = World::default();
    let Some(kind) = axes.kind_of(&case.id) else {
        return world;
    };
    for axis in &axes.axes {
        let values: Vec<&str> = axis
            .values_for(kind)
            .filter(|v| v.met_by.is_none())
            .map(|v| v.id.as_str())
            .collect();
        if !values.is_empty() {
            world
                .values
                .insert(axis.id.clone(), rng.pick(&values).to_string());
        }
    }
    world
}
