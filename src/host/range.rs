//! The host range a run is judged for (`--host-version`, a case's
//! `host_version:`): a requirement as Cargo's `rust-version` or a browserslist
//! query reads it, matched against the releases of [`crate::host::releases`].
//!
//! A requirement is `*`, or comparators joined by commas (all must hold):
//! `>=0.6`, `<0.12`, `>0.9.0`, `<=0.10.3`, `=0.10.3`, or a bare version. A
//! bare or `=` version with all three parts is that release; with fewer
//! (`0.6`) or a family (`0.11.x`) it is every release that starts so. A
//! family (`0.11.x`) matches a comparator when some patch of it could.
//! A case file may also name a fact of the table: `before cli-version-env`
//! (the releases without it) or `from gemini-retired` (the releases with it).
//! A release where the notes do not know whether it has the fact counts as
//! both, and the messages say so.

use crate::host::releases::{self, Fact, RELEASES, Release};

/// The requirement used when none is given: every release with external
/// plugins.
pub const DEFAULT: &str = ">=0.5.0";

/// The releases judged, and the requirement that chose them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostRange {
    /// As written (`>=0.5.0` by default).
    pub requirement: String,
    /// The releases it matches, oldest first; never empty.
    pub releases: Vec<&'static Release>,
}

impl Default for HostRange {
    fn default() -> Self {
        HostRange::parse(DEFAULT).unwrap_or_else(|_| HostRange {
            requirement: DEFAULT.to_string(),
            releases: RELEASES.iter().collect(),
        })
    }
}

/// One comparator of a requirement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Ge,
    Gt,
    Le,
    Lt,
    Eq,
}

/// A version as written: up to three parts, the missing ones wild.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Written {
    parts: [u64; 3],
    given: usize,
}

/// A requirement: a list of comparators, all of which must hold.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Requirement(Vec<(Op, Written)>);

impl Requirement {
    fn parse(text: &str) -> Result<Requirement, String> {
        let text = text.trim();
        if text == "*" {
            return Ok(Requirement(Vec::new()));
        }
        let mut comparators = Vec::new();
        for part in text.split(',') {
            comparators.push(comparator(part.trim())?);
        }
        Ok(Requirement(comparators))
    }

    fn matches(&self, release: &Release) -> bool {
        self.0.iter().all(|(op, v)| holds(*op, v, release))
    }
}

fn comparator(text: &str) -> Result<(Op, Written), String> {
    if text.is_empty() {
        return Err("an empty comparator".to_string());
    }
    let (op, rest) = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        (">", Op::Gt),
        ("<", Op::Lt),
        ("=", Op::Eq),
    ]
    .iter()
    .find_map(|(sign, op)| text.strip_prefix(sign).map(|rest| (*op, rest)))
    .unwrap_or((Op::Eq, text));
    Ok((op, written(rest.trim())?))
}

fn written(text: &str) -> Result<Written, String> {
    let text = text.strip_prefix('v').unwrap_or(text);
    let mut parts = [0u64; 3];
    let mut given = 0;
    for (n, piece) in text.split('.').enumerate() {
        if n >= 3 {
            return Err(format!("{text:?} has more than three parts"));
        }
        if matches!(piece, "x" | "X" | "*") {
            break;
        }
        parts[n] = piece
            .parse()
            .map_err(|_| format!("{text:?} is not a version"))?;
        given = n + 1;
    }
    if given == 0 {
        return Err(format!("{text:?} is not a version"));
    }
    Ok(Written { parts, given })
}

/// Whether a comparator holds for a release; for a family, whether it holds
/// for some patch of it.
fn holds(op: Op, v: &Written, release: &Release) -> bool {
    let (major, minor, patch) = release.version;
    let have = [major, minor, patch];
    // Compare on the parts written; a family's patch is open.
    let given = if release.family {
        v.given.min(2)
    } else {
        v.given
    };
    let ord = have[..given].cmp(&v.parts[..given]);
    let open = release.family && v.given == 3;
    use std::cmp::Ordering::*;
    match op {
        Op::Eq => ord == Equal,
        Op::Ge => ord != Less,
        Op::Le => ord != Greater,
        // Past the written parts a release is "more" only when the patch is open.
        Op::Gt => ord == Greater || (ord == Equal && (open || v.given < given)),
        Op::Lt => ord == Less || (ord == Equal && open && v.parts[2] > 0),
    }
}

/// An example of a requirement, for the usage error.
pub const EXAMPLE: &str = "--host-version '>=0.9, <0.12'";

impl HostRange {
    /// The releases matching a requirement; an error sentence when it
    /// cannot be read or matches no release.
    pub fn parse(text: &str) -> Result<HostRange, String> {
        let requirement = Requirement::parse(text)?;
        let releases: Vec<&'static Release> =
            RELEASES.iter().filter(|r| requirement.matches(r)).collect();
        if releases.is_empty() {
            return Err(format!(
                "{text:?} matches no release of the host with external plugins ({}–{})",
                RELEASES[0].name,
                RELEASES[RELEASES.len() - 1].name
            ));
        }
        Ok(HostRange {
            requirement: text.trim().to_string(),
            releases,
        })
    }

    /// The releases judged, as spans (`0.5.0–0.12.x`).
    pub fn describe(&self) -> String {
        spans(&self.releases)
    }

    /// Where a condition holds within the range: a fact's releases, or a
    /// case's own requirement.
    pub fn scope(&self, condition: &ReleaseCondition) -> Scope {
        let mut scope = Scope::default();
        for &release in &self.releases {
            match condition.on(release) {
                Some(true) => scope.on.push(release),
                Some(false) => scope.off.push(release),
                None => scope.unsure.push(release),
            }
        }
        scope.fact = match condition {
            ReleaseCondition::Before(f) | ReleaseCondition::From(f) => Some(*f),
            ReleaseCondition::Requirement(_) => None,
        };
        scope
    }

    /// Where a built-in agent of this name is built in, within the range.
    pub fn built_in(&self, built_in: &releases::BuiltIn) -> Scope {
        let mut scope = Scope {
            fact: built_in.until.or(built_in.from),
            ..Scope::default()
        };
        for &release in &self.releases {
            match built_in.on(release) {
                Some(true) => scope.on.push(release),
                Some(false) => scope.off.push(release),
                None => scope.unsure.push(release),
            }
        }
        scope
    }

    /// Where something holds within the range, release by release
    /// (`Some(true)` holds, `Some(false)` not, `None` not known); `fact`
    /// is the boundary a message names where it is not known.
    pub fn scope_by(&self, fact: Option<Fact>, on: impl Fn(&Release) -> Option<bool>) -> Scope {
        let mut scope = Scope {
            fact,
            ..Scope::default()
        };
        for &release in &self.releases {
            match on(release) {
                Some(true) => scope.on.push(release),
                Some(false) => scope.off.push(release),
                None => scope.unsure.push(release),
            }
        }
        scope
    }

    /// Where the range's releases have a fact.
    pub fn with_fact(&self, fact: Fact) -> Scope {
        self.scope(&ReleaseCondition::From(fact))
    }
}

/// Which releases a case is for (`host_version:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseCondition {
    /// Releases matching a requirement.
    Requirement(String),
    /// Releases without a fact (`before <fact>`).
    Before(Fact),
    /// Releases with a fact (`from <fact>`).
    From(Fact),
}

impl ReleaseCondition {
    /// Reads `before <fact>`, `from <fact>` or a requirement; an error
    /// sentence otherwise.
    pub fn parse(text: &str) -> Result<ReleaseCondition, String> {
        let text = text.trim();
        for (word, make) in [
            (
                "before ",
                ReleaseCondition::Before as fn(Fact) -> ReleaseCondition,
            ),
            (
                "from ",
                ReleaseCondition::From as fn(Fact) -> ReleaseCondition,
            ),
        ] {
            if let Some(id) = text.strip_prefix(word) {
                return Fact::from_id(id.trim()).map(make).ok_or_else(|| {
                    let ids: Vec<&str> = releases::TABLE.iter().map(|r| r.id).collect();
                    format!(
                        "{:?} is no fact of the host's releases ({})",
                        id,
                        ids.join(", ")
                    )
                });
            }
        }
        Requirement::parse(text)?;
        Ok(ReleaseCondition::Requirement(text.to_string()))
    }

    fn on(&self, release: &Release) -> Option<bool> {
        match self {
            ReleaseCondition::Requirement(text) => {
                Some(Requirement::parse(text).is_ok_and(|r| r.matches(release)))
            }
            ReleaseCondition::Before(fact) => releases::has(release, *fact).map(|has| !has),
            ReleaseCondition::From(fact) => releases::has(release, *fact),
        }
    }
}

/// The releases of a range where something holds, where it does not, and
/// where the notes do not know.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Where it holds.
    pub on: Vec<&'static Release>,
    /// Where it does not.
    pub off: Vec<&'static Release>,
    /// Where it is not known.
    pub unsure: Vec<&'static Release>,
    /// The fact whose boundary this is, if any.
    pub fact: Option<Fact>,
}

impl Scope {
    /// Whether it holds, or may hold, on some release of the range.
    pub fn any(&self) -> bool {
        !self.on.is_empty() || !self.unsure.is_empty()
    }

    /// Whether it holds on every release of the range.
    pub fn everywhere(&self) -> bool {
        self.off.is_empty() && self.unsure.is_empty()
    }

    /// The start of a message: `on entire 0.5.0–0.10.5` (and, where the
    /// boundary is not known, which releases may also be so, and why).
    pub fn prefix(&self) -> String {
        let mut out = match (self.on.is_empty(), self.unsure.is_empty()) {
            (false, _) => format!("on entire {}", spans(&self.on)),
            (true, false) => format!("perhaps on entire {}", spans(&self.unsure)),
            (true, true) => "on no release judged".to_string(),
        };
        if !self.on.is_empty() && !self.unsure.is_empty() {
            out.push_str(&format!(" and perhaps {}", spans(&self.unsure)));
        }
        if let (false, Some(fact)) = (self.unsure.is_empty(), self.fact) {
            let row = fact.row();
            out.push_str(&format!(
                " (the release that brought {:?} is not known: {}, {} confidence)",
                row.what,
                row.noted,
                row.confidence.label()
            ));
        }
        out
    }

    /// The releases where it does not hold, as spans.
    pub fn elsewhere(&self) -> String {
        spans(&self.off)
    }
}

/// Releases as spans of consecutive ones in [`RELEASES`]: `0.5.0–0.5.1,
/// 0.12.x`.
pub fn spans(list: &[&Release]) -> String {
    let mut indices: Vec<usize> = list
        .iter()
        .filter_map(|r| releases::index(r.name))
        .collect();
    indices.sort_unstable();
    indices.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < indices.len() {
        let start = i;
        while i + 1 < indices.len() && indices[i + 1] == indices[i] + 1 {
            i += 1;
        }
        let (a, b) = (RELEASES[indices[start]].name, RELEASES[indices[i]].name);
        out.push(if start == i {
            a.to_string()
        } else {
            format!("{a}–{b}")
        });
        i += 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> String {
        HostRange::parse(text)
            .map(|r| r.describe())
            .unwrap_or_else(|e| e)
    }

    #[test]
    fn requirements_choose_releases() {
        assert_eq!(names("*"), "0.5.0–0.12.x");
        assert_eq!(names(DEFAULT), "0.5.0–0.12.x");
        assert_eq!(names(">=0.6"), "0.6.0–0.12.x");
        assert_eq!(names("0.10.3"), "0.10.3");
        assert_eq!(names("0.10"), "0.10.0–0.10.5");
        assert_eq!(names(">=0.9, <0.12"), "0.9.0–0.11.x");
        assert_eq!(names(">=0.12"), "0.12.x");
        assert_eq!(names("<0.6.0"), "0.5.0–0.5.6");
        assert_eq!(names(">0.10.5"), "0.11.x–0.12.x");
        assert_eq!(names("=0.11.3"), "0.11.x");
        assert_eq!(names("0.7.x"), "0.7.x");
        assert!(HostRange::parse(">=1.0").is_err());
        assert!(HostRange::parse("latest").is_err());
        assert!(HostRange::parse(">=0.6,").is_err());
    }

    #[test]
    fn a_scope_names_its_releases_and_what_is_not_known() {
        let all = HostRange::default();
        let gemini = releases::built_in("gemini").unwrap();
        let scope = all.built_in(gemini);
        assert!(
            scope
                .prefix()
                .starts_with("on entire 0.5.0–0.10.5 and perhaps 0.11.x (the release")
        );
        assert!(!HostRange::parse(">=0.12").unwrap().built_in(gemini).any());
        let before = all.scope(&ReleaseCondition::Before(Fact::CliVersionEnv));
        assert_eq!(before.prefix(), "on entire 0.5.0–0.5.6");
        assert_eq!(
            ReleaseCondition::parse("before cli-version-env"),
            Ok(ReleaseCondition::Before(Fact::CliVersionEnv))
        );
        assert!(ReleaseCondition::parse("before nothing").is_err());
    }
}
