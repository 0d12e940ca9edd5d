//! The conditions a run was played under, kept in its manifest so that a
//! result can be reproduced or explained: when each sitting (the first run,
//! each `--resume`) began and ended, on which host, CPU and OS, by which
//! arena (version and commit), and the sha256 of each bot's program files.
//! Read from the local machine only (`/proc`, `/etc/os-release`): no
//! network, nothing the bots see.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::store::{BotFiles, FileHash, Sitting};
use sha2::{Digest as _, Sha256};

use crate::process::BotSpec;

impl Sitting {
    /// A sitting beginning now, with the program files of `bots`.
    pub fn begin(bots: &[BotFiles]) -> Sitting {
        Sitting {
            started: now_utc(),
            ended: None,
            stopped: None,
            host: first_line("/proc/sys/kernel/hostname").unwrap_or_else(|| "unknown".into()),
            cpu: cpu(),
            os: os(),
            arena_version: env!("CARGO_PKG_VERSION").into(),
            arena_commit: env!("ARENA_COMMIT").into(),
            bots: bots.to_vec(),
        }
    }

    /// Marks it ended now (`stopped`: why, when the run is not complete).
    pub fn end(&mut self, stopped: Option<String>) {
        self.ended = Some(now_utc());
        self.stopped = stopped;
    }
}

/// The files each bot's command names that exist: its program (found on
/// PATH when it has no `/`) and every argument that is a file in its
/// working directory (a script, a network), hashed.
pub fn bot_files(specs: &[std::sync::Arc<BotSpec>]) -> Vec<BotFiles> {
    specs
        .iter()
        .map(|spec| {
            let cwd = spec.cwd.clone().unwrap_or_else(|| PathBuf::from("."));
            let path = std::env::var_os("PATH").unwrap_or_default();
            let mut files = Vec::new();
            for (i, word) in spec.command.iter().enumerate() {
                let found = if i == 0 && !word.contains('/') {
                    crate::process::sandbox::find_on_path(word.as_ref(), &path)
                } else {
                    Some(cwd.join(word)).filter(|p| p.is_file())
                };
                if let Some(file) = found.filter(|p| p.is_file()) {
                    files.push(FileHash {
                        path: file.display().to_string(),
                        sha256: sha256_of(&file).unwrap_or_else(|e| format!("unreadable: {e}")),
                    });
                }
            }
            BotFiles {
                name: spec.name.clone(),
                files,
            }
        })
        .collect()
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hash = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hash.update(&buf[..n]);
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn first_line(path: &str) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.lines().next()?.trim().to_string()).filter(|l| !l.is_empty())
}

fn cpu() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let n = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{model} ({n} CPUs for arena)")
}

fn os() -> String {
    let name = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.into());
    let kernel = first_line("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!("{name}, Linux {kernel}")
}

/// The current time as RFC 3339 UTC to the second (`2026-12-03T10:12:43Z`).
pub fn now_utc() -> String {
    let now = jiff::Timestamp::now();
    jiff::Timestamp::from_second(now.as_second())
        .unwrap_or(now)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc_to_the_second() {
        let text = now_utc();
        let parsed: jiff::Timestamp = text.parse().unwrap();
        assert_eq!(parsed.subsec_nanosecond(), 0, "{text}");
        assert!(text.ends_with('Z') && text.len() == 20, "{text}");
    }

    #[test]
    fn a_bots_program_files_are_hashed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "abc").unwrap();
        let mut spec = BotSpec::new("b", vec!["sh".into(), "bot.py".into(), "--depth".into()]);
        spec.cwd = Some(dir.path().to_path_buf());
        let files = &bot_files(&[std::sync::Arc::new(spec)])[0].files;
        assert_eq!(files.len(), 2, "{files:?}");
        assert!(files[0].path.ends_with("/sh"), "{files:?}");
        // sha256("abc"), the FIPS 180-2 example.
        assert_eq!(
            files[1].sha256,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
