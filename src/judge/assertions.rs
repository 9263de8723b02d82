//! The JSON assertions of a step's `expect.json`: one pointer (with `*`
//! wildcards), one check each (`equals`, `type`, `inside`, `schema`,
//! `own_session_dir`, `host_lines`, ...), each finding capped by the
//! assertion's severity. Split from `checks.rs`, which measures the whole
//! outcome (exit, streams, decoding) and calls [`check_assert`] per
//! assertion.

use base64::Engine;
use serde_json::Value;

use crate::suite::case::{Check, JsonAssert, JsonType, Severity};
use crate::suite::template::{Template, expand_json};

use super::context::StepContext;
use super::values::{compare_bytes, pretty, select};
use crate::outcome::Kind;
use crate::outcome::finding::Finding;

/// The findings of one assertion on the decoded answer `doc`.
pub(super) fn check_assert(ctx: &StepContext<'_>, a: &JsonAssert, doc: &Value) -> Vec<Finding> {
    if let Some(cond) = &a.when
        && doc.pointer(&cond.pointer) != Some(&cond.equals)
    {
        return Vec::new();
    }
    let severity = a.severity.unwrap_or(ctx.severity);
    match &a.check {
        Check::OwnSessionDir => return session_dir_claims(ctx, a, doc, severity),
        Check::HostSessionFile(dir) => return session_file_names(ctx, a, doc, dir, severity),
        Check::SetupDetect => return setup_detect(ctx, a, doc, severity),
        Check::InstalledDetect => return installed_detect(ctx, a, doc, severity),
        Check::HostLines(file) => {
            return super::positions::host_lines(
                ctx.bindings,
                file,
                &a.pointer,
                severity,
                doc,
                ctx.refusable,
            );
        }
        _ => {}
    }
    select(doc, &a.pointer)
        .into_iter()
        .filter_map(|(pointer, value)| {
            check_value(ctx, &a.check, value)
                .err()
                .map(|(message, expected, actual)| {
                    let because = a
                        .because
                        .as_ref()
                        .map(|b| format!(" ({b})"))
                        .unwrap_or_default();
                    let kind = match &a.check {
                        Check::Schema(_) => Kind::Schema,
                        _ => Kind::Check,
                    };
                    Finding {
                        severity,
                        expected,
                        actual,
                        ..Finding::failure(format!("at {pointer}: {message}{because}")).kind(kind)
                    }
                })
        })
        .collect()
}

/// `own_session_dir: true`: what the host's owner lookup makes of the
/// directory (`host::ownership::judge`), each finding with the host's
/// weight capped at `severity`.
fn session_dir_claims(
    ctx: &StepContext<'_>,
    a: &JsonAssert,
    doc: &Value,
    severity: Severity,
) -> Vec<Finding> {
    let (repo, home) = (
        std::path::Path::new(&ctx.bindings.repo),
        std::path::Path::new(&ctx.bindings.home),
    );
    let places = crate::host::ownership::Places {
        agent: ctx.agent,
        repo,
        home,
    };
    select(doc, &a.pointer)
        .into_iter()
        .filter_map(|(pointer, value)| Some((pointer, value?.as_str()?)))
        .flat_map(|(pointer, dir)| {
            crate::host::ownership::judge(std::path::Path::new(dir), &places)
                .into_iter()
                .map(move |claim| Finding {
                    severity: claim.severity.min(severity),
                    ..Finding::failure(format!("at {pointer}: {}", claim.message))
                        .kind(crate::outcome::Kind::Conflict)
                })
        })
        .collect()
}

/// `host_session_file: <dir>`: the newest hosts' check of every path
/// component under the session directory before `write-session`
/// (`host::session_path`), each refused name or symlink a finding at the
/// assertion's severity.
fn session_file_names(
    ctx: &StepContext<'_>,
    a: &JsonAssert,
    doc: &Value,
    dir: &str,
    severity: Severity,
) -> Vec<Finding> {
    use crate::host::session_path;
    let dir = match Template::parse(dir).and_then(|t| t.expand(ctx.bindings)) {
        Ok(dir) => dir,
        Err(err) => return vec![Finding::failure(format!("cannot evaluate the case: {err}"))],
    };
    let dir = std::path::Path::new(&dir);
    select(doc, &a.pointer)
        .into_iter()
        .filter_map(|(pointer, value)| Some((pointer, value?.as_str()?)))
        .flat_map(|(pointer, file)| {
            let mut reasons = session_path::refused_names(dir, file);
            let path = std::path::Path::new(file);
            if let Some(link) = session_path::symlinked(dir, path) {
                reasons.push(format!("{} is a symlink", link.display()));
            }
            reasons.into_iter().map(move |why| {
                let mut finding = Finding::failure(format!(
                    "at {pointer}: the session file {file:?}: {why}; {}",
                    session_path::REFUSED_COSTS
                ))
                .kind(crate::outcome::Kind::SessionPath);
                finding.cap(severity);
                finding
            })
        })
        .collect()
}

type Mismatch = (String, Option<String>, Option<String>);

fn check_value(
    ctx: &StepContext<'_>,
    check: &Check,
    value: Option<&Value>,
) -> Result<(), Mismatch> {
    let simple = |m: String| (m, None, None);
    let Some(value) = value else {
        return Err(simple("the value is missing".to_string()));
    };
    let expand = |t: &str| {
        Template::parse(t)
            .and_then(|t| t.expand(ctx.bindings))
            .map_err(|e| simple(format!("cannot evaluate the case: {e}")))
    };
    match check {
        Check::Equals(want) => {
            let want = expand_json(want, ctx.bindings).map_err(simple)?;
            if &want != value {
                return Err((
                    "not the expected value".into(),
                    Some(pretty(&want)),
                    Some(pretty(value)),
                ));
            }
        }
        Check::NotEquals(unwanted) => {
            let unwanted = expand_json(unwanted, ctx.bindings).map_err(simple)?;
            if &unwanted == value {
                return Err(simple(format!("must not be {unwanted}")));
            }
        }
        Check::NotEmpty if is_empty(value) => {
            return Err(simple(format!("must not be empty, got {value}")));
        }
        Check::Empty if !is_empty(value) => {
            return Err(simple(format!("must be empty, got {value}")));
        }
        Check::Min(min) => match value.as_i64() {
            Some(n) if n >= *min => {}
            _ => {
                return Err(simple(format!(
                    "must be a number of at least {min}, got {value}"
                )));
            }
        },
        Check::Contains(needle) => {
            let needle = expand(needle)?;
            match value.as_str() {
                Some(s) if s.contains(&needle) => {}
                _ => return Err(simple(format!("{value} does not contain {needle:?}"))),
            }
        }
        Check::Type(t) if JsonType::of(value) != *t => {
            return Err(simple(format!(
                "must be of type {}, got {}: {value}",
                t.name(),
                JsonType::of(value).name()
            )));
        }
        Check::Inside(dir) => {
            let dir = crate::suite::case::normalize(&expand(dir)?);
            let inside = value
                .as_str()
                .map(crate::suite::case::normalize)
                .is_some_and(|p| p.starts_with(&format!("{dir}/")));
            if !inside {
                return Err(simple(format!("{value} escapes the directory {dir}")));
            }
        }
        Check::AbsolutePath => match value.as_str() {
            Some(s) if std::path::Path::new(s).is_absolute() => {}
            _ => return Err(simple(format!("{value} is not an absolute path"))),
        },
        Check::Base64MaxLen(max) => {
            let max: usize = expand(max)?
                .parse()
                .map_err(|_| simple(format!("base64_max_len {max:?} is not a number")))?;
            let bytes = decode_b64(value).map_err(simple)?;
            if bytes.len() > max {
                return Err(simple(format!(
                    "decodes to {} bytes, more than the maximum of {max}",
                    bytes.len()
                )));
            }
        }
        Check::FileExists => match value.as_str() {
            Some(path) if std::path::Path::new(path).is_file() => {}
            _ => return Err(simple(format!("{value} is not an existing file"))),
        },
        Check::Schema(name) => {
            let violations = ctx.schemas.violations(name, value);
            if let Some(first) = violations.first() {
                return Err((
                    format!("does not match schema {name}: {first}"),
                    Some(format!("schemas/{name}.json")),
                    Some(format!("{}\n\n{}", violations.join("\n"), pretty(value))),
                ));
            }
        }
        Check::Base64Equals(source) => {
            let want = (ctx.resolve)(source)
                .map_err(|e| simple(format!("cannot evaluate the case: {e}")))?;
            let got = decode_b64(value).map_err(simple)?;
            if let Some(f) = compare_bytes("the decoded bytes", &want, &got) {
                return Err((f.message, f.expected, f.actual));
            }
        }
        // Held: the checks that did not match a guard above.
        Check::NotEmpty | Check::Empty | Check::Type(_) => {}
        // Judged over the whole document by `check_assert`.
        Check::OwnSessionDir
        | Check::HostLines(_)
        | Check::HostSessionFile(_)
        | Check::SetupDetect
        | Check::InstalledDetect => {}
    }
    Ok(())
}

/// `setup_detect: true`: "present" in the empty sandbox, weighed by
/// `host::project::detect_present` on whether `info` declares hooks,
/// capped at `severity`.
fn setup_detect(
    ctx: &StepContext<'_>,
    a: &JsonAssert,
    doc: &Value,
    severity: Severity,
) -> Vec<Finding> {
    if select(doc, &a.pointer)
        .iter()
        .all(|(_, value)| *value != Some(&Value::Bool(true)))
    {
        return Vec::new();
    }
    let hooks = ctx.bindings.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
    let (weight, message) = crate::host::project::detect_present(hooks);
    let mut finding = Finding {
        severity: weight,
        ..Finding::failure(format!("at {}: {message}", a.pointer))
    };
    finding.cap(severity);
    vec![finding]
}

/// `installed_detect: true`: "present" or not where the agent is
/// installed, weighed by `host::project::detect_installed` on whether
/// `info` declares hooks, capped at `severity`. The world it runs in is the
/// author's own description (`agent:`), so the finding rests on it.
fn installed_detect(
    ctx: &StepContext<'_>,
    a: &JsonAssert,
    doc: &Value,
    severity: Severity,
) -> Vec<Finding> {
    let present = select(doc, &a.pointer)
        .iter()
        .any(|(_, value)| *value == Some(&Value::Bool(true)));
    let hooks = ctx.bindings.info.pointer("/capabilities/hooks") == Some(&Value::Bool(true));
    let Some((weight, message)) = crate::host::project::detect_installed(hooks, present) else {
        return Vec::new();
    };
    let mut finding = Finding {
        severity: weight,
        ..Finding::failure(format!("at {}: {message}", a.pointer))
    }
    .rests_on(crate::outcome::finding::Evidence::Samples);
    finding.cap(severity);
    vec![finding]
}

fn decode_b64(value: &Value) -> Result<Vec<u8>, String> {
    let text = value
        .as_str()
        .ok_or_else(|| format!("{value} is not a base64 string"))?;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|e| format!("is not standard padded base64: {e}"))
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}
