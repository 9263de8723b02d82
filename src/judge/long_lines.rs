//! An analysis answer on a transcript with long lines, against the
//! plugin's own answer on the original ([`crate::host::long_lines`]): the
//! same answer, or the host keeps a wrong one (a failure); a call that
//! fails where the original's answered, the host logs and falls back (a
//! warning). What the finding rests on is the plugin's own answer to the
//! original (or the author's sample), never a guess of ours: the copy
//! differs from what the plugin read only in the length of some strings.

use serde_json::Value;

use crate::host::decoding::decode_host_json;
use crate::host::long_lines::{self, Answer};
use crate::judge::checks::{Finding, last_words, status_text};
use crate::outcome::finding::Evidence;
use crate::outcome::kind::Kind;
use crate::running::runner::Outcome;

/// What the call was asked, for the finding.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'a> {
    /// The subcommand's answer.
    pub answer: Answer,
    /// The plugin's stdout for the original transcript.
    pub original: &'a [u8],
    /// Which lines were made how long (`lines 2, 3 and 6 (68 KiB, ...)`).
    pub lines: &'a str,
    /// The author's sample (not the generic transcript).
    pub sample: bool,
    /// For a position: the original's answer is not the host's line count
    /// of a JSONL transcript (`transcript_analyzer.position` says so), so
    /// comparing it says nothing more.
    pub other_unit: bool,
}

/// The findings on the answer `outcome` to the lengthened copy.
pub fn judge(asked: &Asked, outcome: &Outcome) -> Vec<Finding> {
    let Ok(original) = decode_host_json(asked.original) else {
        // The original's own answer did not decode: said at that step.
        return Vec::new();
    };
    let evidence = if asked.sample {
        Evidence::Samples
    } else {
        Evidence::OwnAnswers
    };
    let answered = outcome.exit_code() == Some(0);
    let decoded = answered.then(|| decode_host_json(&outcome.stdout));
    let finding = match decoded {
        Some(Ok(long)) => changed(asked, &original, &long),
        Some(Err(why)) => Some(failed(
            asked,
            &format!("an answer the host cannot decode ({why})"),
        )),
        None => {
            let said = last_words(&String::from_utf8_lossy(&outcome.stderr));
            let status = match outcome.exit_code() {
                Some(code) => format!("exit {code}"),
                None => status_text(outcome),
            };
            let what = if said.is_empty() {
                status
            } else {
                format!("{status}: \"{said}\"")
            };
            Some(failed(asked, &what))
        }
    };
    finding
        .map(|f| f.kind(Kind::LongLines).rests_on(evidence))
        .into_iter()
        .collect()
}

/// A failure when the answer differs from the original's.
fn changed(asked: &Asked, original: &Value, long: &Value) -> Option<Finding> {
    if asked.answer == Answer::Position && asked.other_unit {
        return None;
    }
    let what = long_lines::differs(asked.answer, original, long)?;
    Some(
        Finding {
            severity: long_lines::CHANGED,
            ..Finding::failure(format!(
                "with {} in {}, the answer is not the original's: {what}; the copy \
                 differs from the original only in those strings' length (the line count and \
                 every record the same), as agents write a tool's long output or a pasted image \
                 inline: {}",
                asked.lines,
                transcript(asked),
                asked.answer.lost()
            ))
        }
        .diff(answer_text(original), answer_text(long)),
    )
}

/// An answer as a compact line, at most 200 characters.
fn answer_text(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    }
}

/// A warning when the call failed where the original's answered.
fn failed(asked: &Asked, what: &str) -> Finding {
    Finding {
        severity: long_lines::FAILED,
        ..Finding::failure(format!(
            "with {} in {}, the call fails ({what}) where it answered the original: {}",
            asked.lines,
            transcript(asked),
            long_lines::FAILED_COSTS
        ))
    }
    .diff("an answer, as for the original", what.to_string())
}

fn transcript(asked: &Asked) -> &'static str {
    if asked.sample {
        "a copy of the author's sample"
    } else {
        "a copy of the transcript it read"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Severity;
    use crate::running::runner::Termination;

    fn answered(exit: i32, stdout: &str) -> Outcome {
        let mut outcome = Outcome::empty(Termination::Exited(Some(exit)));
        outcome.stdout = stdout.as_bytes().to_vec();
        if exit != 0 {
            outcome.stderr = b"bufio.Scanner: token too long\n".to_vec();
        }
        outcome
    }

    fn asked(answer: Answer, original: &str) -> Asked<'_> {
        Asked {
            answer,
            original: original.as_bytes(),
            lines: "lines 2, 3 and 6 (68 KiB, 1 MiB and 8 MiB long)",
            sample: false,
            other_unit: false,
        }
    }

    #[test]
    fn the_same_answer_says_nothing_a_short_one_fails_an_error_warns() {
        let files = asked(Answer::Files, r#"{"files":["a","b"]}"#);
        assert!(judge(&files, &answered(0, r#"{"files":["b","a"]}"#)).is_empty());
        let short = judge(&files, &answered(0, r#"{"files":null}"#));
        assert_eq!(
            (short[0].severity, short[0].kind, short[0].evidence),
            (
                Severity::Failure,
                Kind::LongLines,
                Some(Evidence::OwnAnswers)
            )
        );
        let error = judge(&files, &answered(1, ""));
        assert_eq!(error[0].severity, Severity::Warning);
        assert!(
            error[0].message.contains("token too long"),
            "{}",
            error[0].message
        );
        let sample = Asked {
            sample: true,
            ..files
        };
        assert_eq!(
            judge(&sample, &answered(0, "{}"))[0].evidence,
            Some(Evidence::Samples)
        );
    }

    #[test]
    fn a_position_in_another_unit_is_left_to_the_position_case() {
        let bytes = Asked {
            other_unit: true,
            ..asked(Answer::Position, r#"{"position":1200}"#)
        };
        assert!(judge(&bytes, &answered(0, r#"{"position":9000000}"#)).is_empty());
    }
}
