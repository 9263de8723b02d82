//! agent-conform: a conformance harness for Entire CLI external agent plugins.
//!
//! The crate is small modules with one job each:
//! - [`runner`] spawns one plugin invocation the way the host does (deadline,
//!   output limits, process-group kill);
//! - [`sandbox`] makes the isolated git work tree and HOME each case runs in;
//! - [`case`] is the YAML case model and its loader, [`template`] its
//!   placeholders;
//! - [`schema`] compiles the JSON Schemas and decodes output as the host does;
//! - [`discovery`] checks the binary's name as the host's discovery does;
//! - [`checks`] measures an invocation against a step's expectations;
//! - [`userdata`] plays the user whose files a hook install must keep;
//! - [`generate`] and [`roundtrip`] make seeded transcripts and check the
//!   chunking round trip over them;
//! - [`execute`] runs a suite (gate, capabilities, parallel cases);
//! - [`coverage`] maps the specification's items to the cases that check them;
//! - [`results`] is the run's outcome, which the [`report`]ers render;
//! - [`init`] scaffolds a plugin repository's own cases from its `info`;
//! - [`app`] is the command line.

pub mod app;
pub mod case;
pub mod checks;
pub mod coverage;
pub mod discovery;
pub mod execute;
pub mod generate;
pub mod init;
pub mod report;
pub mod repro;
pub mod results;
pub mod roundtrip;
pub mod runner;
pub mod sandbox;
pub mod schema;
pub mod template;
pub mod userdata;

/// Files embedded at build time (see `build.rs`).
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
