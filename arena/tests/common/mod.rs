//! Test records made by playing random games through the real rules engines.
#![allow(dead_code)]

use std::collections::BTreeMap;

use arena_core::games::{new_game, AnyGame};
use arena_core::record::{GameRecord, GameResult, MoveRecord, Reason, SeatRecord};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Bot names for the test tournament: one tries to break out of the page,
/// one starts like a spreadsheet formula (the ratings CSV guards it).
pub const BOTS: [&str; 4] = [
    "random-a",
    "random-b",
    "evil</script><script>alert(1)</script>",
    "-random <b>d</b>",
];

/// The games of the test tournament: every game in the registry.
pub fn registered_games() -> Vec<&'static str> {
    arena_core::games::GAMES.iter().map(|g| g.name).collect()
}

/// Plays one game with uniformly random moves (at most `max_plies`) and
/// records it as the referee would.
pub fn random_game(
    game: &dyn AnyGame,
    index: u64,
    seats: [&str; 2],
    seed: u64,
    max_plies: usize,
) -> GameRecord {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state = game.initial_state();
    let initial_state = state.to_string();
    let mut moves = Vec::new();
    while state.outcome().is_none() && moves.len() < max_plies {
        let seat = state.to_move();
        let legal = state.legal_moves();
        let mv = legal[rng.random_range(0..legal.len())].clone();
        let effects = state.play(&mv).expect("a listed move is legal");
        let info = if seat == 0 {
            vec![format!(
                "depth {} score {} pv {mv}",
                1 + moves.len() % 5,
                rng.random_range(-50..50)
            )]
        } else {
            vec![]
        };
        moves.push(MoveRecord {
            seat,
            mv,
            ms: rng.random_range(0.2..40.0),
            cpu_ms: None,
            search: arena_core::protocol::search_fields(&info),
            info,
            state: state.to_string(),
            effects,
        });
    }
    let (result, reason, scores, detail) = match state.outcome() {
        Some(o) => (
            GameResult::from_winner(o.winner),
            if o.adjudicated.is_some() {
                Reason::Adjudicated
            } else {
                Reason::Normal
            },
            o.scores,
            o.adjudicated.map(String::from),
        ),
        None => (
            GameResult::Draw,
            Reason::Adjudicated,
            [0, 0],
            Some(format!("test cut at {max_plies} plies")),
        ),
    };
    let seat = |name: &str| SeatRecord {
        name: name.to_string(),
        command: vec!["./random-bot".into()],
        log: None,
        budget: Default::default(),
        ready: None,
        transcript: None,
    };
    GameRecord {
        index,
        round: index / 6,
        pair: index / 2,
        game: game.name().to_string(),
        params: game.params().into_iter().collect::<BTreeMap<_, _>>(),
        seed,
        seats: [seat(seats[0]), seat(seats[1])],
        opening_plies: 2.min(moves.len()),
        initial_state,
        final_state: state.to_string(),
        moves,
        scores,
        result,
        reason,
        detail,
        offender: None,
        clock: Default::default(),
        duration_ms: 100 + seed % 900,
    }
}

/// A small round robin with both seat orders, alternating the registered
/// games. Empty when no engine is registered yet.
pub fn tournament(max_plies: usize) -> Vec<GameRecord> {
    round_robin(&BOTS, 1, max_plies)
}

/// `rounds` double round robins of `bots`, alternating the registered games.
pub fn round_robin(bots: &[&str], rounds: usize, max_plies: usize) -> Vec<GameRecord> {
    round_robin_of(&registered_games(), bots, rounds, max_plies)
}

/// [`round_robin`] over the `games` given, in turn.
pub fn round_robin_of(
    games: &[&str],
    bots: &[&str],
    rounds: usize,
    max_plies: usize,
) -> Vec<GameRecord> {
    let games: Vec<Box<dyn AnyGame>> = games.iter().map(|g| new_game(g, &[]).unwrap()).collect();
    let mut records = Vec::new();
    if games.is_empty() {
        return records;
    }
    for _ in 0..rounds {
        for i in 0..bots.len() {
            for j in 0..bots.len() {
                if i == j {
                    continue;
                }
                let index = records.len() as u64;
                let game = &games[index as usize % games.len()];
                records.push(random_game(
                    game.as_ref(),
                    index,
                    [bots[i], bots[j]],
                    1000 + index,
                    max_plies,
                ));
            }
        }
    }
    records
}

pub fn write_jsonl(dir: &std::path::Path, records: &[GameRecord]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut text = String::new();
    for r in records {
        text.push_str(&serde_json::to_string(r).unwrap());
        text.push('\n');
    }
    std::fs::write(dir.join("games.jsonl"), text).unwrap();
}

/// Records made from the worked examples of the rules documents, for when
/// the engines are not registered yet (a branch without them): the states
/// are real notation, but the games are not real play.
pub fn fixture_records() -> Vec<GameRecord> {
    let dakon = [
        "pits=7,7,7,7,7,7,7,7,7,7,7,7,7,7 stores=0,0 turn=0 ply=0",
        "pits=7,7,7,7,7,7,7,0,8,8,8,8,8,8 stores=1,0 turn=0 ply=1",
        "pits=8,8,8,0,0,8,8,8,8,8,1,8,8,8 stores=9,0 turn=1 ply=2",
        "pits=1,1,1,1,3,0,2,1,1,1,1,1,1,3 stores=35,45 turn=0 ply=3",
        "pits=1,1,1,1,0,0,0,1,1,1,1,1,1,0 stores=43,45 turn=1 ply=4",
    ];
    let latrunculi = [
        "board=8/8/8/8/8/8/8/8 turn=0 phase=place hand=16,16 quiet=0 ply=0",
        "board=8/8/8/3X4/8/3X4/8/O7 turn=1 phase=place hand=14,15 quiet=0 ply=3",
        "board=8/8/8/3X4/3O4/3X4/8/O7 turn=0 phase=place hand=14,14 quiet=0 ply=4",
        "board=XX4OO/3X4/3O4/2X5/8/8/8/8 turn=0 phase=move hand=0,0 quiet=7 ply=40",
        "board=XX4OO/3X4/3o4/3X4/8/8/8/8 turn=1 phase=move hand=0,0 quiet=8 ply=41",
    ];
    let mut records = Vec::new();
    for (i, first) in BOTS.iter().enumerate() {
        for (j, second) in BOTS.iter().enumerate() {
            if i == j {
                continue;
            }
            let index = records.len() as u64;
            let (name, states, mvs): (&str, &[&str], &[&str]) = if index.is_multiple_of(2) {
                ("dakon", &dakon, &["7", "10", "13", "13"])
            } else {
                ("latrunculi", &latrunculi, &["d3", "d4", "c5-d5", "xd6"])
            };
            let moves = states[1..]
                .iter()
                .enumerate()
                .map(|(k, s)| MoveRecord {
                    seat: k % 2,
                    mv: mvs[k].to_string(),
                    ms: 1.5 * k as f64,
                    cpu_ms: Some(1.25 * k as f64),
                    info: vec![format!("depth {k} </script><script>alert(2)</script>")],
                    search: Default::default(),
                    state: s.to_string(),
                    effects: serde_json::Value::Null,
                })
                .collect();
            let result = [
                GameResult::Seat0Wins,
                GameResult::Draw,
                GameResult::Seat1Wins,
            ][index as usize % 3];
            let seat = |name: &str| SeatRecord {
                name: name.to_string(),
                command: vec![],
                log: None,
                budget: Default::default(),
                ready: None,
                transcript: None,
            };
            records.push(GameRecord {
                index,
                round: 0,
                pair: index / 2,
                game: name.to_string(),
                params: BTreeMap::new(),
                seed: index,
                seats: [seat(first), seat(second)],
                opening_plies: 0,
                initial_state: states[0].to_string(),
                moves,
                final_state: states[states.len() - 1].to_string(),
                scores: [1, 1],
                result,
                reason: Reason::Normal,
                detail: None,
                offender: None,
                clock: Default::default(),
                duration_ms: 10,
            });
        }
    }
    records
}

/// A real tournament of the registered games; the fixture when no engine is
/// registered (never under CI, where the engines must be there).
pub fn tournament_or_fixture(max_plies: usize) -> Vec<GameRecord> {
    let games = registered_games();
    if !games.is_empty() {
        if games.len() < 2 {
            eprintln!("note: only {games:?} registered; the test tournament plays those");
        }
        return tournament(max_plies);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true but no rules engine is registered");
    }
    eprintln!(
        "\n*** WARNING: no rules engine registered; using the rules documents' \
         example states instead of real games ***\n"
    );
    fixture_records()
}

/// Runs the `arena` binary with `stdin` piped in and waits for it.
pub fn arena(args: &[&str], stdin: &str) -> std::process::Output {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A game that ends early leaves some input unread: ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}
