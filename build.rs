//! Embeds `schemas/` and `cases/` in the binary, so that an installed
//! `agent-conform` carries its default suite and needs no files beside it.
//! Adding a case or a schema is adding a file: this script lists whatever is
//! there at build time.

use std::env;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo")).join("embedded.rs");
    let mut file = fs::File::create(&out).expect("OUT_DIR is writable");
    for (konst, dir) in [("SCHEMAS", "schemas"), ("CASES", "cases")] {
        let base = root.join(dir);
        println!("cargo:rerun-if-changed={}", base.display());
        let mut files = Vec::new();
        collect(&base, &mut files);
        files.sort();
        writeln!(
            file,
            "/// Files under `{dir}/`: (path relative to it, contents)."
        )
        .unwrap();
        writeln!(file, "pub static {konst}: &[(&str, &[u8])] = &[").unwrap();
        for path in files {
            let rel = path
                .strip_prefix(&base)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            println!("cargo:rerun-if-changed={}", path.display());
            writeln!(
                file,
                "    ({rel:?}, include_bytes!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
        writeln!(file, "];").unwrap();
    }
    let items = root.join("coverage").join("spec-items.yaml");
    println!("cargo:rerun-if-changed={}", items.display());
    writeln!(
        file,
        "/// `coverage/spec-items.yaml`: the specification's items."
    )
    .unwrap();
    writeln!(
        file,
        "pub static SPEC_ITEMS: &str = include_str!({:?});",
        items.display().to_string()
    )
    .unwrap();
}

fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
