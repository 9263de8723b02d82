//! The Go test plugins (tests/plugins/go): real Go programs, standard
//! library only, for the patterns of docs/host.md that come from Go's
//! standard library (a line scanner's limit, a `time.Format` layout, nil
//! slices marshalled as `null`, struct tags). One module with a main
//! package per plugin, `entire-agent-<name>/`, and the conforming base they
//! share, `wild/`.
//!
//! Each is built once per `cargo test` invocation into the target
//! directory (see [`super::shared`]): the plain builds of every plugin in
//! one `go build`, and a twin, the same source with one habit switched by
//! `-ldflags -X main.variant=<variant>`, in one more. Where `go` is not on
//! `PATH` (a user's clone), [`go_plugin`] says so in one line and the test
//! that asked passes.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

use super::{plugin, shared};

/// A build being made or made once: the folder of its binaries, `None`
/// where there is no `go`.
type Build = Arc<OnceLock<Option<PathBuf>>>;

/// The Go plugin `entire-agent-<name>`, plain (`variant` `None`) or the twin
/// built with `main.variant` set, built on first use in this `cargo test`
/// invocation; `None`, said in one line on stderr, where `go` is not on
/// `PATH`. A build that fails is a test failure.
pub fn go_plugin(name: &str, variant: Option<&str>) -> Option<PathBuf> {
    let key = variant.map_or_else(|| "plain".to_string(), |v| format!("{name}-{v}"));
    static BUILDS: Mutex<Option<HashMap<String, Build>>> = Mutex::new(None);
    let cell = {
        let mut builds = BUILDS.lock().unwrap_or_else(|e| e.into_inner());
        builds
            .get_or_insert_with(HashMap::new)
            .entry(key.clone())
            .or_default()
            .clone()
    };
    let dir = cell.get_or_init(|| build(&key, name, variant)).clone();
    let Some(dir) = dir else {
        let _ = writeln!(
            std::io::stderr(),
            "go is not on PATH: the test of the Go plugin entire-agent-{name} is skipped"
        );
        return None;
    };
    Some(dir.join(format!("entire-agent-{name}")))
}

/// Whether `go` runs here.
fn go_present() -> bool {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(|| {
        Command::new("go")
            .arg("version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Builds `key` into `target/go-plugins/<key>/` (every plugin for the
/// plain build, `entire-agent-<name>` for a twin), unless this invocation
/// has built it already.
fn build(key: &str, name: &str, variant: Option<&str>) -> Option<PathBuf> {
    if !go_present() {
        return None;
    }
    let dir = shared::target_dir().join("go-plugins").join(key);
    let built = shared::invocation_dir().map(|d| d.join(format!("go-built-{key}")));
    if built.as_ref().is_some_and(|b| b.exists()) {
        return Some(dir);
    }
    let mut go = Command::new("go");
    go.arg("build").current_dir(plugin("go"));
    // The machine's own toolchain, never one downloaded for go.mod; no
    // module proxy (standard library only); static binaries, and paths of
    // the build left out of them.
    go.env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-trimpath")
        .env("GOPROXY", "off")
        .env("GOWORK", "off")
        .env("CGO_ENABLED", "0");
    if let Some(variant) = variant {
        go.arg("-ldflags").arg(format!("-X main.variant={variant}"));
    }
    // A directory as -o (its trailing separator) takes every main package.
    go.arg("-o").arg(format!("{}/", dir.display()));
    go.arg(variant.map_or_else(|| "./...".to_string(), |_| format!("./entire-agent-{name}")));
    let out = go.output().expect("go runs");
    assert!(
        out.status.success(),
        "go build of the Go test plugins ({key}) failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(built) = built {
        let _ = std::fs::write(built, "");
    }
    Some(dir)
}
