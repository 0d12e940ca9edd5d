//! Property tests of the Ludus latrunculorum engine over random games on
//! random board sizes and piece counts, and of its parsers on arbitrary text.

use arena_core::games::latrunculi::{Latrunculi, Move, Square, State};
use arena_core::games::Game;
use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn game(w: u32, h: u32, pieces_frac: f64, quiet: u32) -> Latrunculi {
    let max = (w * h - 1) / 2;
    let pieces = (2 + ((max - 2) as f64 * pieces_frac) as u32).min(max);
    let params: Vec<(String, String)> = [
        ("width", w.to_string()),
        ("height", h.to_string()),
        ("pieces", pieces.to_string()),
        ("quiet_plies", quiet.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    Latrunculi::from_params(&params).expect("parameters in range")
}

fn squares(st: &State) -> impl Iterator<Item = Square> + '_ {
    (0..st.height()).flat_map(move |r| (0..st.width()).map(move |f| Square::new(f, r)))
}

fn neighbour(st: &State, s: Square, df: isize, dr: isize) -> Option<(usize, bool)> {
    let f = s.file() as isize + df;
    let r = s.rank() as isize + dr;
    if f < 0 || r < 0 || f >= st.width() as isize || r >= st.height() as isize {
        return None;
    }
    st.piece(Square::new(f as usize, r as usize))
}

/// Every trapped piece stands between two free enemies in a row or column.
fn trapped_are_flanked(st: &State) -> Result<(), String> {
    for s in squares(st) {
        if let Some((owner, true)) = st.piece(s) {
            let free_enemy = |df, dr| neighbour(st, s, df, dr) == Some((1 - owner, false));
            let row = free_enemy(-1, 0) && free_enemy(1, 0);
            let col = free_enemy(0, -1) && free_enemy(0, 1);
            if !(row || col) {
                return Err(format!("trapped piece on {s} is not flanked in {st}"));
            }
        }
    }
    Ok(())
}

fn total(st: &State) -> [u32; 2] {
    let (b, h) = (st.on_board(), st.hand());
    [b[0] + h[0], b[1] + h[1]]
}

/// Plays one random game, checking the invariants after every action.
fn random_game(g: &Latrunculi, seed: u64) -> Result<u64, TestCaseError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut st = g.initial_state();
    let mut buf: Vec<Move> = Vec::new();
    let mut actions = 0u64;
    let pieces = g.pieces as u64;
    // Each removal resets the quiet counter; at most 2 * pieces removals.
    let bound = 2 * pieces + (2 * pieces + 1) * g.quiet_plies as u64 + 1;
    loop {
        g.legal_moves(&st, &mut buf);
        let outcome = g.outcome(&st);
        prop_assert_eq!(buf.is_empty(), outcome.is_some(), "in {}", st);
        if let Some(o) = outcome {
            let b = st.on_board();
            prop_assert_eq!(o.scores, [b[0] as i32, b[1] as i32]);
            return Ok(actions);
        }
        prop_assert!(actions < bound, "game did not end within {} actions", bound);
        let mv = buf[rng.random_range(0..buf.len())];
        prop_assert_eq!(g.parse_move(&mv.to_string()).unwrap(), mv);

        let before = total(&st);
        let was_placing = !st.in_phase_two();
        let eff = g.apply(&mut st, &mv);
        actions += 1;
        let after = total(&st);

        // Pieces are never created; a removal takes exactly one for good.
        prop_assert!(after[0] <= before[0] && after[1] <= before[1]);
        match mv {
            Move::Remove(s) => {
                prop_assert_eq!(after[0] + after[1] + 1, before[0] + before[1]);
                prop_assert_eq!(st.piece(s), None);
            }
            _ => prop_assert_eq!(after, before),
        }
        if was_placing {
            prop_assert!(eff.trapped.is_empty() && eff.freed.is_empty());
        }
        for s in eff.trapped.as_slice() {
            prop_assert_eq!(st.piece(*s).map(|p| p.1), Some(true));
        }
        for s in eff.freed.as_slice() {
            prop_assert_eq!(st.piece(*s).map(|p| p.1), Some(false));
        }
        trapped_are_flanked(&st).map_err(TestCaseError::fail)?;
        prop_assert_eq!(eff.end.clone(), g.outcome(&st));

        let text = st.to_string();
        let back = g
            .parse_state(&text)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&back, &st);
        prop_assert_eq!(back.to_string(), text);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_the_invariants_and_end(
        w in 5u32..=16,
        h in 5u32..=16,
        frac in 0.0f64..1.0,
        quiet in 1u32..=40,
        seed in any::<u64>(),
    ) {
        let g = game(w, h, frac, quiet);
        random_game(&g, seed)?;
    }

    #[test]
    fn default_games_keep_the_invariants_and_end(seed in any::<u64>()) {
        let g = Latrunculi::from_params(&[]).unwrap();
        random_game(&g, seed)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn parsers_never_panic_on_arbitrary_text(text in ".{0,120}") {
        let g = Latrunculi::from_params(&[]).unwrap();
        let _ = g.parse_state(&text);
        let _ = g.parse_move(&text);
        let _ = text.parse::<State>();
        let _ = text.parse::<Move>();
    }

    #[test]
    fn parsers_never_panic_on_notation_like_text(
        text in "(board=)?[XOxo0-9/]{0,90}( turn=[0-9]{0,2})?( phase=(place|move))?( hand=[0-9]{0,3},[0-9]{0,3})?( quiet=[0-9]{0,3})?( ply=[0-9]{0,4})?",
        mv in "x?[a-r][0-9]{0,3}(-[a-r][0-9]{0,3}){0,4}",
    ) {
        for g in [
            Latrunculi::from_params(&[]).unwrap(),
            Latrunculi::from_params(&[("width".into(), "5".into()), ("height".into(), "16".into())]).unwrap(),
        ] {
            if let Ok(st) = g.parse_state(&text) {
                // Whatever parses is a consistent position that round-trips.
                prop_assert_eq!(st.to_string(), text.clone());
                trapped_are_flanked(&st).map_err(TestCaseError::fail)?;
                let mut buf = Vec::new();
                g.legal_moves(&st, &mut buf);
                prop_assert_eq!(buf.is_empty(), g.outcome(&st).is_some());
            }
            if let Ok(m) = g.parse_move(&mv) {
                prop_assert_eq!(m.to_string(), mv.clone());
            }
        }
    }
}
