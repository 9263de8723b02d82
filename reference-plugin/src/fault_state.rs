//! State that the session faults keep between calls (testing aid), one JSON
//! file per fault under `$HOME/.reference/fault-state/`.
//!
//! Only the faults that misbehave across calls use it (a real agent's session
//! spans many plugin calls, each a new process). Every access is best effort:
//! state that cannot be read or written simply leaves the plugin correct.

use std::fs;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::context::Context;

/// The state file `name` under the home directory, if `HOME` is set.
fn path(ctx: &Context, name: &str) -> Option<PathBuf> {
    Some(
        ctx.home()?
            .join(".reference")
            .join("fault-state")
            .join(format!("{name}.json")),
    )
}

/// The state object `name`; empty when missing or unreadable.
pub fn load(ctx: &Context, name: &str) -> Map<String, Value> {
    path(ctx, name)
        .and_then(|path| fs::read(path).ok())
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|value| match value {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .unwrap_or_default()
}

/// Replace the state object `name` (best effort).
pub fn store(ctx: &Context, name: &str, map: Map<String, Value>) {
    let Some(path) = path(ctx, name) else { return };
    if let Some(parent) = path.parent() {
        let _ = fs::create_dir_all(parent);
    }
    let _ = fs::write(path, Value::Object(map).to_string());
}
