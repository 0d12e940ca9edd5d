//! `play::play` with real bot processes: the Python reference bot and a
//! crashing one, each copied into a directory of its own as an unpacked
//! upload would be, in the sandbox where it works here.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use arena::process::{LimitSettings, Sandbox};
use arena::referee::TimeControl;
use arena_core::record::{GameResult, Reason};
use arena_ladder::play::{play, Contestant, PlayError, PlaySettings};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The sandbox: bubblewrap where it works (CI: required), else none.
fn sandbox() -> Sandbox {
    if std::env::var_os("ARENA_REQUIRE_SANDBOX").is_some_and(|v| v == "1") {
        Sandbox::Bwrap
    } else {
        Sandbox::Auto
    }
}

fn settings(logs: &Path) -> PlaySettings {
    let time = TimeControl {
        movetime_ms: Some(1000),
        time_ms: None,
        inc_ms: 0,
        margin_ms: 200,
        clock: Default::default(),
        ceiling_ms: None,
    };
    let (s, warning) = PlaySettings::new(
        "dakon",
        &[("holes".into(), "7".into())],
        time,
        sandbox(),
        logs.to_path_buf(),
    )
    .unwrap();
    if let Some(w) = warning {
        println!("warning: {w}");
    }
    s
}

/// A directory holding the files `from` names (relative to the repository).
fn bot_dir(root: &Path, name: &str, from: &[&str]) -> PathBuf {
    let dir = root.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    for f in from {
        let src = repo().join(f);
        std::fs::copy(&src, dir.join(src.file_name().unwrap())).unwrap();
    }
    // Readable by the unprivileged user a sandboxed bot runs as.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn random_bot(root: &Path, name: &str, seed: &str) -> Contestant {
    Contestant {
        name: name.into(),
        dir: bot_dir(
            root,
            name,
            &["bots/python/random_bot.py", "bots/python/arena_bot.py"],
        ),
        command: vec![
            "python3".into(),
            "random_bot.py".into(),
            "--seed".into(),
            seed.into(),
        ],
        limits: LimitSettings {
            memory_mb: Some(256),
            ..Default::default()
        },
    }
}

const OPENING: &str = "10 6 7 12 12 4";

#[tokio::test]
async fn two_reference_bots_play_a_dakon_game_from_the_given_opening() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let s = settings(&logs);
    let a = random_bot(tmp.path(), "alpha", "1");
    let b = random_bot(tmp.path(), "beta", "2");
    let opening: Vec<String> = OPENING.split(' ').map(str::to_string).collect();
    let rec = play(&s, &a, &b, &opening, 77).await.unwrap();
    println!(
        "{} vs {}: {} {:?} after {} plies, {} ms",
        rec.seats[0].name,
        rec.seats[1].name,
        rec.result.as_str(),
        rec.reason,
        rec.moves.len(),
        rec.duration_ms
    );
    assert_eq!(rec.game, "dakon");
    assert_eq!(rec.params.get("holes").map(String::as_str), Some("7"));
    assert_eq!(rec.seed, 77);
    assert_eq!(
        [rec.seats[0].name.as_str(), rec.seats[1].name.as_str()],
        ["alpha", "beta"]
    );
    assert_eq!(
        rec.seats[0].command, a.command,
        "the command as the manifest wrote it"
    );
    assert_eq!(rec.opening_plies, opening.len());
    let played: Vec<&str> = rec.moves.iter().map(|m| m.mv.as_str()).collect();
    assert_eq!(
        played[..opening.len()],
        OPENING.split(' ').collect::<Vec<_>>()[..]
    );
    assert!(
        rec.moves.len() > opening.len(),
        "the bots moved after the opening"
    );
    assert_eq!(
        rec.offender, None,
        "a normal game: {:?} {:?}",
        rec.reason, rec.detail
    );

    // The same game again: seeded bots, the same seed and opening, the same
    // moves (the record says the game, whatever runs it).
    let again = play(&s, &a, &b, &opening, 77).await.unwrap();
    assert_eq!(again.play_key(), rec.play_key());
    // No bot wrote to stderr: no log directories are left behind.
    assert_eq!(std::fs::read_dir(&logs).unwrap().count(), 0);
}

#[tokio::test]
async fn a_crashing_bot_forfeits_instead_of_failing_the_game() {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("logs");
    let s = settings(&logs);
    let good = random_bot(tmp.path(), "good", "3");

    // Crashes at once, after a line on stderr: `./crash` is relative to its
    // directory.
    let dir = bot_dir(tmp.path(), "crash-start", &[]);
    let script = dir.join("crash");
    std::fs::write(&script, "#!/bin/sh\necho 'about to crash' >&2\nexit 3\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let at_start = Contestant {
        name: "crash-start".into(),
        dir,
        command: vec!["./crash".into()],
        limits: LimitSettings::default(),
    };
    let rec = play(&s, &at_start, &good, &[], 5).await.unwrap();
    println!("{:?} {:?} {:?}", rec.result, rec.reason, rec.detail);
    assert_eq!(rec.result, GameResult::Seat1Wins);
    assert_eq!(rec.reason, Reason::Crash);
    assert_eq!(rec.offender, Some(0));
    let log = rec.seats[0].log.as_deref().expect("its stderr is kept");
    assert!(Path::new(log).is_relative(), "relative to log_dir: {log}");
    let text = std::fs::read_to_string(logs.join(log)).unwrap();
    assert!(text.contains("about to crash"), "{text}");

    // Crashes in the middle of the game, in seat 1.
    let mid = Contestant {
        name: "crash-mid".into(),
        dir: bot_dir(tmp.path(), "crash-mid", &["bots/test/testbot.py"]),
        command: vec![
            "python3".into(),
            "testbot.py".into(),
            "--mode".into(),
            "crash".into(),
            "--after".into(),
            "2".into(),
        ],
        limits: LimitSettings::default(),
    };
    let rec = play(&s, &good, &mid, &[], 6).await.unwrap();
    println!("{:?} {:?} {:?}", rec.result, rec.reason, rec.detail);
    assert_eq!(rec.result, GameResult::Seat0Wins);
    assert_eq!(rec.reason, Reason::Crash);
    assert_eq!(rec.offender, Some(1));
    assert!(
        rec.detail
            .as_deref()
            .unwrap_or("")
            .contains("exited with code 3"),
        "{:?}",
        rec.detail
    );
    assert!(
        rec.moves.iter().filter(|m| m.seat == 1).count() >= 2,
        "it played two moves first"
    );
}

#[tokio::test]
async fn an_illegal_opening_is_an_error_not_a_game() {
    let tmp = tempfile::tempdir().unwrap();
    let s = settings(&tmp.path().join("logs"));
    let a = random_bot(tmp.path(), "a", "1");
    let b = random_bot(tmp.path(), "b", "2");
    let e = play(&s, &a, &b, &["99".to_string()], 1).await.unwrap_err();
    assert!(matches!(e, PlayError::Opening(_)), "{e}");
    println!("{e}");
    assert!(e.to_string().starts_with("opening move 1 `99`"), "{e}");
}
