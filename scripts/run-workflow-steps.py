#!/usr/bin/env python3
"""Runs the workflow `agent-conform init --ci github` writes, step by step,
on a Go and a Python plugin, as a runner would after checkout.

For each plugin, in a scratch git repository of its own: the author's build
(`go build`, a virtual environment with `pip install .`), `agent-conform
init` (the scaffold), `agent-conform init --ci github` (a conformance
directory exists: only the workflow), a commit, and `git clean -fdx`, so that
the workflow starts from what a checkout holds. Then every step of the
workflow runs in order: its `run:` steps with bash in their
`working-directory` (GitHub's `bash -eo pipefail`), `actions/checkout` as the
scratch repository itself, the agent-conform action as its own "Run
agent-conform" step of action.yml with the workflow's inputs and the binary
given here instead of the one it installs, and `actions/upload-artifact` as a
check that its file exists. Every step must pass.

Last, a repository where nothing tells how the plugin is built: the
workflow's build step must fail (exit 1) saying TODO.

    scripts/run-workflow-steps.py --harness target/debug/agent-conform [--work DIR]

Needs git, go and python3 (with venv and pip able to install setuptools), and
a YAML parser: PyYAML or ruamel.yaml (check-jsonschema's, in .ci/run's tools).
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GO_PLUGIN = ROOT / "tests" / "plugins" / "go-plugin"
PY_PLUGIN = ROOT / "tests" / "plugins" / "entire-agent-pyconform"
ACTION = "entireio/agent-conform@"

PYPROJECT = """\
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "entire-agent-pyconform"
version = "0.0.1"
requires-python = ">=3.9"

[project.scripts]
entire-agent-pyconform = "pyconform:run"

[tool.setuptools]
py-modules = ["pyconform"]
"""


def load_yaml(path):
    text = Path(path).read_text(encoding="utf-8")
    try:
        import yaml  # PyYAML

        return yaml.safe_load(text)
    except ImportError:
        from ruamel.yaml import YAML

        return YAML(typ="safe").load(text)


def sh(args, cwd, env=None, check=True):
    """Runs a command, its output shown; returns its exit code."""
    print("+ " + " ".join(str(a) for a in args), flush=True)
    code = subprocess.run([str(a) for a in args], cwd=cwd, env=env).returncode
    if check and code != 0:
        sys.exit("run-workflow-steps: %s exited with %d" % (args[0], code))
    return code


def git_repo(repo):
    git = ["git", "-c", "user.name=run-workflow-steps", "-c", "user.email=steps@example.invalid"]
    sh(["git", "init", "-q", "-b", "main", "."], repo)

    def commit(message):
        sh(git + ["add", "-A"], repo)
        sh(git + ["commit", "-q", "-m", message], repo)

    return commit


def go_plugin(repo):
    """The Go fixture, built as its author would: the plugin's path."""
    if shutil.which("go") is None:
        sys.exit("run-workflow-steps: go is not on PATH; the Go plugin needs the Go toolchain")
    for name in ("go.mod", "main.go"):
        shutil.copy(GO_PLUGIN / name, repo / name)
    return repo, "./entire-agent-gosmall", ["go", "build", "-o", "entire-agent-gosmall", "."]


def python_plugin(repo):
    """The independent Python plugin, packaged with a pyproject.toml."""
    source = PY_PLUGIN.read_text(encoding="utf-8")
    source += "\n\ndef run():\n    sys.exit(main(sys.argv[1:]))\n"
    (repo / "pyconform.py").write_text(source, encoding="utf-8")
    (repo / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (repo / ".gitignore").write_text(".venv/\nbuild/\n*.egg-info/\n", encoding="utf-8")
    build = "python3 -m venv .venv && .venv/bin/pip install --quiet --disable-pip-version-check ."
    return repo, ".venv/bin/entire-agent-pyconform", ["bash", "-c", build]


def expression(value, inputs, runner_temp):
    """A value of the action's `env:` with its `${{ ... }}` expanded."""

    def one(match):
        expr = match.group(1).strip()
        if expr.startswith("inputs."):
            return str(inputs[expr[len("inputs."):]])
        if expr == "runner.temp":
            return str(runner_temp)
        sys.exit("run-workflow-steps: action.yml uses ${{ %s }}, which this script does not know" % expr)

    return re.sub(r"\$\{\{(.*?)\}\}", one, str(value))


def run_action(step, repo, harness, runner_temp, base_env):
    """The action's "Run agent-conform" step with the workflow's inputs."""
    action = load_yaml(ROOT / "action.yml")
    inputs = {k: v.get("default", "") for k, v in action["inputs"].items()}
    for key, value in (step.get("with") or {}).items():
        if key not in inputs:
            sys.exit("run-workflow-steps: the workflow gives the action an unknown input %s" % key)
        inputs[key] = value
    run = [s for s in action["runs"]["steps"] if s.get("name") == "Run agent-conform"]
    if len(run) != 1:
        sys.exit("run-workflow-steps: action.yml has no step named 'Run agent-conform'")
    installed = '"$HOME/.agent-conform/bin/agent-conform"'
    script = run[0]["run"]
    if installed not in script:
        sys.exit("run-workflow-steps: the action's run step no longer calls %s" % installed)
    script = script.replace(installed, '"$AGENT_CONFORM"')
    env = dict(base_env, AGENT_CONFORM=str(harness))
    for key, value in (run[0].get("env") or {}).items():
        env[key] = expression(value, inputs, runner_temp)
    print("+ (action %s, its run step, agent-conform %s)" % (step["uses"], harness), flush=True)
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                          cwd=repo, env=env).returncode


def run_workflow(repo, harness, work):
    """Runs the workflow's steps in `repo`: the first failing step's name
    and exit code and its stderr, or None."""
    workflow = load_yaml(repo / ".github" / "workflows" / "agent-conform.yml")
    steps = workflow["jobs"]["conformance"]["steps"]
    runner_temp = Path(tempfile.mkdtemp(dir=work, prefix="runner-temp-"))
    env = dict(os.environ, GITHUB_WORKSPACE=str(repo), RUNNER_TEMP=str(runner_temp), CI="true")
    env.pop("GITHUB_ACTIONS", None)
    failed = None
    for number, step in enumerate(steps, 1):
        name = step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0]
        cond = str(step.get("if", "success()"))
        if failed and "always()" not in cond and "failure()" not in cond:
            print("--- step %d (%s): skipped, an earlier step failed" % (number, name))
            continue
        print("--- step %d: %s" % (number, name), flush=True)
        uses = step.get("uses", "")
        stderr = ""
        if uses.startswith("actions/checkout@"):
            print("(the scratch repository is the checkout)")
            code = 0
        elif uses.startswith(ACTION):
            ref = uses[len(ACTION):]
            tags = subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True).stdout.split()
            if ref != "main" and ref not in tags:
                sys.exit("run-workflow-steps: the workflow names %s, neither the default branch main nor a tag" % uses)
            code = run_action(step, repo, harness, runner_temp, env)
        elif uses.startswith("actions/upload-artifact@"):
            path = repo / step["with"]["path"]
            print("(upload-artifact: %s %s)" % (path, "exists" if path.exists() else "is missing"))
            code = 0 if path.exists() or failed else 1
        elif uses:
            sys.exit("run-workflow-steps: the workflow uses %s, which this script cannot run" % uses)
        else:
            cwd = repo / step.get("working-directory", ".")
            print("+ (in %s) %s" % (cwd.relative_to(repo), step["run"].rstrip()), flush=True)
            done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                                  cwd=cwd, env=env, stderr=subprocess.PIPE, text=True)
            sys.stderr.write(done.stderr)
            code, stderr = done.returncode, done.stderr
        print("--- step %d: exit %d" % (number, code), flush=True)
        if code != 0 and not failed:
            failed = (name, code, stderr)
    return failed


def scaffold(harness, repo, plugin, build, commit):
    """The author's day: build, init, init --ci github; then a checkout's state."""
    commit("the plugin's sources")
    sh(build, repo)
    sh([harness, "init", plugin, "conformance"], repo)
    out = subprocess.run([str(harness), "init", "--ci", "github", plugin, "conformance"],
                         cwd=repo, capture_output=True, text=True)
    print(out.stdout + out.stderr, end="")
    if out.returncode != 0 or "wrote only the workflow" not in out.stdout:
        sys.exit("run-workflow-steps: init --ci github beside an existing conformance/ did not add the workflow alone")
    written = [line for line in out.stdout.splitlines() if line.startswith("wrote ")]
    if written != ["wrote %s" % (repo / ".github/workflows/agent-conform.yml")]:
        sys.exit("run-workflow-steps: init --ci github wrote %s" % written)
    commit("conformance scaffold and workflow")
    sh(["git", "clean", "-fdxq"], repo)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", required=True, type=Path, help="the agent-conform binary")
    parser.add_argument("--work", type=Path, help="keep the scratch repositories in a new folder under DIR (default: a temporary one, removed)")
    args = parser.parse_args()
    harness = args.harness.resolve()
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="workflow-steps-", dir=args.work)).resolve()
    try:
        for kind, make in (("go", go_plugin), ("python", python_plugin)):
            repo = work / kind
            repo.mkdir(parents=True)
            commit = git_repo(repo)
            repo, plugin, build = make(repo)
            print("=== %s plugin in %s" % (kind, repo), flush=True)
            scaffold(harness, repo, plugin, build, commit)
            failed = run_workflow(repo, harness, work)
            if failed:
                sys.exit("run-workflow-steps: the %s plugin's workflow failed at %r (exit %d)" % (kind, failed[0], failed[1]))
            print("=== %s plugin: every step of the workflow passed" % kind, flush=True)

        # Nothing to detect: the build step is a TODO that fails.
        repo = work / "nothing"
        repo.mkdir()
        commit = git_repo(repo)
        (repo / "README.md").write_text("no manifest here\n", encoding="utf-8")
        commit("a repository without a manifest")
        print("=== a repository without a manifest", flush=True)
        sh(["go", "build", "-o", work / "bin" / "entire-agent-gosmall", "."], GO_PLUGIN)
        sh([harness, "init", "--ci", "github", work / "bin" / "entire-agent-gosmall", "conformance"], repo)
        failed = run_workflow(repo, harness, work)
        if not failed or failed[1] != 1 or "TODO" not in failed[2]:
            sys.exit("run-workflow-steps: without a manifest the build step must fail with exit 1 and a TODO, got %r" % (failed,))
        print("=== a repository without a manifest: the build step fails with a TODO, as it must", flush=True)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
