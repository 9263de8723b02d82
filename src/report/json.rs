//! The JSON report (`--format json`): one document on stdout for machines.
//! Over several plugins, one document holds each plugin's report and the
//! conflicts between them ([`render_many`]).
//! Its shape is `schemas/report.json`; `report_version` changes when a field
//! changes meaning or goes away.

use serde_json::{Value, json};

use crate::outcome::many::ManyReport;
use crate::outcome::results::RunReport;

/// The version of the report's shape.
pub const REPORT_VERSION: u32 = 1;

/// Renders the report as one JSON document.
pub fn render(run: &RunReport, strict: bool) -> String {
    let doc = document(run, strict);
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string());
    text.push('\n');
    text
}

/// The report as a JSON value.
pub fn document(run: &RunReport, strict: bool) -> Value {
    let counts = run.counts();
    let mut doc = json!({
        "report_version": REPORT_VERSION,
        "harness": {"name": "agent-conform", "version": env!("CARGO_PKG_VERSION")},
        "plugin": {"path": run.plugin, "info": run.info},
        "hosts": run.hosts,
        "strict": strict,
        "pedantic": run.pedantic,
        "passed": !run.failed(strict),
        "counts": counts,
        "wall_ms": ms(run.wall),
        "invocations_ms": ms(run.invocations),
        "calls": run.calls(),
        "deliberate_wait_ms": ms(run.deliberate_wait),
        "jobs": run.jobs,
        "seed": run.seed,
        "peak_rss_bytes": run.peak_rss_bytes,
        "cases": run.cases,
        "own_side": run.own_side(),
    });
    // Only with `--host`: the report of a run without it is unchanged.
    if let (Some(replay), Some(map)) = (&run.host_replay, doc.as_object_mut()) {
        map.insert("host_replay".into(), json!(replay));
    }
    // Only with `--explore N`.
    if let (Some(explored), Some(map)) = (&run.explored, doc.as_object_mut()) {
        map.insert("explored".into(), json!(explored));
    }
    doc
}

fn ms(d: std::time::Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

/// Renders a run over several plugins as one JSON document:
/// `{"report_version", "plugins": [<each plugin's report>], "conflicts"}`.
pub fn render_many(run: &ManyReport, strict: bool) -> String {
    let plugins: Vec<Value> = run.plugins.iter().map(|p| document(p, strict)).collect();
    let doc = json!({
        "report_version": REPORT_VERSION,
        "plugins": plugins,
        "conflicts": run.conflicts,
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| doc.to_string());
    text.push('\n');
    text
}
