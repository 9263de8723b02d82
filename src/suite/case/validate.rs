//! Load-time checks of a case: what serde cannot see (known capabilities
//! and schema names, placeholders, step references; that a JSON assertion
//! has one check is the deserialiser's, see `assert`). A broken case file is
//! refused before anything runs.

use std::collections::BTreeSet;

use super::{
    Action, CAPABILITIES, Case, Check, JsonAssert, LoadError, Property, RoundTripCorpus, Source,
    Step,
};
use crate::suite::fixtures::Fixtures;
use crate::suite::schema::Schemas;
use crate::suite::template::{Template, Var, json_strings};

/// Variables an `env:` may not set: the sandbox's own (its HOME, XDG
/// directories, TMPDIR, the host's variables and `PATH` with the `entire`
/// stand-in first) and the harness's marker.
const RESERVED_ENV: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "TMPDIR",
    "PATH",
    "ENTIRE_REPO_ROOT",
    "ENTIRE_PROTOCOL_VERSION",
    "ENTIRE_CLI_VERSION",
    "AGENT_CONFORM_CALL",
];

/// Checks an `env:` map: names a shell accepts, none of the sandbox's own,
/// values whose placeholders are only `{{home}}`, `{{repo}}` and `{{tmp}}`.
pub fn check_env(env: &std::collections::BTreeMap<String, String>) -> Result<(), String> {
    for (name, value) in env {
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "env: {name:?} is not a variable name (letters, digits and _, not first a digit)"
            ));
        }
        if RESERVED_ENV.contains(&name.as_str()) {
            return Err(format!(
                "env: {name} is set by agent-conform for every invocation (the sandbox's own); \
                 set a variable of the agent's instead"
            ));
        }
        let template = Template::parse(value).map_err(|e| format!("env: {name}: {e}"))?;
        if let Some(var) = template
            .vars()
            .find(|v| !matches!(v, Var::Home | Var::Repo | Var::Tmp))
        {
            return Err(format!(
                "env: {name}: {var:?} is not known when the variable is set; use {{{{home}}}}, \
                 {{{{repo}}}} or {{{{tmp}}}}"
            ));
        }
    }
    Ok(())
}

/// Checks what serde cannot: known capability and schema names, placeholders,
/// step references.
pub(super) fn validate(
    case: &Case,
    schemas: &Schemas,
    fixtures: &Fixtures,
) -> Result<(), LoadError> {
    let fail = |line: u64, reason: String| LoadError {
        file: case.origin.file.clone(),
        line: Some(line),
        reason: format!("case {}: {reason}", case.id),
    };
    if let Some(cap) = &case.capability
        && !CAPABILITIES.contains(&cap.as_str())
    {
        return Err(fail(
            case.origin.line,
            format!(
                "unknown capability {cap:?}; known: {}",
                CAPABILITIES.join(", ")
            ),
        ));
    }
    if let Some(Property::RoundTrip {
        corpus,
        fixtures: names,
        ..
    }) = &case.property
    {
        check_corpus(*corpus, names, fixtures).map_err(|reason| fail(case.origin.line, reason))?;
    }
    if let Some(text) = &case.host_version {
        crate::host::range::ReleaseCondition::parse(text)
            .map_err(|reason| fail(case.origin.line, format!("host_version: {reason}")))?;
    }
    if case.origin.embedded {
        check_metadata(case).map_err(|reason| fail(case.origin.line, reason))?;
    }
    check_env(&case.env).map_err(|reason| fail(case.origin.line, reason))?;
    if case.steps.is_empty() && case.property.is_none() && case.replay.is_none() {
        return Err(fail(case.origin.line, "has no steps".to_string()));
    }
    let mut names = BTreeSet::new();
    let mut captures = BTreeSet::new();
    let ctx = Known {
        fixtures,
        schemas,
        each_transcript: case.for_each_transcript.is_some(),
    };
    if let Some(each) = &case.for_each_transcript
        && fixtures.get(&each.generic).is_none()
    {
        return Err(fail(
            case.origin.line,
            format!("for_each_transcript: no fixture named {:?}", each.generic),
        ));
    }
    for setup in &case.files {
        ctx.check_template(&setup.path, &captures)
            .and_then(|()| match &setup.content {
                Some(content) => ctx.check_source(content, &captures, &names),
                None => Ok(()),
            })
            .map_err(|reason| fail(case.origin.line, reason))?;
    }
    for (index, spanned) in case.steps.iter().enumerate() {
        let step = &spanned.value;
        let line = spanned.referenced.line();
        ctx.check_step(step, &captures, &names)
            .map_err(|reason| fail(line, format!("{}: {reason}", case.step_name(index))))?;
        if let Some(Action::LongLines { steps }) = &step.action {
            check_long_lines(case, index, steps)
                .map_err(|reason| fail(line, format!("{}: {reason}", case.step_name(index))))?;
        }
        names.insert(case.step_name(index));
        captures.extend(step.capture.keys().cloned());
        let carried = step.on_refusal.iter().flat_map(|r| r.continue_with.keys());
        captures.extend(carried.cloned());
    }
    Ok(())
}

/// `long_lines` names earlier analysis steps (whose answers the host keeps)
/// of a `for_each_transcript` case.
fn check_long_lines(case: &Case, index: usize, steps: &[String]) -> Result<(), String> {
    if case.for_each_transcript.is_none() {
        return Err("long_lines needs for_each_transcript".to_string());
    }
    if steps.is_empty() {
        return Err("long_lines names no step".to_string());
    }
    for name in steps {
        let found = (0..index).find(|i| case.step_name(*i) == *name);
        let Some(step) = found.map(|i| &case.steps[i].value) else {
            return Err(format!(
                "long_lines names {name:?}, which is not an earlier step"
            ));
        };
        let subcommand = step.args.iter().flatten().next().map(String::as_str);
        let known = subcommand.and_then(crate::host::long_lines::Answer::of);
        if known.is_none() || step.for_each.is_some() {
            return Err(format!(
                "long_lines names {name:?}, which is no analysis call the host keeps \
                 (get-transcript-position, extract-modified-files, extract-prompts, \
                 calculate-tokens) or runs for_each"
            ));
        }
    }
    Ok(())
}

/// The embedded suite cites the spec and says, in `why`, what the real host
/// does with a wrong answer: that is what its severity rests on.
fn check_metadata(case: &Case) -> Result<(), String> {
    if case.spec.trim().is_empty() {
        return Err("has no spec: (the sections of the specification it checks)".to_string());
    }
    if case.why.as_deref().is_none_or(|w| w.trim().is_empty()) {
        return Err(format!(
            "has no why: (what the host does with a wrong answer, which makes it a {})",
            case.severity.label()
        ));
    }
    Ok(())
}

/// The `fixtures` corpus names fixtures, and only it does.
fn check_corpus(
    corpus: RoundTripCorpus,
    names: &[String],
    fixtures: &Fixtures,
) -> Result<(), String> {
    match (corpus, names.is_empty()) {
        (RoundTripCorpus::Fixtures, true) => {
            Err("the fixtures corpus needs `fixtures: [NAME, ...]`".to_string())
        }
        (RoundTripCorpus::Fixtures, false) => names
            .iter()
            .find(|name| fixtures.get(name).is_none())
            .map_or(Ok(()), |name| {
                Err(format!("no fixture named {name:?} (looked in fixtures/)"))
            }),
        (_, false) => Err("`fixtures:` is only for the fixtures corpus".to_string()),
        (_, true) => Ok(()),
    }
}

/// What a case may refer to.
struct Known<'a> {
    fixtures: &'a Fixtures,
    schemas: &'a Schemas,
    /// The case runs per transcript, so `{{transcript}}` has a value.
    each_transcript: bool,
}

impl Known<'_> {
    fn check_step(
        &self,
        step: &Step,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        match (&step.args, &step.action) {
            (Some(_), Some(_)) => return Err("has both args and action; use one".to_string()),
            (None, None) => {
                return Err("has neither args (run the plugin) nor action".to_string());
            }
            _ => {}
        }
        for arg in step.args.iter().flatten() {
            self.check_item(arg, step)?;
            self.check_template(arg, captures)?;
        }
        if let Some(pointer) = &step.for_each {
            check_pointer(pointer)?;
        }
        if let Some(text) = &step.expect.stdout_carries {
            self.check_template(text, captures)?;
        }
        if let Some(stdin) = &step.stdin {
            self.check_source(stdin, captures, names)?;
        }
        if step.at_most.is_some() && step.for_each.is_none() {
            return Err("at_most needs a for_each step to limit".to_string());
        }
        if step.stdin_delay_ms.is_some() && step.stdin.is_none() {
            return Err("stdin_delay_ms needs a stdin to deliver late".to_string());
        }
        if let Some(same) = &step.expect.same_answer_as
            && (!names.contains(&same.step) || step.for_each.is_none())
        {
            return Err(format!(
                "same_answer_as names {:?}, which must be an earlier for_each step of this case, \
                 and the step itself must be a for_each step",
                same.step
            ));
        }
        if let Some(name) = &step.expect.stdout_schema {
            self.check_schema(name)?;
        }
        if let Some(stdout) = &step.expect.stdout {
            self.check_source(stdout, captures, names)?;
        }
        for assert in &step.expect.json {
            self.check_assert(assert, captures, names)?;
        }
        for pointer in step.capture.values() {
            check_pointer(pointer)?;
        }
        if let Some(Action::ResumesFrom {
            file,
            native_data,
            read,
        }) = &step.action
        {
            self.check_template(file, captures)?;
            self.check_source(native_data, captures, names)?;
            if let Some(read) = read.as_ref().filter(|r| !names.contains(*r)) {
                return Err(format!("read: no earlier step is named {read:?}"));
            }
        }
        if let Some(Action::HostCalled { contains }) = &step.action {
            self.check_template(contains, captures)?;
        }
        if let Some(Action::CheckEventIds { step: parse }) = &step.action
            && !names.contains(parse)
        {
            return Err(format!(
                "check_event_ids: no earlier step is named {parse:?}"
            ));
        }
        if let Some(Action::CheckEscape { step: write, path }) = &step.action {
            self.check_template(path, captures)?;
            if !names.contains(write) {
                return Err(format!("check_escape: no earlier step is named {write:?}"));
            }
        }
        let carried = step
            .on_refusal
            .iter()
            .flat_map(|r| r.continue_with.values());
        for template in carried {
            self.check_template(template, captures)?;
        }
        Ok(())
    }

    fn check_schema(&self, name: &str) -> Result<(), String> {
        if self.schemas.contains(name) {
            return Ok(());
        }
        let known: Vec<_> = self.schemas.names().collect();
        Err(format!(
            "no schema named {name:?} in schemas/; known: {}",
            known.join(", ")
        ))
    }

    /// `{{item}}` only makes sense in a `for_each` step.
    fn check_item(&self, text: &str, step: &Step) -> Result<(), String> {
        let uses_item = Template::parse(text)?.vars().any(|v| *v == Var::Item);
        if uses_item && step.for_each.is_none() {
            return Err("uses {{item}} but has no for_each".to_string());
        }
        Ok(())
    }

    fn check_template(&self, text: &str, captures: &BTreeSet<String>) -> Result<(), String> {
        let template = Template::parse(text)?;
        for var in template.vars() {
            match var {
                Var::Capture(name) if !captures.contains(name) => {
                    return Err(format!(
                        "{{{{capture:{name}}}}} is not captured by an earlier step"
                    ));
                }
                Var::Base64(name) if self.fixtures.get(name).is_none() => {
                    return Err(format!("no fixture named {name:?} (looked in fixtures/)"));
                }
                Var::Info(pointer) => check_pointer(pointer)?,
                Var::Transcript | Var::TranscriptName if !self.each_transcript => {
                    return Err(
                        "{{transcript}} and {{transcript_name}} need for_each_transcript".into(),
                    );
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn check_source(
        &self,
        source: &Source,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        match source {
            Source::Text(text) | Source::File(text) => self.check_template(text, captures),
            Source::Fixture(name) if self.fixtures.get(name).is_none() => {
                Err(format!("no fixture named {name:?} (looked in fixtures/)"))
            }
            Source::Fixture(_) => Ok(()),
            Source::Json(value) | Source::PaddedJson { json: value, .. } => {
                let mut strings = Vec::new();
                json_strings(value, &mut strings);
                strings
                    .iter()
                    .try_for_each(|s| self.check_template(s, captures))
            }
            Source::StdoutOf(step) if !names.contains(step) => Err(format!(
                "stdout_of names {step:?}, which is not an earlier step of this case"
            )),
            Source::StdoutOf(_) => Ok(()),
            Source::Path(path) if self.fixtures.file(path).is_none() => Err(format!(
                "no file {path} (a path: source is relative to the case file)"
            )),
            Source::Path(_) => Ok(()),
            Source::CurrentTranscript | Source::CurrentTranscriptFragment
                if !self.each_transcript =>
            {
                Err("current_transcript needs for_each_transcript".to_string())
            }
            Source::CurrentTranscript | Source::CurrentTranscriptFragment => Ok(()),
        }
    }

    fn check_assert(
        &self,
        a: &JsonAssert,
        captures: &BTreeSet<String>,
        names: &BTreeSet<String>,
    ) -> Result<(), String> {
        check_pointer(&a.pointer)?;
        match &a.check {
            Check::Contains(text)
            | Check::Base64MaxLen(text)
            | Check::Inside(text)
            | Check::HostLines(text)
            | Check::HostSessionFile(text) => self.check_template(text, captures)?,
            Check::Equals(value) | Check::NotEquals(value) => {
                self.check_source(&Source::Json(value.clone()), captures, names)?;
            }
            Check::Base64Equals(source) => self.check_source(source, captures, names)?,
            Check::Schema(name) => self.check_schema(name)?,
            Check::NotEmpty
            | Check::Empty
            | Check::Min(_)
            | Check::Type(_)
            | Check::AbsolutePath
            | Check::FileExists
            | Check::OwnSessionDir
            | Check::SetupDetect
            | Check::InstalledDetect => {}
        }
        if let Some(cond) = &a.when {
            check_pointer(&cond.pointer)?;
        }
        Ok(())
    }
}

fn check_pointer(pointer: &str) -> Result<(), String> {
    if pointer.is_empty() || pointer.starts_with('/') {
        Ok(())
    } else {
        Err(format!(
            "{pointer:?} is not a JSON pointer (it must be empty or start with '/')"
        ))
    }
}
