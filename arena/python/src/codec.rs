//! Integer actions and observation tensors, the two things OpenSpiel-style
//! frameworks need that the engines do not offer. Both are read from the
//! protocol's public notation (protocol.md), never from engine internals, so
//! they hold for any engine that speaks the protocol.
//!
//! Action ids:
//! - Dakon: the pit number, `0 .. 2 * holes`.
//! - Ludus latrunculorum, with `S = width * height` and a square's index
//!   `(rank - 1) * width + file` (`a1` is 0, `b1` is 1): a placement is its
//!   square, `0 .. S`; a removal `S + square`; a step or jump chain
//!   `2S + from * S + to`, where `to` is the chain's final square. One action per
//!   final square is what the rules prescribe (ruling of 2026-12-01); an engine
//!   that still lists several chains to the same square maps them to one id,
//!   and the first of them in the legal list is the one the id plays.

/// The action and observation layout of one game with its parameters.
#[derive(Clone, Debug)]
pub enum Codec {
    Dakon {
        holes: usize,
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
    /// The layout of a game, from its full parameter list; `None` for a game
    /// this file does not describe yet.
    pub fn new(name: &str, params: &[(String, String)]) -> Option<Codec> {
        let p = |key| param(params, key);
        match name {
            "dakon" => Some(Codec::Dakon {
                holes: p("holes")?,
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

    pub fn num_distinct_actions(&self) -> usize {
        match *self {
            Codec::Dakon { holes, .. } => 2 * holes,
            Codec::Latrunculi { width, height, .. } => {
                let squares = width * height;
                squares * (squares + 2)
            }
        }
    }

    /// An upper bound on the number of moves in a game.
    pub fn max_game_length(&self) -> usize {
        match *self {
            Codec::Dakon { max_plies, .. } => max_plies,
            // Placements, then at most 2 * pieces - 3 removals (one more and a
            // side would be down to one piece), each preceded by fewer than
            // quiet_plies other actions, and quiet_plies after the last one.
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

    /// The id of a move given in notation; `None` if the text is not a move of
    /// this game's notation on this board.
    pub fn action(&self, mv: &str) -> Option<usize> {
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

    /// The shape of [`Codec::observation`]'s tensor.
    pub fn observation_shape(&self) -> Vec<usize> {
        match *self {
            Codec::Dakon { holes, .. } => vec![2 + 2 * holes + 2],
            Codec::Latrunculi { width, height, .. } => vec![PLANES, height, width],
        }
    }

    /// The state as numbers, from the state text (see the package README):
    /// - Dakon: the seat to move one-hot, the pits in notation order, the
    ///   stores (seed counts as they are);
    /// - Ludus latrunculorum: planes of `height x width`, ranks from the top as
    ///   in the notation: free and trapped pieces of seat 0, of seat 1, empty
    ///   squares, then constant planes: seat 1 to move, placement phase, each
    ///   hand as a fraction of `pieces`, the quiet count as a fraction of
    ///   `quiet_plies`.
    pub fn observation(&self, text: &str) -> Option<Vec<f32>> {
        let field = |key: &str| {
            text.split(' ')
                .find_map(|token| token.strip_prefix(key)?.strip_prefix('='))
        };
        let numbers = |key: &str| -> Option<Vec<f32>> {
            field(key)?
                .split(',')
                .map(|n| n.parse::<u32>().ok().map(|n| n as f32))
                .collect()
        };
        let turn: usize = field("turn")?.parse().ok()?;
        match *self {
            Codec::Dakon { .. } => {
                let mut out = vec![0.0; 2];
                out[turn.min(1)] = 1.0;
                out.extend(numbers("pits")?);
                out.extend(numbers("stores")?);
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
                for (row, rank) in field("board")?.split('/').enumerate() {
                    let mut col = 0;
                    let mut run = 0;
                    for c in rank.chars() {
                        if let Some(d) = c.to_digit(10) {
                            run = run * 10 + d as usize;
                            continue;
                        }
                        col += std::mem::take(&mut run);
                        let kind = match c {
                            'X' => 0,
                            'x' => 1,
                            'O' => 2,
                            'o' => 3,
                            _ => return None,
                        };
                        *out.get_mut(kind * plane + row * width + col)? = 1.0;
                        col += 1;
                    }
                }
                for sq in 0..plane {
                    if (0..4).all(|kind| out[kind * plane + sq] == 0.0) {
                        out[4 * plane + sq] = 1.0;
                    }
                }
                let hand = numbers("hand")?;
                let quiet: f32 = field("quiet")?.parse().ok()?;
                let constants = [
                    turn as f32,
                    (field("phase")? == "place") as u8 as f32,
                    *hand.first()? / pieces as f32,
                    *hand.get(1)? / pieces as f32,
                    quiet / quiet_plies as f32,
                ];
                for (i, value) in constants.into_iter().enumerate() {
                    out[(5 + i) * plane..(6 + i) * plane].fill(value);
                }
                Some(out)
            }
        }
    }
}

/// Planes of the Ludus latrunculorum observation (see [`Codec::observation`]).
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
