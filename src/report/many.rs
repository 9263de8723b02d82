//! The human report of a run over several plugins: each plugin's report
//! under its name (as [`Human::render`] prints it alone), then the matrix (a
//! row per plugin: verdict, failed / warnings / notes, a column per
//! capability), the conflicts between the plugins installed together, and
//! the verdict of the whole run.

use std::fmt::Write as _;

use owo_colors::OwoColorize;

use crate::outcome::many::{ManyReport, plugin_name};
use crate::outcome::results::RunReport;
use crate::report::human::Human;
use crate::report::matrix::{self, Cell};

impl Human {
    /// The whole report over several plugins.
    pub fn render_many(&self, run: &ManyReport) -> String {
        let mut out = String::new();
        for plugin in &run.plugins {
            let title = format!("=== {} ===", plugin_name(plugin));
            let _ = writeln!(out, "{}", self.strong(&title));
            out.push_str(&self.render(plugin));
            out.push('\n');
        }
        self.matrix(&mut out, run);
        self.conflicts(&mut out, run);
        let failed = run.failed(self.strict);
        let verdict = if failed { "FAILED" } else { "PASSED" };
        let verdict = match (self.color, failed) {
            (false, _) => verdict.to_string(),
            (true, true) => verdict.red().bold().to_string(),
            (true, false) => verdict.green().to_string(),
        };
        let failing = run.plugins.iter().filter(|p| p.failed(self.strict)).count();
        // The plugins share one pool: the run lasts as long as the longest.
        let wall = run.plugins.iter().map(|p| p.wall).max().unwrap_or_default();
        let calls: usize = run.plugins.iter().map(RunReport::calls).sum();
        let _ = writeln!(
            out,
            "\n{verdict}: {} plugins, {failing} failed, {} conflicts in {:.2} s, {calls} calls to the plugins",
            run.plugins.len(),
            run.conflicts.len(),
            wall.as_secs_f64()
        );
        out
    }

    fn strong(&self, text: &str) -> String {
        if self.color {
            text.bold().to_string()
        } else {
            text.to_string()
        }
    }

    fn matrix(&self, out: &mut String, run: &ManyReport) {
        let m = matrix::of(run, self.strict);
        let mut header = vec![
            "plugin".to_string(),
            "verdict".to_string(),
            "failed".to_string(),
            "warnings".to_string(),
            "notes".to_string(),
        ];
        header.extend(m.groups.iter().cloned());
        let rows: Vec<Vec<String>> = m
            .rows
            .iter()
            .map(|row| {
                let mut cells = vec![
                    row.name.clone(),
                    if row.failed { "FAILED" } else { "passed" }.to_string(),
                    row.counts.failed.to_string(),
                    row.counts.warnings.to_string(),
                    row.counts.notes.to_string(),
                ];
                cells.extend(row.cells.iter().map(|c| c.label().to_string()));
                cells
            })
            .collect();
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].chars().count())
                    .chain([header[i].chars().count()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let _ = writeln!(out, "{}", self.strong("Plugins"));
        let line = |cells: &[String], paint: &dyn Fn(usize, String) -> String| {
            let padded: Vec<String> = cells
                .iter()
                .enumerate()
                .map(|(i, c)| paint(i, format!("{c:<w$}", w = widths[i])))
                .collect();
            format!("  {}", padded.join("  ").trim_end())
        };
        let _ = writeln!(out, "{}", line(&header, &|_, c| c));
        for (row, cells) in m.rows.iter().zip(&rows) {
            let paint = |i: usize, text: String| -> String {
                if !self.color || i < 5 {
                    return text;
                }
                match row.cells[i - 5] {
                    Cell::Pass => text.green().to_string(),
                    Cell::Fail => text.red().bold().to_string(),
                    Cell::Warn => text.yellow().to_string(),
                    Cell::Skipped => text.dimmed().to_string(),
                }
            };
            let _ = writeln!(out, "{}", line(cells, &paint));
        }
    }

    fn conflicts(&self, out: &mut String, run: &ManyReport) {
        let _ = writeln!(
            out,
            "\n{}",
            self.strong("Conflicts between the plugins installed together")
        );
        if run.conflicts.is_empty() {
            let _ = writeln!(out, "  none");
            return;
        }
        for c in &run.conflicts {
            let label = format!("{}: {} {}", c.severity.label(), c.plugins[0], c.plugins[1]);
            let label = if self.color {
                label.red().bold().to_string()
            } else {
                label
            };
            let _ = writeln!(out, "  {label} ({})", c.kind.label());
            let _ = writeln!(out, "    {}", c.message);
        }
    }
}
