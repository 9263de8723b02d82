//! The verbs that describe the suite without running it: `list`,
//! `explain`, `coverage` and `schema`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::suite::case::{self};
use crate::suite::schema::{self};
use crate::verbs::usage::UsageError;
use crate::verbs::{did_you_mean, load, print_stdout};

pub(super) fn list(capability: Option<&str>, cases: &[PathBuf]) -> Result<ExitCode, UsageError> {
    let (_, suite) = load(cases)?;
    if let Some(cap) = capability
        && cap != "core"
        && !case::CAPABILITIES.contains(&cap)
    {
        return Err(UsageError::new(
            format!("unknown capability {cap:?}"),
            format!("use core or one of: {}", case::CAPABILITIES.join(", ")),
        ));
    }
    let mut text = String::new();
    for c in suite
        .cases
        .iter()
        .filter(|c| capability.is_none_or(|cap| c.group() == cap))
    {
        let severity = c.severity.label();
        text.push_str(&format!(
            "{:<44} {:<26} {:<8} {}\n",
            c.id,
            c.group(),
            severity,
            c.title
        ));
    }
    print_stdout(&text);
    Ok(ExitCode::SUCCESS)
}

pub(super) fn explain(id: &str, cases: &[PathBuf]) -> Result<ExitCode, UsageError> {
    if id == "worlds" {
        print_stdout(&explain_worlds());
        return Ok(ExitCode::SUCCESS);
    }
    let (_, suite) = load(cases)?;
    let Some(c) = suite.cases.iter().find(|c| c.id == id) else {
        return Err(UsageError::new(
            format!("no case with id {id:?}"),
            did_you_mean(id, &suite),
        ));
    };
    print_stdout(&crate::report::explain(c));
    Ok(ExitCode::SUCCESS)
}

pub(super) fn coverage(cases: &[PathBuf]) -> Result<ExitCode, UsageError> {
    let (_, suite) = load(cases)?;
    let items =
        crate::suite::coverage::items().map_err(|err| UsageError::new(err, "please report it"))?;
    let table = crate::suite::coverage::table(&suite.cases, &items);
    let mut text = format!("{:<52} {:>5}  cases\n", "item", "count");
    let mut holes = 0;
    for (item, ids) in &table {
        holes += usize::from(ids.is_empty());
        let shown: Vec<&str> = ids.iter().map(String::as_str).take(3).collect();
        let more = if ids.len() > 3 {
            format!(" (+{})", ids.len() - 3)
        } else {
            String::new()
        };
        let list = if ids.is_empty() {
            "NOT COVERED".to_string()
        } else {
            shown.join(", ") + &more
        };
        text.push_str(&format!("{:<52} {:>5}  {list}\n", item.id, ids.len()));
    }
    text.push_str(&format!(
        "\n{} items, {} covered, {holes} not covered\n",
        table.len(),
        table.len() - holes
    ));
    let (worlds, unmet) = world_table(&suite.cases);
    text.push_str(&worlds);
    print_stdout(&text);
    Ok(ExitCode::from(u8::from(holes + unmet > 0)))
}

pub(super) fn print_schema(name: Option<&str>) -> Result<ExitCode, UsageError> {
    let names = || {
        schema::documents()
            .map(|d| d.keys().cloned().collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    };
    match name {
        None => {
            print_stdout(&format!("{}\n", names().replace(", ", "\n")));
            Ok(ExitCode::SUCCESS)
        }
        Some(name) => match schema::source(name) {
            Some(text) => {
                print_stdout(text);
                Ok(ExitCode::SUCCESS)
            }
            None => Err(UsageError::new(
                format!("no schema named {name:?}"),
                format!("known schemas: {}", names()),
            )),
        },
    }
}

/// The second table of `coverage`: every value of every axis of the
/// user's world (worlds/axes.yaml) against every kind of case that reads
/// its axis, with the cases that meet it; and how many pairs none meets.
fn world_table(cases: &[crate::suite::case::Case]) -> (String, usize) {
    let axes = crate::suite::worlds::Axes::embedded();
    let rows = crate::execute::worlds::coverage(axes, cases);
    let mut text = format!(
        "\n{:<28} {:<9} {:>5}  cases (docs/worlds.md)\n",
        "axis=value", "kind", "count"
    );
    let mut unmet = 0;
    for row in &rows {
        unmet += usize::from(row.cases.is_empty());
        let shown: Vec<&str> = row.cases.iter().map(String::as_str).take(2).collect();
        let list = match row.cases.len() {
            0 => "NOT MET".to_string(),
            n if n > 2 => format!("{} (+{})", shown.join(", "), n - 2),
            _ => shown.join(", "),
        };
        let name = format!("{}={}", row.axis, row.value);
        text.push_str(&format!(
            "{name:<28} {:<9} {:>5}  {list}\n",
            row.kind,
            row.cases.len()
        ));
    }
    text.push_str(&format!(
        "\n{} axis values by kind, {} met, {unmet} not met\n",
        rows.len(),
        rows.len() - unmet
    ));
    (text, unmet)
}

/// `explain worlds`: every axis of the user's world, its values (the clean
/// room and the base marked) and what produces each on a real machine.
fn explain_worlds() -> String {
    let axes = crate::suite::worlds::Axes::embedded();
    let mut text = String::from(
        "The user's world as axes (worlds/axes.yaml, docs/worlds.md); --world AXIS=VALUE,... runs one.\n",
    );
    for axis in &axes.axes {
        text.push_str(&format!(
            "\n{}: {} (read by {})\n",
            axis.id,
            axis.about,
            axis.reads.join(", ")
        ));
        for value in &axis.values {
            let mark = match (value.plain, value.id == axis.base) {
                (true, true) => " [clean room, base]",
                (true, false) => " [clean room]",
                (false, true) => " [base]",
                _ => "",
            };
            text.push_str(&format!(
                "  {}={}{mark}: {}\n",
                axis.id, value.id, value.cite
            ));
        }
    }
    text
}
