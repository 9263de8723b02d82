//! What the harness adds to one invocation: runs the plugin's `info` many
//! times in one sandbox, rotating through a bare exec (`Command::output`,
//! the least any caller pays), the harness's runner unconfined, and the
//! runner confined (Landlock), so that all three see the same machine load;
//! prints the medians of each call's wall time, measured around the call,
//! and their differences; then the cost of building a case's ruleset (once
//! per case). Run by `bench/run.sh`:
//!
//!     cargo run --release --example exec-cost -- PLUGIN [ROUNDS]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agent_conform::api::confine::Confinement;
use agent_conform::api::runner::{self, Invocation};
use agent_conform::api::sandbox::{self, Sandbox};

fn main() {
    let mut args = std::env::args().skip(1);
    let plugin = PathBuf::from(args.next().expect("usage: exec-cost PLUGIN [ROUNDS]"));
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(500);
    let plugin = runner::absolute_program(&plugin).expect("a plugin path");
    let base = sandbox::default_base();
    let sandbox = Sandbox::create("bench", &base).expect("a sandbox");
    let confinement = match Confinement::for_sandbox(sandbox.root()) {
        Ok(c) => c,
        Err(err) => {
            println!("confinement unavailable here ({err}): nothing to measure");
            return;
        }
    };
    let mut inv = Invocation::new(
        plugin,
        vec!["info".to_string()],
        sandbox.repo(),
        Duration::from_secs(10),
    );
    inv.env = sandbox.env();
    inv.env_remove = sandbox::env_remove();
    let mut bare = Vec::with_capacity(rounds);
    let mut plain = Vec::with_capacity(rounds);
    let mut confined = Vec::with_capacity(rounds);
    for round in 0..rounds * 3 {
        let start = Instant::now();
        if round % 3 == 0 {
            let out = bare_exec(&inv);
            assert!(out.status.success(), "info must succeed");
            bare.push(ms(start));
            continue;
        }
        let confine = round % 3 == 2;
        inv.confine = confine.then(|| confinement.clone());
        let outcome = runner::run(&inv);
        let took = ms(start);
        assert_eq!(
            outcome.exit_code(),
            Some(0),
            "info must succeed: {:?}",
            outcome.termination
        );
        if confine {
            confined.push(took)
        } else {
            plain.push(took)
        }
    }
    let (b, p, c) = (median(&mut bare), median(&mut plain), median(&mut confined));
    println!("`info` {rounds} times each: bare exec, harness, harness confined (rotating)");
    println!(
        "median bare exec: {b:.3} ms; harness: {p:.3} ms (its own share {:.3} ms); \
         confined: {c:.3} ms (confinement adds {:.3} ms)",
        p - b,
        c - p
    );
    let start = Instant::now();
    for _ in 0..rounds {
        drop(Confinement::for_sandbox(sandbox.root()).expect("a ruleset"));
    }
    let per = start.elapsed().as_secs_f64() * 1000.0 / rounds as f64;
    println!("building a case's ruleset (once per case): {per:.3} ms");
    let (mut made, mut gone) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        let sandbox = Sandbox::create("bench", &base).expect("a sandbox");
        made.push(ms(start));
        let start = Instant::now();
        drop(sandbox);
        gone.push(ms(start));
    }
    println!(
        "a case's sandbox: made in {:.3} ms, deleted in {:.3} ms (medians)",
        median(&mut made),
        median(&mut gone)
    );
}

/// The same command, environment and directory, run with nothing around it.
fn bare_exec(inv: &Invocation) -> std::process::Output {
    let mut cmd = std::process::Command::new(&inv.program);
    cmd.args(&inv.args).current_dir(&inv.cwd);
    for name in &inv.env_remove {
        cmd.env_remove(name);
    }
    for (k, v) in &inv.env {
        cmd.env(k, v);
    }
    cmd.stdin(std::process::Stdio::null())
        .output()
        .expect("the plugin runs")
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
