//! The JSON report against `schemas/report.json`, for the reporter tests.

use agent_conform::api::schema::Schemas;
use serde_json::Value;

pub fn schemas() -> Schemas {
    Schemas::compile().expect("the schemas compile")
}

pub fn assert_valid(schemas: &Schemas, doc: &Value, what: &str) {
    let violations = schemas.violations("report", doc);
    assert!(
        violations.is_empty(),
        "{what}: the report does not match schemas/report.json:\n{}",
        violations.join("\n")
    );
}
