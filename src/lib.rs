//! agent-conform: a conformance harness for Entire CLI external agent plugins.
//!
//! The crate's top-level modules are its layers (see `ARCHITECTURE.md` at
//! the root of the repository); each depends only on the ones listed after
//! it:
//! - [`verbs`]: the command line, one module per verb;
//! - [`execute`]: runs a suite (gate, capabilities, parallel cases, round
//!   trips, session replays, the circuit breaker);
//! - [`report`]: renders a run's outcome (human, JSON, JUnit, GitHub,
//!   progress);
//! - [`judge`]: measures what a plugin answered against a step's
//!   expectations and the host's rules;
//! - [`outcome`]: the run's outcome as data (findings, step, case and run
//!   reports) and how to reproduce each invocation;
//! - [`suite`]: the suite as data: the case model and loader, templates,
//!   fixtures, generated inputs, the schemas, coverage;
//! - [`running`]: spawning plugin calls as the host does, in sandboxes,
//!   confined, bounded, interruptible;
//! - [`host`]: the model of the host, the one place that encodes what the
//!   Entire CLI does, each rule citing `docs/host.md`.

pub mod execute;
pub mod host;
pub mod judge;
pub mod outcome;
pub mod report;
pub mod running;
pub mod suite;
pub mod verbs;

/// Files embedded at build time (see `build.rs`).
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
