//! JUnit XML read back for the reporter tests: with roxmltree, an XML parser
//! independent of the quick-junit writer, and, where `xmllint` is installed,
//! validated against the common JUnit XSD (`tests/data/junit.xsd`).

use std::path::PathBuf;
use std::process::Command;

use agent_conform::api::RunReport;

/// Counts of one `<testsuite>` as written in its attributes and as counted
/// from its `<testcase>` children: (tests, failures, errors, skipped).
pub type Four = (usize, usize, usize, usize);

pub fn attr_count(node: roxmltree::Node, name: &str) -> usize {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> has no {name} attribute", node.tag_name().name()))
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|n| n.has_tag_name(name))
}

pub fn children<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    name: &'static str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(move |n| n.has_tag_name(name))
}

/// Parses a JUnit document and checks it against the run: every suite's
/// counts equal those of its test cases, the totals equal the run's counts
/// (warnings are failures under `strict`), one suite per capability group in
/// order, and every test case has the capability as classname and the case's
/// time. Returns the totals.
pub fn check_junit(run: &RunReport, strict: bool, xml: &str) -> Four {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|e| panic!("the JUnit XML does not parse: {e}\n{xml}"));
    let root = doc.root_element();
    assert!(root.has_tag_name("testsuites"));
    assert_eq!(root.attribute("name"), Some("agent-conform"));
    assert_eq!(
        root.attribute("skipped"),
        None,
        "the common XSD has no skipped on <testsuites>"
    );
    let mut totals: Four = (0, 0, 0, 0);
    let mut names = Vec::new();
    for suite in children(root, "testsuite") {
        let name = suite.attribute("name").expect("suite name").to_string();
        let cases: Vec<_> = children(suite, "testcase").collect();
        let with = |tag: &str| cases.iter().filter(|c| child(**c, tag).is_some()).count();
        let counted: Four = (cases.len(), with("failure"), with("error"), with("skipped"));
        let written: Four = (
            attr_count(suite, "tests"),
            attr_count(suite, "failures"),
            attr_count(suite, "errors"),
            attr_count(suite, "skipped"),
        );
        assert_eq!(written, counted, "suite {name}: attributes vs test cases");
        for c in &cases {
            assert_eq!(c.attribute("classname"), Some(name.as_str()));
            let id = c.attribute("name").expect("name");
            let case = run.cases.iter().find(|k| k.id == id).expect("a case");
            let time: f64 = c.attribute("time").expect("time").parse().expect("number");
            assert!(
                (time - case.duration.as_secs_f64()).abs() < 0.001,
                "{id}: time {time}"
            );
        }
        totals = (
            totals.0 + counted.0,
            totals.1 + counted.1,
            totals.2 + counted.2,
            totals.3 + counted.3,
        );
        names.push(name);
    }
    let c = run.counts();
    let expected: Four = (
        c.total(),
        c.failed + if strict { c.warnings } else { 0 },
        0,
        c.skipped + c.not_run,
    );
    assert_eq!(totals, expected, "totals vs RunReport::counts()");
    assert_eq!(attr_count(root, "tests"), totals.0);
    assert_eq!(attr_count(root, "failures"), totals.1);
    assert_eq!(attr_count(root, "errors"), totals.2);
    let groups: Vec<String> = run
        .groups()
        .into_iter()
        .filter(|g| run.cases.iter().any(|c| &c.capability == g))
        .collect();
    assert_eq!(names, groups, "one suite per capability group, in order");
    totals
}

pub fn testcase<'a, 'i>(doc: &'a roxmltree::Document<'i>, id: &str) -> roxmltree::Node<'a, 'i> {
    doc.descendants()
        .find(|n| n.has_tag_name("testcase") && n.attribute("name") == Some(id))
        .unwrap_or_else(|| panic!("no testcase {id}"))
}

pub fn suite_property<'a>(
    doc: &'a roxmltree::Document,
    suite: &str,
    name: &str,
) -> Option<&'a str> {
    doc.descendants()
        .find(|n| n.has_tag_name("testsuite") && n.attribute("name") == Some(suite))
        .and_then(|s| child(s, "properties"))
        .and_then(|p| children(p, "property").find(|n| n.attribute("name") == Some(name)))
        .and_then(|n| n.attribute("value"))
}

pub fn xmllint_available() -> bool {
    Command::new("xmllint")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

pub fn xsd() -> PathBuf {
    super::root().join("tests").join("data").join("junit.xsd")
}

/// Validates a JUnit document with xmllint against tests/data/junit.xsd.
pub fn assert_xsd_valid(xml: &str, what: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{what}.xml"));
    std::fs::write(&file, xml).unwrap();
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd())
        .arg(&file)
        .output()
        .expect("xmllint runs");
    assert!(
        out.status.success(),
        "{what}: the JUnit file does not validate against the XSD:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}
