//! One problem found in a step, as data: what the judgement produces and
//! the reporters show.

use crate::host::Severity;

pub use super::kind::Kind;

/// One problem found in a step.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Failure, warning or note.
    pub severity: Severity,
    /// What kind of finding it is: a stable code the reports carry and
    /// decisions match on (never the message text).
    pub kind: Kind,
    /// A failure whatever the case's severity: a hang, a flood, a plugin that
    /// cannot be started. The host breaks on these in every call.
    pub hard: bool,
    /// One line: what is wrong.
    pub message: String,
    /// What was expected, when there is something to show.
    pub expected: Option<String>,
    /// What came back.
    pub actual: Option<String>,
}

impl Finding {
    /// A failure with only a message.
    pub fn failure(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Failure,
            kind: Kind::Check,
            hard: false,
            message: message.into(),
            expected: None,
            actual: None,
        }
    }

    /// A failure that no case severity lowers (timeouts, floods).
    pub fn hard(message: impl Into<String>) -> Finding {
        Finding {
            hard: true,
            ..Finding::failure(message)
        }
    }

    /// A note with only a message.
    pub fn note(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Note,
            ..Finding::failure(message)
        }
    }

    /// Caps the severity at `max` (the case's), unless the finding is hard.
    pub fn cap(&mut self, max: Severity) {
        if !self.hard {
            self.severity = self.severity.min(max);
        }
    }

    /// A warning with only a message.
    pub fn warning(message: impl Into<String>) -> Finding {
        Finding {
            severity: Severity::Warning,
            ..Finding::failure(message)
        }
    }

    /// Sets the kind.
    pub fn kind(mut self, kind: Kind) -> Finding {
        self.kind = kind;
        self
    }

    /// Prefixes the message with what was being checked.
    pub fn with_context(mut self, what: &str) -> Finding {
        self.message = format!("({what}) {}", self.message);
        self
    }

    /// Adds what was expected and what came back.
    pub fn diff(mut self, expected: impl Into<String>, actual: impl Into<String>) -> Finding {
        self.expected = Some(expected.into());
        self.actual = Some(actual.into());
        self
    }
}

/// A unified diff of expected and actual text, three lines of context.
pub fn unified_diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}
