//! Spec coverage: which cases check which item of the specification.
//!
//! The items (every subcommand, flag, object field, event type and stated
//! rule) are data in `coverage/spec-items.yaml`. A case names what it checks
//! in `covers:`; the subcommands and flags its steps pass are counted without
//! being named. An item no case covers is a hole in the suite.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::embedded;
use crate::suite::case::{Case, glob};

/// One item of the specification.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    /// `subcommand:info`, `field:Event.type`, `rule:one-json-value`, ...
    pub id: String,
    /// Where the spec states it.
    pub spec: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemsFile {
    items: Vec<Item>,
}

/// The embedded items.
pub fn items() -> Result<Vec<Item>, String> {
    serde_saphyr::from_str::<ItemsFile>(embedded::SPEC_ITEMS)
        .map(|f| f.items)
        .map_err(|e| format!("coverage/spec-items.yaml: {e}"))
}

/// Checks that every `covers:` pattern of every case names an item.
pub fn check_covers(cases: &[Case], items: &[Item]) -> Result<(), String> {
    for case in cases {
        for pattern in &case.covers {
            if !items.iter().any(|i| glob(pattern, &i.id)) {
                return Err(format!(
                    "{}:{}: case {}: covers {pattern:?}, which names no item of \
                     coverage/spec-items.yaml",
                    case.origin.file, case.origin.line, case.id
                ));
            }
        }
    }
    Ok(())
}

/// Item id to the ids of the cases that cover it, in item order.
pub fn table(cases: &[Case], items: &[Item]) -> Vec<(Item, Vec<String>)> {
    let mut covered: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for case in cases {
        for item in items {
            if covers(case, &item.id) {
                covered.entry(&item.id).or_default().push(case.id.clone());
            }
        }
    }
    items
        .iter()
        .map(|i| {
            (
                i.clone(),
                covered.get(i.id.as_str()).cloned().unwrap_or_default(),
            )
        })
        .collect()
}

/// Whether a case covers an item, by name or by its steps' arguments.
fn covers(case: &Case, item: &str) -> bool {
    if case.covers.iter().any(|p| glob(p, item)) {
        return true;
    }
    case.steps.iter().any(|step| {
        let args = step.value.args.as_deref().unwrap_or_default();
        let Some(sub) = args.first() else {
            return false;
        };
        if item == format!("subcommand:{sub}") {
            return true;
        }
        args.iter()
            .skip(1)
            .any(|a| a.starts_with("--") && item == format!("flag:{sub} {a}"))
    }) || matches!(
        (&case.property, item),
        (
            Some(_),
            "subcommand:chunk-transcript"
                | "subcommand:reassemble-transcript"
                | "flag:chunk-transcript --max-size"
        )
    )
}
