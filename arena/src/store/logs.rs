//! The bots' stderr logs (and transcripts) in a run's `logs/`.

use std::fs;
use std::io;
use std::path::Path;

use super::files::{private_options, private_subdir, restrict_files};
use super::{io_err, StoreError, LOGS};

/// `gameNNNNN-seatS-NAME.log`, as [`crate::referee::GameSetup::log_path`] names logs.
pub(super) fn is_log_name(name: &str) -> bool {
    log_game(name).is_some()
}

/// The game index in a log's name, if `name` is one arena gives logs.
fn log_game(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("game")?;
    // A stderr log, or a transcript (`transcript = true`).
    let rest = rest
        .strip_suffix(".log")
        .or_else(|| rest.strip_suffix(".transcript"))?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let seat = rest[digits..].strip_prefix("-seat")?;
    let ok = digits >= 5
        && (seat.starts_with("0-") || seat.starts_with("1-"))
        && seat[2..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| rest[..digits].parse().ok()).flatten()
}

/// Removes from `dir/logs` the logs of games not `finished`: what games cut
/// short by a crash left, before `--resume` plays them again.
pub fn remove_unfinished_logs(
    dir: &Path,
    finished: impl Fn(u64) -> bool,
) -> Result<(), StoreError> {
    let logs = dir.join(LOGS);
    let entries = match fs::read_dir(&logs) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(&logs)(e)),
    };
    for entry in entries {
        let entry = entry.map_err(io_err(&logs))?;
        let game = log_game(&entry.file_name().to_string_lossy());
        if game.is_some_and(|g| !finished(g)) {
            let p = entry.path();
            fs::remove_file(&p).map_err(io_err(&p))?;
        }
    }
    Ok(())
}

/// Brings the stderr logs of `from` into `to` (hard links where possible,
/// else copies), each made 0600. Only regular files are taken: a symbolic
/// link in `from` is never followed.
pub fn copy_logs(from: &Path, to_dir: &Path) -> Result<(), StoreError> {
    let entries = match fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io_err(from)(e)),
    };
    let to = private_subdir(to_dir, LOGS)?;
    for entry in entries {
        let entry = entry.map_err(io_err(from))?;
        if !entry.file_type().map_err(io_err(from))?.is_file() {
            continue;
        }
        let src = entry.path();
        let dst = to.join(entry.file_name());
        if fs::hard_link(&src, &dst).is_err() {
            let mut input = private_options()
                .read(true)
                .open(&src)
                .map_err(io_err(&src))?;
            let mut out = private_options()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&dst)
                .map_err(io_err(&dst))?;
            io::copy(&mut input, &mut out).map_err(io_err(&dst))?;
        }
        restrict_files(&to, &[&entry.file_name().to_string_lossy()])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_names_are_recognised() {
        assert_eq!(log_game("game00012-seat1-alpha_beta-2.log"), Some(12));
        assert!(is_log_name("game00012-seat1-alpha_beta-2.log"));
        assert!(is_log_name("game1234567-seat0-x.log"));
        for other in [
            "notes.txt",
            "game12-seat0-a.log",
            "game00012-seat2-a.log",
            "game00012-seat0-a b.log",
            "game00012-seat0-a.log.bak",
        ] {
            assert!(!is_log_name(other), "{other}");
        }
    }
}
