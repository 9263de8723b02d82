//! The one error type every subcommand returns.
//!
//! The host turns a failed call into `<subcommand>: <stderr, trimmed>` for the
//! user, so every error carries a message meant for a person. `main` prints it as
//! `entire-agent-reference: <subcommand>: <message>` and picks the exit code.

use std::fmt;

/// Why a subcommand could not do its job.
#[derive(Debug)]
pub enum Error {
    /// The request could not be served (bad input, missing file, ...): exit 1.
    Failed(String),
    /// The binary itself was misused (no or unknown subcommand, unknown fault or
    /// variant name): exit 2, the conventional "usage" status.
    Usage(String),
    /// Exit 1 without a word on stderr. A real plugin never does this (the user
    /// would be left with nothing to act on); only the fault switch produces it.
    Silent,
}

impl Error {
    /// A request failure with the given message.
    pub fn failed(message: impl Into<String>) -> Self {
        Error::Failed(message.into())
    }

    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Failed(_) | Error::Silent => 1,
            Error::Usage(_) => 2,
        }
    }

    /// The message to print on stderr, if any.
    pub fn message(&self) -> Option<&str> {
        match self {
            Error::Failed(message) | Error::Usage(message) => Some(message),
            Error::Silent => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().unwrap_or("failed"))
    }
}

/// Shorthand used by every module.
pub type Result<T> = std::result::Result<T, Error>;

/// Attach context to I/O (and other) errors: `fs::read(p).context(|| format!("reading {p}"))`.
///
/// Errors that reach the user should say what was being done and to which file,
/// not just "No such file or directory".
pub trait ErrorContext<T> {
    /// Turn the error into an [`Error::Failed`] whose message starts with `what()`.
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T>;
}

impl<T, E: fmt::Display> ErrorContext<T> for std::result::Result<T, E> {
    fn context<S: Into<String>>(self, what: impl FnOnce() -> S) -> Result<T> {
        self.map_err(|err| Error::Failed(format!("{}: {err}", what().into())))
    }
}
