//! Property tests of the Dakon engine over random games with random
//! parameters: conservation, termination, legal-move/terminal agreement,
//! notation round-trips, determinism, and parsers that never panic.

use arena_core::games::dakon::{Dakon, DakonState, End, Pit};
use arena_core::games::Game;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn params() -> impl Strategy<Value = Dakon> {
    (
        3u8..=9,
        1u16..=12,
        any::<bool>(),
        prop_oneof![3 => Just(1000u32), 1 => 1u32..=40],
    )
        .prop_map(|(holes, seeds, nembak_takes_lander, max_plies)| Dakon {
            holes,
            seeds,
            nembak_takes_lander,
            max_plies,
        })
}

/// Plays one random game, calling `visit` on every state reached
/// (the initial one included).
fn random_game(game: &Dakon, seed: u64, mut visit: impl FnMut(&DakonState)) -> DakonState {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut state = game.initial_state();
    let mut moves = Vec::new();
    visit(&state);
    loop {
        game.legal_moves(&state, &mut moves);
        if moves.is_empty() {
            return state;
        }
        let mv = moves[rng.random_range(0..moves.len())];
        game.apply(&mut state, &mv);
        visit(&state);
    }
}

/// Mutates `text` at `at` (scaled to its length): delete, insert or replace
/// one character.
fn mutate(text: &str, kind: u8, at: usize, ch: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let i = if chars.is_empty() {
        0
    } else {
        at % chars.len()
    };
    match kind % 3 {
        0 if !chars.is_empty() => {
            chars.remove(i);
        }
        1 => chars.insert(i, ch),
        _ if !chars.is_empty() => chars[i] = ch,
        _ => chars.push(ch),
    }
    chars.into_iter().collect()
}

fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        prop::sample::select(vec![
            '0', '1', '9', ',', ' ', '=', '-', '+', 'p', 's', 't', '\n', 'é', '٣', '\u{0}'
        ]),
        any::<char>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(game in params(), seed in any::<u64>()) {
        let total = 2 * game.holes as u32 * game.seeds as u32;
        let mut moves = Vec::new();
        let mut reached = 0u32;
        let last = random_game(&game, seed, |state| {
            reached += 1;
            // Seeds are conserved.
            assert_eq!(state.total(), total);
            // Notation round-trips, with and without the game's checks.
            let text = state.to_string();
            assert_eq!(game.parse_state(&text).as_ref(), Ok(state), "{text}");
            assert_eq!(text.parse::<DakonState>().as_ref(), Ok(state), "{text}");
            // Terminal iff no legal move; scores add up.
            game.legal_moves(state, &mut moves);
            let outcome = game.outcome(state);
            assert_eq!(moves.is_empty(), outcome.is_some(), "{text}");
            if let Some(o) = &outcome {
                assert_eq!((o.scores[0] + o.scores[1]) as u32, total);
                let reparsed = game.parse_state(&text).unwrap();
                assert_eq!(game.outcome(&reparsed).as_ref(), Some(o));
            }
            // Every legal move is the mover's, on the board, and round-trips;
            // applying it twice to the same state gives the same result.
            for mv in &moves {
                assert_eq!(game.parse_move(&mv.to_string()), Ok(*mv));
                let (mut a, mut b) = (*state, *state);
                let fa = game.apply(&mut a, mv);
                let fb = game.apply(&mut b, mv);
                assert_eq!(a, b);
                assert_eq!(fa, fb);
                assert_eq!(a.ply(), state.ply() + 1);
                assert_eq!(fa.end.is_some(), game.outcome(&a).is_some());
                if fa.end == Some(End::MaxPlies) {
                    assert_eq!(game.outcome(&a).unwrap().adjudicated, Some("max_plies"));
                }
            }
        });
        // The game ended, within the move limit.
        prop_assert!(game.outcome(&last).is_some());
        prop_assert!(last.ply() <= game.max_plies);
        prop_assert_eq!(reached, last.ply() + 1);
    }

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,120}", printable in "[ -~]{0,80}") {
        let game = Dakon::default();
        for t in [&text, &printable] {
            if let Ok(state) = t.parse::<DakonState>() {
                // Anything accepted is canonical.
                prop_assert_eq!(&state.to_string(), t);
            }
            let _ = game.parse_state(t);
            if let Ok(mv) = game.parse_move(t) {
                prop_assert_eq!(&mv.to_string(), t);
            }
            let _ = t.parse::<Pit>();
        }
    }

    #[test]
    fn mutated_state_text_never_panics(
        game in params(),
        seed in any::<u64>(),
        pick in any::<prop::sample::Index>(),
        kind in any::<u8>(),
        at in any::<usize>(),
        ch in interesting_char(),
    ) {
        let mut texts = Vec::new();
        random_game(&game, seed, |s| texts.push(s.to_string()));
        let text = pick.get(&texts);
        let bad = mutate(text, kind, at, ch);
        match game.parse_state(&bad) {
            // A mutation can yield another valid state (a digit moved
            // between fields); it must then be canonical and conserve seeds.
            Ok(state) => {
                prop_assert_eq!(&state.to_string(), &bad);
                prop_assert_eq!(state.total(), 2 * game.holes as u32 * game.seeds as u32);
            }
            Err(e) => prop_assert_eq!(e.what, "dakon state"),
        }
        let _ = bad.parse::<DakonState>();
        let _ = game.parse_move(&bad);
        let mv = mutate(&format!("{}", game.holes), kind, at, ch);
        if let Ok(p) = game.parse_move(&mv) {
            prop_assert!((p.0 as usize) < 2 * game.holes as usize);
            prop_assert_eq!(p.to_string(), mv);
        }
    }
}
