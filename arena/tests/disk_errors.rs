//! Crash safety of the reports directory: an unwritable directory is a
//! clear error before any game; a disk that fills up mid-tournament is a
//! clear error, every record already written stays intact, and `--resume`
//! on a roomier disk finishes with the same results as an uninterrupted
//! run. (kill -9 then `--resume` is tested in `tests/tournament.rs`.)
//!
//! The read-only and full disks are small tmpfs mounts made inside a
//! private mount namespace (`unshare --mount`, as root): the host's mounts
//! are untouched and the mount disappears with the namespace. Where that is
//! not possible the test says so and checks only what it can.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("arena-disk-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn config(dir: &Path, games: u32) -> PathBuf {
    let text = format!(
        r#"
game = "dakon"
seed = 3
games = {games}

[time_control]
movetime_ms = 2000

[[bots]]
name = "a"
command = ["{ARENA}", "bot-first"]

[[bots]]
name = "b"
command = ["{ARENA}", "bot-first"]
"#
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn can_mount() -> bool {
    Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c"])
        .arg("mount -t tmpfs -o size=16k tmpfs /mnt")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs `script` in a private mount namespace.
fn in_namespace(script: &str) -> Output {
    Command::new("unshare")
        .args(["--mount", "--propagation", "private", "sh", "-c", script])
        .output()
        .unwrap()
}

/// games.jsonl records by index, without timing fields.
fn records(dir: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
    let mut v: Vec<serde_json::Value> = text
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("a half-written record: {e}: {l}"));
            r.as_object_mut().unwrap().remove("duration_ms");
            for m in r["moves"].as_array_mut().unwrap() {
                let m = m.as_object_mut().unwrap();
                m.remove("ms");
                m.remove("cpu_ms");
            }
            r
        })
        .collect();
    v.sort_by_key(|r| r["index"].as_u64());
    v
}

#[test]
fn an_unwritable_reports_directory_is_a_clear_error_before_any_game() {
    let d = dir("unwritable");
    let cfg = config(&d, 4);
    // Root writes anywhere it has permission bits for; a path through a
    // regular file is unwritable for everyone.
    std::fs::write(d.join("file"), "").unwrap();
    let out = d.join("file/run");
    let o = Command::new(ARENA)
        .args(["tournament", cfg.to_str().unwrap(), "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains(&out.display().to_string()) && err.contains("Not a directory"),
        "{err}"
    );
    assert!(String::from_utf8_lossy(&o.stdout).trim().is_empty());

    if !can_mount() {
        eprintln!("SKIPPED read-only mount: cannot mount in a private namespace here");
        return;
    }
    let ro = d.join("ro");
    std::fs::create_dir_all(&ro).unwrap();
    let o = in_namespace(&format!(
        "mount -t tmpfs -o size=64k,ro tmpfs {ro} && {ARENA} tournament {cfg} --quiet --out {ro}/run",
        ro = ro.display(),
        cfg = cfg.display()
    ));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("Read-only file system") && err.contains("ro/run"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_full_disk_stops_with_a_clear_error_keeps_every_record_and_resumes() {
    if !can_mount() {
        eprintln!("SKIPPED: cannot mount a small tmpfs in a private namespace here (not root?)");
        return;
    }
    let d = dir("full");
    let cfg = config(&d, 20);
    let disk = d.join("disk");
    let saved = d.join("saved");
    std::fs::create_dir_all(&disk).unwrap();
    // 48 kB hold a few records of 20; copy the run out before the
    // namespace (and its tmpfs) goes.
    let o = in_namespace(&format!(
        "mount -t tmpfs -o size=48k tmpfs {disk} || exit 99
         {ARENA} tournament {cfg} --quiet --out {disk}/run; rc=$?
         cp -a {disk}/run {saved}; exit $rc",
        disk = disk.display(),
        saved = saved.display(),
        cfg = cfg.display()
    ));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_ne!(o.status.code(), Some(99), "{err}");
    assert!(!o.status.success(), "the disk did not fill up: {err}");
    assert!(err.contains("No space left on device"), "{err}");
    let before = records(&saved);
    assert!(before.len() < 20, "{} records", before.len());

    let o = Command::new(ARENA)
        .args([
            "tournament",
            cfg.to_str().unwrap(),
            "--quiet",
            "--resume",
            "--out",
        ])
        .arg(&saved)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let resumed = records(&saved);
    assert_eq!(resumed.len(), 20);
    for r in &before {
        assert!(
            resumed.contains(r),
            "a record written before the error changed"
        );
    }

    let reference = d.join("reference");
    let o = Command::new(ARENA)
        .args(["tournament", cfg.to_str().unwrap(), "--quiet", "--out"])
        .arg(&reference)
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(
        resumed,
        records(&reference),
        "resumed results differ from a clean run"
    );
    eprintln!(
        "full disk: {} records survived, resume completed 20",
        before.len()
    );
    let _ = std::fs::remove_dir_all(d);
}
