//! The clock and the CPU are fair (issue 33, "Strangers' bots, round two",
//! attacks 3 to 5): a bot cannot think off the clock by stalling the
//! referee's `go` write, cannot starve its opponent's start-up once it is
//! `ready`, and cannot take CPU from other games while it is parked between
//! its own (kept bots). Each attack is a hostile bot (`bots/hostile/`, modes
//! of `bots/test/testbot.py`) played through the real `arena` binary, as
//! root and, where that differs, as nobody; each test has a control that
//! shows its probe measures what it claims (the attack does happen, or bites
//! where the README says arena does not protect).
//!
//! Tests that need bubblewrap or root skip with a message where they cannot
//! run; ARENA_REQUIRE_SANDBOX=1 (CI) turns such a skip into a failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

use arena_core::record::{GameRecord, Reason};

#[path = "common/runs.rs"]
mod runs;

use runs::{repo, ARENA};

fn required() -> bool {
    std::env::var_os("ARENA_REQUIRE_SANDBOX").is_some_and(|v| v == "1")
}

fn root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// `none` always, `bwrap` where it works (a failure when CI requires it).
fn sandboxes() -> Vec<&'static str> {
    match arena::process::sandbox::usable() {
        Ok(()) => vec!["none", "bwrap"],
        Err(why) if required() => panic!("these tests need bubblewrap: {why}"),
        Err(why) => {
            eprintln!("SKIPPED the bwrap half: {why}");
            vec!["none"]
        }
    }
}

/// Who runs arena: the current user, and nobody too when that is root
/// (`setpriv`, as containment.rs does).
fn users() -> Vec<bool> {
    if root() {
        vec![false, true]
    } else {
        assert!(!required(), "the nobody half needs root");
        eprintln!("SKIPPED the nobody half: not root");
        vec![false]
    }
}

/// A program directory the bots' uids (and nobody) can read, with the test
/// bot and the hostile bots, and a `reports/` nobody may write.
struct Prog {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Prog {
    fn new() -> Prog {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in ["bots/test", "bots/hostile", "reports"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::copy(
            repo().join("bots/test/testbot.py"),
            root.join("bots/test/testbot.py"),
        )
        .unwrap();
        for e in std::fs::read_dir(repo().join("bots/hostile"))
            .unwrap()
            .flatten()
        {
            std::fs::copy(e.path(), root.join("bots/hostile").join(e.file_name())).unwrap();
        }
        chmod_tree(&root);
        if root_user() {
            let nobody = nix::unistd::Uid::from_raw(65534);
            nix::unistd::chown(&root.join("reports"), Some(nobody), None).unwrap();
        }
        Prog { _dir: dir, root }
    }
}

fn root_user() -> bool {
    root()
}

fn chmod(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn chmod_tree(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755));
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            chmod_tree(&p);
        } else {
            let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// What one run left: its records and every bot log, concatenated.
struct Run {
    records: Vec<GameRecord>,
    logs: String,
    what: String,
}

/// Runs `arena ARGS` from `prog` (as nobody with `nobody`), with `--out` a
/// fresh run directory.
fn arena(prog: &Prog, nobody: bool, args: &[&str], env: &[(&str, &str)], what: &str) -> Run {
    static N: AtomicUsize = AtomicUsize::new(0);
    let out = prog
        .root
        .join(format!("reports/run{}", N.fetch_add(1, Ordering::Relaxed)));
    let mut cmd = if nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(ARENA);
        c
    } else {
        Command::new(ARENA)
    };
    cmd.args(args)
        .arg("--out")
        .arg(&out)
        .current_dir(&prog.root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().expect("arena runs");
    assert!(
        o.status.success(),
        "{what}: {:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    let records = std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut logs = String::new();
    if let Ok(entries) = std::fs::read_dir(out.join("logs")) {
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            logs.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        }
    }
    Run {
        records,
        logs,
        what: what.to_string(),
    }
}

/// `arena match` between two bots (NAME=COMMAND).
fn play(
    prog: &Prog,
    nobody: bool,
    sandbox: &str,
    game: &str,
    bots: [&str; 2],
    extra: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let what = format!(
        "{sandbox}, as {}, {} {}",
        if nobody { "nobody" } else { "the test's user" },
        extra.join(" "),
        env.iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    );
    // From the initial position: how the attacks fill their pipes depends
    // on the lines written before their first `go` (an opening's `played`).
    let mut args = vec![
        "match",
        "--game",
        game,
        "--quiet",
        "--sandbox",
        sandbox,
        "--openings",
        "none",
    ];
    args.extend(extra);
    for b in bots {
        args.extend(["--bot", b]);
    }
    arena(prog, nobody, &args, env, &what)
}

/// The numbers that follow `prefix` in `text`'s lines.
fn numbers_after(text: &str, prefix: &str) -> Vec<f64> {
    text.lines()
        .filter_map(|l| {
            let rest = &l[l.find(prefix)? + prefix.len()..];
            rest.split_whitespace().next()?.parse().ok()
        })
        .collect()
}

/// The seat `name` had in `r`.
fn seat_of(r: &GameRecord, name: &str) -> usize {
    r.seats.iter().position(|s| s.name == name).unwrap()
}

const SLOW_OPPONENT: &str = "slow=/usr/bin/python3 bots/test/testbot.py --mode slow --sleep-ms 2";

/// Attack 3. The pipe-stall bot shrinks its input pipe to one page and
/// keeps it full (refilling it through /proc/self/fd/0 where it may, else
/// never reading the last byte, so that the page fills), so that the
/// referee's `position`/`legal`/`go` write blocks while it thinks 2 s; then
/// it drains the pipe and answers at once. Its clock runs from the start of
/// the write, so under `--movetime 100` it loses on time, and given 5 s a
/// move its stalled moves are recorded at their real length.
///
/// Controls: with 5 s a move the bot's own log says it thought 2000 ms with
/// the write held up (the attack happened, and the next line came at once
/// when it drained: the write was waiting); with the stall turned off
/// (`--stall-ms 0`) the same bot is not charged under `--movetime 100`.
/// Latrunculi, which has no extra turns: in Dakon the opponent's extra turns
/// make the referee write `played` to the (frozen) attacker's full pipe,
/// which the attacker loses for, differently.
#[test]
fn a_bot_that_stalls_its_go_write_pays_for_the_stall() {
    let prog = Prog::new();
    for sandbox in sandboxes() {
        for nobody in users() {
            let stall = "stall=bots/hostile/pipe-stall";
            let games = ["--games", "2"];
            let short = play(
                &prog,
                nobody,
                sandbox,
                "latrunculi",
                [stall, SLOW_OPPONENT],
                &[&games[..], &["--movetime", "100"]].concat(),
                &[],
            );
            assert_eq!(short.records.len(), 2, "{}", short.what);
            for r in &short.records {
                let seat = seat_of(r, "stall");
                assert_eq!(r.reason, Reason::Timeout, "{}: {:?}", short.what, r.detail);
                assert_eq!(r.offender, Some(seat), "{}", short.what);
                let detail = r.detail.as_deref().unwrap_or("");
                assert!(
                    detail.contains("did not read its `go` within 150 ms"),
                    "{}: {detail}",
                    short.what
                );
            }

            let long = play(
                &prog,
                nobody,
                sandbox,
                "latrunculi",
                [stall, SLOW_OPPONENT],
                &[&games[..], &["--movetime", "5000"]].concat(),
                &[],
            );
            let thought = numbers_after(&long.logs, "pipe-stall thought ");
            assert!(
                thought.len() >= 2 && thought.iter().all(|&t| t == 2000.0),
                "{}: the attack did not happen: {}",
                long.what,
                long.logs
            );
            // Where it refills its pipe, the write was waiting when it
            // drained; where it holds back a byte, it says the write was
            // blocked.
            let came = numbers_after(&long.logs, "the next line came ");
            assert!(
                came.iter().all(|&ms| ms < 1000.0),
                "{}: {}",
                long.what,
                long.logs
            );
            assert!(
                !long.logs.contains("had gone through"),
                "{}: {}",
                long.what,
                long.logs
            );
            let mut stalled = 0;
            for r in &long.records {
                assert!(!r.reason.is_forfeit(), "{}: {:?}", long.what, r.detail);
                let seat = seat_of(r, "stall");
                stalled += r
                    .moves
                    .iter()
                    .filter(|m| m.seat == seat && m.ms >= 1000.0)
                    .count();
                // Both counts start at the start of the write: the CPU time
                // of a one-threaded bot's move stays within its wall time
                // (give or take what it does between writing `move` and
                // the referee reading its CPU time).
                for m in &r.moves {
                    if let Some(cpu) = m.cpu_ms {
                        assert!(
                            cpu <= m.ms + 0.2,
                            "{}: a move's CPU time {cpu} ms beside its {} ms",
                            long.what,
                            m.ms
                        );
                    }
                }
            }
            assert_eq!(
                stalled,
                thought.len(),
                "{}: every stall is on the clock: {:?}",
                long.what,
                long.records
                    .iter()
                    .map(|r| r.moves.iter().map(|m| m.ms).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            );

            let honest = play(
                &prog,
                nobody,
                sandbox,
                "latrunculi",
                ["stall=bots/hostile/pipe-stall --stall-ms 0", SLOW_OPPONENT],
                &[&games[..], &["--movetime", "100"]].concat(),
                &[],
            );
            for r in &honest.records {
                assert!(!r.reason.is_forfeit(), "{}: {:?}", honest.what, r.detail);
            }
        }
    }
}

/// Attack 4. The starve-start bot answers `ready`, then runs 32 busy
/// children, each in a session of its own (an autogroup of its own to the
/// scheduler), until `newgame`; its opponent needs 0.8 s of CPU before
/// `ready`. With cgroups (root) a bot that is `ready` is frozen, all its
/// processes, until its first `go`, the two bots start one after the other,
/// and each bot's cgroup has the same CPU share: the slow starter loses no
/// game and the children get next to no CPU before `newgame`.
///
/// Control: without cgroups (`ARENA_CGROUPS=off`, as for an ordinary user)
/// freezing reaches only the bot's process group, which the README says;
/// there the same children are measured running while the slow starter
/// starts (the game in which the attacker, seat 0, is started first).
#[test]
fn a_ready_bot_cannot_starve_its_opponents_start_up() {
    if !root() {
        assert!(!required(), "bot cgroups need root");
        eprintln!("SKIPPED: bot cgroups need root");
        return;
    }
    let prog = Prog::new();
    let bots = [
        "starver=bots/hostile/starve-start",
        "victim=bots/hostile/slow-start",
    ];
    for sandbox in sandboxes() {
        // 5 s a move: time for the starver, sharing its CPU with its own
        // children after its first `go`, to reach `newgame` and report.
        let slow = ["--movetime", "5000"];
        let protected = play(
            &prog,
            false,
            sandbox,
            "dakon",
            bots,
            &[&["--games", "2"][..], &slow].concat(),
            &[],
        );
        assert_eq!(protected.records.len(), 2, "{}", protected.what);
        for r in &protected.records {
            // The starver may lose on time: its own children, thawed with
            // it at its first `go`, share its CPU until it kills them.
            assert_ne!(
                r.offender,
                Some(seat_of(r, "victim")),
                "{}: {:?} {:?}",
                protected.what,
                r.reason,
                r.detail
            );
        }
        let got = numbers_after(&protected.logs, "children got ");
        assert_eq!(
            got.len(),
            2,
            "{}: {}\n{:?}",
            protected.what,
            protected.logs,
            protected
                .records
                .iter()
                .map(|r| (r.reason, r.detail.clone(), r.moves.len()))
                .collect::<Vec<_>>()
        );
        assert!(
            got.iter().all(|&ms| ms < 1000.0),
            "{}: frozen children ran: {got:?}",
            protected.what
        );

        let open = play(
            &prog,
            false,
            sandbox,
            "dakon",
            bots,
            &["--games", "1", "--movetime", "5000"],
            &[("ARENA_CGROUPS", "off")],
        );
        let got = numbers_after(&open.logs, "children got ");
        assert!(
            got.first().is_some_and(|&ms| ms >= 1000.0),
            "{}: the probe saw no spinning: {}",
            open.what,
            open.logs
        );
        eprintln!(
            "{}: children got {got:?} ms; {:?}",
            open.what,
            open.records
                .iter()
                .map(|r| (r.reason, r.detail.clone()))
                .collect::<Vec<_>>()
        );
    }
}

/// Attack 5. With `keep_bots`, the spin-parked bot spins from `gameover`
/// until its next line and says how much CPU it got meanwhile. A kept bot
/// is frozen from the end of its game until its next game's first `go`, so
/// it reads `gameover` only then, with `newgame` right behind it: while the
/// lane plays the other pair it gets no CPU. A tournament of three kept
/// bots on one lane, so that the attacker is parked during the other pair's
/// games.
///
/// Control: the same bot spins 30 ms of each of its own moves (its own
/// time, where it may run) and the same kind of probe sees that CPU.
#[test]
fn a_kept_bot_takes_no_cpu_while_parked() {
    let prog = Prog::new();
    let config = prog.root.join("parked.toml");
    let python = "/usr/bin/python3";
    std::fs::write(
        &config,
        format!(
            r#"
game = "dakon"
seed = 5
games = 2
keep_bots = true
concurrency = 1

[params]
holes = 3

[time_control]
movetime_ms = 200

[[bots]]
name = "spinner"
command = ["bots/hostile/spin-parked"]

[[bots]]
name = "a"
command = ["{python}", "bots/test/testbot.py", "--mode", "slow", "--sleep-ms", "40"]

[[bots]]
name = "b"
command = ["{python}", "bots/test/testbot.py", "--mode", "slow", "--sleep-ms", "40"]
"#
        ),
    )
    .unwrap();
    for sandbox in sandboxes() {
        for nobody in users() {
            let cfg = std::fs::read_to_string(&config).unwrap();
            let path = prog.root.join(format!("parked-{sandbox}-{nobody}.toml"));
            let sandboxed = format!("[[bots]]\nsandbox = \"{sandbox}\"");
            std::fs::write(&path, cfg.replace("[[bots]]", &sandboxed)).unwrap();
            chmod(&path);
            let what = format!(
                "{sandbox}, as {}",
                if nobody { "nobody" } else { "the test's user" }
            );
            let run = arena(
                &prog,
                nobody,
                &["tournament", path.to_str().unwrap()],
                &[],
                &what,
            );
            assert_eq!(run.records.len(), 6, "{what}");
            for r in &run.records {
                assert!(
                    !r.reason.is_forfeit(),
                    "{what}: {:?} {:?}",
                    r.reason,
                    r.detail
                );
            }
            // "got N ms of CPU while parked" and "got N ms of CPU in its own move".
            let mut while_parked = Vec::new();
            let mut in_moves = 0.0;
            for l in run.logs.lines() {
                let Some(n) = numbers_after(l, "spin-parked got ").first().copied() else {
                    continue;
                };
                if l.contains("while parked") {
                    while_parked.push(n);
                } else if l.contains("in its own move") {
                    in_moves += n;
                }
            }
            // The spinner plays 4 games: it is parked before the 2nd to 4th
            // (and reads `gameover` of the last at `quit`).
            assert!(while_parked.len() >= 3, "{what}: {}", run.logs);
            let total: f64 = while_parked.iter().sum();
            assert!(
                total < 50.0,
                "{what}: parked, it got {while_parked:?} ms of CPU"
            );
            assert!(
                in_moves >= 100.0,
                "{what}: the probe saw only {in_moves} ms of its own moves' spinning"
            );
        }
    }
}
