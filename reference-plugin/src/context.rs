//! What every subcommand may consult besides its own flags and stdin: the
//! environment the host sets up, and the testing switches.

use std::path::PathBuf;

use crate::error::{ErrorContext, Result};
use crate::faults::Fault;
use crate::variants::{Variant, Variants};

/// The agent's directory in the repository: its presence means the agent is used
/// here, and it must survive a rewind.
pub const AGENT_DIR: &str = ".reference";

/// Per-invocation context, built once in `main`.
#[derive(Debug, Default)]
pub struct Context {
    /// The fault in force (testing aid), if any.
    pub fault: Option<Fault>,
    /// The neutral variations in force (testing aid).
    pub variants: Variants,
}

impl Context {
    /// Whether `fault` is the fault in force.
    pub fn fault(&self, fault: Fault) -> bool {
        self.fault == Some(fault)
    }

    /// Whether `variant` is switched on.
    pub fn variant(&self, variant: Variant) -> bool {
        self.variants.has(variant)
    }

    /// The repository root: `ENTIRE_REPO_ROOT`, which the host always sets,
    /// falling back to the working directory (which the host sets to the same
    /// root) so the binary also behaves when run by hand.
    pub fn repo_root(&self) -> Result<PathBuf> {
        match std::env::var_os("ENTIRE_REPO_ROOT") {
            Some(root) if !root.is_empty() => Ok(PathBuf::from(root)),
            _ => std::env::current_dir().context(|| "finding the current directory"),
        }
    }

    /// The user's home directory, from `HOME`; `None` when unset or empty.
    pub fn home(&self) -> Option<PathBuf> {
        std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
    }
}
