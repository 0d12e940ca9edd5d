//! The leaderboard: ratings computed from the games table every time they
//! are asked for (`ratings::rate`), never stored, so rebuilding them from
//! scratch gives the same numbers by construction.

use std::collections::{BTreeMap, HashMap};

use crate::api::BoardRow;
use crate::db::{Db, DbError, Version};
use crate::ratings::{self, LadderGame, LadderRating, RatingSettings};

/// The name each version goes by in records and pages: `BOT.vSEQ`.
pub fn version_name(bot: &str, seq: i64) -> String {
    format!("{bot}.v{seq}")
}

/// Every version's record name, by version id.
pub async fn version_names(db: &Db) -> Result<HashMap<i64, String>, DbError> {
    Ok(db
        .all_versions()
        .await?
        .iter()
        .map(|v| (v.id, version_name(&v.bot, v.seq)))
        .collect())
}

/// Version -> the version of the same bot that it replaced (the previous
/// one that joined the ladder): a new version starts from its rating.
pub fn predecessors(versions: &[Version]) -> HashMap<i64, i64> {
    let mut by_bot: BTreeMap<i64, Vec<&Version>> = BTreeMap::new();
    for v in versions.iter().filter(|v| v.active_at.is_some()) {
        by_bot.entry(v.bot_id).or_default().push(v);
    }
    let mut out = HashMap::new();
    for list in by_bot.values_mut() {
        list.sort_by_key(|v| v.seq);
        for w in list.windows(2) {
            out.insert(w[1].id, w[0].id);
        }
    }
    out
}

/// Ratings of every version that played, from the games table alone.
pub async fn ratings(
    db: &Db,
    settings: &RatingSettings,
) -> Result<BTreeMap<i64, LadderRating>, DbError> {
    let games: Vec<LadderGame> = db
        .results()
        .await?
        .into_iter()
        .map(|(id, pair, seat0, seat1, points0)| LadderGame {
            id,
            pair,
            seat0,
            seat1,
            points0,
        })
        .collect();
    let versions = db.all_versions().await?;
    Ok(ratings::rate(&games, &predecessors(&versions), settings))
}

/// The leaderboard: one row per active version, best first.
pub async fn leaderboard(db: &Db, settings: &RatingSettings) -> Result<Vec<BoardRow>, DbError> {
    let rated = ratings(db, settings).await?;
    let versions = db.versions_with("active").await?;
    let authors: HashMap<i64, String> = {
        let mut m = HashMap::new();
        for v in &versions {
            if let Some((_, author, _)) = db.bot(&v.bot).await? {
                m.insert(v.bot_id, author);
            }
        }
        m
    };
    let mut rows: Vec<BoardRow> = versions
        .iter()
        .map(|v| {
            let r = rated.get(&v.id);
            BoardRow {
                rank: 0,
                bot: v.bot.clone(),
                author: authors.get(&v.bot_id).cloned().unwrap_or_default(),
                version: v.seq,
                version_id: v.id,
                rating: r.map_or(settings.initial_rating, |r| r.rating),
                deviation: r.map_or(settings.initial_deviation, |r| r.deviation),
                bt_elo: r.and_then(|r| r.bt_elo),
                interval: r.and_then(|r| Some([r.bt_lo?, r.bt_hi?])),
                games: r.map_or(0, |r| r.games),
                wins: r.map_or(0, |r| r.wins),
                draws: r.map_or(0, |r| r.draws),
                losses: r.map_or(0, |r| r.losses),
                last_game: r.map(|r| r.last_game),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        b.rating
            .total_cmp(&a.rating)
            .then_with(|| a.bot.cmp(&b.bot))
    });
    for (i, r) in rows.iter_mut().enumerate() {
        r.rank = i + 1;
    }
    Ok(rows)
}
