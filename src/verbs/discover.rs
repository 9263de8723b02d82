//! `agent-conform discover`: every `entire-agent-*` on `PATH`, and what the
//! host makes of it (docs/host.md, "Discovery and registration").
//!
//! Only the verb is here: its flags, the usage error of a `--host-version`
//! it cannot read, and the dispatch. The calls (each plugin's `info`, the
//! conflicts between the registered ones) are [`crate::execute::discover`]'s,
//! what the host does with each entry is [`crate::judge::registration`]'s,
//! and the text and JSON reports are [`crate::report::discover`]'s.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use super::{Format, print_stdout, run, usage::UsageError};
use crate::execute::discover::Options;
use crate::report;

/// Probes every `entire-agent-*` on the user's `PATH` (each `info` with
/// `timeout`, the host's 10 s by default) as the releases `host_version`
/// would, and prints the report in `format`.
pub(super) fn discover(
    timeout: Option<Duration>,
    format: Format,
    host_version: Option<&str>,
    managed_dir: Option<PathBuf>,
) -> Result<ExitCode, UsageError> {
    let path_var = std::env::var_os("PATH").unwrap_or_default();
    let hosts = run::host_range(host_version)?;
    // Every plugin found is run (`info`): Ctrl-C must not leave one running.
    crate::running::interrupt::install();
    let options = Options {
        timeout: timeout.unwrap_or(crate::host::invocation::INFO_TIMEOUT),
        sandbox_base: crate::running::sandbox::default_base(),
        hosts,
        managed_dir,
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    let discovery = crate::execute::discover::discover(&path_var, &cwd, &options);
    print_stdout(&match format {
        Format::Human => report::discover::text(&discovery),
        Format::Json => report::discover::json(&discovery),
    });
    Ok(ExitCode::SUCCESS)
}
