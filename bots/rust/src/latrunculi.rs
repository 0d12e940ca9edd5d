//! Ludus latrunculorum's evaluation: material (on the board and in hand),
//! trapped pieces (likely to be removed), and threats (enemy pieces one step
//! from being trapped).

use arena_core::games::latrunculi::{Latrunculi, Square, State};
use arena_core::games::{Game, Seat};

use crate::eval::Evaluate;

const PIECE: i32 = 100;
/// A trapped piece when its trapper is to move (it can be removed now) and
/// when its owner is to move (it may yet be freed).
const TRAPPED_ENEMY_TO_MOVE: i32 = 75;
const TRAPPED_OWNER_TO_MOVE: i32 = 45;
/// An enemy piece that one step could trap, for the side to move and for the
/// other side.
const THREAT_TO_MOVE: i32 = 20;
const THREAT_WAITING: i32 = 8;

/// Cell codes: 0 empty, 1 + seat for a free piece, 3 + seat for a trapped one.
const EMPTY: u8 = 0;
fn free(seat: Seat) -> u8 {
    1 + seat as u8
}

const DIRS: [(isize, isize); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

impl Evaluate for Latrunculi {
    fn evaluate(&self, s: &State, seat: Seat) -> i32 {
        let (w, h) = (s.width(), s.height());
        let mut g = [EMPTY; 16 * 16];
        for r in 0..h {
            for f in 0..w {
                g[r * w + f] = match s.piece(Square::new(f, r)) {
                    None => EMPTY,
                    Some((o, false)) => free(o),
                    Some((o, true)) => 3 + o as u8,
                };
            }
        }
        let at = |f: isize, r: isize| -> Option<u8> {
            (f >= 0 && r >= 0 && (f as usize) < w && (r as usize) < h)
                .then(|| g[r as usize * w + f as usize])
        };
        let mover = self.to_move(s);
        let mut v = [0i32; 2];
        let (on, hand) = (s.on_board(), s.hand());
        for p in 0..2 {
            v[p] += PIECE * (on[p] + hand[p]) as i32;
        }
        for r in 0..h as isize {
            for f in 0..w as isize {
                let c = g[r as usize * w + f as usize];
                if c == EMPTY {
                    continue;
                }
                if c >= 3 {
                    let owner = (c - 3) as Seat;
                    v[owner] -= if mover == owner {
                        TRAPPED_OWNER_TO_MOVE
                    } else {
                        TRAPPED_ENEMY_TO_MOVE
                    };
                    continue;
                }
                // A free piece of `owner`: could the enemy trap it in one step?
                // (An enemy flanker on one side, an empty square on the other
                // that another free enemy piece can step onto; the suicide
                // rule and jumps are ignored.)
                let owner = (c - 1) as Seat;
                let enemy = 1 - owner;
                let threatened = DIRS.iter().any(|&(df, dr)| {
                    if at(f - df, r - dr) != Some(free(enemy)) || at(f + df, r + dr) != Some(EMPTY)
                    {
                        return false;
                    }
                    let (lf, lr) = (f + df, r + dr);
                    DIRS.iter().any(|&(ef, er)| {
                        (ef, er) != (-df, -dr) && at(lf + ef, lr + er) == Some(free(enemy))
                    })
                });
                if threatened {
                    v[enemy] += if mover == enemy {
                        THREAT_TO_MOVE
                    } else {
                        THREAT_WAITING
                    };
                }
            }
        }
        v[seat] - v[1 - seat]
    }

    /// A lead of one and a half pieces reads as a 73% win chance.
    fn eval_scale(&self) -> f64 {
        150.0
    }

    /// Random play rarely ends a game of latrunculi; cut playouts short.
    fn playout_cap(&self) -> Option<u32> {
        Some(4)
    }
}
