//! Property cases: the round trips over generated inputs, fixtures and the
//! plugin's own samples, whole or one input (unit) at a time, and the
//! invocations they make outside the YAML steps.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use crate::execute::step::step_report;
use crate::execute::{CaseState, RoundTrip, Run, defer_stdin, downgrade};
use crate::judge::checks;
use crate::judge::roundtrip;
use crate::outcome::results::StepReport;
use crate::running::runner;
use crate::running::sandbox::Sandbox;
use crate::suite::case::{Case, Property, RoundTripCorpus, Sample};
use crate::suite::generate::{self, Corpus, Input};

impl Run<'_> {
    /// Runs a property; `Err` skips the case with the reason.
    pub(super) fn property(
        &self,
        case: &Case,
        property: &Property,
        sandbox: &Sandbox,
        state: &mut CaseState,
    ) -> Result<Option<String>, String> {
        let seed = self.options.seed;
        let mut count = 0;
        let stdin_files = &mut state.stdin_files;
        let mut invoke = |call: roundtrip::Call| {
            count += 1;
            self.run_raw(&case.id, sandbox, call, count, stdin_files)
        };
        if let Property::LargeRoundTrip { mib, max_sizes } = property {
            let verdict = roundtrip::large(*mib, max_sizes, seed, &mut invoke);
            return Ok(self.record(case, verdict, state));
        }
        let Some(trip) = self.round_trip(case) else {
            return Err("no sample transcripts of the plugin's own: name them with \
                 `transcripts:` in a --cases file"
                .to_string());
        };
        let inputs = trip.as_inputs();
        let verdict = match state.unit {
            None => roundtrip::run(inputs, self.schemas, &mut invoke),
            Some(unit) => {
                let mut verdict = roundtrip::RoundTripFindings::default();
                let tally = roundtrip::run_input(
                    &inputs,
                    unit,
                    self.schemas,
                    &mut invoke,
                    &mut verdict.steps,
                );
                state.tally = Some(tally);
                verdict
            }
        };
        Ok(self.record(case, verdict, state))
    }

    /// The round trip of a case with a `round_trip` property, and its
    /// inputs; none for other cases, or when the corpus has no input (no
    /// sample of the plugin's own).
    pub(super) fn round_trip<'c>(&self, case: &'c Case) -> Option<RoundTrip<'c>> {
        let Some(Property::RoundTrip {
            corpus,
            fixtures,
            max_sizes,
        }) = &case.property
        else {
            return None;
        };
        let seed = self.options.seed;
        let inputs: Vec<(String, Input)> = match corpus {
            RoundTripCorpus::Jsonl => self.corpora.get(Corpus::Jsonl).to_vec(),
            RoundTripCorpus::Bytes => self.corpora.get(Corpus::Bytes).to_vec(),
            RoundTripCorpus::Samples => self.own_samples.get(self.samples).to_vec(),
            RoundTripCorpus::Fixtures => fixtures
                .iter()
                .filter_map(|name| Some(own_input("fixture", name, self.fixtures.get(name)?)))
                .collect(),
        };
        (!inputs.is_empty()).then_some(RoundTrip {
            corpus: *corpus,
            inputs,
            max_sizes,
            seed,
            have_samples: !self.samples.is_empty(),
        })
    }

    /// Adds a property's invocations to the case; returns its note.
    pub(super) fn record(
        &self,
        case: &Case,
        verdict: roundtrip::RoundTripFindings,
        state: &mut CaseState,
    ) -> Option<String> {
        for mut report in verdict.steps {
            if let Some(reason) = crate::execute::breaker::refused_reason(&report) {
                state.cut.get_or_insert(reason);
                continue;
            }
            downgrade(case, &mut report);
            state.reports.push(report);
        }
        verdict.note
    }

    /// One invocation outside the YAML steps (properties): saves stdin,
    /// runs, and applies the host's universal rules.
    pub(super) fn run_raw(
        &self,
        case_id: &str,
        sandbox: &Sandbox,
        call: roundtrip::Call,
        count: usize,
        stdin_files: &mut Vec<(PathBuf, runner::Bytes)>,
    ) -> (runner::Outcome, StepReport) {
        crate::running::interrupt::hold_if_interrupted();
        if let Some(reason) = self.breaker.refuse(&call.args) {
            return crate::execute::breaker::refused_call(call.label, reason);
        }
        let file = sandbox.stdin_dir().join(format!("p{count}.stdin"));
        defer_stdin(stdin_files, &file, &call.stdin);
        let mut inv = self.invocation(sandbox, call.args, self.options.timeout);
        inv.stdin = Some(call.stdin);
        inv.stdout_limit = call.stdout_limit;
        inv.expect_stdout = call.expect_stdout;
        let outcome = runner::run(&inv);
        self.breaker
            .record(case_id, &inv.args, inv.timeout, &outcome);
        let mut report = step_report(call.label, &inv, &outcome, Some(&file));
        report.findings = checks::universal(inv.timeout.as_secs_f64(), &outcome);
        (outcome, report)
    }
}

/// The round-trip inputs of a run that depend neither on the case nor on
/// the plugin: the generated corpora, shared by every plugin of the run.
/// Each is made once, by the first round trip that needs it or by
/// [`Corpora::warm`] while the gate runs, and shared by the units of every
/// case that uses it (an input's bytes are shared, not copied). A plugin's
/// own samples are its run's ([`OwnSamples`]): another plugin of the same
/// run never gets them.
pub(super) struct Corpora {
    seed: u64,
    jsonl: OnceLock<Vec<(String, Input)>>,
    bytes: OnceLock<Vec<(String, Input)>>,
}

/// One plugin's own samples as round-trip inputs, made once for its run.
#[derive(Default)]
pub(super) struct OwnSamples(OnceLock<Vec<(String, Input)>>);

impl OwnSamples {
    /// The plugin's samples as inputs (the same samples throughout its run).
    pub(super) fn get(&self, samples: &[Sample]) -> &[(String, Input)] {
        self.0.get_or_init(|| {
            let input = |s: &Sample| own_input("sample", &s.name, &s.bytes);
            samples.iter().map(input).collect()
        })
    }
}

impl Corpora {
    /// The corpora of `seed`, none made yet.
    pub(super) fn new(seed: u64) -> Corpora {
        Corpora {
            seed,
            jsonl: OnceLock::new(),
            bytes: OnceLock::new(),
        }
    }

    /// The inputs of `corpus`, labelled with the seed and their shape.
    pub(super) fn get(&self, corpus: Corpus) -> &[(String, Input)] {
        let cell = match corpus {
            Corpus::Jsonl => &self.jsonl,
            Corpus::Bytes => &self.bytes,
        };
        cell.get_or_init(|| labelled(generate::corpus(corpus, self.seed), self.seed))
    }

    /// Makes the corpora that `cases` use now: while the gate's single
    /// `info` call runs, a core is free for it.
    pub(super) fn warm(&self, cases: &[Case]) {
        for case in cases {
            match &case.property {
                Some(Property::RoundTrip {
                    corpus: RoundTripCorpus::Jsonl,
                    ..
                }) => drop(self.get(Corpus::Jsonl)),
                Some(Property::RoundTrip {
                    corpus: RoundTripCorpus::Bytes,
                    ..
                }) => drop(self.get(Corpus::Bytes)),
                _ => {}
            }
        }
    }
}

/// A transcript of the plugin's or of the suite's as an input, labelled with
/// its shape and name, tried at the round trip's own sizes.
fn own_input(shape: &'static str, name: &str, bytes: &[u8]) -> (String, Input) {
    let input = Input {
        shape,
        bytes: Arc::new(bytes.to_vec()),
        max_sizes: Vec::new(),
    };
    (format!("{shape} {name}"), input)
}

/// Labels generated inputs with the seed and their shape.
pub(super) fn labelled(inputs: Vec<Input>, seed: u64) -> Vec<(String, Input)> {
    inputs
        .into_iter()
        .map(|i| (format!("seed {seed}, {}", i.shape), i))
        .collect()
}
