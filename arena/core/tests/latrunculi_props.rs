//! Property tests of the Ludus latrunculorum engine over random games on
//! random board sizes and piece counts, and of its parsers on arbitrary text.

use arena_core::games::latrunculi::{Latrunculi, Move, Square, State};
use arena_core::games::Game;
use std::collections::BTreeMap;

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

// ------------------------------------------------ the slow reference

/// Directions as (file, rank) steps, in the rules' canonical order: up,
/// right, down, left.
const CANONICAL: [(isize, isize); 4] = [(0, 1), (1, 0), (0, -1), (-1, 0)];
/// The engine's order of steps: left, down, up, right.
const STEP_ORDER: [(isize, isize); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];

fn shift(st: &State, s: Square, (df, dr): (isize, isize)) -> Option<Square> {
    let f = s.file() as isize + df;
    let r = s.rank() as isize + dr;
    (f >= 0 && r >= 0 && f < st.width() as isize && r < st.height() as isize)
        .then(|| Square::new(f as usize, r as usize))
}

/// May `me`'s piece moving from `from` end on `to`? The suicide rule, read
/// off the rules text: not between two free enemies in a line unless the
/// move traps (an enemy next to `to` with a free piece of `me` beyond it,
/// other than the one that left `from`).
fn may_end(st: &State, me: usize, from: Square, to: Square) -> bool {
    let free_enemy = |d| shift(st, to, d).and_then(|n| st.piece(n)) == Some((1 - me, false));
    let sandwiched =
        (free_enemy((-1, 0)) && free_enemy((1, 0))) || (free_enemy((0, -1)) && free_enemy((0, 1)));
    let traps = CANONICAL.iter().any(|&(df, dr)| {
        free_enemy((df, dr))
            && shift(st, to, (2 * df, 2 * dr))
                .is_some_and(|b| b != from && st.piece(b) == Some((me, false)))
    });
    !sandwiched || traps
}

/// Every jump chain from `from` that never lands twice on a square (nor on
/// `from`), by depth-first search: for each final square, the chains in the
/// order found, each as its landings and its directions' ranks in
/// [`CANONICAL`]. `None` when the search passes `budget` chains.
type Chains = BTreeMap<Square, Vec<(Vec<Square>, Vec<usize>)>>;

fn all_chains(st: &State, me: usize, from: Square, budget: usize) -> Option<Chains> {
    fn go(
        st: &State,
        me: usize,
        path: &mut Vec<Square>,
        ranks: &mut Vec<usize>,
        out: &mut Chains,
        budget: &mut usize,
    ) -> bool {
        let at = *path.last().unwrap();
        for (k, &(df, dr)) in CANONICAL.iter().enumerate() {
            let (Some(over), Some(to)) = (shift(st, at, (df, dr)), shift(st, at, (2 * df, 2 * dr)))
            else {
                continue;
            };
            let enemy = matches!(st.piece(over), Some((o, _)) if o != me);
            if !enemy || st.piece(to).is_some() || path.contains(&to) {
                continue;
            }
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            path.push(to);
            ranks.push(k);
            out.entry(to)
                .or_default()
                .push((path[1..].to_vec(), ranks.clone()));
            let ok = go(st, me, path, ranks, out, budget);
            path.pop();
            ranks.pop();
            if !ok {
                return false;
            }
        }
        true
    }
    let mut out = Chains::new();
    let mut budget = budget;
    go(
        st,
        me,
        &mut vec![from],
        &mut Vec::new(),
        &mut out,
        &mut budget,
    )
    .then_some(out)
}

fn chain_text(from: Square, landings: &[Square]) -> String {
    let mut t = from.to_string();
    for s in landings {
        t += &format!("-{s}");
    }
    t
}

/// The legal list of a phase-2 position as the rules and protocol.md's
/// ruling on its order describe it, by brute force: by start square (file,
/// then rank), each piece's steps (left, down, up, right), then one chain per
/// square it may end on, the best by fewest hops and then by direction ranks
/// hop by hop, fewest hops first; removals last. Also, for each chain listed,
/// another chain to the same square if there is one (which must be refused).
/// `None` when a search passes `budget`.
type Refused = Vec<(String, String)>;

fn reference_legal(g: &Latrunculi, st: &State, budget: usize) -> Option<(Vec<String>, Refused)> {
    let me = g.to_move(st);
    let mut legal = Vec::new();
    let mut refused = Vec::new();
    for from in files_then_ranks(st) {
        if st.piece(from) != Some((me, false)) {
            continue;
        }
        for d in STEP_ORDER {
            if let Some(to) = shift(st, from, d) {
                if st.piece(to).is_none() && may_end(st, me, from, to) {
                    legal.push(format!("{from}-{to}"));
                }
            }
        }
        let mut best = Vec::new();
        for (to, chains) in all_chains(st, me, from, budget)? {
            if !may_end(st, me, from, to) {
                continue;
            }
            let key = |c: &(Vec<Square>, Vec<usize>)| (c.1.len(), c.1.clone());
            let canon = chains.iter().min_by_key(|c| key(c)).unwrap();
            let other = chains.iter().find(|c| c.1 != canon.1);
            best.push((
                key(canon),
                chain_text(from, &canon.0),
                other.map(|o| chain_text(from, &o.0)),
            ));
        }
        best.sort();
        for (_, text, other) in best {
            if let Some(o) = other {
                refused.push((o, text.clone()));
            }
            legal.push(text);
        }
    }
    for s in files_then_ranks(st) {
        if st.piece(s) == Some((1 - me, true)) {
            legal.push(format!("x{s}"));
        }
    }
    Some((legal, refused))
}

fn files_then_ranks(st: &State) -> Vec<Square> {
    (0..st.width())
        .flat_map(|f| (0..st.height()).map(move |r| Square::new(f, r)))
        .collect()
}

/// Compares the engine's legal list in a phase-2 position that is not over
/// with the reference, and checks that every other chain to a listed
/// chain's square is refused and named as not canonical. Returns how many
/// chains were listed and how many others refused, or `None` when the
/// reference gave up (too many chains to enumerate).
fn matches_reference(g: &Latrunculi, st: &State) -> Result<Option<(usize, usize)>, TestCaseError> {
    let Some((expected, refused)) = reference_legal(g, st, 200_000) else {
        return Ok(None);
    };
    let mut buf = Vec::new();
    g.legal_moves(st, &mut buf);
    let got: Vec<String> = buf.iter().map(ToString::to_string).collect();
    prop_assert_eq!(&got, &expected, "in {}", st);
    for (other, canon) in &refused {
        let mv = g.parse_move(other).unwrap();
        let mut after = st.clone();
        prop_assert!(
            g.play(&mut after, &mv).is_err(),
            "{} accepted in {}",
            other,
            st
        );
        prop_assert_eq!(&after, st);
        let why = g.why_illegal(st, &mv).unwrap_or_default();
        prop_assert!(why.contains(&format!("`{canon}`")), "{}: {}", other, why);
    }
    let chains = buf.iter().filter(|m| matches!(m, Move::Jump(_))).count();
    Ok(Some((chains, refused.len())))
}

/// A random phase-2 position on a `w` x `h` board, crowded enough for jump
/// chains: the enemies of the player to move favour one colour of the
/// checkerboard (a lattice, holed at random), and some flanked pieces are
/// trapped. `None` if it breaks a rule of the notation (too many pieces).
fn crowded_position(w: usize, h: usize, seed: u64) -> Option<(Latrunculi, State)> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let me = rng.random_range(0..2usize);
    let lattice: f64 = rng.random_range(0.0..1.0);
    let mine: f64 = rng.random_range(0.05..0.3);
    // 0 empty, 1 + seat for a piece; trapped flags apart.
    let mut cell = vec![0u8; w * h];
    for r in 0..h {
        for f in 0..w {
            let enemy = if (f + r) % 2 == 1 {
                0.3 + 0.65 * lattice
            } else {
                0.3 * (1.0 - lattice)
            };
            let u: f64 = rng.random_range(0.0..1.0);
            cell[r * w + f] = if u < enemy {
                2 - me as u8
            } else if u < enemy + mine {
                1 + me as u8
            } else {
                0
            };
        }
    }
    let at = |cell: &[u8], f: isize, r: isize| -> u8 {
        if f < 0 || r < 0 || f >= w as isize || r >= h as isize {
            0
        } else {
            cell[r as usize * w + f as usize]
        }
    };
    // Trap some flanked pieces, one at a time, keeping every trapped piece
    // flanked by two free enemies (a trapped piece flanks nothing).
    let mut trapped = vec![false; w * h];
    let flanked = |cell: &[u8], trapped: &[bool], f: usize, r: usize| {
        let enemy = 3 - cell[r * w + f];
        let free = |df: isize, dr: isize| {
            let (ff, rr) = (f as isize + df, r as isize + dr);
            at(cell, ff, rr) == enemy && !trapped[rr as usize * w + ff as usize]
        };
        (free(-1, 0) && free(1, 0)) || (free(0, -1) && free(0, 1))
    };
    for i in 0..w * h {
        if cell[i] == 0 || rng.random_range(0..3) != 0 {
            continue;
        }
        trapped[i] = true;
        let ok = (0..w * h)
            .filter(|&j| trapped[j])
            .all(|j| flanked(&cell, &trapped, j % w, j / w));
        trapped[i] = ok;
    }
    let mut ranks = Vec::new();
    let mut count = [0u32; 2];
    for r in (0..h).rev() {
        let mut text = String::new();
        let mut run = 0;
        for f in 0..w {
            let c = cell[r * w + f];
            if c == 0 {
                run += 1;
                continue;
            }
            if run > 0 {
                text += &run.to_string();
                run = 0;
            }
            count[c as usize - 1] += 1;
            let t = trapped[r * w + f];
            text.push(match (c, t) {
                (1, false) => 'X',
                (2, false) => 'O',
                (1, true) => 'x',
                _ => 'o',
            });
        }
        if run > 0 {
            text += &run.to_string();
        }
        ranks.push(text);
    }
    let pieces = count[0].max(count[1]).max(2);
    let g = Latrunculi::from_params(&[
        ("width".into(), w.to_string()),
        ("height".into(), h.to_string()),
        ("pieces".into(), pieces.to_string()),
    ])
    .ok()?;
    let text = format!(
        "board={} turn={me} phase=move hand=0,0 quiet=0 ply={}",
        ranks.join("/"),
        2 * pieces as usize + me
    );
    let st = g.parse_state(&text).ok()?;
    Some((g, st))
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
        if st.in_phase_two() && actions.is_multiple_of(5) {
            matches_reference(g, &st)?;
        }
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

/// One action per final square, and that one the canonical chain, on random
/// crowded positions against the brute-force reference; other chains to the
/// same squares are refused. Counts what it checked, so that it cannot pass
/// by checking nothing.
#[test]
fn one_canonical_chain_per_final_square_on_crowded_boards() {
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::Cell;
    let (positions, chains, refused, gave_up) =
        (Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases: 300,
        ..Config::default()
    });
    let result = runner.run(&(5usize..=16, 5usize..=16, any::<u64>()), |(w, h, seed)| {
        let Some((g, st)) = crowded_position(w, h, seed) else {
            return Ok(());
        };
        let on = st.on_board();
        if on[0] <= 1 || on[1] <= 1 {
            return Ok(());
        }
        let Some((listed, others)) = matches_reference(&g, &st)? else {
            gave_up.set(gave_up.get() + 1);
            return Ok(());
        };
        positions.set(positions.get() + 1);
        chains.set(chains.get() + listed);
        refused.set(refused.get() + others);
        Ok(())
    });
    eprintln!(
        "{} positions, {} chains listed, {} other chains refused, {} too big for the reference",
        positions.get(),
        chains.get(),
        refused.get(),
        gave_up.get()
    );
    if let Err(e) = result {
        panic!("{e}");
    }
    assert!(positions.get() >= 100, "too few positions checked");
    assert!(
        refused.get() >= 100,
        "too few squares reached by more than one chain"
    );
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
