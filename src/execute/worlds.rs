//! Which world each case runs in (the covering design of
//! `suite::worlds` over this run's cases), and a world as a sandbox's
//! setting. The cases that share a sandbox (`Case::share_key`) are one
//! unit, and share one world; a case that reads no axis, or one of the
//! plugin's own case files (its payloads are the agent's own, in the world
//! its author recorded), runs in the base world, the one every case ran in
//! before the axes were data.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::execute::Run;
use crate::host::Severity;
use crate::outcome::Kind;
use crate::outcome::results::{CaseOutcome, CaseReport, Shrunk};
use crate::running::setting::Setting;
use crate::suite::case::Case;
use crate::suite::worlds::{Axes, Design, World};

/// The most reruns shrinking makes in one run: it costs calls only when
/// something fails, and never more than this.
const RERUNS: usize = 24;

/// Every case's world in one run: the suite's design, and the worlds the
/// shrinking tries.
#[derive(Debug, Default)]
pub struct Worlds {
    /// The covering design (or `--world`), made before the cases were
    /// selected, so that `--only` runs a case in the world it had.
    design: Design,
    /// A case run again in another world, while shrinking.
    trying: Mutex<BTreeMap<String, World>>,
}

impl Worlds {
    /// The run's worlds: `design`, or where it is empty (a run made by
    /// hand, not by the command line), the design over `cases`.
    pub fn new(axes: &Axes, cases: &[Case], design: &Design) -> Worlds {
        let design = match design.by_case.is_empty() {
            true => Design::new(axes, cases, design.forced.clone()),
            false => design.clone(),
        };
        Worlds {
            design,
            trying: Mutex::default(),
        }
    }

    /// What keeps cases of two worlds from sharing a sandbox: the values
    /// its world takes over the base (nothing for the base world, so that
    /// the cases that begin as the gate does still take its answers).
    pub fn share_suffix(&self, axes: &Axes, case: &Case) -> String {
        let world = self.of(axes, case);
        match world.values.is_empty() {
            true => String::new(),
            false => format!(" {:?}", world.values),
        }
    }

    /// Runs `case` in `world` from now on (a world `--explore` drew, for
    /// the shrinking that starts from it).
    pub fn keep_trying(&self, id: &str, world: World) {
        if let Ok(mut trying) = self.trying.lock() {
            trying.insert(id.to_string(), world);
        }
    }

    /// The world case `case` runs in.
    pub fn of(&self, axes: &Axes, case: &Case) -> World {
        if let Some(world) = self
            .trying
            .lock()
            .ok()
            .and_then(|t| t.get(&case.id).cloned())
        {
            return world;
        }
        self.design.of(axes, case)
    }
}

impl Run<'_> {
    /// Shrinks the world of every case of `reports` that failed or warned
    /// in a world other than the clean room (see [`Run::shrink_one`]),
    /// within [`RERUNS`] reruns in all.
    pub(super) fn shrink(&self, cases: &[&Case], reports: &mut [CaseReport]) {
        let axes = Axes::embedded();
        let left = AtomicUsize::new(RERUNS);
        let work: Vec<(usize, &Case)> = reports
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some((i, *cases.iter().find(|c| c.id == r.id)?)))
            .filter(|(i, case)| worth_shrinking(axes, case, &reports[*i]))
            .collect();
        // The cases shrink side by side, `--jobs` at a time, each one's
        // reruns in turn.
        let next = AtomicUsize::new(0);
        let found: Mutex<Vec<(usize, Shrunk)>> = Mutex::default();
        let shared: &[CaseReport] = reports;
        std::thread::scope(|scope| {
            for _ in 0..self.options.jobs.clamp(1, work.len().max(1)) {
                scope.spawn(|| {
                    while let Some((i, case)) = work.get(next.fetch_add(1, Ordering::SeqCst)) {
                        if left.load(Ordering::SeqCst) == 0 {
                            break;
                        }
                        let shrunk = self.shrink_one(axes, case, &shared[*i], &left);
                        if let Ok(mut found) = found.lock() {
                            found.push((*i, shrunk));
                        }
                    }
                });
            }
        });
        for (i, shrunk) in found.into_inner().unwrap_or_default() {
            reports[i].shrunk = Some(shrunk);
        }
    }

    /// Runs `case` again with its world's values put back to the clean
    /// room's: first all at once (a finding that shows there too says
    /// nothing of the world), then one axis at a time, keeping each value
    /// whose removal makes the finding go: what is left is the smallest
    /// world that shows it.
    fn shrink_one(
        &self,
        axes: &Axes,
        case: &Case,
        report: &CaseReport,
        left: &AtomicUsize,
    ) -> Shrunk {
        let wanted = signature(report);
        let start = self.worlds.of(axes, case);
        let mut reruns = 0;
        let mut shows = |world: &World, left: &AtomicUsize| -> Option<bool> {
            let took = left.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            if took.is_err() {
                return None;
            }
            reruns += 1;
            let again = self.in_world(case, world);
            Some(shows_again(&wanted, &again))
        };
        let mut clean = start.clone();
        for axis in &axes.axes {
            clean = clean.plainer(axis);
        }
        match shows(&clean, left) {
            Some(true) => return shrunk(Vec::new(), reruns, false),
            None => return shrunk(start.named(axes), reruns, true),
            Some(false) => {}
        }
        let mut world = start;
        let mut bounded = false;
        for axis in &axes.axes {
            if world.value(axis) == axis.plain() {
                continue;
            }
            let fewer = world.plainer(axis);
            match shows(&fewer, left) {
                Some(true) => world = fewer,
                Some(false) => {}
                None => {
                    bounded = true;
                    break;
                }
            }
        }
        shrunk(world.named(axes), reruns, bounded)
    }

    /// The report of `case` run alone in `world`.
    pub(super) fn in_world(&self, case: &Case, world: &World) -> CaseReport {
        if let Ok(mut trying) = self.worlds.trying.lock() {
            trying.insert(case.id.clone(), world.clone());
        }
        let finished = self.run_case(case, None, None, None);
        if let Ok(mut trying) = self.worlds.trying.lock() {
            trying.remove(&case.id);
        }
        // A rerun's calls count in the run's, though its report goes.
        self.off_steps.fetch_add(
            calls_of(&finished.report),
            std::sync::atomic::Ordering::Relaxed,
        );
        finished.report
    }
}

/// The calls a case's report made.
pub(super) fn calls_of(report: &CaseReport) -> usize {
    report.steps.iter().filter(|s| s.made_a_call()).count()
}

fn shrunk(needs: Vec<String>, reruns: usize, bounded: bool) -> Shrunk {
    Shrunk {
        needs,
        reruns,
        bounded,
    }
}

/// Whether a case's report is one to shrink: it failed or warned, reads an
/// axis, ran in a world other than the clean room, and found something
/// other than "not verified" (a capability the run could not verify says
/// nothing of the world it ran in).
fn worth_shrinking(axes: &Axes, case: &Case, report: &CaseReport) -> bool {
    let bad = matches!(report.outcome, CaseOutcome::Failed | CaseOutcome::Warning);
    let split = case.property.is_some();
    bad && !split && axes.kind_of(&case.id).is_some() && !signature(report).is_empty()
}

/// What a case found at its outcome's severity: the codes of those
/// findings, "not verified" kinds left out.
fn signature(report: &CaseReport) -> BTreeSet<&'static str> {
    let severity = match report.outcome {
        CaseOutcome::Failed => Severity::Failure,
        CaseOutcome::Warning => Severity::Warning,
        _ => return BTreeSet::new(),
    };
    report
        .steps
        .iter()
        .flat_map(|s| &s.findings)
        .filter(|f| f.severity == severity)
        .filter(|f| !Kind::NOT_VERIFIED.contains(&f.kind))
        .map(|f| f.kind.code())
        .collect()
}

/// Whether a rerun shows what the first run found: a finding of one of the
/// same codes at the same severity.
fn shows_again(wanted: &BTreeSet<&'static str>, again: &CaseReport) -> bool {
    signature(again).iter().any(|code| wanted.contains(code))
}

/// One row of the coverage table: an axis value, a kind of case that
/// reads its axis, and the cases of that kind that meet it.
#[derive(Debug)]
pub struct Met {
    /// The axis.
    pub axis: String,
    /// The value.
    pub value: String,
    /// The kind of case.
    pub kind: String,
    /// The ids of the cases that meet it.
    pub cases: Vec<String>,
}

/// Every value of every axis against every kind of case that reads it, over
/// `cases` (the suite as loaded): the cases that meet it, by the covering
/// design or by the mechanism that lays it down (`met_by`: the cases' own
/// work trees, the `long_lines` action, the session replay).
pub fn coverage(axes: &Axes, cases: &[Case]) -> Vec<Met> {
    let worlds = Worlds::new(axes, cases, &Design::default());
    let mut rows = Vec::new();
    for axis in &axes.axes {
        for kind in &axis.reads {
            let of_kind: Vec<&Case> = cases
                .iter()
                .filter(|c| !c.gate && axes.kind_of(&c.id) == Some(kind.as_str()))
                .collect();
            for value in axis.values_for(kind) {
                let meets = |c: &&&Case| match value.met_by.as_deref() {
                    Some("work_tree") => format!("{:?}", c.work_tree)
                        .to_lowercase()
                        .contains(&value.id.replace("-worktree", "")),
                    Some("long_lines") => c
                        .steps
                        .iter()
                        .any(|s| s.value.action.as_ref().is_some_and(|a| a.is_long_lines())),
                    Some("replay") => c.replay.is_some(),
                    Some("lived_in") => c.steps.iter().any(|s| {
                        matches!(
                            s.value.action,
                            Some(crate::suite::case::Action::LivedInConfig { .. })
                        )
                    }),
                    _ => worlds.of(axes, c).value(axis) == value.id,
                };
                rows.push(Met {
                    axis: axis.id.clone(),
                    value: value.id.clone(),
                    kind: kind.clone(),
                    cases: of_kind.iter().filter(meets).map(|c| c.id.clone()).collect(),
                });
            }
        }
    }
    rows
}

/// The world as a sandbox's setting: each axis's value's transforms laid
/// over the base's, in axis order.
pub fn setting(axes: &Axes, world: &World) -> Setting {
    let mut setting = Setting::default();
    for axis in &axes.axes {
        if let Some(value) = axis.value(world.value(axis)) {
            apply(value, &mut setting);
        }
    }
    setting
}

/// Lays one value's transforms over `setting`.
fn apply(value: &crate::suite::worlds::Value, setting: &mut Setting) {
    if let Some(nest) = &value.nest {
        setting.nest = nest.clone();
    }
    if let Some(home) = &value.home {
        setting.home = home.clone();
    }
    if let Some(cwd) = &value.cwd {
        setting.cwd = cwd.clone();
    }
    if let Some(zone) = &value.zone {
        setting.zone = Some(crate::host::clock::Zone {
            name: leak(&zone.name),
            posix: leak(&zone.posix),
        });
    }
    for (name, text) in &value.set {
        setting.set.push((name.clone(), text.clone()));
    }
    setting.unset.extend(value.unset.iter().cloned());
}

/// A zone's names, made `'static` once per distinct name: the axes hold
/// a handful, loaded once.
fn leak(text: &str) -> &'static str {
    static SEEN: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());
    let Ok(mut seen) = SEEN.lock() else {
        return Box::leak(text.to_string().into_boxed_str());
    };
    if let Some(known) = seen.iter().find(|s| **s == text) {
        return known;
    }
    let made: &'static str = Box::leak(text.to_string().into_boxed_str());
    seen.push(made);
    made
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_base_world_is_the_setting_every_sandbox_had() {
        let axes = Axes::embedded();
        assert_eq!(setting(axes, &World::default()), Setting::default());
        let subdir = axes
            .parse_world("place=subdir,clock=utc,env=xdg-unset")
            .expect("a world");
        let made = setting(axes, &subdir);
        assert_eq!(made.cwd, "src/app");
        assert_eq!(made.nest, "projects");
        assert_eq!(made.zone.map(|z| z.name), Some("UTC"));
        assert!(made.unset.contains(&"XDG_CONFIG_HOME".to_string()));
    }
}
