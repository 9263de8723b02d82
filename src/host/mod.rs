//! The host layer: the one place where agent-conform encodes what the real
//! host (the Entire CLI) does, read from `../shared/spec/host-behaviour.md`.
//!
//! Cases and checks ask this layer; they do not restate it. Each module
//! names the section of host-behaviour.md it encodes:
//! - [`answers`]: how each JSON answer is decoded (Go's `encoding/json`) and
//!   what each field's zero value costs the user ("How output is decoded",
//!   "What each answer costs the user, from the host's source");
//! - [`session`]: the calls the host makes over a session, in order, and
//!   what it hands from one answer to the next ("The calls the host makes
//!   over a session, in order");
//! - [`invocation`]: its environment, deadlines and output limits
//!   ("Invocation");
//! - [`decoding`]: one JSON value, Go integers ("How output is decoded");
//! - [`discovery`]: file names, built-in names, `PATH`, the repository
//!   setting ("Discovery and registration");
//! - [`chunker`]: the `--max-size` it asks, when it reassembles through the
//!   plugin, its JSONL chunker's boundary ("Subcommand-specific facts");
//! - [`ownership`] and [`together`]: which agent owns a transcript path,
//!   and which plugins break each other when installed together ("Plugins
//!   in the wild", "The host finds an agent by its `type` too");
//! - [`Severity`]: what the host does with an answer: breaks, degrades, or
//!   nothing.
//!
//! This layer depends on no other layer of the crate.

pub mod answers;
pub mod chunker;
pub mod decoding;
pub mod discovery;
pub mod invocation;
pub mod ownership;
pub mod session;
mod severity;
pub mod together;

pub use severity::Severity;
