//! The calls `agent-conform discover` makes: every `entire-agent-*` on
//! `PATH` that the host would run is probed with `info` (all at once, each
//! with the host's 10 s, each in its own sandbox), then the registered
//! plugins are checked for what breaks when they are installed together
//! ([`crate::execute::conflicts`]): the same type, equal or nested session
//! directories, and hooks that one's uninstall removes of the other. Every
//! call is made in a sandbox, none in the user's repository.
//!
//! What the host makes of each file and of each answer is
//! [`crate::judge::registration`]'s; rendering it is
//! [`crate::report::discover`]'s.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::execute::conflicts::{self, Member};
use crate::host::discovery::plugin_path;
use crate::host::range::HostRange;
use crate::judge::{external_agents, registration};
use crate::outcome::discover::{Discovery, Found, Registration};
use crate::outcome::many::Conflict;
use crate::running::bounds::DEFAULT_MAX_WRITE_MIB;
use crate::running::runner::{self, Invocation};
use crate::running::sandbox::{self, Sandbox};

/// How to probe.
#[derive(Debug, Clone)]
pub struct Options {
    /// Deadline of each `info` (the host's is [`INFO_TIMEOUT`](crate::host::invocation::INFO_TIMEOUT)).
    pub timeout: Duration,
    /// Where the probes' sandboxes go.
    pub sandbox_base: PathBuf,
    /// The host releases judged (`--host-version`).
    pub hosts: HostRange,
    /// The host's managed plugin directory, put first on `PATH` by the
    /// releases that do so (`--managed-dir`).
    pub managed_dir: Option<PathBuf>,
}

/// Everything `discover` reports for the user's `path_var`, run from the
/// directory `cwd` (whose repository's settings are read): the entries in
/// `PATH` order, the conflicts between the registered ones, the settings.
pub fn discover(path_var: &OsStr, cwd: &Path, options: &Options) -> Discovery {
    let found = found(path_var, options);
    crate::running::interrupt::hold_if_interrupted();
    let conflicts = conflicts(&found, options);
    crate::running::interrupt::hold_if_interrupted();
    Discovery {
        found,
        conflicts,
        settings: external_agents::setting(cwd, &options.hosts),
        path_dirs: std::env::split_paths(path_var).count(),
    }
}

/// Every `entire-agent-*` entry of `path_var` and what the host does with
/// it, in `PATH` order; the entries the host would run are probed
/// concurrently.
pub fn found(path_var: &OsStr, options: &Options) -> Vec<Found> {
    let managed_dir = options.managed_dir.as_deref();
    let searched = registration::searched_path(path_var, &options.hosts, managed_dir);
    let mut found = registration::before_info(plugin_path::scan(&searched), &options.hosts);
    std::thread::scope(|scope| {
        let probes: Vec<_> = found
            .iter_mut()
            .filter(|f| f.registration == Registration::Registered)
            .map(|f| scope.spawn(move || probe(f, options)))
            .collect();
        for probe in probes {
            let _ = probe.join();
        }
    });
    for f in &mut found {
        registration::finish(f, &options.hosts, managed_dir);
    }
    found
}

/// Runs `info` as the host's discovery does, in a sandbox of its own, and
/// has the judge record what the host makes of the answer.
fn probe(found: &mut Found, options: &Options) {
    let sandbox = match Sandbox::create("discover", &options.sandbox_base) {
        Ok(sandbox) => sandbox,
        Err(err) => return registration::not_probed(found, &err.to_string()),
    };
    let mut inv = Invocation::new(
        found.path.clone(),
        vec!["info".to_string()],
        sandbox.repo(),
        options.timeout,
    );
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    // Nothing the call leaves running outlives it.
    inv.guard = Some(sandbox.guard(DEFAULT_MAX_WRITE_MIB << 20));
    let outcome = runner::run(&inv);
    registration::after_info(found, options.timeout, &outcome);
}

/// The conflicts between the plugins the host registers, installed
/// together: every call in a sandbox of its own, never in the user's
/// repository.
fn conflicts(found: &[Found], options: &Options) -> Vec<Conflict> {
    let settings = conflicts::Settings {
        timeout: options.timeout,
        sandbox_base: options.sandbox_base.clone(),
        confine: crate::running::confine::probe().is_ok(),
        max_write: DEFAULT_MAX_WRITE_MIB << 20,
    };
    conflicts::check(&members(found), &settings)
}

/// The members of the conflict checks: the plugins the host registers.
fn members(found: &[Found]) -> Vec<Member> {
    found
        .iter()
        .filter(|f| f.registered)
        .map(|f| Member {
            name: f.name.clone(),
            path: f.path.clone(),
            info: f.info.clone(),
        })
        .collect()
}
