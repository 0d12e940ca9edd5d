//! The test oracle of the games' integer actions and observation tensors: the
//! Python package's former codec, which read both from the protocol's text
//! (state and move notation, protocol.md) and never from engine internals.
//! Random playouts check that the engines' native encodings
//! ([`Game::spaces`], [`Game::legal_actions`], [`Game::observation`]...)
//! equal it in every position, for both players, through the run-time API
//! (`AnyGame`/`AnyState`) the Python package uses.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{new_game, AnyGame, AnyState, Spaces};

/// The action and observation layout of one game with its parameters.
#[derive(Clone, Debug)]
enum Codec {
    Dakon {
        holes: usize,
        seeds: usize,
        max_plies: usize,
    },
    Latrunculi {
        width: usize,
        height: usize,
        pieces: usize,
        quiet_plies: usize,
    },
}

fn param(params: &[(String, String)], key: &str) -> Option<usize> {
    params
        .iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, v)| v.parse().ok())
}

impl Codec {
    fn new(name: &str, params: &[(String, String)]) -> Option<Codec> {
        let p = |key| param(params, key);
        match name {
            "dakon" => Some(Codec::Dakon {
                holes: p("holes")?,
                seeds: p("seeds")?,
                max_plies: p("max_plies")?,
            }),
            "latrunculi" => Some(Codec::Latrunculi {
                width: p("width")?,
                height: p("height")?,
                pieces: p("pieces")?,
                quiet_plies: p("quiet_plies")?,
            }),
            _ => None,
        }
    }

    fn num_distinct_actions(&self) -> usize {
        match *self {
            Codec::Dakon { holes, .. } => 2 * holes,
            Codec::Latrunculi { width, height, .. } => {
                let squares = width * height;
                squares * (squares + 2)
            }
        }
    }

    fn max_game_length(&self) -> usize {
        match *self {
            Codec::Dakon { max_plies, .. } => max_plies,
            Codec::Latrunculi {
                pieces,
                quiet_plies,
                ..
            } => {
                let removals = (2 * pieces).saturating_sub(3);
                2 * pieces + removals + (removals + 1) * quiet_plies
            }
        }
    }

    /// The id of a move given in notation.
    fn action(&self, mv: &str) -> Option<usize> {
        match *self {
            Codec::Dakon { holes, .. } => {
                let pit: usize = mv.parse().ok()?;
                (pit < 2 * holes && pit.to_string() == mv).then_some(pit)
            }
            Codec::Latrunculi { width, height, .. } => {
                let squares = width * height;
                let square = |text: &str| parse_square(text, width, height);
                if let Some(sq) = mv.strip_prefix('x') {
                    return Some(squares + square(sq)?);
                }
                let mut hops = mv.split('-');
                let from = square(hops.next()?)?;
                match hops.next_back() {
                    None => Some(from),
                    Some(to) => Some(2 * squares + from * squares + square(to)?),
                }
            }
        }
    }

    fn observation_shape(&self) -> Vec<usize> {
        match *self {
            Codec::Dakon { holes, .. } => vec![2 + 2 * holes + 2],
            Codec::Latrunculi { width, height, .. } => vec![PLANES, height, width],
        }
    }

    fn observation_bounds(&self) -> (f32, f32) {
        match *self {
            Codec::Dakon { holes, seeds, .. } => (0.0, (2 * holes * seeds) as f32),
            Codec::Latrunculi { .. } => (0.0, 1.0),
        }
    }

    /// The state as numbers seen by `player`, from the state text.
    fn observation(&self, text: &str, player: usize) -> Option<Vec<f32>> {
        let fields = Fields(text);
        let turn: usize = fields.get("turn")?.parse().ok()?;
        let place = |seat: usize| usize::from(seat != player);
        match *self {
            Codec::Dakon { holes, .. } => {
                let mut out = vec![0.0; 2];
                out[place(turn)] = 1.0;
                let pits = fields.numbers("pits")?;
                if pits.len() != 2 * holes {
                    return None;
                }
                let turn_by = if player == 0 { 0 } else { holes };
                out.extend((0..2 * holes).map(|k| pits[(k + turn_by) % (2 * holes)]));
                let stores = fields.numbers("stores")?;
                out.extend([*stores.get(player)?, *stores.get(1 - player)?]);
                Some(out)
            }
            Codec::Latrunculi {
                width,
                height,
                pieces,
                quiet_plies,
            } => {
                let plane = width * height;
                let mut out = vec![0.0; PLANES * plane];
                for (square, seat, trapped) in fields.pieces(width)? {
                    if square >= plane {
                        return None;
                    }
                    let kind = 2 * place(seat) + usize::from(trapped);
                    out[kind * plane + square] = 1.0;
                }
                for sq in 0..plane {
                    if (0..4).all(|kind| out[kind * plane + sq] == 0.0) {
                        out[4 * plane + sq] = 1.0;
                    }
                }
                let hand = fields.numbers("hand")?;
                let quiet: f32 = fields.get("quiet")?.parse().ok()?;
                let constants = [
                    place(turn) as f32,
                    (fields.get("phase")? == "place") as u8 as f32,
                    *hand.get(player)? / pieces as f32,
                    *hand.get(1 - player)? / pieces as f32,
                    quiet / quiet_plies as f32,
                ];
                for (i, value) in constants.into_iter().enumerate() {
                    out[(5 + i) * plane..(6 + i) * plane].fill(value);
                }
                Some(out)
            }
        }
    }

    /// Each seat's material: seeds in the stores, or pieces on the board and
    /// in hand.
    fn material(&self, text: &str) -> Option<[i32; 2]> {
        let fields = Fields(text);
        let own = match *self {
            Codec::Dakon { .. } => fields.numbers("stores")?,
            Codec::Latrunculi { width, .. } => {
                let mut own = fields.numbers("hand")?;
                for (_, seat, _) in fields.pieces(width)? {
                    *own.get_mut(seat)? += 1.0;
                }
                own
            }
        };
        Some([*own.first()? as i32, *own.get(1)? as i32])
    }
}

/// The `key=value` fields of a state text.
struct Fields<'a>(&'a str);

impl<'a> Fields<'a> {
    fn get(&self, key: &str) -> Option<&'a str> {
        self.0
            .split(' ')
            .find_map(|token| token.strip_prefix(key)?.strip_prefix('='))
    }

    fn numbers(&self, key: &str) -> Option<Vec<f32>> {
        self.get(key)?
            .split(',')
            .map(|n| n.parse::<u32>().ok().map(|n| n as f32))
            .collect()
    }

    /// Every piece of a `board=` field: (index in the plane, ranks from the
    /// top; seat; trapped).
    fn pieces(&self, width: usize) -> Option<Vec<(usize, usize, bool)>> {
        let mut out = Vec::new();
        for (row, rank) in self.get("board")?.split('/').enumerate() {
            let mut col = 0;
            let mut run = 0;
            for c in rank.chars() {
                if let Some(d) = c.to_digit(10) {
                    run = run * 10 + d as usize;
                    continue;
                }
                col += std::mem::take(&mut run);
                let (seat, trapped) = match c {
                    'X' => (0, false),
                    'x' => (0, true),
                    'O' => (1, false),
                    'o' => (1, true),
                    _ => return None,
                };
                if col >= width {
                    return None;
                }
                out.push((row * width + col, seat, trapped));
                col += 1;
            }
        }
        Some(out)
    }
}

const PLANES: usize = 10;

/// `d4` -> its index `(rank - 1) * width + file`.
fn parse_square(text: &str, width: usize, height: usize) -> Option<usize> {
    let mut chars = text.chars();
    let file = chars.next()?;
    let file = (file as usize).checked_sub('a' as usize)?;
    let digits = chars.as_str();
    if digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let rank: usize = digits.parse().ok()?;
    (file < width && (1..=height).contains(&rank)).then(|| (rank - 1) * width + file)
}

fn params(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Checks one position: every native encoding against the oracle's.
fn check_position(game: &dyn AnyGame, codec: &Codec, state: &dyn AnyState) {
    let text = state.to_string();
    let legal = state.legal_moves();
    // The oracle's legal (action, move) pairs: sorted by id, of several
    // moves with one id the first listed kept.
    let mut pairs: Vec<(usize, &str)> = legal
        .iter()
        .map(|mv| {
            (
                codec.action(mv).expect("a legal move has an id"),
                mv.as_str(),
            )
        })
        .collect();
    pairs.sort_by_key(|&(id, _)| id);
    pairs.dedup_by_key(|&mut (id, _)| id);
    let mut native = Vec::new();
    state.legal_actions(&mut native);
    let expected: Vec<usize> = pairs.iter().map(|&(id, _)| id).collect();
    assert_eq!(native, expected, "legal actions of `{text}`");
    // The unsorted ids are the same ids, each once.
    let mut unsorted = Vec::new();
    state.legal_action_ids(&mut unsorted);
    unsorted.sort_unstable();
    assert_eq!(unsorted, expected, "legal action ids of `{text}`");
    for &(id, mv) in &pairs {
        assert_eq!(state.action_to_move(id).as_deref(), Some(mv), "`{text}`");
    }
    for mv in &legal {
        let id = game.move_to_action(mv).expect("a legal move parses");
        assert_eq!(id, codec.action(mv), "move `{mv}` in `{text}`");
    }
    // An id no legal move has plays nothing.
    let missing = (0..codec.num_distinct_actions()).find(|id| !expected.contains(id));
    if let Some(id) = missing {
        assert_eq!(state.action_to_move(id), None, "`{text}`");
        let mut copy = state.clone_box();
        assert!(!copy.apply_action(id), "action {id} in `{text}`");
        assert_eq!(copy.to_string(), text);
    }
    let spaces = game.spaces().expect("the game has spaces");
    let mut out = vec![f32::NAN; spaces.observation_len()];
    for player in 0..2 {
        assert!(state.observation(player, &mut out));
        let oracle = codec.observation(&text, player).expect("the text reads");
        assert_eq!(out, oracle, "player {player}'s view of `{text}`");
        let (low, high) = spaces.observation_bounds;
        assert!(out.iter().all(|x| (low..=high).contains(x)), "`{text}`");
    }
    assert_eq!(Some(state.material()), codec.material(&text), "`{text}`");
}

/// Seeded random playouts of `name` with `list`, checking every position and
/// that playing an action equals playing its move's text.
fn compare(name: &str, list: &[(&str, &str)], games: u64) -> u64 {
    let game = new_game(name, &params(list)).unwrap();
    let codec = Codec::new(name, &game.params()).unwrap();
    assert_eq!(
        game.spaces(),
        Some(Spaces {
            num_distinct_actions: codec.num_distinct_actions(),
            max_game_length: codec.max_game_length(),
            observation_shape: codec.observation_shape(),
            observation_bounds: codec.observation_bounds(),
        }),
        "{name} {list:?}"
    );
    let mut positions = 0;
    for seed in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut state = game.initial_state();
        let mut plies = 0;
        loop {
            check_position(game.as_ref(), &codec, state.as_ref());
            positions += 1;
            let mut actions = Vec::new();
            state.legal_actions(&mut actions);
            if actions.is_empty() {
                assert!(state.outcome().is_some(), "`{state}`");
                break;
            }
            let id = actions[rng.random_range(0..actions.len())];
            let mv = state.action_to_move(id).unwrap();
            let mut by_text = state.clone();
            by_text.play(&mv).unwrap();
            assert!(state.apply_action(id));
            assert_eq!(state.to_string(), by_text.to_string());
            plies += 1;
            // Long games repeat the same kinds of position: enough is seen.
            if plies == 600 {
                break;
            }
        }
        assert!(
            plies <= codec.max_game_length(),
            "{plies} plies in a game of {name}"
        );
    }
    positions
}

#[test]
fn dakon_native_encodings_equal_the_text_codec() {
    let mut positions = 0;
    positions += compare("dakon", &[], 20);
    positions += compare("dakon", &[("holes", "3"), ("seeds", "2")], 50);
    positions += compare(
        "dakon",
        &[("holes", "9"), ("nembak_takes_lander", "true")],
        20,
    );
    // Short games end by the move limit: its safeguard is seen too.
    positions += compare("dakon", &[("holes", "5"), ("max_plies", "12")], 20);
    assert!(positions > 2000, "{positions} positions");
}

#[test]
fn latrunculi_native_encodings_equal_the_text_codec() {
    let mut positions = 0;
    positions += compare("latrunculi", &[], 3);
    positions += compare(
        "latrunculi",
        &[
            ("width", "5"),
            ("height", "6"),
            ("pieces", "4"),
            ("quiet_plies", "12"),
        ],
        30,
    );
    // Two-digit ranks, a board that is not square.
    positions += compare(
        "latrunculi",
        &[("width", "7"), ("height", "12"), ("pieces", "20")],
        3,
    );
    assert!(positions > 1000, "{positions} positions");
}

#[test]
fn nim_actions_and_observation() {
    let game = new_game("nim", &params(&[("piles", "3"), ("take", "2")])).unwrap();
    let spaces = game.spaces().unwrap();
    assert_eq!(spaces.num_distinct_actions, 6);
    assert_eq!(spaces.observation_shape, vec![5]);
    assert_eq!(spaces.max_game_length, 21);
    let mut state = game.parse_state("piles=0,1,7 turn=1 ply=13").unwrap();
    let mut actions = Vec::new();
    state.legal_actions(&mut actions);
    // b1, c1, c2: pile 1 takes 1 (id 2), pile 2 takes 1 or 2 (ids 4, 5).
    assert_eq!(actions, vec![2, 4, 5]);
    assert_eq!(game.move_to_action("c2"), Ok(Some(5)));
    assert_eq!(state.action_to_move(5).as_deref(), Some("c2"));
    assert_eq!(state.action_to_move(0), None, "pile a is empty");
    let mut out = vec![0.0; 5];
    assert!(state.observation(1, &mut out));
    assert_eq!(out, vec![1.0, 0.0, 0.0, 1.0, 7.0]);
    assert!(state.observation(0, &mut out));
    assert_eq!(out, vec![0.0, 1.0, 0.0, 1.0, 7.0]);
    assert!(state.apply_action(5));
    assert_eq!(state.to_string(), "piles=0,1,5 turn=0 ply=14");
}
