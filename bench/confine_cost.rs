//! What confinement costs an invocation: runs the plugin's `info` (by
//! default the reference plugin) many times in one sandbox, alternating
//! confined and unconfined invocations so that both see the same machine
//! load, and prints the medians and their difference; then the cost of
//! building a case's ruleset (once per case). Run by `bench/run.sh`:
//!
//!     cargo run --release --example confine-cost -- PLUGIN [ROUNDS]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agent_conform::confine::Confinement;
use agent_conform::runner::{self, Invocation};
use agent_conform::sandbox::{self, Sandbox};

fn main() {
    let mut args = std::env::args().skip(1);
    let plugin = PathBuf::from(args.next().expect("usage: confine-cost PLUGIN [ROUNDS]"));
    let rounds: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(500);
    let plugin = runner::absolute_program(&plugin).expect("a plugin path");
    let base = std::env::temp_dir();
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
    let mut plain = Vec::with_capacity(rounds);
    let mut confined = Vec::with_capacity(rounds);
    for round in 0..rounds * 2 {
        let confine = round % 2 == 1;
        inv.confine = confine.then(|| confinement.clone());
        let outcome = runner::run(&inv);
        assert_eq!(
            outcome.exit_code(),
            Some(0),
            "info must succeed: {:?}",
            outcome.termination
        );
        let ms = outcome.elapsed.as_secs_f64() * 1000.0;
        if confine {
            confined.push(ms)
        } else {
            plain.push(ms)
        }
    }
    let (p, c) = (median(&mut plain), median(&mut confined));
    println!("invocations of `info`: {rounds} unconfined, {rounds} confined, alternating");
    println!(
        "median unconfined: {p:.3} ms; median confined: {c:.3} ms; added: {:.3} ms",
        c - p
    );
    let start = Instant::now();
    for _ in 0..rounds {
        drop(Confinement::for_sandbox(sandbox.root()).expect("a ruleset"));
    }
    let per = start.elapsed().as_secs_f64() * 1000.0 / rounds as f64;
    println!("building a case's ruleset (once per case): {per:.3} ms");
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
