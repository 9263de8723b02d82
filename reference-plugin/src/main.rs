//! `entire-agent-reference`: the reference Entire external agent plugin.
//!
//! The Entire CLI finds `entire-agent-<name>` binaries on `$PATH` and drives them
//! one subcommand per call: flags as `--name value` arguments, request bytes on
//! stdin, the answer on stdout (JSON, or raw transcript bytes), and on failure a
//! non-zero exit with a message on stderr. This plugin implements every
//! subcommand and every capability of protocol version 1 for "reference", a
//! fictional agent with a Claude Code style JSONL transcript.
//!
//! This file only dispatches: it maps the subcommand to its handler, parses the
//! flags the handler declares, reads stdin when the subcommand takes input,
//! prints the answer, and turns errors into `entire-agent-reference:
//! <subcommand>: <message>` on stderr with exit status 1 (2 for misuse of the
//! binary itself).

#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used)]

mod analysis;
mod args;
mod chunking;
mod context;
mod error;
mod fault_state;
mod faults;
mod hook_response;
mod hooks;
mod identity;
mod lifecycle;
mod output;
mod protocol;
mod remarshal;
mod session;
mod subagents;
mod text_generator;
mod timestamp;
mod tokens;
mod transcript;
mod variants;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::process::ExitCode;

use args::{Args, FlagSpec};
use context::Context;
use error::{Error, ErrorContext, Result};
use faults::Fault;
use output::Output;
use variants::Variant;

/// The binary's name, which starts every error message.
const BINARY: &str = "entire-agent-reference";

/// Everything a handler gets: its parsed flags and its stdin (empty for
/// subcommands that take no input).
#[derive(Debug, Default)]
pub struct Request {
    pub args: Args,
    pub stdin: Vec<u8>,
}

/// A subcommand handler.
type Handler = fn(&Context, &Request) -> Result<Output>;

/// One subcommand: its name, the flags it accepts, whether it reads stdin, and
/// the function that serves it.
struct Command {
    name: &'static str,
    flags: FlagSpec,
    reads_stdin: bool,
    run: Handler,
}

const fn command(
    name: &'static str,
    values: &'static [&'static str],
    switches: &'static [&'static str],
    reads_stdin: bool,
    run: Handler,
) -> Command {
    Command {
        name,
        flags: FlagSpec { values, switches },
        reads_stdin,
        run,
    }
}

/// Stdin size above which the `large-stdin-hang` fault hangs: 1 MiB.
const LARGE_STDIN: usize = 1024 * 1024;

const STDIN: bool = true;
const NO_STDIN: bool = false;

/// Every subcommand of the protocol, grouped as the protocol text groups them:
/// name, value flags (all required), switches, stdin, handler.
#[rustfmt::skip]
const COMMANDS: &[Command] = &[
    // Always required.
    command("info",                  &[], &[], NO_STDIN, identity::info),
    command("detect",                &[], &[], NO_STDIN, identity::detect),
    command("get-session-id",        &[], &[], STDIN,    session::get_session_id),
    command("get-session-dir",       &["--repo-path"], &[], NO_STDIN, session::get_session_dir),
    command("resolve-session-file",  &["--session-dir", "--session-id"], &[], NO_STDIN, session::resolve_session_file),
    command("read-session",          &[], &[], STDIN,    session::read_session),
    command("write-session",         &[], &[], STDIN,    session::write_session),
    command("read-transcript",       &["--session-ref"], &[], NO_STDIN, analysis::read_transcript),
    command("chunk-transcript",      &["--max-size"], &[], STDIN, chunking::chunk_transcript),
    command("reassemble-transcript", &[], &[], STDIN,    chunking::reassemble_transcript),
    command("format-resume-command", &["--session-id"], &[], NO_STDIN, identity::format_resume_command),
    // Capability hooks.
    command("parse-hook",            &["--hook"], &[], STDIN, lifecycle::parse_hook),
    command("install-hooks",         &[], &["--local-dev", "--force"], NO_STDIN, hooks::install_hooks),
    command("uninstall-hooks",       &[], &[], NO_STDIN, hooks::uninstall_hooks),
    command("are-hooks-installed",   &[], &[], NO_STDIN, hooks::are_hooks_installed),
    // Capability transcript_analyzer.
    command("get-transcript-position", &["--path"], &[], NO_STDIN, analysis::get_transcript_position),
    command("extract-modified-files",  &["--path", "--offset"], &[], NO_STDIN, analysis::extract_modified_files),
    command("extract-prompts",         &["--session-ref", "--offset"], &[], NO_STDIN, analysis::extract_prompts),
    command("extract-summary",         &["--session-ref"], &[], NO_STDIN, analysis::extract_summary),
    // Capability transcript_preparer.
    command("prepare-transcript",      &["--session-ref"], &[], NO_STDIN, analysis::prepare_transcript),
    // Capability token_calculator.
    command("calculate-tokens",        &["--offset"], &[], STDIN, tokens::calculate_tokens),
    // Capability text_generator.
    command("generate-text",           &["--model"], &[], STDIN, text_generator::generate_text),
    // Capability hook_response_writer.
    command("write-hook-response",     &["--message"], &[], NO_STDIN, hook_response::write_hook_response),
    // Capability subagent_aware_extractor.
    command("extract-all-modified-files", &["--offset", "--subagents-dir"], &[], STDIN, subagents::extract_all_modified_files),
    command("calculate-total-tokens",     &["--offset", "--subagents-dir"], &[], STDIN, subagents::calculate_total_tokens),
    // Capability compact_transcript (docs/host.md, "After the protocol text was written").
    command("compact-transcript",         &["--session-ref"], &[], NO_STDIN, analysis::compact_transcript),
];

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().skip(1).collect();

    // Testing aids that work whatever the switches say.
    match argv.first().and_then(|arg| arg.to_str()) {
        Some("--list-faults") => return list(Fault::ALL.iter().map(|f| f.name())),
        Some("--list-variants") => return list(Variant::ALL.iter().map(|v| v.name())),
        _ => {}
    }

    let ctx = match load_context() {
        Ok(ctx) => ctx,
        Err(err) => return fail(&Context::default(), None, &err),
    };
    if ctx.fault(Fault::StderrFlood) {
        output::flood(std::io::stderr().lock(), output::FLOOD_SIZE);
    }

    let Some(name) = argv.first() else {
        if ctx.fault(Fault::NoSubcommandOk) {
            return match output::write_stdout(usage().as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&ctx, None, &err),
            };
        }
        let err = Error::Usage(format!("no subcommand given; {}", usage_line()));
        return fail(&ctx, None, &err);
    };
    let name = name.to_string_lossy();
    // The `tokens-missing` and `generate-text-missing` faults: a declared
    // capability's subcommand is not there at all.
    let missing = |command: &&Command| {
        (ctx.fault(Fault::TokensMissing) && command.name == "calculate-tokens")
            || (ctx.fault(Fault::GenerateTextMissing) && command.name == "generate-text")
    };
    let found = COMMANDS.iter().find(|command| command.name == name);
    let Some(command) = found.filter(|command| !missing(command)) else {
        if ctx.fault(Fault::UnknownSubcommandOk) {
            return match output::write_stdout(b"{}\n") {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&ctx, None, &err),
            };
        }
        let err = Error::Usage(format!("unknown subcommand; {}", usage_line()));
        return fail(&ctx, Some(&name), &err);
    };

    match run(&ctx, command, &argv[1..]) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&ctx, Some(command.name), &err),
    }
}

/// The testing switches from the environment; an unknown name is a usage error.
fn load_context() -> Result<Context> {
    Ok(Context {
        fault: faults::active()?,
        variants: variants::active()?,
    })
}

/// Parse the flags, read stdin, run the handler and print its answer.
fn run(ctx: &Context, command: &Command, raw_flags: &[OsString]) -> Result<()> {
    let flags = raw_flags
        .iter()
        .map(|arg| {
            arg.to_str()
                .map(str::to_owned)
                .ok_or_else(|| Error::failed(format!("argument {arg:?} is not valid UTF-8")))
        })
        .collect::<Result<Vec<String>>>()?;
    let args = Args::parse(&flags, &command.flags, ctx.fault(Fault::MissingFlagOk))?;
    let mut stdin = Vec::new();
    if command.reads_stdin && command.name == "parse-hook" && ctx.fault(Fault::StdinDeadline) {
        stdin = read_stdin_until(STDIN_DEADLINE);
    } else if command.reads_stdin
        && command.name == "parse-hook"
        && ctx.fault(Fault::StdinFirstByteDeadline)
    {
        stdin = read_stdin_if_it_starts_within(STDIN_DEADLINE);
    } else if command.reads_stdin
        && command.name == "parse-hook"
        && ctx.fault(Fault::SlowStartStdinDeadline)
    {
        std::thread::sleep(std::time::Duration::from_millis(300));
        stdin = read_stdin_if_it_starts_within(STDIN_DEADLINE);
    } else if command.reads_stdin {
        std::io::stdin()
            .read_to_end(&mut stdin)
            .context(|| "reading stdin")?;
        if ctx.fault(Fault::LargeStdinHang) && stdin.len() > LARGE_STDIN {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    let answer = (command.run)(ctx, &Request { args, stdin })?;
    output::write(ctx, answer)
}

/// How long the `stdin-deadline` fault waits for `parse-hook`'s payload.
const STDIN_DEADLINE: std::time::Duration = std::time::Duration::from_millis(100);

/// The `stdin-deadline` fault: what stdin holds within `deadline` (or up to
/// EOF, if sooner). The reading thread is left behind; the process ends
/// without it.
fn read_stdin_until(deadline: std::time::Duration) -> Vec<u8> {
    let (send, receive) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 8192];
        let mut input = std::io::stdin();
        while let Ok(n @ 1..) = input.read(&mut buffer) {
            if send.send(buffer[..n].to_vec()).is_err() {
                return;
            }
        }
    });
    let end = std::time::Instant::now() + deadline;
    let mut stdin = Vec::new();
    while let Some(left) = end.checked_duration_since(std::time::Instant::now()) {
        match receive.recv_timeout(left) {
            Ok(chunk) => stdin.extend(chunk),
            Err(_) => break,
        }
    }
    stdin
}

/// The `stdin-first-byte-deadline` fault: nothing when no byte of stdin has
/// come within `deadline`, else all of stdin up to EOF. The reading thread
/// is left behind when nothing came; the process ends without it.
fn read_stdin_if_it_starts_within(deadline: std::time::Duration) -> Vec<u8> {
    let (send, receive) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut input = std::io::stdin();
        let mut buffer = [0u8; 8192];
        while let Ok(n @ 1..) = input.read(&mut buffer) {
            if send.send(buffer[..n].to_vec()).is_err() {
                return;
            }
        }
    });
    let mut stdin = match receive.recv_timeout(deadline) {
        Ok(chunk) => chunk,
        Err(_) => return Vec::new(),
    };
    while let Ok(chunk) = receive.recv() {
        stdin.extend(chunk);
    }
    stdin
}

/// Report `err` on stderr as one line and return its exit status.
fn fail(ctx: &Context, subcommand: Option<&str>, err: &Error) -> ExitCode {
    if ctx.fault(Fault::SilentErrors) {
        return ExitCode::from(1);
    }
    if let Some(message) = err.message() {
        // One line, whatever the message quotes (a path may hold a newline).
        let message = message.replace(['\n', '\r'], " ");
        let line = match subcommand {
            Some(subcommand) => format!("{BINARY}: {subcommand}: {message}\n"),
            None => format!("{BINARY}: {message}\n"),
        };
        // Nothing sensible is left to do if stderr itself is gone.
        let _ = std::io::stderr().lock().write_all(line.as_bytes());
    }
    ExitCode::from(err.exit_code())
}

/// Print one name per line (the `--list-*` testing aids).
fn list<'a>(names: impl Iterator<Item = &'a str>) -> ExitCode {
    let text: String = names.map(|name| format!("{name}\n")).collect();
    match output::write_stdout(text.as_bytes()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => fail(&Context::default(), None, &err),
    }
}

/// A one-line usage summary for error messages.
fn usage_line() -> String {
    let names: Vec<&str> = COMMANDS.iter().map(|command| command.name).collect();
    format!(
        "usage: {BINARY} <subcommand> [--flag value]...; subcommands: {}",
        names.join(", ")
    )
}

/// The full usage text: every subcommand with its flags.
fn usage() -> String {
    let mut text = format!("usage: {BINARY} <subcommand> [--flag value]...\n\nsubcommands:\n");
    for command in COMMANDS {
        let mut line = format!("  {}", command.name);
        for flag in command.flags.values {
            line.push_str(&format!(" {flag} <{}>", flag.trim_start_matches("--")));
        }
        for switch in command.flags.switches {
            line.push_str(&format!(" [{switch}]"));
        }
        if command.reads_stdin {
            line.push_str("  < stdin");
        }
        text.push_str(&line);
        text.push('\n');
    }
    text.push_str("\ntesting aids: --list-faults, --list-variants\n");
    text
}
