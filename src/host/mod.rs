//! The host layer: the one place where agent-conform encodes what the real
//! host (the Entire CLI) does, read from `docs/host.md`.
//!
//! Cases and checks ask this layer; they do not restate it. Each module
//! names the section of docs/host.md it encodes:
//! - [`agent_env`]: a refusal naming a variable the agent always sets
//!   ("Plugins in the wild");
//! - [`crash`]: a crash (a trace, a panic, a fatal signal) told from a
//!   clean refusal ("Invocation");
//! - [`answers`]: how each JSON answer is decoded (Go's `encoding/json`) and
//!   what each field's zero value costs the user ("How output is decoded",
//!   "What each answer costs the user, from the host's source");
//! - [`session`]: the calls the host makes over a session, in order, and
//!   what it hands from one answer to the next ("The calls the host makes
//!   over a session, in order");
//! - [`invocation`]: its environment, deadlines and output limits
//!   ("Invocation");
//! - [`decoding`]: one JSON value, Go integers ("How output is decoded");
//! - [`clock`]: times as Go's `time.Parse(time.RFC3339, …)` reads them, and
//!   the zones the sandboxes run in ("How output is decoded", "The user's
//!   machine, not a clean room");
//! - [`discovery`]: file names, built-in names, `PATH`, the repository
//!   setting ("Discovery and registration");
//! - [`ownership`], [`builtin_dirs`]: whose transcript a path is, the
//!   host's owner lookup over session directories, and the built-in agents'
//!   directories ("The session directory claims what is not the plugin's",
//!   "A shared staging directory");
//! - [`chunker`]: the `--max-size` it asks, when it reassembles through the
//!   plugin, its JSONL chunker's boundary ("Subcommand-specific facts");
//! - [`reach`]: which host paths reach a plugin, and so what a finding on
//!   a path the host never takes for it weighs ("Plugins in the wild");
//! - [`protocol_only`]: the calls the host never makes and the inputs it
//!   never sends, and what a rule there weighs ("The calls the host makes
//!   over a session, in order");
//! - [`positions`]: transcript positions in the host's unit, a line count
//!   ("Positions and offsets: the host counts lines");
//! - [`long_lines`]: transcripts whose records hold lines of megabytes, and
//!   what the host keeps of an analysis answer that falls short on them
//!   ("The user's machine, not a clean room");
//! - [`releases`]: every release and what changed in it ("Which release
//!   brought what"); [`range`]: the releases a run judges (`--host-version`);
//! - [`callers`]: the ways the host calls outside a hook (listing commands,
//!   the manual uninstall, hosts without `ENTIRE_CLI_VERSION`), the hook
//!   input it forwards, the discovery deadline inside hooks ("The host of
//!   September 2026");
//! - [`hooks`]: what an installed hook must call (`entire hooks <agent>
//!   <hook>`) and which Event types can make a checkpoint ("The calls the
//!   host makes over a session, in order");
//! - [`identity`]: what `info` declares that the host reads (its type, the
//!   capability keys, `caller_env_vars`) ("The host of September 2026");
//! - [`ownership`] and [`conflicts`]: which agent owns a transcript path,
//!   and which plugins break each other when installed together ("Plugins
//!   in the wild", "The host finds an agent by its `type` too");
//! - [`session_path`] and [`ids`]: the newest hosts' checks of session file
//!   names before `write-session` and of session and tool ids, by variant
//!   ("The newest host source (read December 2026)");
//! - [`project`]: the user's project as the host treats it: `detect` at
//!   setup ("The user's project as the host treats it");
//! - [`Severity`]: what the host does with an answer: breaks, degrades, or
//!   nothing.
//!
//! Nothing outside this layer knows a release number: checks ask
//! [`range::HostRange`] where a [`releases::Fact`] holds.
//!
//! This layer depends on no other layer of the crate.

pub mod agent_env;
pub mod answers;
pub mod builtin_dirs;
pub mod callers;
pub mod chunker;
pub mod clock;
pub mod conflicts;
pub mod crash;
pub mod decoding;
pub mod discovery;
pub mod evidence;
pub mod gojson;
pub mod hooks;
pub mod identity;
pub mod ids;
pub mod invocation;
pub mod long_lines;
pub mod ownership;
pub mod positions;
pub mod project;
pub mod protocol_only;
pub mod range;
pub mod reach;
pub mod releases;
pub mod replay;
pub mod session;
pub mod session_path;
mod severity;

pub use severity::Severity;
