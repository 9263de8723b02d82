//! Running plugin calls as the host does: one invocation, the sandbox it
//! runs in, confinement, bounds on writes and leftover processes,
//! interruption, and the folders of runs.

pub mod bounds;
pub mod confine;
pub mod depot;
pub mod interrupt;
pub mod journal;
#[cfg(target_os = "linux")]
pub(crate) mod polled;
pub mod rerun;
pub mod runner;
pub mod runs;
pub mod sandbox;
pub mod setting;
mod stand_in;
pub mod state;
pub mod worktree;
