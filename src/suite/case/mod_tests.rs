use super::{Case, Evidence, Pass};

fn case(yaml: &str) -> Case {
    serde_saphyr::from_str(yaml).expect("a valid case")
}

#[test]
fn what_a_step_rests_on_is_derived_where_it_can_be_and_declared_where_not() {
    let c = case(
        "id: a\ntitle: t\nsteps:\n\
         - name: parse\n  args: [parse-hook, --hook, stop]\n  stdin: {json: {session_id: x}}\n\
         - args: [parse-hook, --hook, stop]\n  stdin: {path: samples/stop.json}\n\
         - args: [parse-hook, --hook, stop]\n  stdin: {text: \"{}\\n\"}\n  rests_on: host-input\n\
         - args: [get-session-dir, --repo-path, x]\n\
         - action: {check_hook_events: {step: parse}}\n\
         - action: {snapshot: before}\n\
         - action: verify_user_data\n\
         - args: [get-transcript-position, --path, x]\n",
    );
    // The author's own case file: a payload written there is theirs.
    assert_eq!(c.rests_on(0, Pass::None), Evidence::Samples);
    let mut c = c;
    c.origin.embedded = true;
    let on = |n: usize, pass: Pass| c.rests_on(n, pass);
    // Our generic payload; the author's sample; a difference the host
    // makes, declared; the host's own flags.
    assert_eq!(on(0, Pass::None), Evidence::Assumption);
    assert_eq!(on(1, Pass::None), Evidence::Samples);
    assert_eq!(on(2, Pass::None), Evidence::HostInput);
    assert_eq!(on(3, Pass::None), Evidence::HostInput);
    // An action on the step it judges; on what it reads.
    assert_eq!(on(4, Pass::None), Evidence::Assumption);
    assert_eq!(on(5, Pass::None), Evidence::HostInput);
    assert_eq!(on(6, Pass::None), Evidence::OwnAnswers);
    // The generic transcript, or one of the author's.
    assert_eq!(on(7, Pass::Generic), Evidence::Assumption);
    assert_eq!(on(7, Pass::Sample), Evidence::Samples);
}
