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
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
