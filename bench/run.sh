#!/usr/bin/env bash
# Benchmark of agent-conform on the reference plugin (release build).
# Prints a Markdown table: whole-suite wall time at --jobs 1 and the default,
# the overhead ratio (wall / (sum of invocation times / jobs)), start-up time
# (load the embedded cases and compile the schemas: `agent-conform list`), and
# the large-transcript round trips with the harness's peak memory, and what
# confining the plugin's writes (Landlock) adds to one invocation.
# Timings are measured here, never asserted in tests. Usage: bench/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release --workspace --quiet
cargo build --release --example confine-cost --quiet
export AC=target/release/agent-conform PLUGIN=target/release/entire-agent-reference RUNS=$runs
python3 - <<'PY'
import json, os, statistics, subprocess, time

ac, plugin, runs = os.environ["AC"], os.environ["PLUGIN"], int(os.environ["RUNS"])

def report(*args):
    out = subprocess.run([ac, "--format", "json", *args, plugin], capture_output=True, check=False)
    return json.loads(out.stdout)

def suite(jobs):
    rows = []
    for _ in range(runs):
        args = ["--cases", "reference-plugin/conformance", "--seed", "1"]
        if jobs:
            args += ["--jobs", str(jobs)]
        d = report(*args)
        rows.append((d["wall_ms"], d["invocations_ms"], d["jobs"]))
    wall = statistics.median(r[0] for r in rows)
    inv = statistics.median(r[1] for r in rows)
    ratio = statistics.median(r[0] / (r[1] / r[2]) for r in rows)
    return rows[0][2], wall, inv, ratio

print(f"machine: {os.cpu_count()} cores; median of {runs} runs\n")
print("| run | jobs | wall (ms) | sum of invocations (ms) | overhead ratio |")
print("|---|---|---|---|---|")
for jobs in (1, None):
    j, wall, inv, ratio = suite(jobs)
    print(f"| whole suite | {j} | {wall:.0f} | {inv:.0f} | {ratio:.2f} |")

times = []
for _ in range(max(runs * 6, 30)):
    t = time.perf_counter()
    subprocess.run([ac, "list"], stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - t) * 1000)
print(f"\nstart-up (`agent-conform list`): median {statistics.median(times):.1f} ms, min {min(times):.1f} ms\n")

print("| large case | wall (ms) | harness peak RSS (MiB) | peak / transcript |")
print("|---|---|---|---|")
for mib in (1, 10, 60):
    d = report("--large", "--only", f"large.round-trip-{mib}mib", "--seed", "1")
    case = next(c for c in d["cases"] if c["id"].startswith("large."))
    peak = (d["peak_rss_bytes"] or 0) / 2**20
    print(f"| {mib} MiB | {case['duration_ms']:.0f} | {peak:.0f} | {peak / mib:.2f}x |")
PY

echo
target/release/examples/confine-cost "$PLUGIN" $((runs * 100))
