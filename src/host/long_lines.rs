//! Transcripts with long lines (docs/host.md, "The user's machine, not a
//! clean room"; "Positions and offsets: the host counts lines"; "What the
//! host does with each answer").
//!
//! Agents keep a tool's output inline and a pasted image as base64 inside a
//! record, so single JSONL lines reach megabytes. Go plugins read JSONL
//! with `bufio.Scanner`, whose default limit is 64 KiB; with its error
//! unchecked, reading stops silently at the first longer line (others cap
//! at 1 MiB or 2 MiB). The host counts lines whatever their length, and
//! keeps what the analysis calls answer: so each is asked again of a copy
//! of the transcript in which records hold long lines (the lengths are the
//! size axis of the user's world, `worlds/axes.yaml`), and must
//! answer as it did for the original. The copy stays under
//! `read-transcript`'s 10 MiB cap ([`CAP`]), which the host would hit first.

use serde_json::Value;

use super::Severity;

/// The largest lengthened transcript: `read-transcript` prints it whole, and
/// output over the host's limit fails the TurnEnd hook before any analysis.
pub const CAP: usize = super::invocation::OUTPUT_LIMIT - 64 * 1024;

/// An analysis call whose answer the host keeps, by what it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `get-transcript-position`: the turn's offset, a line count.
    Position,
    /// `extract-modified-files`: the turn's files.
    Files,
    /// `extract-prompts`: the turn's prompts.
    Prompts,
    /// `calculate-tokens`: the turn's token counts.
    Tokens,
}

impl Answer {
    /// The answer of the subcommand `name`, when the host keeps it at a
    /// turn's end.
    pub fn of(subcommand: &str) -> Option<Answer> {
        match subcommand {
            "get-transcript-position" => Some(Answer::Position),
            "extract-modified-files" => Some(Answer::Files),
            "extract-prompts" => Some(Answer::Prompts),
            "calculate-tokens" => Some(Answer::Tokens),
            _ => None,
        }
    }

    /// Whether the answer does not depend on the transcript's format: a
    /// position is the file's line count for the host whatever its records
    /// hold (docs/host.md, "Positions and offsets: the host counts lines"),
    /// so a plugin that counts lines answers it of any file. A refusal of
    /// another step of the same transcript says nothing of it.
    pub fn format_free(self) -> bool {
        self == Answer::Position
    }

    /// What the user loses when the answer falls short on long lines: the
    /// host keeps it as it is (it falls back to git status and empty
    /// prompts only when the call fails).
    pub fn lost(self) -> &'static str {
        match self {
            Answer::Position => {
                "TurnStart stores a position short of the turn's start: the TurnEnd files and \
                 prompts are read from the wrong line, and after a commit `entire explain` slices \
                 the checkpoint from it"
            }
            Answer::Files => {
                "TurnEnd files the checkpoint without the turn's files, and the commit trailers \
                 miss them (the host falls back to git status only when the call fails)"
            }
            Answer::Prompts => {
                "the checkpoint keeps none of the lost prompts, and `entire explain` finds none \
                 of them"
            }
            Answer::Tokens => "the session's token totals are stored short",
        }
    }
}

/// The weight of an answer that changed on long lines: the host keeps a
/// wrong answer as it is, a failure.
pub const CHANGED: Severity = Severity::Failure;

/// The weight of a call that fails on long lines where it answered the
/// original: the host logs it and falls back (git status for the files,
/// empty prompts, no token counts): it degrades, a warning.
pub const FAILED: Severity = Severity::Warning;

/// What the host loses when the analysis call fails on long lines.
pub const FAILED_COSTS: &str = "the host logs the failure and saves the checkpoint without \
     this analysis (git status for its files, empty prompts, no token counts)";

/// How the answer on the lengthened copy differs from the original's, as
/// the host keeps it; `None` when it is the same (token counts may grow,
/// the text being longer).
pub fn differs(answer: Answer, original: &Value, long: &Value) -> Option<String> {
    match answer {
        Answer::Position => {
            let (was, now) = (&original["position"], &long["position"]);
            (was != now).then(|| format!("position {now} where the original's is {was}"))
        }
        Answer::Files => differs_as_lists(&original["files"], &long["files"], "files", true),
        Answer::Prompts => {
            differs_as_lists(&original["prompts"], &long["prompts"], "prompts", false)
        }
        Answer::Tokens => {
            let mut shrunk = Vec::new();
            fewer_tokens(original, long, String::new(), &mut shrunk);
            (!shrunk.is_empty()).then(|| format!("token counts fell: {}", shrunk.join(", ")))
        }
    }
}

/// The strings of a list answer, `null` as none.
fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .map(|items| items.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The items lost and gained between two list answers (in any order for
/// files, as a list for prompts).
fn differs_as_lists(original: &Value, long: &Value, what: &str, as_set: bool) -> Option<String> {
    let (was, now) = (strings(original), strings(long));
    let same = if as_set {
        was.iter().all(|w| now.contains(w)) && now.iter().all(|n| was.contains(n))
    } else {
        was == now
    };
    if same {
        return None;
    }
    let lost: Vec<&str> = was.iter().filter(|w| !now.contains(w)).copied().collect();
    let gained: Vec<&str> = now.iter().filter(|n| !was.contains(n)).copied().collect();
    let shown = |items: &[&str]| {
        let mut text = items
            .iter()
            .take(3)
            .map(|i| format!("{:?}", shorten(i)))
            .collect::<Vec<_>>()
            .join(", ");
        if items.len() > 3 {
            text.push_str(&format!(" and {} more", items.len() - 3));
        }
        text
    };
    Some(match (lost.is_empty(), gained.is_empty()) {
        (false, true) => format!(
            "{} of the original's {} {what} lost: {}",
            lost.len(),
            was.len(),
            shown(&lost)
        ),
        (true, false) => format!(
            "{what} the original's answer does not have: {}",
            shown(&gained)
        ),
        (false, false) => format!("{what} lost: {}; and new: {}", shown(&lost), shown(&gained)),
        (true, true) => format!("the {what} in another order"),
    })
}

/// Every integer of `original` (at `at`) that is smaller in `long`.
fn fewer_tokens(original: &Value, long: &Value, at: String, out: &mut Vec<String>) {
    match original {
        Value::Object(map) => {
            for (key, value) in map {
                fewer_tokens(value, &long[key.as_str()], format!("{at}/{key}"), out);
            }
        }
        Value::Number(was) => {
            let (was, now) = (was.as_i64().unwrap_or(0), long.as_i64().unwrap_or(0));
            if now < was {
                out.push(format!("{at} {now} where the original's is {was}"));
            }
        }
        _ => {}
    }
}

/// At most 60 characters of `text`.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_same_answer_and_more_tokens_are_fine() {
        let files = json!({"files": ["a", "b"], "current_position": 7});
        assert_eq!(
            differs(Answer::Files, &files, &json!({"files": ["b", "a"]})),
            None
        );
        let tokens = json!({"input_tokens": 10, "output_tokens": 2, "subagent_tokens": null});
        let more = json!({"input_tokens": 90000, "output_tokens": 2});
        assert_eq!(differs(Answer::Tokens, &tokens, &more), None);
        let position = json!({"position": 7});
        assert_eq!(differs(Answer::Position, &position, &position), None);
    }

    #[test]
    fn an_answer_cut_short_differs() {
        let said = differs(
            Answer::Position,
            &json!({"position": 7}),
            &json!({"position": 1}),
        );
        assert_eq!(
            said.as_deref(),
            Some("position 1 where the original's is 7")
        );
        let files = differs(
            Answer::Files,
            &json!({"files": ["a", "b"]}),
            &json!({"files": null}),
        );
        assert!(files.is_some_and(|f| f.contains("2 of the original's 2 files lost")));
        let prompts = differs(
            Answer::Prompts,
            &json!({"prompts": ["x", "y"]}),
            &json!({"prompts": ["x"]}),
        );
        assert!(prompts.is_some_and(|p| p.contains("\"y\"")));
        let tokens = differs(
            Answer::Tokens,
            &json!({"input_tokens": 10, "subagent_tokens": {"input_tokens": 4}}),
            &json!({"input_tokens": 10, "subagent_tokens": {"input_tokens": 0}}),
        );
        assert!(tokens.is_some_and(|t| t.contains("/subagent_tokens/input_tokens 0")));
        assert_eq!(Answer::of("extract-prompts"), Some(Answer::Prompts));
        assert_eq!(Answer::of("extract-summary"), None);
    }
}
