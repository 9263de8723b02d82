use super::*;

#[test]
fn the_sandbox_repository_is_a_work_tree_git_accepts() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::create("git-test", base.path()).unwrap();
    let repo = sandbox.repo();
    git(&["status"], &repo).unwrap().unwrap();
    let out = Command::new("git")
        .args(["rev-parse", "--show-toplevel"])
        .current_dir(&repo)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        repo.display().to_string()
    );
    // A commit works too: plugins that call git expect a usable repo.
    fs::write(repo.join("f"), "x").unwrap();
    git(&["add", "f"], &repo).unwrap().unwrap();
    git(
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "x",
        ],
        &repo,
    )
    .unwrap()
    .unwrap();
}

#[test]
fn the_sandbox_is_the_users_world_off_utc_with_spaces_and_accents() {
    let base = tempfile::tempdir().unwrap();
    let sandbox = Sandbox::create("world-test", base.path()).unwrap();
    for dir in [sandbox.repo(), sandbox.home()] {
        let text = dir.display().to_string();
        assert!(text.contains(' ') && !text.is_ascii(), "{text}");
    }
    let env = sandbox.env();
    use crate::host::clock::{self, Zone};
    let zone = env.iter().find(|(k, _)| k == clock::TZ_VAR).map(|(_, v)| v);
    let either = [clock::USER_ZONE.name, clock::USER_ZONE.posix];
    assert!(
        zone.is_some_and(|z| either.iter().any(|e| z == *e)),
        "{zone:?}"
    );
    let nowhere = Zone {
        name: "Nowhere/Never",
        posix: "XYZ-1",
    };
    assert_eq!(tz(nowhere), "XYZ-1");
}

#[test]
fn a_linked_worktree_or_a_submodule_leaves_no_strays() {
    for kind in [WorkTree::Linked, WorkTree::Submodule] {
        let base = tempfile::tempdir().unwrap();
        let sandbox =
            Sandbox::create_in("wt-test", base.path(), kind, &Setting::default()).unwrap();
        assert!(sandbox.repo().join(".git").is_file(), "{kind:?}");
        git(&["status"], &sandbox.repo()).unwrap().unwrap();
        assert!(
            sandbox.strays().is_empty(),
            "{kind:?}: {:?}",
            sandbox.strays()
        );
    }
}
