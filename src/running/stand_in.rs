//! The sandbox's stand-in for the host's `entire` command, and the calls
//! it records: what the hooks a plugin installs run, seen without the host.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One call of the `entire` stand-in: what a hook (or the plugin) ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostCall {
    /// The arguments after `entire`.
    pub args: Vec<String>,
    /// What it read on stdin (nothing when stdin was a terminal).
    pub stdin: Vec<u8>,
}

impl HostCall {
    /// The call as a command line: `entire hooks foo stop`.
    pub fn command(&self) -> String {
        let mut line = crate::host::invocation::HOST_COMMAND.to_string();
        for arg in &self.args {
            line.push(' ');
            line.push_str(arg);
        }
        line
    }
}

/// The stand-in for the host's `entire` command, a POSIX shell script: it
/// records its arguments and stdin under `calls` and exits 0, as the host's
/// `entire hooks <agent> <hook>` does for a hook that it accepts. It
/// forwards nothing anywhere (unlike `agent-conform record`'s shim). A
/// fork of `sh`, `printf` and `cat` per call: a hook that runs it pays about
/// a millisecond, and a plugin that never calls it pays nothing.
fn stand_in(calls: &Path) -> String {
    let dir = format!("'{}'", calls.to_string_lossy().replace('\'', "'\\''"));
    format!(
        "#!/bin/sh\n\
         # agent-conform's stand-in for the Entire CLI: records the call, exits 0.\n\
         d={dir}\n\
         if [ $# -gt 0 ]; then printf '%s\\n' \"$@\"; fi > \"$d/$$.args\"\n\
         if [ -t 0 ]; then : > \"$d/$$.stdin\"; else cat > \"$d/$$.stdin\"; fi\n\
         exit 0\n"
    )
}

/// Writes the stand-in as `bin/entire`, executable.
pub(super) fn write_stand_in(bin: &Path, calls: &Path) -> io::Result<()> {
    let path = bin.join(crate::host::invocation::HOST_COMMAND);
    fs::write(&path, stand_in(calls))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// The calls recorded in `dir`, oldest first (by modification time, then
/// process id).
pub(super) fn host_calls(dir: &Path) -> Vec<HostCall> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(std::time::SystemTime, u64, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let pid = path
                .file_name()?
                .to_str()?
                .strip_suffix(".args")?
                .parse()
                .ok()?;
            let time = e.metadata().and_then(|m| m.modified()).ok()?;
            Some((time, pid, path))
        })
        .collect();
    found.sort();
    found
        .into_iter()
        .map(|(_, _, path)| {
            let text = fs::read_to_string(&path).unwrap_or_default();
            let args = text.lines().map(str::to_string).collect();
            let stdin = fs::read(path.with_extension("stdin")).unwrap_or_default();
            HostCall { args, stdin }
        })
        .collect()
}
