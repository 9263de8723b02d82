//! agent-conform: a conformance harness for Entire CLI external agent plugins.
//!
//! The crate is small modules with one job each:
//! - [`runner`] spawns one plugin invocation the way the host does (deadline,
//!   output limits, process-group kill);
//! - [`sandbox`] makes the isolated git work tree and HOME each case runs in;
//!   [`confine`] keeps the plugin's writes inside it (Landlock); [`depot`]
//!   makes sandboxes ahead of the cases and deletes them after;
//! - [`case`] is the YAML case model, its loader and its validator;
//!   [`template`] its placeholders, [`fixtures`] the files cases refer to;
//! - [`schema`] compiles the JSON Schemas and decodes output as the host does;
//! - [`discovery`] checks the binary's name as the host's discovery does;
//! - [`checks`] measures an invocation against a step's expectations;
//! - [`userdata`] plays the user whose files a hook install must keep;
//! - [`generate`] and [`roundtrip`] make seeded transcripts and check the
//!   chunking round trip over them;
//! - [`execute`] runs a suite (gate, capabilities, parallel cases);
//!   [`breaker`] stops calls of a subcommand that timed out, and the run
//!   under `--fail-fast`;
//! - [`plugin_path`] finds plugins on `PATH` as the host does, and
//!   [`discover`] reports what the host would make of each;
//! - [`coverage`] maps the specification's items to the cases that check them;
//! - [`results`] is the run's outcome, which the [`report`]ers render;
//! - [`init`] scaffolds a plugin repository's own cases from its `info`;
//!   [`record`] captures a real agent session as a case file that replays it;
//! - [`interrupt`] ends an interrupted run without leaving plugin processes
//!   or sandboxes behind; [`machine`] bounds each call's writes and kills
//!   what it left running; [`runs`] keeps the sandboxes of the newest runs
//!   only;
//! - [`app`] is the command line.

pub mod app;
pub mod breaker;
pub mod case;
pub mod checks;
pub mod confine;
pub mod coverage;
pub mod depot;
pub mod discover;
pub mod discovery;
pub mod execute;
pub mod fixtures;
pub mod generate;
pub mod host;
pub mod init;
pub mod interrupt;
pub mod machine;
pub mod plugin_path;
pub mod record;
pub mod report;
pub mod repro;
pub mod results;
pub mod roundtrip;
pub mod runner;
pub mod runs;
pub mod sandbox;
pub mod schema;
pub mod template;
pub mod userdata;

/// Files embedded at build time (see `build.rs`).
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}
