//! Fuzzing (proptest-based, so it runs on stable in `cargo test`): the
//! protocol line parser and line reader, and both games' state and move
//! parsers and legal-move checks, fed arbitrary and mutated text. Nothing
//! may panic or hang; a refused move leaves the state unchanged; every
//! listed legal move is accepted.
//!
//! The number of cases per property is proptest's: 256 by default,
//! `PROPTEST_CASES=N` for more (`.ci/run` runs a longer pass in release
//! mode). Each property prints how many inputs it tried (`--nocapture`),
//! counting every text it fed to a parser.

use arena::process::line_reader::LineReader;
use arena_core::games::{self, AnyState};
use arena_core::protocol::{self, FromBot};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

const GAMES: &[&str] = &["dakon", "latrunculi"];

/// Text near the protocol: real keywords, separators, odd bytes.
fn protocol_bytes() -> impl Strategy<Value = Vec<u8>> {
    let token = prop_oneof![
        Just(b"move".to_vec()),
        Just(b"info".to_vec()),
        Just(b"ready".to_vec()),
        Just(b" ".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\n".to_vec()),
        Just(vec![0xff]),
        Just(vec![0xc3]),
        Just("é".as_bytes().to_vec()),
        proptest::collection::vec(any::<u8>(), 0..8),
        "[a-z0-9:,=x-]{0,6}".prop_map(String::into_bytes),
    ];
    proptest::collection::vec(token, 0..24).prop_map(|t| t.concat())
}

/// A random reachable position: `plies` random legal moves from the start.
fn reachable(game: &str, seed: u64, plies: usize) -> Box<dyn AnyState> {
    let g = games::new_game(game, &[]).unwrap();
    let mut state = g.initial_state();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for _ in 0..plies {
        if state.outcome().is_some() {
            break;
        }
        let legal = state.legal_moves();
        let mv = &legal[rng.random_range(0..legal.len())];
        state.play(mv).expect("a listed legal move plays");
    }
    state
}

/// `text` with a few random edits (replace, insert, delete characters).
fn mutate(text: &str, edits: &[(usize, u8, char)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(at, kind, c) in edits {
        let i = if chars.is_empty() {
            0
        } else {
            at % (chars.len() + 1)
        };
        match kind % 3 {
            0 if i < chars.len() => chars[i] = c,
            1 => chars.insert(i, c),
            _ if i < chars.len() => {
                chars.remove(i);
            }
            _ => chars.push(c),
        }
    }
    chars.into_iter().collect()
}

fn edit() -> impl Strategy<Value = (usize, u8, char)> {
    (
        any::<usize>(),
        any::<u8>(),
        prop_oneof![
            4 => proptest::char::range('0', '9'),
            2 => proptest::char::range('a', 'z'),
            1 => proptest::char::range('A', 'Z'),
            2 => prop::sample::select(vec![' ', ',', '/', ':', '-', '=', 'x', '.', '|']),
            1 => any::<char>(),
        ],
    )
}

/// Runs `test` on `Config::default()` cases of `strategy` (proptest reads
/// `PROPTEST_CASES`), panics with the minimal failing input, and prints the
/// number of inputs `test` reports having tried.
fn fuzz<S: Strategy>(
    name: &str,
    strategy: S,
    test: impl Fn(S::Value) -> Result<u64, TestCaseError>,
) {
    let tried = std::cell::Cell::new(0u64);
    let mut runner = TestRunner::new(Config::default());
    let result = runner.run(&strategy, |v| {
        tried.set(tried.get() + test(v)?);
        Ok(())
    });
    eprintln!("fuzz: {name}: {} inputs", tried.get());
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

#[test]
fn protocol_lines_never_panic() {
    fuzz("protocol lines", protocol_bytes(), |raw| {
        if let Ok(FromBot::Move(mv)) = protocol::parse_bytes(&raw) {
            prop_assert!(!mv.is_empty() && !mv.contains([' ', '\t']), "{mv:?}");
        }
        if let Ok(text) = std::str::from_utf8(&raw) {
            let _ = protocol::parse_line(text);
        }
        Ok(1)
    });
}

#[test]
fn the_line_reader_ends_on_any_stream() {
    let streams = (
        proptest::collection::vec(protocol_bytes(), 0..40),
        0usize..200_000,
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    fuzz("line-reader streams", streams, |(chunks, big)| {
        let mut data: Vec<u8> = chunks.concat();
        data.extend(std::iter::repeat_n(b'z', big));
        rt.block_on(async {
            let mut r = LineReader::new(&data[..]);
            // Each call consumes at least one byte or ends: bounded.
            for _ in 0..=data.len() {
                match r.next_line().await {
                    Ok(line) => {
                        prop_assert!(line.len() <= protocol::MAX_LINE + 1);
                        let _ = protocol::parse_bytes(line);
                    }
                    Err(_) => return Ok(1),
                }
            }
            Err(TestCaseError::fail("the reader did not end"))
        })
    });
}

#[test]
fn state_parsers_never_panic() {
    let inputs = (
        prop::sample::select(GAMES),
        any::<u64>(),
        0usize..120,
        proptest::collection::vec(edit(), 0..6),
        any::<String>(),
    );
    fuzz("state texts", inputs, |(game, seed, plies, edits, junk)| {
        let g = games::new_game(game, &[]).unwrap();
        let real = reachable(game, seed, plies).to_string();
        for text in [mutate(&real, &edits), junk] {
            if let Ok(st) = g.parse_state(&text) {
                // An accepted state must be usable: judge, list, play.
                let _ = st.to_string();
                if st.outcome().is_none() {
                    let legal = st.legal_moves();
                    if let Some(mv) = legal.first() {
                        let mut st = st.clone();
                        prop_assert!(st.play(mv).is_ok(), "{text:?}: listed {mv} refused");
                    }
                }
            }
        }
        // The real text parses back to the same text.
        let back = g.parse_state(&real).unwrap().to_string();
        prop_assert_eq!(back, real);
        Ok(3)
    });
}

#[test]
fn moves_are_checked_without_panics() {
    let inputs = (
        prop::sample::select(GAMES),
        any::<u64>(),
        0usize..150,
        any::<usize>(),
        proptest::collection::vec(edit(), 0..4),
        any::<String>(),
    );
    fuzz(
        "move texts",
        inputs,
        |(game, seed, plies, pick, edits, junk)| {
            let state = reachable(game, seed, plies);
            if state.outcome().is_some() {
                return Ok(0);
            }
            let legal = state.legal_moves();
            let base = &legal[pick % legal.len()];
            let texts = [
                base.clone(),
                mutate(base, &edits),
                junk,
                format!("{base} "),
                base.repeat(3),
            ];
            for text in &texts {
                let mut st = state.clone();
                if st.play(text).is_err() {
                    prop_assert_eq!(
                        st.to_string(),
                        state.to_string(),
                        "refused {:?} changed the state",
                        text
                    );
                    prop_assert!(!legal.contains(text), "legal {:?} refused", text);
                }
            }
            Ok(texts.len() as u64)
        },
    );
}

#[test]
fn game_parameters_never_panic() {
    let inputs = (
        prop::sample::select(GAMES),
        proptest::collection::vec(("[a-z_]{1,24}", "[0-9a-z-]{0,6}"), 0..4),
    );
    fuzz("parameter sets", inputs, |(game, params)| {
        if let Ok(g) = games::new_game(game, &params) {
            let st = g.initial_state();
            let _ = st.legal_moves();
            let _ = st.outcome();
        }
        Ok(1)
    });
}
