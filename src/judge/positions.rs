//! The `host_lines:` assertion: a position (`get-transcript-position`'s
//! `position`, a `current_position`) in the host's unit, the line count of
//! the transcript file ([`crate::host::positions`]).

use serde_json::Value;

use crate::host::Severity;
use crate::host::positions;
use crate::outcome::finding::{Finding, Kind};
use crate::suite::template::{Bindings, Template};

use super::values::select;

/// The findings of `host_lines: file` on the values at `pointer` of `doc`:
/// each must be the host's line count of `file` (a template). A JSONL
/// transcript weighs `severity`; one JSON document a note. On a `foreign`
/// transcript (the generic one, in another agent's format) an answer that
/// is the file's size in bytes is "not verified here" (a note):
/// a plugin that does not read the format can only measure the file
/// (docs/host.md "Plugins in the wild": the host never sends another
/// agent's transcript); the plugin's own samples judge it in full.
pub fn host_lines(
    bindings: &Bindings<'_>,
    file: &str,
    pointer: &str,
    severity: Severity,
    doc: &Value,
    foreign: bool,
) -> Vec<Finding> {
    let path = match Template::parse(file).and_then(|t| t.expand(bindings)) {
        Ok(path) => path,
        Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
    };
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) => return vec![Finding::failure(format!("cannot read {path}: {err}"))],
    };
    select(doc, pointer)
        .into_iter()
        .filter_map(|(at, value)| {
            let value = value.cloned().unwrap_or(Value::Null);
            let (mut weight, mut message) = positions::judge(&path, &bytes, &value, "the value")?;
            let mut kind = Kind::Check;
            if foreign && value.as_u64() == Some(bytes.len() as u64) {
                weight = weight.min(crate::host::reach::NOT_VERIFIED);
                kind = Kind::NotVerified;
                message = format!(
                    "not verified here: {message}; but this is the generic transcript, in \
                     another agent's format, which the host never sends: a plugin that does not \
                     read it can only measure the file. Name transcripts of your own \
                     (`transcripts:` in a case file) to judge the position in full"
                );
            }
            let finding = Finding {
                severity: weight.min(severity),
                ..Finding::failure(format!("at {at}: {message}")).kind(kind)
            };
            Some(finding.diff(
                format!("{} (the host's line count)", positions::line_count(&bytes)),
                value.to_string(),
            ))
        })
        .collect()
}
