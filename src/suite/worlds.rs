//! The user's world as axes (`worlds/axes.yaml`, docs/worlds.md): data,
//! like the cases. Each axis holds a clean-room value, the value every case
//! runs in by default (`base`), and the values users' machines have, each
//! citing what produces it. A covering design gives every value of every
//! axis to at least one unit (a case, or the cases that share a sandbox) of
//! every kind of case that reads the axis ([`assign`]), across the run, not
//! each case in every world. What a world is as a sandbox is
//! `execute::worlds`'s to say: this module is the data and the design.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Deserialize;

use crate::suite::case::Case;

/// The axes as embedded at build time.
const AXES: &str = include_str!("../../worlds/axes.yaml");

/// The file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axes {
    /// Kind of case → the globs of the case ids it holds.
    pub kinds: BTreeMap<String, Vec<String>>,
    /// The axes, in order.
    pub axes: Vec<Axis>,
}

/// One axis of the user's world.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Its name (`place`).
    pub id: String,
    /// What it is about, in a line.
    pub about: String,
    /// The kinds of case that read it.
    pub reads: Vec<String>,
    /// The value every case runs in unless assigned another.
    pub base: String,
    /// Its values.
    pub values: Vec<Value>,
}

/// One value of an axis and its transforms.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Value {
    /// Its name (`subdir`).
    pub id: String,
    /// The clean room.
    #[serde(default)]
    pub plain: bool,
    /// What produces it on a real machine.
    pub cite: String,
    /// The folder around the repository.
    pub nest: Option<String>,
    /// HOME's folder.
    pub home: Option<String>,
    /// Where the agent runs, under the repository.
    pub cwd: Option<String>,
    /// The clock's zone.
    pub zone: Option<ZoneData>,
    /// Variables set.
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    /// Variables unset.
    #[serde(default)]
    pub unset: Vec<String>,
    /// A record's line length (the long_lines action lays it down).
    pub line_bytes: Option<usize>,
    /// The mechanism that lays the value down instead of a sandbox's
    /// setting: `work_tree`, `long_lines`, `replay`, `lived_in`.
    pub met_by: Option<String>,
    /// The kinds of case this value means something to, where fewer than
    /// the axis's (a work tree only the cases expanded in work trees meet).
    pub reads: Option<Vec<String>>,
}

/// A zone as the file writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneData {
    /// The tz database name.
    pub name: String,
    /// The POSIX rule.
    pub posix: String,
}

/// The mechanisms a `met_by` may name.
const MET_BY: &[&str] = &["work_tree", "long_lines", "replay", "lived_in"];

impl Axes {
    /// The embedded axes, loaded and checked once.
    pub fn embedded() -> &'static Axes {
        static LOADED: std::sync::OnceLock<Axes> = std::sync::OnceLock::new();
        // The file is ours, and a unit test loads it: a build that passed
        // its tests never meets the fallback (no axes: every case in the
        // base world it ran in before them).
        LOADED.get_or_init(|| {
            Axes::parse(AXES).unwrap_or(Axes {
                kinds: BTreeMap::new(),
                axes: Vec::new(),
            })
        })
    }

    /// Parses and checks the file: one plain value per axis, a base that is
    /// one of its values, kinds that exist, no duplicate names.
    pub fn parse(text: &str) -> Result<Axes, String> {
        let axes: Axes = serde_saphyr::from_str(text).map_err(|e| e.to_string())?;
        for axis in &axes.axes {
            let plain = axis.values.iter().filter(|v| v.plain).count();
            if plain != 1 {
                return Err(format!(
                    "axis {} has {plain} plain values, not one",
                    axis.id
                ));
            }
            if axis.value(&axis.base).is_none() {
                return Err(format!(
                    "axis {}: base {} is no value of it",
                    axis.id, axis.base
                ));
            }
            if let Some(kind) = axis.reads.iter().find(|k| !axes.kinds.contains_key(*k)) {
                return Err(format!("axis {} reads an unknown kind {kind}", axis.id));
            }
            let met = axis.values.iter().filter_map(|v| v.met_by.as_deref());
            if let Some(bad) = met.clone().find(|m| !MET_BY.contains(m)) {
                return Err(format!("axis {}: unknown met_by {bad}", axis.id));
            }
        }
        Ok(axes)
    }

    /// The kind of a case, by its id: the first kind with a matching glob.
    pub fn kind_of(&self, id: &str) -> Option<&str> {
        self.kinds
            .iter()
            .find(|(_, globs)| globs.iter().any(|g| glob(g, id)))
            .map(|(kind, _)| kind.as_str())
    }

    /// The axis named `id`.
    pub fn axis(&self, id: &str) -> Option<&Axis> {
        self.axes.iter().find(|a| a.id == id)
    }

    /// Reads `--world place=subdir,clock=utc` (or bare value names, when a
    /// name is of one axis only) into a world over the base.
    pub fn parse_world(&self, text: &str) -> Result<World, String> {
        let mut world = World::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (axis, value) = match part.split_once('=') {
                Some((a, v)) => (self.axis(a).ok_or(format!("no axis {a}"))?, v),
                None => {
                    let mut of = self.axes.iter().filter(|a| a.value(part).is_some());
                    let axis = of.next().ok_or(format!("no axis has a value {part}"))?;
                    (axis, part)
                }
            };
            if axis.value(value).is_none() {
                return Err(format!("axis {} has no value {value}", axis.id));
            }
            world.values.insert(axis.id.clone(), value.to_string());
        }
        Ok(world)
    }
}

impl Axis {
    /// The value named `id`.
    pub fn value(&self, id: &str) -> Option<&Value> {
        self.values.iter().find(|v| v.id == id)
    }

    /// The clean-room value.
    pub fn plain(&self) -> &str {
        self.values
            .iter()
            .find(|v| v.plain)
            .map_or(self.base.as_str(), |v| v.id.as_str())
    }

    /// The values a covering design assigns: a sandbox's, not a
    /// mechanism's (`met_by`).
    pub fn assigned(&self) -> impl Iterator<Item = &Value> {
        self.values.iter().filter(|v| v.met_by.is_none())
    }

    /// The values that mean something to cases of `kind`: the axis reads
    /// it, and the value narrows it to no other kinds.
    pub fn values_for<'a>(&'a self, kind: &'a str) -> impl Iterator<Item = &'a Value> {
        let read = self.reads.iter().any(|k| k == kind);
        self.values
            .iter()
            .filter(move |v| read && v.reads.as_ref().is_none_or(|r| r.iter().any(|k| k == kind)))
    }

    /// How many units of `kind` meet every assigned value: one for each,
    /// the base's included.
    pub fn units_needed(&self, kind: &str) -> usize {
        let assigned = self.values_for(kind).filter(|v| v.met_by.is_none());
        assigned.filter(|v| v.id != self.base).count() + 1
    }
}

/// A world: a value for some axes, the base for the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct World {
    /// Axis → value, where not the base.
    pub values: BTreeMap<String, String>,
}

impl World {
    /// The value of `axis` in this world.
    pub fn value<'a>(&'a self, axis: &'a Axis) -> &'a str {
        self.values
            .get(&axis.id)
            .map_or(axis.base.as_str(), String::as_str)
    }

    /// The values other than the clean room's, as `axis=value`, in axis
    /// order: what a report names and `--world` takes back.
    pub fn named(&self, axes: &Axes) -> Vec<String> {
        axes.axes
            .iter()
            .filter(|a| self.value(a) != a.plain())
            .filter(|a| a.value(self.value(a)).is_some_and(|v| v.met_by.is_none()))
            .map(|a| format!("{}={}", a.id, self.value(a)))
            .collect()
    }

    /// The same world with `axis` at its clean-room value.
    pub fn plainer(&self, axis: &Axis) -> World {
        let mut world = self.clone();
        world
            .values
            .insert(axis.id.clone(), axis.plain().to_string());
        world
    }
}

/// The world of every case of a suite: the covering design ([`assign`])
/// over its units, or one world for all (`--world`).
#[derive(Debug, Clone, Default)]
pub struct Design {
    /// Case id → its world (absent: the base world).
    pub by_case: Arc<BTreeMap<String, World>>,
    /// `--world`: one world over the base for every case of a kind.
    pub forced: Option<World>,
}

impl Design {
    /// The design over `cases` (the suite as loaded, before any selection,
    /// so that a case runs in the same world whatever else runs). The cases
    /// that share a sandbox (`Case::share_key`) are one unit and share one
    /// world; a case that reads no axis, and one of the plugin's own case
    /// files (its payloads are the agent's own), run in the base world.
    pub fn new(axes: &Axes, cases: &[Case], forced: Option<World>) -> Design {
        let mut members: Vec<(String, Vec<&Case>)> = Vec::new();
        for case in cases.iter().filter(|c| !c.gate && c.origin.embedded) {
            let key = case.share_key().unwrap_or_else(|| case.id.clone());
            match members.iter_mut().find(|(k, _)| *k == key) {
                Some((_, list)) => list.push(case),
                None => members.push((key, vec![case])),
            }
        }
        let mut kinds: BTreeMap<String, Vec<(String, Vec<&Case>)>> = BTreeMap::new();
        for (key, list) in members {
            if let Some(kind) = list.iter().find_map(|c| axes.kind_of(&c.id)) {
                kinds.entry(kind.to_string()).or_default().push((key, list));
            }
        }
        let mut units: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut unit_of: Vec<(String, String)> = Vec::new();
        for (kind, mut list) in kinds {
            let needed = axes
                .axes
                .iter()
                .map(|a| a.units_needed(&kind))
                .max()
                .unwrap_or(1);
            split(&mut list, needed);
            for (key, cases) in &list {
                unit_of.extend(cases.iter().map(|c| (c.id.clone(), key.clone())));
            }
            units.insert(kind, list.into_iter().map(|(key, _)| key).collect());
        }
        let by_unit = assign(axes, &units);
        let by_case = unit_of
            .into_iter()
            .filter_map(|(id, key)| Some((id, by_unit.get(&key)?.clone())))
            .collect();
        Design {
            by_case: Arc::new(by_case),
            forced,
        }
    }

    /// The world case `case` runs in.
    pub fn of(&self, axes: &Axes, case: &Case) -> World {
        match (&self.forced, axes.kind_of(&case.id)) {
            (Some(world), Some(_)) => world.clone(),
            _ => self.by_case.get(&case.id).cloned().unwrap_or_default(),
        }
    }
}

/// Splits the units of a kind that has fewer than `needed` of them, the
/// largest first, in halves, until there are enough or none has two cases:
/// a value needs a unit of its own, and the cases split apart only lose the
/// answers they shared (their first call, made once more).
fn split(units: &mut Vec<(String, Vec<&Case>)>, needed: usize) {
    while units.len() < needed {
        let Some((at, _)) = units
            .iter()
            .enumerate()
            .filter(|(_, (_, cases))| cases.len() > 1)
            .max_by_key(|(_, (_, cases))| cases.len())
        else {
            return;
        };
        let (key, mut cases) = units.remove(at);
        let half = cases.split_off(cases.len() / 2);
        let split_key = format!("{key} [split {}]", units.len());
        units.insert(at, (key, cases));
        units.insert(at + 1, (split_key, half));
    }
}

/// The covering design: for the units of each kind (in order; each unit a
/// list of case ids that share a sandbox), the world of each unit. Every
/// assigned value of every axis the kind reads goes to one unit, spread
/// from the last unit backwards (the first units keep the base, which every
/// case ran in before the axes), wrapping when a kind has fewer units than
/// values; a unit's world combines the values it was given.
pub fn assign(axes: &Axes, units: &BTreeMap<String, Vec<String>>) -> BTreeMap<String, World> {
    let mut worlds = BTreeMap::new();
    for (kind, ids) in units {
        let mut given = vec![World::default(); ids.len()];
        let mut slot = 0usize;
        for axis in axes.axes.iter().filter(|a| a.reads.contains(kind)) {
            let values = axis.values_for(kind).filter(|v| v.met_by.is_none());
            for value in values.filter(|v| v.id != axis.base) {
                if ids.is_empty() {
                    break;
                }
                let unit = ids.len() - 1 - (slot % ids.len());
                given[unit].values.insert(axis.id.clone(), value.id.clone());
                slot += 1;
            }
        }
        for (id, world) in ids.iter().zip(given) {
            worlds.insert(id.clone(), world);
        }
    }
    worlds
}

/// A case id matches a glob (`*` any run of characters).
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|i| tail.is_char_boundary(*i))
                .any(|i| glob(rest, &tail[i..]))
        }
    }
}

#[cfg(test)]
#[path = "worlds_tests.rs"]
mod tests;
