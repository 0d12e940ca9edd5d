//! Equal compute: a budget in `go` (`--playouts`, `--depth`, `--nodes`)
//! makes the reference bots search the same whatever the machine's load,
//! so two runs give the same games.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use arena_core::record::GameRecord;

#[path = "common/runs.rs"]
mod runs;

use runs::ARENA;

/// A binary of the arena-bots crate, built alongside this test's profile
/// (`cargo test --workspace` builds it; alone, this test builds it).
fn bot_binary(name: &str) -> PathBuf {
    let dir = std::env::current_exe()
        .unwrap()
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf();
    let exe = dir.join(name);
    if !exe.exists() {
        let profile = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut cargo = Command::new(env!("CARGO"));
        cargo.args(["build", "-p", "arena-bots", "--bins"]);
        if profile == "release" {
            cargo.arg("--release");
        }
        assert!(cargo.status().unwrap().success(), "building {name}");
    }
    exe
}

fn records(out: &Path) -> Vec<GameRecord> {
    std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `arena match` of MCTS against alpha-beta, both time-managed by their
/// command lines, at concurrency 2, with `budget` options.
fn play(out: &Path, movetime: &str, budget: &[&str]) -> Vec<GameRecord> {
    let o = Command::new(ARENA)
        .args([
            "match",
            "--game",
            "dakon",
            "--games",
            "4",
            "--concurrency",
            "2",
        ])
        .args([
            "--movetime",
            movetime,
            "--sandbox",
            "none",
            "--quiet",
            "--seed",
            "3",
        ])
        .arg("--bot")
        .arg(format!("mcts={}", bot_binary("arena-mcts").display()))
        .arg("--bot")
        .arg(format!("ab={}", bot_binary("arena-alphabeta").display()))
        .args(budget)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    records(out)
}

/// What each move's search said it did (`info` lines).
fn searches(records: &[GameRecord]) -> Vec<String> {
    records
        .iter()
        .flat_map(|r| r.moves.iter().flat_map(|m| m.info.iter().cloned()))
        .collect()
}

/// With `--playouts 300 --depth 3` two runs at concurrency 2 give the same
/// games while four busy processes share the two cores; each bot searched
/// exactly its budget, and the record keeps it. The control: the same
/// bots without a budget search as much as the clock allows, which differs
/// from run to run under load (so the test would see a difference).
/// Busy processes, killed when dropped (a failed assertion included).
struct Busy(Vec<std::process::Child>);

impl Drop for Busy {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[test]
fn a_budget_gives_the_same_games_at_any_load() {
    let busy = Busy(
        (0..4)
            .map(|_| {
                Command::new("sh")
                    .args(["-c", "while :; do :; done"])
                    .spawn()
                    .unwrap()
            })
            .collect(),
    );
    let dir = tempfile::tempdir().unwrap();
    let budget = ["--playouts", "300", "--depth", "3"];
    let a = play(&dir.path().join("a"), "3000", &budget);
    let b = play(&dir.path().join("b"), "3000", &budget);
    let free_a = play(&dir.path().join("free-a"), "150", &[]);
    let free_b = play(&dir.path().join("free-b"), "150", &[]);
    drop(busy);
    assert_eq!(a.len(), 4);
    for (x, y) in a.iter().zip(&b) {
        assert!(!x.reason.is_forfeit(), "{:?} {:?}", x.reason, x.detail);
        let moves = |r: &GameRecord| r.moves.iter().map(|m| m.mv.clone()).collect::<Vec<_>>();
        assert_eq!(moves(x), moves(y), "game {}", x.index);
        assert_eq!((x.result, x.scores), (y.result, y.scores));
        for s in &x.seats {
            assert_eq!(s.budget.playouts, Some(300), "{s:?}");
            assert_eq!(s.budget.depth, Some(3), "{s:?}");
        }
    }
    let said = searches(&a);
    assert!(
        said.iter().any(|l| l.starts_with("playouts 300")),
        "MCTS searched its budget: {said:?}"
    );
    assert!(said.iter().any(|l| l.starts_with("depth 3 ")), "{said:?}");
    assert!(!said.iter().any(|l| l.starts_with("depth 4 ")), "{said:?}");
    // The control: time-managed searches differ between two runs.
    assert_ne!(searches(&free_a), searches(&free_b), "time-managed search");
    assert!(free_a
        .iter()
        .all(|r| r.seats.iter().all(|s| s.budget.is_empty())));
}

/// `arena match` of the first-legal bot against a bot that burns 35 ms of
/// CPU per 50 ms move, with `clock` options, while `busy` runs.
fn burner_match(out: &Path, clock: &[&str]) -> Vec<GameRecord> {
    let burner = format!(
        "burner={} {} --mode burn --sleep-ms 35",
        runs::python(),
        runs::repo().join("bots/test/testbot.py").display()
    );
    let o = Command::new(ARENA)
        .args([
            "match",
            "--game",
            "dakon",
            "--games",
            "2",
            "--concurrency",
            "1",
        ])
        .args([
            "--movetime",
            "50",
            "--margin",
            "10",
            "--sandbox",
            "none",
            "--quiet",
        ])
        .arg("--bot")
        .arg(format!("first={ARENA} bot-first"))
        .arg("--bot")
        .arg(burner)
        .args(clock)
        .arg("--out")
        .arg(out)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    records(out)
}

/// The cpu clock ignores the machine's load: with six busy processes (each
/// in a session of its own, so each weighs as much as a bot) sharing the
/// two cores, a bot that uses 35 ms of CPU per 50 ms move loses no game
/// under `--clock cpu`, and the record says which clock it was. The
/// control: under the wall clock the same bot, slowed by the load, loses
/// on time.
#[test]
fn the_cpu_clock_charges_cpu_time_and_a_busy_machine_costs_no_game() {
    let busy = Busy(
        (0..6)
            .map(|_| {
                Command::new("setsid")
                    .args(["sh", "-c", "while :; do :; done"])
                    .spawn()
                    .unwrap()
            })
            .collect(),
    );
    let dir = tempfile::tempdir().unwrap();
    let cpu = burner_match(&dir.path().join("cpu"), &["--clock", "cpu"]);
    let wall = burner_match(&dir.path().join("wall"), &[]);
    drop(busy);
    for r in &cpu {
        assert!(
            !r.reason.is_forfeit(),
            "cpu clock: {:?} {:?}",
            r.reason,
            r.detail
        );
        assert_eq!(r.clock, arena_core::record::Clock::Cpu);
        // Its decisions (not the referee's opening moves) used their CPU
        // time, which the record keeps beside their wall time (at least as
        // long: a busy machine makes it longer).
        let burner = r.seats.iter().position(|s| s.name == "burner").unwrap();
        let moves: Vec<_> = r
            .moves
            .iter()
            .skip(r.opening_plies)
            .filter(|m| m.seat == burner)
            .collect();
        assert!(!moves.is_empty());
        for m in &moves {
            let cpu = m.cpu_ms.unwrap_or(0.0);
            assert!(cpu >= 30.0 && m.ms + 0.5 >= cpu, "{m:?}");
        }
    }
    assert!(
        wall.iter()
            .any(|r| r.reason == arena_core::record::Reason::Timeout),
        "the control: under the wall clock the load costs the burner a game: {:?}",
        wall.iter()
            .map(|r| (r.reason, r.detail.clone()))
            .collect::<Vec<_>>()
    );
    assert!(wall
        .iter()
        .all(|r| r.clock == arena_core::record::Clock::Wall));
}
