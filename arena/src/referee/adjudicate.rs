//! Adjudication by the bots' own scores, as cutechess-cli's `-resign` and
//! `-draw`: a game whose two bots agree that it is decided (or drawn) for
//! long enough ends there, `adjudicated`, instead of being played out.
//!
//! A score is the `score` field of a decision's structured `info` (see
//! [`arena_core::protocol::search_fields`]), in centi-units from the point
//! of view of the bot that moves (positive: it is winning); a `mate` field
//! counts as a decisive score, for the mover when positive. A decision
//! without either breaks its bot's run of agreeing scores, as a book move
//! does in cutechess.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use arena_core::games::Seat;
use arena_core::record::GameResult;

/// `resign`: the game is lost for a side when its bot's score has been at
/// most `-score` and its opponent's at least `+score` for `movecount`
/// consecutive moves of each (cutechess's `-resign ... twosided=true`: both
/// bots must agree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResignRule {
    /// Consecutive moves of each side (at least 1).
    pub movecount: u32,
    /// The margin, in centi-units (at least 1).
    pub score: u32,
}

/// `draw`: the game is a draw when both bots' scores have been within
/// `score` of 0 for `movecount` consecutive moves of each, once
/// `movenumber` full moves (two plies each, the opening's included) have
/// been played.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrawRule {
    /// The first full move at which the rule may end a game (default 0).
    #[serde(default)]
    pub movenumber: u32,
    /// Consecutive moves of each side (at least 1).
    pub movecount: u32,
    /// How close to 0 both scores must be, in centi-units.
    pub score: u32,
}

/// The adjudication rules of a run (none by default: every game is played
/// to its end). Kept in the manifest and its fingerprint when set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjudication {
    /// The resign rule, if set: a game both bots agree is decided ends as a
    /// win.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resign: Option<ResignRule>,
    /// The draw rule, if set: a game both bots agree is level ends as a draw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draw: Option<DrawRule>,
}

impl Adjudication {
    /// Whether any rule is set.
    pub fn is_set(&self) -> bool {
        self.resign.is_some() || self.draw.is_some()
    }
}

impl fmt::Display for ResignRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "resign movecount={} score={}",
            self.movecount, self.score
        )
    }
}

impl fmt::Display for DrawRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "draw movenumber={} movecount={} score={}",
            self.movenumber, self.movecount, self.score
        )
    }
}

/// Reads `key=value` pairs separated by spaces or commas into `keys`'
/// values, in order; `required` of them must be given. Errors name the key.
fn pairs<const N: usize>(
    text: &str,
    keys: [&str; N],
    required: [bool; N],
) -> Result<[u32; N], String> {
    let mut values: [Option<u32>; N] = [None; N];
    for pair in text.split([' ', ',']).filter(|p| !p.is_empty()) {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(format!("`{pair}` is not key=value"));
        };
        let Some(i) = keys.iter().position(|key| *key == k) else {
            return Err(format!(
                "unknown key `{k}` (the keys are {})",
                keys.join(", ")
            ));
        };
        if values[i].is_some() {
            return Err(format!("`{k}` is given twice"));
        }
        values[i] = Some(
            v.parse()
                .map_err(|_| format!("{k}: `{v}` is not a whole number from 0"))?,
        );
    }
    let mut out = [0; N];
    for i in 0..N {
        out[i] = match (values[i], required[i]) {
            (Some(v), _) => v,
            (None, true) => return Err(format!("{} is missing", keys[i])),
            (None, false) => 0,
        };
    }
    Ok(out)
}

impl ResignRule {
    /// Checks the values: a count and a margin of at least 1.
    pub fn check(&self) -> Result<(), String> {
        if self.movecount == 0 {
            return Err("movecount must be at least 1".into());
        }
        if self.score == 0 {
            return Err("score must be at least 1".into());
        }
        Ok(())
    }
}

impl DrawRule {
    /// Checks the values: a count of at least 1.
    pub fn check(&self) -> Result<(), String> {
        if self.movecount == 0 {
            return Err("movecount must be at least 1".into());
        }
        Ok(())
    }
}

/// `movecount=3 score=600` (or with commas), as `arena match --resign` takes it.
impl FromStr for ResignRule {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let [movecount, score] = pairs(text, ["movecount", "score"], [true, true])?;
        let rule = ResignRule { movecount, score };
        rule.check()?;
        Ok(rule)
    }
}

/// `movenumber=30 movecount=8 score=10` (or with commas; `movenumber`
/// optional), as `arena match --draw` takes it.
impl FromStr for DrawRule {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        let [movenumber, movecount, score] = pairs(
            text,
            ["movenumber", "movecount", "score"],
            [false, true, true],
        )?;
        let rule = DrawRule {
            movenumber,
            movecount,
            score,
        };
        rule.check()?;
        Ok(rule)
    }
}

/// How an adjudicated game ends: its result and the rule that fired, for
/// the record's `detail`.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// The result the rule gives.
    pub result: GameResult,
    /// Which rule fired and on what scores, for the record.
    pub detail: String,
}

/// Follows one game's scores, decision by decision, and says when a rule
/// ends it. Pure: fed each move's mover, score and the game's ply count.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    rules: Adjudication,
    /// Per seat: its consecutive moves scored at most `-resign.score`...
    losing: [u32; 2],
    /// ...at least `+resign.score`...
    winning: [u32; 2],
    /// ...and within `draw.score` of 0.
    level: [u32; 2],
}

/// A decision's score from its search fields: `mate` (decisive, for the
/// mover when positive) before `score`; `None` without either.
pub fn score_of(search: &std::collections::BTreeMap<String, String>) -> Option<f64> {
    if let Some(mate) = search.get("mate").and_then(|m| m.parse::<f64>().ok()) {
        return Some(if mate > 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        });
    }
    search
        .get("score")
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite())
}

impl Adjudicator {
    /// Follows a game under `rules`, no moves scored yet.
    pub fn new(rules: Adjudication) -> Self {
        Adjudicator {
            rules,
            losing: [0; 2],
            winning: [0; 2],
            level: [0; 2],
        }
    }

    /// `seat` moved, reporting `score` (its own point of view; `None`: no
    /// score), and the game has `plies` plies now, the opening's included.
    /// The verdict, when a rule ends the game here.
    pub fn add(&mut self, seat: Seat, score: Option<f64>, plies: usize) -> Option<Verdict> {
        let bump = |run: &mut u32, yes: bool| *run = if yes { *run + 1 } else { 0 };
        let resign = self
            .rules
            .resign
            .map_or(f64::INFINITY, |r| f64::from(r.score));
        let level = self.rules.draw.map_or(-1.0, |d| f64::from(d.score));
        bump(&mut self.losing[seat], score.is_some_and(|s| s <= -resign));
        bump(&mut self.winning[seat], score.is_some_and(|s| s >= resign));
        bump(
            &mut self.level[seat],
            score.is_some_and(|s| s.abs() <= level),
        );

        // As cutechess: the draw rule first.
        if let Some(d) = self.rules.draw {
            if plies >= 2 * d.movenumber as usize && self.level.iter().all(|&n| n >= d.movecount) {
                return Some(Verdict {
                    result: GameResult::Draw,
                    detail: format!(
                        "{d}: both bots scored within {} of 0 on their last {} moves",
                        d.score, d.movecount
                    ),
                });
            }
        }
        let r = self.rules.resign?;
        let loser = (0..2)
            .find(|&l| self.losing[l] >= r.movecount && self.winning[1 - l] >= r.movecount)?;
        Some(Verdict {
            result: GameResult::win_for(1 - loser),
            detail: format!(
                "{r}: on their last {} moves seat {}'s bot scored +{} or more and seat {loser}'s -{} or less",
                r.movecount,
                1 - loser,
                r.score,
                r.score
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resign(movecount: u32, score: u32) -> Adjudicator {
        Adjudicator::new(Adjudication {
            resign: Some(ResignRule { movecount, score }),
            draw: None,
        })
    }

    /// Feeds alternating moves from seat 0, numbering plies from 1.
    fn feed(a: &mut Adjudicator, scores: &[Option<f64>]) -> Option<(usize, Verdict)> {
        scores
            .iter()
            .enumerate()
            .find_map(|(i, &s)| a.add(i % 2, s, i + 1).map(|v| (i + 1, v)))
    }

    #[test]
    fn resign_needs_both_bots_to_agree_for_movecount_moves_each() {
        // Seat 1 loses: it says -900, seat 0 says +900, three times each.
        let mut a = resign(3, 600);
        let s = [900.0, -900.0].map(Some);
        let (ply, v) = feed(&mut a, &s.repeat(3)).expect("adjudicated");
        assert_eq!(ply, 6);
        assert_eq!(v.result, GameResult::Seat0Wins);
        assert!(
            v.detail.starts_with("resign movecount=3 score=600: "),
            "{}",
            v.detail
        );
        // The mirror: seat 0 loses.
        let mut a = resign(2, 600);
        let (_, v) = feed(&mut a, &[-700.0, 700.0].map(Some).repeat(2)).unwrap();
        assert_eq!(v.result, GameResult::Seat1Wins);
        // Disagreement: both think they are winning; one just short of the
        // margin; a score missing in the middle breaks the run.
        let mut a = resign(3, 600);
        assert_eq!(feed(&mut a, &[900.0, 900.0].map(Some).repeat(10)), None);
        let mut a = resign(3, 600);
        assert_eq!(feed(&mut a, &[900.0, -599.0].map(Some).repeat(10)), None);
        let mut a = resign(3, 600);
        let mut broken = s.repeat(2);
        broken[2] = None;
        broken.extend(s.repeat(2));
        assert_eq!(feed(&mut a, &broken), None);
        broken.extend(s);
        // Seat 0 scored again at plies 5, 7 and 9.
        assert_eq!(feed(&mut resign(3, 600), &broken).unwrap().0, 9);
        // A mate score is decisive.
        let mut a = resign(1, 600);
        let mut mover = std::collections::BTreeMap::new();
        mover.insert("mate".to_string(), "3".to_string());
        let mut mated = std::collections::BTreeMap::new();
        mated.insert("mate".to_string(), "-2".to_string());
        assert_eq!(a.add(0, score_of(&mover), 1), None);
        let v = a.add(1, score_of(&mated), 2).unwrap();
        assert_eq!(v.result, GameResult::Seat0Wins);
    }

    #[test]
    fn a_side_that_moves_twice_counts_its_own_moves() {
        // Dakon's extra turns: seat 0 moves three times, then seat 1.
        let mut a = resign(2, 100);
        assert_eq!(a.add(0, Some(200.0), 1), None);
        assert_eq!(a.add(0, Some(200.0), 2), None);
        assert_eq!(a.add(1, Some(-200.0), 3), None);
        let v = a.add(1, Some(-200.0), 4).unwrap();
        assert_eq!(v.result, GameResult::Seat0Wins);
    }

    #[test]
    fn draw_needs_level_scores_of_both_after_movenumber() {
        let rule = DrawRule {
            movenumber: 5,
            movecount: 2,
            score: 10,
        };
        let mut a = Adjudicator::new(Adjudication {
            resign: Some(ResignRule {
                movecount: 2,
                score: 600,
            }),
            draw: Some(rule),
        });
        // Level from the start, but not before full move 5 (ply 10).
        let (ply, v) = feed(&mut a, &[Some(3.0), Some(-10.0)].repeat(8)).unwrap();
        assert_eq!((ply, v.result), (10, GameResult::Draw));
        assert!(
            v.detail
                .starts_with("draw movenumber=5 movecount=2 score=10: "),
            "{}",
            v.detail
        );
        let mut a = Adjudicator::new(Adjudication {
            resign: None,
            draw: Some(rule),
        });
        assert_eq!(feed(&mut a, &[Some(3.0), Some(11.0)].repeat(20)), None);
        // Without rules nothing is ever adjudicated.
        let mut a = Adjudicator::new(Adjudication::default());
        assert_eq!(feed(&mut a, &[Some(0.0), Some(-1e9)].repeat(20)), None);
    }

    #[test]
    fn rules_read_from_key_value_lists() {
        assert_eq!(
            "movecount=3 score=600".parse::<ResignRule>(),
            Ok(ResignRule {
                movecount: 3,
                score: 600
            })
        );
        assert_eq!(
            "movenumber=30,movecount=8,score=10".parse::<DrawRule>(),
            Ok(DrawRule {
                movenumber: 30,
                movecount: 8,
                score: 10
            })
        );
        assert_eq!(
            "movecount=8 score=0"
                .parse::<DrawRule>()
                .unwrap()
                .movenumber,
            0
        );
        for (text, why) in [
            ("movecount=3", "score is missing"),
            ("movecount=0 score=600", "movecount must be at least 1"),
            ("moves=3 score=600", "unknown key `moves`"),
            (
                "movecount=3 score=-600",
                "score: `-600` is not a whole number",
            ),
            ("movecount=3 score=6 score=7", "`score` is given twice"),
            ("3", "`3` is not key=value"),
        ] {
            let e = text.parse::<ResignRule>().unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }
}
