//! One problem found in a step, as data: what the judgement produces and
//! the reporters show.

use crate::host::Severity;

pub use super::evidence::Evidence;

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
    /// What the finding is about, as data beside its message (its
    /// subject, gist and context; see [`About`]). Boxed: most findings have
    /// none, and a finding stays small.
    pub about: Option<Box<About>>,
    /// The case's note was made from this finding (an accepted refusal's):
    /// when the message is said again shorter, the note follows, and a
    /// report that shows the finding does not show the note twice.
    pub says_note: bool,
    /// What the finding rests on (see [`Evidence`]), when it says so itself
    /// (the plugin's own answer, a flag of the host's); `None`: what its
    /// step's input rests on, settled with the step ([`Finding::settle`]).
    /// An assumption about the agent alone never makes a failure
    /// ([`Finding::weight`]).
    pub evidence: Option<Evidence>,
    /// Lowered to a note by an allowance (`--allow`, a case file's
    /// `allow:`): what the run says of the plugin's own side reads it
    /// (`outcome::own_side`).
    pub allowed: bool,
    /// What a real host showed of it (`--host`): confirmed, beyond its
    /// sight, or not confirmed; `None` without a replay, or one that did
    /// not reach it.
    pub host_word: Option<super::host_replay::HostWord>,
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
            about: None,
            says_note: false,
            evidence: None,
            allowed: false,
            host_word: None,
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
            self.severity = self.weight().min(max);
        }
    }

    /// Sets the severity (a weighing by reach, release or renewal), never
    /// above what the finding's evidence allows.
    pub fn set_severity(&mut self, severity: Severity) {
        self.severity = severity;
        self.severity = self.weight();
    }

    /// Sets what the finding rests on; a failure that rests on an
    /// assumption alone is a warning from here on.
    pub fn rests_on(mut self, evidence: Evidence) -> Finding {
        self.evidence = Some(evidence);
        self.severity = self.weight();
        self
    }

    /// What the finding rests on: its own evidence, else the host's input
    /// (a finding not yet settled with its step).
    pub fn evidence(&self) -> Evidence {
        self.evidence.unwrap_or_default()
    }

    /// Settles a finding with its step: one that does not say what it
    /// rests on rests on what the step's input does (`input`), and weighs
    /// no more than that allows. The one place where a step's input caps
    /// its findings (ARCHITECTURE.md, "Invariants"); settling twice changes
    /// nothing.
    pub fn settle(&mut self, input: Evidence) {
        if self.evidence.is_none() {
            self.evidence = Some(input);
            self.severity = self.weight();
        }
    }

    /// The weight the finding has: its severity, held at what its evidence
    /// allows ([`Evidence::cap`]). A hard finding (a hang, a flood, a
    /// plugin that cannot start) rests on the host's own limits, which
    /// hold whatever the input, and keeps its weight.
    pub fn weight(&self) -> Severity {
        if self.hard {
            self.severity
        } else {
            self.evidence().cap(self.severity)
        }
    }

    /// Takes the real host's word (`--host`): a finding the host's outcome
    /// contradicts is lowered to `lowered_to` (what the host showed),
    /// unless it is hard (a hang holds whatever the host does); the
    /// others keep their severity.
    pub fn host_says(&mut self, word: super::host_replay::HostWord, lowered_to: Option<Severity>) {
        if let Some(severity) = lowered_to
            && !self.hard
        {
            self.set_severity(severity.min(self.severity));
        }
        self.host_word = Some(word);
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

    /// Sets what was being checked, which reports print before the
    /// message ([`Finding::text`]).
    pub fn with_context(mut self, what: &str) -> Finding {
        self.about_mut().context = Some(what.to_string());
        self
    }

    /// Sets what the finding is about ([`About::subject`]).
    pub fn with_subject(mut self, subject: impl Into<String>) -> Finding {
        self.about_mut().subject = Some(subject.into());
        self
    }

    /// Sets the finding in a few words ([`About::gist`]).
    pub fn with_gist(mut self, gist: impl Into<String>) -> Finding {
        self.about_mut().gist = Some(gist.into());
        self
    }

    /// What the finding is about ([`About::subject`]), if it says.
    pub fn subject(&self) -> Option<&str> {
        self.about.as_ref()?.subject.as_deref()
    }

    /// The finding in a few words ([`About::gist`]), if it has them.
    pub fn gist(&self) -> Option<&str> {
        self.about.as_ref()?.gist.as_deref()
    }

    /// What was being checked ([`About::context`]), if the step checks
    /// several things.
    pub fn context(&self) -> Option<&str> {
        self.about.as_ref()?.context.as_deref()
    }

    fn about_mut(&mut self) -> &mut About {
        self.about.get_or_insert_with(Box::default)
    }

    /// Marks the finding as the one the case's note was made from.
    pub fn noted(mut self) -> Finding {
        self.says_note = true;
        self
    }

    /// The message as reports print it: what was being checked, in
    /// brackets, then the message.
    pub fn text(&self) -> String {
        match self.context() {
            Some(what) => format!("({what}) {}", self.message),
            None => self.message.clone(),
        }
    }

    /// Adds what was expected and what came back.
    pub fn diff(mut self, expected: impl Into<String>, actual: impl Into<String>) -> Finding {
        self.expected = Some(expected.into());
        self.actual = Some(actual.into());
        self
    }
}

/// What a finding is about, as data beside its message: what decisions
/// match on (with the finding's kind) and what reports render, so that no
/// code reads a message's text to decide.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct About {
    /// The variable of a [`Kind::AgentVariable`], the capability of a
    /// [`Kind::Unverified`]: what the run says once (`execute::fold`) is
    /// grouped by kind and subject.
    pub subject: Option<String>,
    /// The finding in a few words, without its advice (an unverified
    /// capability's "the plugin refused the generic transcript ..."): what
    /// a later case repeats when it points at the case where the run says
    /// the finding in full.
    pub gist: Option<String>,
    /// What was being checked, when the step checks several things (a
    /// property's input, `seed 1, crlf, --max-size 4`): reports print it in
    /// brackets before the message ([`Finding::text`]), or leave it out
    /// where the step's name already says it.
    pub context: Option<String>,
}

/// A unified diff of expected and actual text, three lines of context.
pub fn unified_diff(expected: &str, actual: &str) -> String {
    similar::TextDiff::from_lines(expected, actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_data_and_reports_print_it_first() {
        let found = Finding::failure("chunk 2 is over the limit").with_context("seed 1, crlf");
        assert_eq!(found.message, "chunk 2 is over the limit");
        assert_eq!(found.context(), Some("seed 1, crlf"));
        assert_eq!(found.text(), "(seed 1, crlf) chunk 2 is over the limit");
        assert_eq!(Finding::note("plain").text(), "plain");
        assert_eq!(Finding::note("plain").subject(), None);
    }

    #[test]
    fn a_finding_settles_on_its_steps_input_unless_it_says_otherwise() {
        let mut ours = Finding::failure("the Event has no session id");
        ours.settle(Evidence::Assumption);
        assert_eq!(
            (ours.weight(), ours.evidence()),
            (Severity::Warning, Evidence::Assumption)
        );
        // Settling again changes nothing.
        ours.settle(Evidence::HostInput);
        assert_eq!(ours.evidence(), Evidence::Assumption);
        // A finding on the host's own flags keeps its weight on our payload.
        let mut flags = Finding::failure("--hook refused").rests_on(Evidence::HostInput);
        flags.settle(Evidence::Assumption);
        assert_eq!(flags.weight(), Severity::Failure);
        // A hang holds whatever the input.
        let mut hang = Finding::hard("timed out");
        hang.settle(Evidence::Assumption);
        assert_eq!(hang.weight(), Severity::Failure);
    }
}
