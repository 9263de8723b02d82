//! The checks: what one invocation's outcome is measured against.
//!
//! Some rules hold for every invocation, because the host applies them to
//! every call (docs/host.md): the deadline, the 10 MiB output limits, and
//! "a non-zero exit must say why on stderr". The rest comes from the step's
//! `expect` in the case file.
//!
//! The JSON assertions themselves (pointers with wildcards, one check
//! each) are in `super::assertions`.

use serde_json::Value;

use crate::host::answers;
use crate::host::decoding::decode_host_json;
use crate::host::invocation::OUTPUT_LIMIT;
use crate::outcome::Kind;
use crate::outcome::evidence::Evidence;
use crate::running::runner::{Outcome, Termination};
use crate::suite::case::{ExitExpect, Refusal, RefusalOutcome, Severity};
use crate::suite::template::Template;

use super::assertions::check_assert;
pub use super::context::{Judged, StepContext, status_text};
pub use super::values::{compare_bytes, pretty};

pub use crate::outcome::finding::Finding;

/// Checks one outcome. A case's own expectation on `chunk-transcript` or
/// `reassemble-transcript` that is not met is a `chunking` finding, so
/// that it can be allowed apart from every other expectation.
pub fn check(ctx: &StepContext<'_>, out: &Outcome) -> Judged {
    let mut judged = judge(ctx, out);
    let chunking = ctx
        .step
        .args
        .as_ref()
        .and_then(|a| a.first())
        .is_some_and(|sub| matches!(sub.as_str(), "chunk-transcript" | "reassemble-transcript"));
    if chunking {
        let (Judged::Checked(findings, _) | Judged::Refused(_, findings)) = &mut judged;
        for finding in findings.iter_mut().filter(|f| f.kind == Kind::Check) {
            finding.kind = Kind::Chunking;
        }
    }
    judged
}

fn judge(ctx: &StepContext<'_>, out: &Outcome) -> Judged {
    let mut findings = Vec::new();
    every_call(ctx.timeout_secs, out, &mut findings);
    if findings.iter().any(|f| f.severity == Severity::Failure) {
        return Judged::Checked(findings, None);
    }
    if let Some(crash) = crate::host::crash::crashed(&out.stderr, out.exit_code(), out.signal) {
        return super::crashes::weigh(ctx, out, &crash, findings);
    }
    if let Some(killed) = killed_from_outside(out) {
        findings.push(killed);
        return Judged::Checked(findings, None);
    }
    if let Some(traced) = super::crashes::trace_at_success(out) {
        findings.push(traced);
    }
    let code = out.exit_code();
    if ctx.step.expect.exit == ExitExpect::Success
        && let Some(variable) = &ctx.needs
    {
        let refusal = crate::judge::environment::refusal(variable, ctx.step.on_refusal.as_ref());
        return Judged::Refused(refusal, findings);
    }
    if code != Some(0)
        && let Some(refusal) = &ctx.step.on_refusal
    {
        return Judged::Refused(refusal.clone(), findings);
    }
    if code != Some(0) && ctx.refusable {
        return Judged::Refused(
            Refusal {
                own_id: false,
                outcome: RefusalOutcome::Pass,
                note: "the plugin refused the transcript".to_string(),
                with_samples: None,
                continue_with: Default::default(),
                variable: None,
            },
            findings,
        );
    }
    match (ctx.step.expect.exit, code) {
        (ExitExpect::Success, Some(0)) | (ExitExpect::Any, Some(0)) => {}
        (ExitExpect::Failure, Some(0)) => {
            findings.push(Finding::failure(
                "exited 0, but this input must be refused with a non-zero exit and a message on stderr",
            ));
            return Judged::Checked(findings, None);
        }
        (ExitExpect::Success, _) if let Some(missing) = missing_subcommand(ctx, out) => {
            findings.push(missing);
            return Judged::Checked(findings, None);
        }
        (ExitExpect::Success, _) => {
            let declared = ctx.capability.map_or(String::new(), |cap| {
                format!(
                    " (capability {cap} is declared in info, so the host calls this \
                     subcommand and expects it to work)"
                )
            });
            findings.push(
                Finding::failure(format!("exited {}; expected 0{declared}", status_text(out)))
                    .diff("exit 0", format!("exit {}", status_text(out))),
            );
            return Judged::Checked(findings, None);
        }
        _ => return Judged::Checked(findings, None),
    }
    if let Some(refused) = raw_unread(ctx, out) {
        return Judged::Refused(refused, findings);
    }
    if ctx.empty_is_unread
        && let Ok(json) = decode_host_json(&out.stdout)
        && all_zero(&json)
    {
        return Judged::Refused(
            Refusal {
                own_id: false,
                outcome: RefusalOutcome::Pass,
                note: format!(
                    "the plugin answered {} (nothing read) for the transcript",
                    excerpt(&out.stdout).trim()
                ),
                with_samples: None,
                continue_with: Default::default(),
                variable: None,
            },
            findings,
        );
    }
    let json = check_stdout(ctx, out, &mut findings);
    Judged::Checked(findings, json)
}

/// An answer of raw bytes (`expect: stdout`) where a refusal is allowed
/// (`on_refusal`) that is empty or all zero (`{}`, `null`) for an input
/// that is not: the plugin read nothing of it, as a refusal does, and says
/// so with exit 0 (docs/host.md, "Plugins in the wild": "An answer to
/// input it cannot read that is empty rather than refused"). `read-transcript`
/// answering `{}` for another agent's transcript is the pattern; the host
/// never sends one, so it weighs as the step's refusal.
fn raw_unread(ctx: &StepContext<'_>, out: &Outcome) -> Option<Refusal> {
    let written = ctx.step.on_refusal.as_ref()?;
    let want = (ctx.resolve)(ctx.step.expect.stdout.as_ref()?).ok()?;
    let nothing = out.stdout.iter().all(u8::is_ascii_whitespace)
        || decode_host_json(&out.stdout).is_ok_and(|json| all_zero(&json));
    if !nothing || want.iter().all(u8::is_ascii_whitespace) || want == out.stdout {
        return None;
    }
    let answered = match excerpt(&out.stdout).trim() {
        "" => "nothing".to_string(),
        text => format!("`{text}`"),
    };
    Some(Refusal {
        own_id: false,
        note: format!(
            "the plugin answered {answered} with exit 0 (nothing read) for the transcript: \
             {}",
            written.note
        ),
        ..written.clone()
    })
}

/// A call of a declared capability's subcommand that answers as the
/// plugin answers a subcommand that cannot exist (the gate's probe,
/// [`crate::host::reach::is_missing`]): the capability is missing, at the
/// host's severity for it (host::reach), naming what the user loses.
fn missing_subcommand(ctx: &StepContext<'_>, out: &Outcome) -> Option<Finding> {
    let capability = ctx.capability?;
    let subcommand = ctx.step.args.as_ref()?.first()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !crate::host::reach::is_missing(ctx.unknown, subcommand, out.exit_code(), &stderr) {
        return None;
    }
    let said = last_words(&stderr);
    let message = format!(
        "a declared capability without its subcommand: info declares {capability}, but \
         {subcommand} exited {} with \"{said}\", as the plugin answers a subcommand that \
         cannot exist: missing (neither another agent's format nor a refusal); the host calls it, \
         logs the failure, and {}: implement {subcommand} or stop declaring {capability}",
        status_text(out),
        crate::host::reach::missing_costs(capability),
    );
    Some(
        Finding {
            severity: crate::host::reach::missing_capability(capability),
            ..Finding::failure(message)
        }
        .kind(crate::outcome::Kind::MissingSubcommand)
        .with_subject(capability),
    )
}

/// The line of stderr that says most: the last non-empty one (an argument
/// parser's error comes after its usage line), at most 160 characters.
pub fn last_words(stderr: &str) -> String {
    let line = stderr
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    match line.char_indices().nth(160) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_string(),
    }
}

/// Every value zero: `{}`, `null`, 0, "", false, empty lists, all the way
/// down: an answer that shows nothing was read.
fn all_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(items) => items.iter().all(all_zero),
        Value::Object(map) => map.values().all(all_zero),
    }
}

/// The rules the host applies to every call, a crash included (as a
/// warning: the caller judges the exit itself).
pub fn universal(timeout_secs: f64, out: &Outcome) -> Vec<Finding> {
    let mut findings = Vec::new();
    every_call(timeout_secs, out, &mut findings);
    if let Some(trace) = crate::host::crash::trace(&out.stderr) {
        findings.push(
            Finding::warning(format!(
                "crashed: stderr holds a {}: the plugin crashed instead of reporting the \
                 problem; the host shows stderr to the user, who needs one clear sentence",
                trace.describe()
            ))
            .kind(Kind::Crashed),
        );
    }
    findings.extend(killed_from_outside(out));
    findings
}

/// A call that a signal ended, past what [`crate::host::crash`] reads as a
/// crash of its own (a SIGKILL, a SIGTERM): a failure, the call did not
/// answer.
fn killed_from_outside(out: &Outcome) -> Option<Finding> {
    let by_signal = out.termination == Termination::Exited(None)
        && !out.stdout_overflow
        && !(out.oversize.is_some() && out.signal == Some(crate::running::bounds::SIGXFSZ));
    by_signal.then(|| {
        Finding::failure("was killed by a signal (it crashed, or was killed from outside)")
            .kind(Kind::Crashed)
    })
}

/// The rules of every call but a crash's: the deadline, the sandbox, the
/// output limits, held pipes, a silent non-zero exit, the machine.
fn every_call(timeout_secs: f64, out: &Outcome, findings: &mut Vec<Finding>) {
    match &out.termination {
        Termination::SpawnFailed(reason) => {
            findings.push(Finding::hard(reason.clone()).kind(Kind::SpawnFailed))
        }
        Termination::TimedOut => findings.push(
            Finding::hard(format!(
                "timed out after {timeout_secs} s: the host kills a plugin at its deadline"
            ))
            .kind(Kind::Timeout),
        ),
        Termination::Exited(_) => {}
    }
    if !out.blocked_writes.is_empty() {
        findings.push(
            Finding::hard(crate::running::confine::blocked_message(
                &out.blocked_writes,
            ))
            .kind(Kind::EscapedSandbox),
        );
    }
    for (name, over) in [
        ("stdout", out.stdout_overflow),
        ("stderr", out.stderr_overflow),
    ] {
        if over {
            findings.push(
                Finding::hard(format!(
                    "{name} went over the host's limit of {OUTPUT_LIMIT} bytes (10 MiB); \
                 the host fails such a call (\"output exceeded ... byte limit\")"
                ))
                .kind(Kind::OutputFlood),
            );
        }
    }
    if out.pipes_held_open {
        findings.push(
            Finding::warning(
                "a background process kept stdout or stderr open after the plugin exited",
            )
            .kind(Kind::PipesHeld),
        );
    }
    if let Some(code) = out.exit_code()
        && code != 0
        && String::from_utf8_lossy(&out.stderr).trim().is_empty()
    {
        // The call fails in the host either way; silence only takes the
        // user's clue away: a warning.
        findings.push(
            Finding::warning(format!(
                "exited {code} with nothing on stderr: the host shows stderr to the user \
                 as the error, so a silent failure leaves them nothing to act on"
            ))
            .kind(Kind::SilentError),
        );
    }
    machine_findings(out, findings);
}

/// What the call did to the machine beyond its sandbox's rules (see
/// [`crate::running::bounds`]): a write past the limit fails in every case, as a
/// flood does; a process left running is a warning.
fn machine_findings(out: &Outcome, findings: &mut Vec<Finding>) {
    if let Some(over) = &out.oversize {
        findings.push(Finding::hard(over.message()).kind(Kind::DiskFlood));
    } else if out.signal == Some(crate::running::bounds::SIGXFSZ) {
        findings.push(
            Finding::hard(
                "was killed by SIGXFSZ: it wrote past the file size limit agent-conform sets \
             (--max-write), outside its sandbox; a plugin that fills the user's disk during \
             a hook breaks the machine the host runs on",
            )
            .kind(Kind::DiskFlood),
        );
    }
    for left in &out.lingering {
        let mut warning = Finding::warning(format!(
            "left running after {} returned: `{}` (pid {}, killed by agent-conform); the host \
             would leave it in the user's session",
            out.call_name(),
            left.command,
            left.pid
        ));
        warning.hard = true;
        findings.push(warning.kind(Kind::LeftRunning));
    }
}

fn check_stdout(
    ctx: &StepContext<'_>,
    out: &Outcome,
    findings: &mut Vec<Finding>,
) -> Option<Value> {
    let expect = &ctx.step.expect;
    if let Some(source) = &expect.stdout {
        match (ctx.resolve)(source) {
            Ok(want) => {
                if let Some(f) = compare_bytes("stdout", &want, &out.stdout) {
                    findings.push(f);
                }
            }
            Err(err) => findings.push(Finding::failure(format!("cannot evaluate the case: {err}"))),
        }
    }
    if let Some(text) = &expect.stdout_carries {
        match Template::parse(text).and_then(|t| t.expand(ctx.bindings)) {
            Ok(text) => findings.extend(carries(&out.stdout, &text)),
            Err(err) => findings.push(Finding::failure(format!("cannot evaluate the case: {err}"))),
        }
    }
    let wants_json =
        expect.stdout_schema.is_some() || !expect.json.is_empty() || !ctx.step.capture.is_empty();
    if !wants_json {
        return None;
    }
    let doc = match crate::host::decoding::decode_ordered(&out.stdout) {
        Ok(doc) => doc,
        Err(reason) => {
            findings.push(
                Finding::failure(reason)
                    .kind(Kind::Decoding)
                    .rests_on(Evidence::OwnAnswers)
                    .diff("one JSON value", excerpt(&out.stdout)),
            );
            return None;
        }
    };
    // What is judged is what the host holds after Go's decoding (`null`
    // strings, keys of another case, duplicate keys resolved): the answer's
    // struct, or the Event of a `parse-hook`.
    let shape = expect
        .stdout_schema
        .as_deref()
        .or(ctx
            .step
            .args
            .as_ref()
            .and_then(|a| a.first())
            .map(String::as_str))
        .and_then(answers::go::shape);
    let mut json = match shape {
        Some(fields) => answers::go::normalise(fields, &doc),
        None => doc.to_value(),
    };
    if let Some(schema) = &expect.stdout_schema {
        match answers::fields(schema) {
            Some(fields) => match as_the_host_decodes(ctx, schema, fields, &doc, findings) {
                Ok(seen) => json = seen,
                Err(json) => return Some(json),
            },
            None => {
                let violations = ctx.schemas.violations(schema, &json);
                if !violations.is_empty() {
                    let finding = schema_finding(Severity::Failure, schema, &violations, &json);
                    // A time the host refuses is the plugin's own making
                    // (its clock's layout), whatever payload it was sent.
                    findings.push(match ctx.schemas.refuses_a_time(schema, &json) {
                        true => finding.rests_on(Evidence::OwnAnswers),
                        false => finding,
                    });
                    return Some(json);
                }
            }
        }
    }
    for assert in &expect.json {
        findings.extend(check_assert(ctx, assert, &json));
    }
    Some(json)
}

/// Judges an answer the host decodes into a struct (the host layer,
/// [`answers`]): a decoding failure or a zero value that breaks a command
/// fails; a missing field that only degrades warns, named as such; what the
/// documented schema asks beyond that is a written rule the host does not
/// enforce, a warning. Returns the answer as the host holds it (missing
/// fields at their zero values), which the assertions then check; or, when
/// the host cannot decode it, the document as printed.
fn as_the_host_decodes(
    ctx: &StepContext<'_>,
    schema: &str,
    fields: &[answers::Field],
    doc: &crate::host::decoding::Ordered,
    findings: &mut Vec<Finding>,
) -> Result<Value, Value> {
    let judged = answers::judge_ordered(fields, doc);
    let json = answers::go::normalise(fields, doc);
    let owned = |c: &answers::Consequence| {
        let item = format!("field:{schema}.{}", c.pointer.trim_start_matches('/'));
        ctx.covers
            .iter()
            .any(|pattern| crate::suite::case::glob(pattern, &item))
    };
    let spoken = judged
        .consequences
        .iter()
        .filter(|c| c.severity == Severity::Failure || owned(c));
    for c in spoken {
        let finding = Finding {
            severity: c.severity,
            ..Finding::failure(format!("at {}: {}", c.pointer, c.message))
        };
        findings.push(match c.undecodable {
            // The answer's own shape (a type, base64, a time), whatever it
            // was asked about: it rests on the plugin's answer.
            true => finding.kind(Kind::Decoding).rests_on(Evidence::OwnAnswers),
            // A zero value may be the input's doing (a payload without the
            // agent's keys): it rests on what the step's input does.
            false => finding.kind(Kind::ZeroValue),
        });
    }
    if judged.undecodable() {
        if let Some(last) = findings.last_mut() {
            let got = pretty(&json);
            *last = last.clone().diff(format!("schemas/{schema}.json"), got);
        }
        return Err(json);
    }
    // A value the host layer spoke about is not reported twice.
    let reported: Vec<String> = judged
        .consequences
        .iter()
        .flat_map(|c| {
            let name = c.pointer.rsplit('/').next().unwrap_or("");
            [
                format!("{name:?} is a required property"),
                format!("at {}:", c.pointer),
            ]
        })
        .collect();
    let violations: Vec<String> = ctx
        .schemas
        .violations(schema, &json)
        .into_iter()
        .filter(|v| !reported.iter().any(|r| v.contains(r.as_str())))
        .collect();
    if !violations.is_empty() {
        findings.push(schema_finding(
            Severity::Warning,
            schema,
            &violations,
            &json,
        ));
    }
    Ok(judged.seen)
}

/// A finding for schema violations, with every violation and the document.
fn schema_finding(
    severity: Severity,
    schema: &str,
    violations: &[String],
    json: &Value,
) -> Finding {
    let message = match severity {
        Severity::Failure => format!("stdout does not match schema {schema}: {}", violations[0]),
        _ => format!(
            "stdout differs from the documented shape (schemas/{schema}.json), which the host's \
             decoder absorbs: {}",
            violations[0]
        ),
    };
    Finding {
        severity,
        ..Finding::failure(message).kind(Kind::Schema)
    }
    .diff(
        format!("schemas/{schema}.json"),
        format!("{}\n\n{}", violations.join("\n"), pretty(json)),
    )
}

/// stdout must carry `text`: verbatim, or as the inside of a JSON string
/// (with or without `\uXXXX` escapes for non-ASCII), so that a plugin may
/// wrap the message in its agent's native JSON format.
fn carries(stdout: &[u8], text: &str) -> Option<Finding> {
    let haystack = String::from_utf8_lossy(stdout);
    let json = serde_json::to_string(text).unwrap_or_default();
    let json = json.trim_matches('"').to_string();
    let ascii: String = json
        .chars()
        .map(|c| {
            if c.is_ascii() {
                c.to_string()
            } else {
                escape_utf16(c)
            }
        })
        .collect();
    let forms = [text.to_string(), json, ascii];
    if !haystack.trim().is_empty() && forms.iter().any(|f| haystack.contains(f.as_str())) {
        return None;
    }
    Some(
        Finding::failure("stdout does not carry the message (verbatim or JSON-escaped)")
            .diff(text.to_string(), excerpt(stdout)),
    )
}

fn escape_utf16(c: char) -> String {
    let mut units = [0u16; 2];
    c.encode_utf16(&mut units)
        .iter()
        .map(|u| format!("\\u{u:04x}"))
        .collect()
}

/// The last 2 KiB at most of output as text, for reports.
pub fn excerpt(bytes: &[u8]) -> String {
    const MAX: usize = 2048;
    // The end of stderr: where an exception, a panic's message or the last
    // error line is.
    let start = bytes.len().saturating_sub(MAX);
    let text = String::from_utf8_lossy(&bytes[start..]).into_owned();
    if start > 0 {
        format!("… ({start} earlier bytes)\n{text}")
    } else {
        text
    }
}
