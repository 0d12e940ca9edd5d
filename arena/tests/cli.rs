//! The command line as a new user meets it: the time-control shorthands of
//! `arena match`, `arena show` on a report directory, `arena` alone, and
//! commands whose output is cut short by a closed pipe.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

#[path = "common/procs.rs"]
mod procs;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn run(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn testbot(name: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/test/testbot.py");
    format!("{name}=python3 {}", script.display())
}

/// Everything the bots wrote to stderr in a match's `logs/`.
fn logs(out: &Path) -> String {
    let mut all = String::new();
    for entry in std::fs::read_dir(out.join("logs")).unwrap() {
        all.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    all
}

/// A 3-hole Dakon match between `bots` into `out`, with `extra` options.
fn match_into(out: &Path, bots: [&str; 2], extra: &[&str]) -> Output {
    let mut args = vec![
        "match",
        "--game",
        "dakon",
        "--param",
        "holes=3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        bots[0],
        "--bot",
        bots[1],
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// One game of the test bot (seat 0, logging each `go`) against the
/// built-in bot, with `extra` options.
fn dakon_match(out: &Path, extra: &[&str]) -> Output {
    let mut all = vec!["--games", "1"];
    all.extend_from_slice(extra);
    match_into(out, [&testbot("t"), &format!("f={ARENA} bot-first")], &all)
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

#[test]
fn match_time_shorthands_reach_the_bots_in_ms() {
    let dir = tmp();
    let out = dir.path().join("tc");
    let o = dakon_match(&out, &["--tc", "60+0.6", "--st", "0.2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    // The test bot logs every `go` it gets; it moves first.
    let log = logs(&out);
    assert!(
        log.contains("go time=60000 opptime=60000 inc=600 movetime=200"),
        "{log}"
    );

    let out = dir.path().join("clock");
    let o = dakon_match(&out, &["--tc", "1:30"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let log = logs(&out);
    assert!(
        log.contains("go time=90000 opptime=90000 inc=0 movetime=-"),
        "{log}"
    );
}

#[test]
fn match_time_shorthands_refuse_the_ms_flags_beside_them() {
    let dir = tmp();
    let out = dir.path().join("never");
    for (extra, message) in [
        (&["--tc", "60+0.6", "--time", "60000"][..], "'--time <MS>'"),
        (&["--tc", "60+0.6", "--inc", "600"][..], "'--inc <MS>'"),
        (
            &["--st", "0.2", "--movetime", "200"][..],
            "'--movetime <MS>'",
        ),
        (&["--tc", "40/60+0.6"][..], "moves per period"),
        (&["--st", "0.0001"][..], "whole milliseconds"),
        (&["--tc", "+1"][..], "not a number of seconds"),
    ] {
        let o = dakon_match(&out, extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}");
        let err = text(&o.stderr);
        assert!(err.contains(message), "{extra:?}: {err}");
    }
    assert!(!out.exists(), "nothing is played");
}

/// A directory (under the test's temporary directory) holding a finished
/// 2-game match.
fn a_match(dir: &Path) -> PathBuf {
    let out = dir.join("m");
    let bots = ["a", "b"].map(|n| format!("{n}={ARENA} bot-first"));
    let o = match_into(&out, [&bots[0], &bots[1]], &["--games", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    out
}

#[test]
fn show_takes_a_report_directory_and_index() {
    let dir = tmp();
    let out = a_match(dir.path());
    let by_dir = run(&["show", out.to_str().unwrap(), "--index", "1"]);
    assert!(by_dir.status.success(), "{}", text(&by_dir.stderr));
    assert!(text(&by_dir.stderr).is_empty(), "{}", text(&by_dir.stderr));
    let file = out.join("games.jsonl");
    let by_file = run(&["show", file.to_str().unwrap(), "--index", "1"]);
    assert_eq!(text(&by_dir.stdout), text(&by_file.stdout));
    assert!(text(&by_dir.stdout).contains("result "));

    // The old spelling still works, and says what to type instead.
    let old = run(&["show", out.to_str().unwrap(), "--game", "1"]);
    assert!(old.status.success());
    assert_eq!(text(&old.stdout), text(&by_dir.stdout));
    let warning = text(&old.stderr);
    assert!(
        warning.contains("warning") && warning.contains("--index 1"),
        "{warning}"
    );
}

#[test]
fn show_errors_name_the_path() {
    let dir = tmp();
    let out = a_match(dir.path());
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let missing = dir.path().join("missing.jsonl");
    let csv = out.join("games.csv");
    let cases: [(Vec<&str>, &Path, &str); 5] = [
        (vec![empty.to_str().unwrap()], &empty, "no games.jsonl"),
        (vec![missing.to_str().unwrap()], &missing, "No such file"),
        (vec![csv.to_str().unwrap()], &csv, "holds no moves"),
        (
            vec![out.to_str().unwrap(), "--index", "7"],
            &out,
            "no game with index 7",
        ),
        (
            vec![out.to_str().unwrap(), "--ply", "9999"],
            &out,
            "--ply must be",
        ),
    ];
    for (args, path, reason) in cases {
        let mut all = vec!["show"];
        all.extend(args);
        let o = run(&all);
        assert_eq!(o.status.code(), Some(1), "{all:?}");
        let err = text(&o.stderr);
        assert!(err.contains(&*path.to_string_lossy()), "{all:?}: {err}");
        assert!(err.contains(reason), "{all:?}: {err}");
    }
}

#[test]
fn arena_alone_prints_the_help_and_exits_2() {
    let o = run(&[]);
    assert_eq!(o.status.code(), Some(2));
    let help = text(&o.stderr);
    assert!(help.contains("Usage: arena <COMMAND>"), "{help}");
    assert!(help.contains("tournament"), "{help}");
    assert!(o.stdout.is_empty());
}

/// Runs arena in `dir` with a stdout whose reader has gone (as after
/// `| head -1`), so the first write to it fails.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> Output {
    let (read, write) = nix::unistd::pipe().unwrap();
    drop(read);
    Command::new(ARENA)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::piped())
        .output()
        .expect("arena runs")
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let dir = tmp();
    let out = a_match(dir.path());
    let run_dir = out.to_str().unwrap();
    let config = dir.path().join("t.toml");
    std::fs::write(
        &config,
        format!(
            "game = \"dakon\"\nseed = 1\ngames = 4\n[time_control]\nmovetime_ms = 1000\n\
             [[bots]]\nname = \"a\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n\
             [[bots]]\nname = \"b\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n"
        ),
    )
    .unwrap();
    let marker = format!("closedstdout{}", std::process::id());
    let testbot = format!("{}/../bots/test/testbot.py", env!("CARGO_MANIFEST_DIR"));
    let kept = [1, 2].map(|k| format!("k{k}=python3 {testbot} --marker {marker}"));
    let cases: Vec<Vec<&str>> = vec![
        vec!["ratings", run_dir],
        vec!["show", run_dir],
        vec!["report", run_dir],
        vec!["slurm", "t.toml", "--shards", "2", "--dry-run"],
        vec!["tournament", "t.toml", "--out", "tour", "--quiet"],
        // Two bots kept alive across games when the first line fails.
        vec![
            "match",
            "--game",
            "dakon",
            "--games",
            "4",
            "--keep-bots",
            "--out",
            "m2",
            "--bot",
            &kept[0],
            "--bot",
            &kept[1],
        ],
    ];
    for args in cases {
        let o = with_closed_stdout(dir.path(), &args);
        let err = text(&o.stderr);
        assert_eq!(
            o.status.signal(),
            Some(nix::sys::signal::Signal::SIGPIPE as i32),
            "{args:?}: {:?}\n{err}",
            o.status
        );
        assert!(err.is_empty(), "{args:?}: {err}");
    }
    // clap's own output (help, version) ignores the failed write.
    let o = with_closed_stdout(dir.path(), &["--version"]);
    assert!(o.status.success() && o.stderr.is_empty(), "{o:?}");
    let left = procs::settle(
        Duration::from_secs(5),
        || procs::with_cmdline(&marker),
        Vec::is_empty,
    );
    assert!(left.is_empty(), "kept bots outlived arena: {left:?}");
}

#[test]
fn match_says_why_a_bot_command_cannot_run() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp();
    let script = dir.path().join("bot.py");
    std::fs::write(&script, "print('ready')\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = dir.path().join("never");
    for (bot, reason) in [
        (script.display().to_string(), "is not executable"),
        (
            dir.path().display().to_string(),
            "is a directory, not a program",
        ),
        (
            "/no/such/bot".to_string(),
            "executable `/no/such/bot` not found",
        ),
    ] {
        let o = run(&[
            "match",
            "--game",
            "dakon",
            "--out",
            out.to_str().unwrap(),
            "--bot",
            &format!("a={bot}"),
            "--bot",
            &format!("b={ARENA} bot-first"),
        ]);
        assert_eq!(o.status.code(), Some(2), "{bot}");
        let err = text(&o.stderr);
        assert!(err.contains(reason), "{bot}: {err}");
        assert!(!err.contains("looked in"), "{bot}: {err}");
    }
    assert!(!out.exists());
}

// First-contact faults of issue 31 (branch kits): each message says what is
// wrong in the user's own terms.

#[test]
fn a_negative_game_count_is_named_as_such() {
    let dir = tmp();
    let out = dir.path().join("never");
    let first = format!("f={ARENA} bot-first");
    for games in ["-4", "two"] {
        let o = match_into(&out, [&first, &first], &["--games", games]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{games}: {err}");
        assert!(
            err.contains("the number of games must be a positive number"),
            "{games}: {err}"
        );
        assert!(!err.contains("unexpected argument"), "{games}: {err}");
    }
    // Control: an option that does not exist is still one clap names, so the
    // first assertion is about --games's value, not about every error.
    let o = match_into(&out, [&first, &first], &["--gmaes", "4"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("unexpected argument '--gmaes'"));
    assert!(!out.exists());
}

#[test]
fn match_help_gives_each_default_once() {
    let o = run(&["match", "--help"]);
    assert!(o.status.success());
    let help = text(&o.stdout);
    // One block per option: its line and the description lines under it.
    let mut blocks: Vec<String> = Vec::new();
    for line in help.lines() {
        if line.trim_start().starts_with('-') {
            blocks.push(String::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    let record_states = blocks
        .iter()
        .find(|b| b.contains("--record-states"))
        .expect("--record-states is documented");
    assert!(
        record_states.contains("[default: 1, every ply]"),
        "{record_states}"
    );
    // The control of the count below: an option with a default shows one.
    assert!(blocks
        .iter()
        .any(|b| b.contains("--margin") && b.contains("[default: 50]")));
    for b in &blocks {
        assert!(b.matches("[default:").count() <= 1, "{b}");
    }
}

#[test]
fn a_complete_run_is_not_offered_resume() {
    let dir = tmp();
    let out = dir.path().join("done");
    let first = format!("f={ARENA} bot-first");
    let g = format!("g={ARENA} bot-first");
    let o = match_into(&out, [&first, &g], &["--games", "2"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let again = match_into(&out, [&first, &g], &["--games", "2"]);
    let err = text(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{err}");
    assert!(err.contains("already holds a run"), "{err}");
    assert!(
        err.contains("it is complete: nothing is left to resume"),
        "{err}"
    );
    assert!(
        err.contains("--overwrite") && err.contains("--out"),
        "{err}"
    );
    assert!(!err.contains("--resume"), "{err}");

    // Control: the same directory with its manifest saying the run did not
    // finish is offered --resume, so the message above depends on the status.
    let manifest = out.join("tournament.json");
    let json = std::fs::read_to_string(&manifest).unwrap();
    assert!(json.contains("\"status\": \"complete\""), "{json}");
    std::fs::write(
        &manifest,
        json.replace("\"status\": \"complete\"", "\"status\": \"running\""),
    )
    .unwrap();
    let unfinished = match_into(&out, [&first, &g], &["--games", "2"]);
    let err = text(&unfinished.stderr);
    assert_eq!(unfinished.status.code(), Some(1), "{err}");
    assert!(err.contains("use --resume to finish it"), "{err}");
}

#[test]
fn a_config_file_name_with_spaces_names_a_valid_report() {
    let dir = tmp();
    let config = dir.path().join("spaces config.toml");
    let mut text_ = String::from(
        "game = \"dakon\"\nseed = 4\ngames = 2\n[params]\nholes = 3\n\
         [time_control]\nmovetime_ms = 2000\n",
    );
    for name in ["a", "b"] {
        text_.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n"
        ));
    }
    std::fs::write(&config, &text_).unwrap();
    let out = dir.path().join("out");
    let o = run(&[
        "tournament",
        config.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("name"), "{err}");
    let manifest = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(
        manifest.contains("\"name\": \"spaces-config\""),
        "{manifest}"
    );
    // Control: a name written in the config is checked as written.
    std::fs::write(&config, format!("name = \"a b\"\n{text_}")).unwrap();
    let o = run(&[
        "tournament",
        config.to_str().unwrap(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains(": name: `a b` must be"),
        "{}",
        text(&o.stderr)
    );
}
