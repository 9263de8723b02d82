//! The `agent-conform` binary: see [`agent_conform::verbs`].

use std::process::ExitCode;

fn main() -> ExitCode {
    agent_conform::verbs::main(std::env::args_os())
}
