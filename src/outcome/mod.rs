//! The run's outcome as data, and how to reproduce each invocation.

pub mod repro;
pub mod results;
