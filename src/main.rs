//! The `agent-conform` binary: see [`agent_conform::main`].

use std::process::ExitCode;

fn main() -> ExitCode {
    agent_conform::main(std::env::args_os())
}
