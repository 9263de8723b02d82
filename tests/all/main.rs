//! The integration tests, in one binary: each module was a test binary of
//! its own, and each linked the whole crate (some 2 s of CPU apiece, 45
//! of them). One binary links once, and its tests share the two
//! processors across modules instead of one module at a time.

mod common;

mod allow;
mod case_schema;
mod cli;
mod confine;
mod conflicts;
mod corpus;
mod coverage;
mod discover;
mod docs;
mod event_schemas;
mod fault_matrix;
mod godiff;
mod golden;
mod host_replay;
mod host_versions;
mod independence;
mod init;
mod install_script;
mod interrupt;
mod large;
mod machine;
mod no_text_decisions;
mod own_samples;
mod pipes;
mod plugins;
mod record;
mod report_shape;
mod reporters_combined;
mod reporters_github;
mod reporters_human;
mod reporters_json;
mod reporters_junit;
mod reporters_xsd;
mod rerun;
mod run_control;
mod suite;
mod wild_answers;
mod wild_crash;
mod wild_decoding;
mod wild_environment;
mod wild_field;
mod wild_hooks;
mod wild_install;
mod wild_newest;
mod wild_project;
mod wild_reach;
mod wild_sessions;
mod wild_transcripts;
