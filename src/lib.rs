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

// The layers are private to the crate (the `api` module below is the one
// door), yet they are what a reader of the docs needs: `cargo doc
// --document-private-items` shows them, and their doc links are kept, so
// a link to a private item is no fault; a broken link still is.
#![allow(rustdoc::private_intra_doc_links)]

pub(crate) mod execute;
pub(crate) mod host;
pub(crate) mod judge;
pub(crate) mod outcome;
pub(crate) mod report;
pub(crate) mod running;
pub(crate) mod suite;
pub(crate) mod verbs;

/// Files embedded at build time (see `build.rs`).
pub(crate) mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The command line: what `src/main.rs` runs.
pub use verbs::main;

/// What the integration tests (`tests/`) and the benchmark (`bench/`) drive
/// directly: the suite and its schemas, a run and its reports, one call in a
/// sandbox. Every layer is private to the crate, so the compiler shows what
/// nothing uses; this is the one door into it.
pub mod api {
    pub use crate::execute::{Options, run};
    pub use crate::host::answers::go::shape as answer_shape;
    pub use crate::host::answers::{Field, GoType, go_base64, judge_ordered};
    pub use crate::host::clock::parse_rfc3339;
    pub use crate::host::decoding::{Ordered, decode_host_json, decode_ordered};
    pub use crate::outcome::many::{Conflict, ConflictKind, ManyReport};
    pub use crate::outcome::results::{
        CaseOutcome, CaseReport, Counts, Hosts, RunReport, Sent, StepReport,
    };
    pub use crate::outcome::{Finding, Kind};
    pub use crate::report::human::{Human, Verbosity};
    pub use crate::report::progress::Silent;
    pub use crate::report::{github, json, junit};
    pub use crate::running::{confine, runner, sandbox};
    pub use crate::suite::{case, coverage, schema};
    pub use crate::verbs::init;
}
