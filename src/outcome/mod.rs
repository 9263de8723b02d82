//! The run's outcome as data, and how to reproduce each invocation.

pub mod discover;
pub mod evidence;
pub mod finding;
pub mod host_replay;
pub mod kept;
pub mod kind;
pub mod many;
pub mod own_side;
pub mod repro;
pub mod results;

pub use finding::{Finding, Kind};
