//! The `agent-conform` binary: see [`agent_conform::app`].

use std::process::ExitCode;

fn main() -> ExitCode {
    agent_conform::app::main(std::env::args_os())
}
