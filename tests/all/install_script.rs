//! `scripts/install.sh`, the install logic of `action.yml`, against a local
//! directory laid out like a release: the right asset per OS and
//! architecture, a bad checksum refused, and a build from source (here a
//! stand-in command) when no asset matches.
#![cfg(unix)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Every asset release.yml publishes.
const TARGETS: &[&str] = &[
    "x86_64-unknown-linux-musl",
    "aarch64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
];

/// The stand-in for `cargo install`: leaves a marker in the install root.
const FALLBACK: &str = "echo built > \"$AGENT_CONFORM_ROOT/fallback-ran\"";

fn python(script: &str, args: &[&Path]) {
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "python3 {script} failed");
}

/// A release directory: one archive per target, each holding
/// `agent-conform-<target>/agent-conform[.exe]`, a script that prints its
/// target; and SHA256SUMS over them.
fn make_release(base: &Path, targets: &[&str]) -> PathBuf {
    let release = base.join("release");
    std::fs::create_dir_all(&release).expect("mkdir");
    for target in targets {
        let staging = base.join("staging").join(format!("agent-conform-{target}"));
        std::fs::create_dir_all(&staging).expect("mkdir");
        let windows = target.contains("windows");
        let bin = staging.join(if windows {
            "agent-conform.exe"
        } else {
            "agent-conform"
        });
        std::fs::write(
            &bin,
            format!("#!/bin/sh\necho 'agent-conform for {target}'\n"),
        )
        .expect("write");
        let parent = staging.parent().expect("parent");
        if windows {
            let zip = release.join(format!("agent-conform-{target}.zip"));
            python(
                "import sys, zipfile, os\n\
                 with zipfile.ZipFile(sys.argv[1], 'w') as z:\n\
                 \x20   z.write(sys.argv[2], os.path.join(os.path.basename(os.path.dirname(sys.argv[2])), os.path.basename(sys.argv[2])))",
                &[&zip, &bin],
            );
        } else {
            let status = Command::new("chmod")
                .arg("+x")
                .arg(&bin)
                .status()
                .expect("chmod");
            assert!(status.success());
            let tar = release.join(format!("agent-conform-{target}.tar.gz"));
            let status = Command::new("tar")
                .arg("-czf")
                .arg(&tar)
                .arg("-C")
                .arg(parent)
                .arg(format!("agent-conform-{target}"))
                .status()
                .expect("tar runs");
            assert!(status.success(), "tar failed");
        }
    }
    python(
        "import sys, hashlib, os\n\
         d = sys.argv[1]\n\
         names = sorted(n for n in os.listdir(d) if n != 'SHA256SUMS')\n\
         with open(os.path.join(d, 'SHA256SUMS'), 'w') as f:\n\
         \x20   for n in names:\n\
         \x20       f.write(hashlib.sha256(open(os.path.join(d, n), 'rb').read()).hexdigest() + '  ' + n + '\\n')",
        &[&release],
    );
    release
}

/// Runs install.sh with this OS and architecture into `root`.
fn install(release: &Path, root: &Path, os: &str, arch: &str) -> Output {
    Command::new("bash")
        .arg(common::root().join("scripts").join("install.sh"))
        .arg("--release")
        .arg(release)
        .arg("--root")
        .arg(root)
        .env("AGENT_CONFORM_OS", os)
        .env("AGENT_CONFORM_ARCH", arch)
        .env("AGENT_CONFORM_FALLBACK", FALLBACK)
        .output()
        .expect("bash runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_asset_of_each_os_and_architecture_is_installed() {
    let base = tempfile::tempdir().expect("temp dir");
    let release = make_release(base.path(), TARGETS);
    for (os, arch, target) in [
        ("Linux", "x86_64", "x86_64-unknown-linux-musl"),
        ("Linux", "aarch64", "aarch64-unknown-linux-musl"),
        ("Linux", "arm64", "aarch64-unknown-linux-musl"),
        ("Darwin", "x86_64", "x86_64-apple-darwin"),
        ("Darwin", "arm64", "aarch64-apple-darwin"),
        ("MINGW64_NT-10.0-20348", "x86_64", "x86_64-pc-windows-msvc"),
    ] {
        let root = base.path().join(format!("root-{os}-{arch}"));
        let out = install(&release, &root, os, arch);
        assert!(out.status.success(), "{os} {arch}: {}", stderr(&out));
        assert!(
            !root.join("fallback-ran").exists(),
            "{os} {arch}: built from source"
        );
        let bin = root.join("bin").join(if target.contains("windows") {
            "agent-conform.exe"
        } else {
            "agent-conform"
        });
        let installed = std::fs::read_to_string(&bin).unwrap_or_default();
        assert!(
            installed.contains(&format!("agent-conform for {target}'")),
            "{os} {arch}: expected the {target} asset, got {installed:?}"
        );
        if !target.contains("windows") {
            let run = Command::new(&bin)
                .output()
                .expect("the installed binary runs");
            assert_eq!(
                String::from_utf8_lossy(&run.stdout),
                format!("agent-conform for {target}\n")
            );
        }
    }
}

#[test]
fn a_bad_checksum_is_refused_and_nothing_is_installed() {
    let base = tempfile::tempdir().expect("temp dir");
    let release = make_release(base.path(), TARGETS);
    let asset = release.join("agent-conform-x86_64-unknown-linux-musl.tar.gz");
    let mut bytes = std::fs::read(&asset).expect("read");
    bytes.extend_from_slice(b"tampered");
    std::fs::write(&asset, bytes).expect("write");

    let root = base.path().join("root");
    let out = install(&release, &root, "Linux", "x86_64");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("checksum mismatch for agent-conform-x86_64-unknown-linux-musl.tar.gz")
            && err.contains("refusing to install"),
        "{err}"
    );
    assert!(
        !root.join("bin").join("agent-conform").exists(),
        "installed anyway"
    );
    assert!(
        !root.join("fallback-ran").exists(),
        "a bad checksum must not fall back to a build"
    );

    // The other assets are untouched and still install.
    let other = base.path().join("root-darwin");
    assert!(
        install(&release, &other, "Darwin", "arm64")
            .status
            .success()
    );
}

#[test]
fn with_no_matching_asset_it_builds_from_source() {
    let base = tempfile::tempdir().expect("temp dir");
    let release = make_release(base.path(), &["x86_64-apple-darwin"]);
    for (name, release, os, arch) in [
        ("unknown OS", release.clone(), "FreeBSD", "x86_64"),
        ("unknown architecture", release.clone(), "Linux", "riscv64"),
        (
            "asset not in the release",
            release.clone(),
            "Linux",
            "x86_64",
        ),
        (
            "no release at all",
            base.path().join("no-such-release"),
            "Linux",
            "x86_64",
        ),
    ] {
        let root = base.path().join(format!("root-{name}"));
        std::fs::create_dir_all(&root).expect("mkdir");
        let out = install(&release, &root, os, arch);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        assert!(
            root.join("fallback-ran").exists(),
            "{name}: the fallback was not taken: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains("building from source"),
            "{name}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn a_failing_build_from_source_fails_the_install() {
    let base = tempfile::tempdir().expect("temp dir");
    let out = Command::new("bash")
        .arg(common::root().join("scripts").join("install.sh"))
        .args(["--release", ""])
        .arg("--root")
        .arg(base.path())
        .env("AGENT_CONFORM_FALLBACK", "echo cargo failed >&2; exit 101")
        .output()
        .expect("bash runs");
    assert_eq!(out.status.code(), Some(101), "{}", stderr(&out));
}
