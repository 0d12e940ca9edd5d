//! Time management over the wire: the time-managed bots answer well inside
//! a 100 ms movetime (the referee allows ~50 ms more), and inside a game
//! clock. A test binary of its own, so it does not share the cores with the
//! other bot tests (test binaries run one after another).

mod common;

use std::time::Duration;

use arena::games::dakon::Dakon;
use arena::games::latrunculi::Latrunculi;
use arena::games::Game;
use common::referee::{play_over_wire, BotProcess};

fn check(path: &str) {
    let mut bot = BotProcess::spawn(path, &["--seed", "9"]);
    bot.send("arena 1");
    bot.recv(Duration::from_secs(5));
    let go = "go time=- opptime=- inc=0 movetime=100";
    let dakon = Dakon::from_params(&[]).unwrap();
    let latrunculi = Latrunculi::from_params(&[]).unwrap();
    let mut lat = play_over_wire(&mut bot, &dakon, 0, 1, go, 0, 24).latencies;
    lat.extend(play_over_wire(&mut bot, &latrunculi, 1, 2, go, 0, 80).latencies);
    // A game clock of 3 s with no increment: each decision takes about a
    // thirtieth of what is left, so 20 decisions leave about half of it.
    let clock = play_over_wire(
        &mut bot,
        &latrunculi,
        0,
        3,
        "go time={time} opptime=3000 inc=0 movetime=-",
        3000,
        40,
    );
    let used: Duration = clock.latencies.iter().sum();
    bot.quit();
    lat.sort();
    let max = *lat.last().unwrap();
    let median = lat[lat.len() / 2];
    println!(
        "{path}: {} answers at movetime=100: median {median:?}, max {max:?}; clock 3 s: {} answers used {used:?}",
        lat.len(),
        clock.latencies.len()
    );
    assert!(max < Duration::from_millis(150), "slowest answer {max:?}");
    assert!(
        used < Duration::from_millis(2000),
        "used {used:?} of a 3 s clock"
    );
}

#[test]
fn alphabeta_keeps_time() {
    check(env!("CARGO_BIN_EXE_arena-alphabeta"));
}

#[test]
fn mcts_keeps_time() {
    check(env!("CARGO_BIN_EXE_arena-mcts"));
}
