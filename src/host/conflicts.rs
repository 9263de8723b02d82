//! Plugins installed together: which pairs of plugins break each other on
//! one machine, and what the host then does. Each rule cites its section of
//! docs/host.md:
//!
//! - equal or nested session directories ("Plugins in the wild": "A shared
//!   staging directory", "Plugins installed together", "The session
//!   directory claims what is not the plugin's"): the host gives every
//!   transcript to one owner ([`crate::host::ownership`]) and skips the
//!   other's events as forwarded hooks;
//! - one `info.type` ("The host of September 2026": "The host finds an agent
//!   by its `type` too"): resume and rewind map a type back to an agent by
//!   a search in random order;
//! - hook files both write ("Subcommand-specific facts", "What the host does
//!   with each answer": `uninstall-hooks` and `are-hooks-installed` are
//!   trusted): removing A ([`crate::host::hooks::UNINSTALL_FLOWS`]) runs
//!   only A's `uninstall-hooks`, so B's hooks must survive it.
//!
//! Every such pair is a failure: the host breaks for one of the two.

use std::path::{Path, PathBuf};

use crate::host::Severity;
use crate::host::hooks::UNINSTALL_FLOWS;
use crate::host::ownership;

/// The weight of every conflict between plugins installed together: one of
/// the two gets no checkpoints, or resumes the other's sessions.
pub const SEVERITY: Severity = Severity::Failure;

/// Two plugins whose session directories are equal or nested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The agent the host makes the owner of the shared part.
    pub owner: String,
    /// The agent whose events there the host skips.
    pub skipped: String,
    /// Every event of `skipped` is skipped (its whole session directory lies
    /// in the shared part), not only those of transcripts in it.
    pub all: bool,
    /// The shared part: the inner (or common) session directory.
    pub shared: PathBuf,
}

/// Whether two agents' session directories (name, directory) are equal or
/// nested, and who the host then makes the owner: the first in sorted name
/// order of those whose directory contains the shared part.
pub fn session_overlap(a: (&str, &Path), b: (&str, &Path)) -> Option<Overlap> {
    let shared = if ownership::contains(a.1, b.1) {
        b.1
    } else if ownership::contains(b.1, a.1) {
        a.1
    } else {
        return None;
    };
    let agents = [
        (a.0.to_string(), a.1.to_path_buf()),
        (b.0.to_string(), b.1.to_path_buf()),
    ];
    let owner = ownership::owner(shared, &agents)?.to_string();
    let (skipped, skipped_dir) = if owner == a.0 { b } else { a };
    Some(Overlap {
        owner,
        skipped: skipped.to_string(),
        all: ownership::contains(shared, skipped_dir),
        shared: shared.to_path_buf(),
    })
}

/// What the host does with an overlap, in words for the report.
pub fn overlap_message(overlap: &Overlap, dir_a: &Path, dir_b: &Path) -> String {
    let which = if overlap.all {
        "every hook event".to_string()
    } else {
        format!(
            "every hook event whose transcript is under {}",
            overlap.shared.display()
        )
    };
    let same = if dir_a == dir_b {
        format!("the same session directory ({})", dir_a.display())
    } else {
        format!(
            "nested session directories ({} and {})",
            dir_a.display(),
            dir_b.display()
        )
    };
    format!(
        "{same}: the host makes {owner} (first in name order) the owner of its transcripts and \
         skips {which} of {skipped} as a forwarded hook, so with both installed {skipped} gets \
         no checkpoints",
        owner = overlap.owner,
        skipped = overlap.skipped,
    )
}

/// Whether two agents' `info.type` make the host confuse them: the same
/// string (an empty one only collides with another empty one).
pub fn same_type(a: &str, b: &str) -> bool {
    a == b
}

/// What the host does with two agents of one type, for the report.
pub fn type_message(a: &str, b: &str, agent_type: &str) -> String {
    format!(
        "{a} and {b} both report type {agent_type:?}: session state, checkpoints and commit \
         trailers store the type, and `entire resume` and `entire rewind` map it back to an \
         agent by a search in random order, so each may resume or rewind the other's sessions"
    )
}

/// What the host does when uninstalling `removed` took `kept`'s hooks with
/// it, for the report; `lost` names what went (entries, files, the answer
/// of `are-hooks-installed`).
pub fn hooks_message(removed: &str, kept: &str, lost: &[String]) -> String {
    format!(
        "installing {removed}, then {kept}, then uninstalling {removed} (deselecting it in \
         {UNINSTALL_FLOWS}) changed {kept}'s hooks: {}; the host trusts uninstall-hooks and never \
         asks again, so {kept}'s agent events stop making checkpoints",
        lost.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_directory_gives_everything_to_the_first_name() {
        let dir = Path::new("/r/.entire/tmp");
        let o = session_overlap(("zeta", dir), ("alpha", dir)).expect("overlap");
        assert_eq!(
            (o.owner.as_str(), o.skipped.as_str(), o.all),
            ("alpha", "zeta", true)
        );
    }

    #[test]
    fn a_nested_directory_loses_only_what_the_outer_owner_sorts_before() {
        let (outer, inner) = (Path::new("/r/.entire"), Path::new("/r/.entire/tmp"));
        let o = session_overlap(("a", outer), ("b", inner)).expect("overlap");
        assert_eq!(
            (o.owner.as_str(), o.skipped.as_str(), o.all),
            ("a", "b", true)
        );
        let o = session_overlap(("b", outer), ("a", inner)).expect("overlap");
        assert_eq!(
            (o.owner.as_str(), o.skipped.as_str(), o.all),
            ("a", "b", false)
        );
        assert!(session_overlap(("a", Path::new("/r/.a")), ("b", Path::new("/r/.ab"))).is_none());
    }

    #[test]
    fn types_collide_when_equal_even_empty() {
        assert!(same_type("", ""));
        assert!(!same_type("Kiro", "kiro"));
    }
}
