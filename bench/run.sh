#!/usr/bin/env bash
# Benchmark of agent-conform (release build). Median of RUNS (default 5):
# - the default suite (2 jobs) on three plugins: the reference (Rust), the
#   independent Python plugin tests/plugins/entire-agent-pyconform, and
#   bench/entire-agent-trivial (a shell script that answers at once: the
#   floor). For each: invocations, sum of invocation times, wall, the ratio
#   wall / (sum / jobs), and the harness's overhead per invocation
#   ((wall x jobs - sum) / invocations: sandboxes, checks, scheduling);
# - one invocation measured bare and through the harness (its own share),
#   and what confining the plugin's writes (Landlock) adds;
# - start-up, and the large-transcript round trips with peak memory.
# Timings are measured here, never asserted in tests. Usage: bench/run.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
cargo build --release --workspace --quiet
cargo build --release --example exec-cost --quiet
# The real interpreter, not a version manager's shim: the plugin's cost, not
# the shim's, is what a user's CI pays.
py_dir=$(dirname "$(python3 -c 'import sys; print(sys.executable)')")
export PATH="$py_dir:$PATH"
export AC=target/release/agent-conform RUNS=$runs
python3 - <<'PY'
import json, os, statistics, subprocess, time

ac, runs = os.environ["AC"], int(os.environ["RUNS"])

def report(plugin, *args):
    out = subprocess.run([ac, "--format", "json", *args, plugin], capture_output=True, check=False)
    return json.loads(out.stdout)

def invocations(d):
    return sum(1 for c in d["cases"] for s in c["steps"] if s["termination"] not in ("action", "not-run"))

def suite(plugin):
    rows = []
    for _ in range(runs):
        d = report(plugin, "--seed", "1")
        n = invocations(d)
        wall, inv, jobs = d["wall_ms"], d["invocations_ms"], d["jobs"]
        rows.append((n, inv, wall, wall / (inv / jobs), (wall * jobs - inv) / n, jobs))
    med = lambda i: statistics.median(r[i] for r in rows)
    return rows[0][0], med(1), med(2), med(3), med(4), rows[0][5]

print(f"machine: {os.cpu_count()} cores; median of {runs} runs; default suite, --seed 1\n")
print("| plugin | invocations | sum of invocations (ms) | wall (ms) | ratio | harness overhead per invocation (ms) |")
print("|---|---|---|---|---|---|")
for name, plugin in [
    ("reference (Rust)", "target/release/entire-agent-reference"),
    ("pyconform (Python)", "tests/plugins/entire-agent-pyconform"),
    ("trivial (sh, the floor)", "bench/entire-agent-trivial"),
]:
    n, inv, wall, ratio, per, jobs = suite(plugin)
    print(f"| {name} | {n} | {inv:.0f} | {wall:.0f} | {ratio:.2f} | {per:.2f} |")

times = []
for _ in range(max(runs * 6, 30)):
    t = time.perf_counter()
    subprocess.run([ac, "list"], stdout=subprocess.DEVNULL, check=True)
    times.append((time.perf_counter() - t) * 1000)
print(f"\nstart-up (`agent-conform list`): median {statistics.median(times):.1f} ms, min {min(times):.1f} ms\n")

print("| large case | wall (ms) | harness peak RSS (MiB) | peak / transcript |")
print("|---|---|---|---|")
for mib in (1, 10, 60):
    d = report("target/release/entire-agent-reference", "--large", "--only", f"large.round-trip-{mib}mib", "--seed", "1")
    case = next(c for c in d["cases"] if c["id"].startswith("large."))
    peak = (d["peak_rss_bytes"] or 0) / 2**20
    print(f"| {mib} MiB | {case['duration_ms']:.0f} | {peak:.0f} | {peak / mib:.2f}x |")
PY

echo
target/release/examples/exec-cost target/release/entire-agent-reference $((runs * 100))
