//! Records which commit arena was built from (`git describe`, at build
//! time, no network) for run manifests: `ARENA_COMMIT`, "unknown" outside a
//! git checkout.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

fn main() {
    let commit = git(&["describe", "--always", "--tags"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=ARENA_COMMIT={commit}");
    // Built again when the commit changes: HEAD, the branch it names, packed refs.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    watched.extend(git(&["symbolic-ref", "-q", "HEAD"]));
    for name in watched {
        // Only files that exist: cargo re-runs a build script whose watched
        // file is missing on every build, and then rebuilds this crate and
        // everything above it (a checkout without packed-refs rebuilt the
        // whole workspace at each `cargo` command).
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
