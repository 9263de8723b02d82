//! The error every verb returns when it cannot run as asked (exit 2).

/// A problem with how agent-conform was asked to run: exit 2.
#[derive(Debug)]
pub struct UsageError {
    /// One sentence.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl UsageError {
    /// A problem and what to do about it.
    pub(crate) fn new(message: impl Into<String>, hint: impl Into<String>) -> UsageError {
        UsageError {
            message: message.into(),
            hint: Some(hint.into()),
        }
    }
}
