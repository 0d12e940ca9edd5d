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
    /// The layout of a game, from its full parameter list; `None` for a game
    /// this file does not describe yet.
    pub fn new(name: &str, params: &[(String, String)]) -> Option<Codec> {
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

    /// The least and the greatest number of [`Codec::observation`]'s tensor: the
    /// seeds of the whole board (Dakon), 1 (Ludus latrunculorum: planes of 0/1
    /// and fractions).
    pub fn observation_bounds(&self) -> (f32, f32) {
        match *self {
            Codec::Dakon { holes, seeds, .. } => (0.0, (2 * holes * seeds) as f32),
            Codec::Latrunculi { .. } => (0.0, 1.0),
        }
    }

    /// The state as numbers seen by `player` (0 or 1), from the state text (see
    /// the package README). "Mine" and "the opponent's" replace seat 0 and seat
    /// 1, so that one network can play either seat; player 0's view is the
    /// board as the notation gives it:
    /// - Dakon: [I am to move, the opponent is to move], the pits with my row
    ///   where the notation puts seat 0's (player 1's view is the board turned
    ///   round: its pit `k` is pit `(k + holes) % (2 * holes)`), then my store
    ///   and the opponent's (seed counts as they are);
    /// - Ludus latrunculorum: planes of `height x width`, ranks from the top as
    ///   in the notation (squares stay where they are: no row owns a side):
    ///   my free and trapped pieces, the opponent's, empty squares, then
    ///   constant planes: the opponent to move, placement phase, my hand and
    ///   the opponent's as fractions of `pieces`, the quiet count as a fraction
    ///   of `quiet_plies`.
    pub fn observation(&self, text: &str, player: usize) -> Option<Vec<f32>> {
        let fields = Fields(text);
        let turn: usize = fields.get("turn")?.parse().ok()?;
        // Seat -> its place in the view: 0 for the observer, 1 for the opponent.
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

    /// `player`'s material less the opponent's, the measure of arena's
    /// reference search: seeds in the stores (Dakon), pieces on the board and
    /// in hand (Ludus latrunculorum).
    pub fn material(&self, text: &str, player: usize) -> Option<f32> {
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
        Some(own.get(player)? - own.get(1 - player)?)
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

    /// A comma-separated list of counts.
    fn numbers(&self, key: &str) -> Option<Vec<f32>> {
        self.get(key)?
            .split(',')
            .map(|n| n.parse::<u32>().ok().map(|n| n as f32))
            .collect()
    }

    /// Every piece of a Ludus latrunculorum `board=` field: (index in the
    /// tensor's plane, ranks from the top; seat; trapped).
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
