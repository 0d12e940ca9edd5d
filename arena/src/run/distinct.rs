//! Distinct openings, games and pairs of a run: two deterministic bots
//! replay the same game from the same opening, and every copy would count
//! as evidence. Every run counts them, prints them and keeps them in its
//! manifest, and warns when fewer than [`MIN_DISTINCT_PAIRS_PCT`]% of its
//! pairs are distinct.

use std::collections::{BTreeMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

use crate::store::{self, Distinct, StoreError};
use arena_core::record::GameRecord;

/// Below this share of distinct pairs a run warns.
pub const MIN_DISTINCT_PAIRS_PCT: u64 = 95;

fn hash_of(v: impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    v.hash(&mut h);
    h.finish()
}

/// A game as [`Distinct`] tells games apart: [`GameRecord::play_key`].
pub fn game_key(r: &GameRecord) -> u64 {
    r.play_key()
}

impl Distinct {
    /// Counts `records`: a game is its opening, its seats' bots and its
    /// moves; a pair is its games in schedule order.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a GameRecord>) -> Distinct {
        let mut openings = HashSet::new();
        let mut games = HashSet::new();
        let mut pairs: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        let mut n = 0;
        for r in records {
            n += 1;
            let opening: Vec<&str> = r.moves[..r.opening_plies.min(r.moves.len())]
                .iter()
                .map(|m| m.mv.as_str())
                .collect();
            openings.insert(hash_of(&opening));
            let game = game_key(r);
            games.insert(game);
            pairs.entry(r.pair).or_default().push(game);
        }
        let distinct_pairs: HashSet<&Vec<u64>> = pairs.values().collect();
        Distinct {
            openings: openings.len() as u64,
            games: n,
            distinct_games: games.len() as u64,
            pairs: pairs.len() as u64,
            distinct_pairs: distinct_pairs.len() as u64,
        }
    }

    /// Counts the records of `dir`'s games.jsonl.
    pub fn of_dir(dir: &Path) -> Result<Distinct, StoreError> {
        let mut records = Vec::new();
        for line in store::Records::open(&dir.join(store::GAMES_JSONL), store::Tail::Torn, true)? {
            records.push(line?.record);
        }
        Ok(Distinct::of(&records))
    }

    /// `distinct: 12 openings, 24 of 24 games, 12 of 12 pairs`.
    pub fn line(&self) -> String {
        format!(
            "distinct: {} openings, {} of {} games, {} of {} pairs",
            self.openings, self.distinct_games, self.games, self.distinct_pairs, self.pairs
        )
    }

    /// The warning of a run with too few distinct pairs, if it is one.
    pub fn warning(&self) -> Option<String> {
        (self.pairs > 0 && self.distinct_pairs * 100 < MIN_DISTINCT_PAIRS_PCT * self.pairs).then(|| {
            format!(
                "only {} of {} pairs of games are distinct ({:.0}%): deterministic bots replay the same \
                 game from the same opening, and every copy is counted as if it were new evidence; \
                 play an opening suite with at least as many openings as pairs (openings = {{ file = \"...\" }}, \
                 arena match --openings FILE, made by arena openings) or more random plies, or vary the bots",
                self.distinct_pairs,
                self.pairs,
                100.0 * self.distinct_pairs as f64 / self.pairs as f64
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pair: u64, moves: &[&str], opening: usize) -> GameRecord {
        let line = format!(
            r#"{{"index":0,"round":0,"pair":{pair},"game":"nim","params":{{}},"seed":0,"seats":[{{"name":"a","command":[],"log":null}},{{"name":"b","command":[],"log":null}}],"opening_plies":{opening},"initial_state":"","moves":[{}],"final_state":"","scores":[0,0],"result":"1-0","reason":"normal","duration_ms":1}}"#,
            moves
                .iter()
                .map(|m| format!(r#"{{"seat":0,"move":"{m}","ms":0}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        serde_json::from_str(&line).unwrap()
    }

    #[test]
    fn repeated_games_and_pairs_are_counted_once_and_warned_about() {
        let all_same: Vec<GameRecord> = (0..10)
            .flat_map(|p| [record(p, &["a1", "a2"], 0), record(p, &["a2", "a1"], 0)])
            .collect();
        let d = Distinct::of(&all_same);
        assert_eq!(
            d,
            Distinct {
                openings: 1,
                games: 20,
                distinct_games: 2,
                pairs: 10,
                distinct_pairs: 1
            }
        );
        assert!(d.warning().unwrap().contains("only 1 of 10 pairs"));
        // The control: each pair on its own opening.
        let distinct: Vec<GameRecord> = (0..10)
            .flat_map(|p| {
                let o = format!("b{p}");
                [record(p, &[&o, "a1"], 1), record(p, &[&o, "a2"], 1)]
            })
            .collect();
        let d = Distinct::of(&distinct);
        assert_eq!(
            (d.openings, d.distinct_games, d.distinct_pairs),
            (10, 20, 10)
        );
        assert!(d.warning().is_none());
    }
}
