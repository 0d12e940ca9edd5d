//! The games being played now, move by move, for the live page: a small
//! in-memory hub that each built-in worker's game feeds through the
//! referee's [`MoveFeed`] (every move as the referee records it), and that
//! `/live/events` streams to browsers as server-sent events.
//!
//! It holds only what is in progress in this process: a game leaves it when
//! it ends (its record is then in the database). Nothing here is stored or
//! trusted: it is a view. Games played by outside workers (leases over the
//! API) are not seen move by move; the live page lists them from the
//! database without a board.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use arena::referee::MoveFeed;
use serde::Serialize;
use tokio::sync::broadcast;

/// One move of a live game.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LiveMove {
    /// Who moved.
    pub seat: usize,
    /// The move, in protocol notation.
    #[serde(rename = "move")]
    pub mv: String,
    /// Wall time it took (0 for the opening's moves).
    pub ms: f64,
    /// The state after it.
    pub state: String,
    /// What it did, for the drawers (captures and such), when the game says.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub effects: serde_json::Value,
}

/// A game in progress.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LiveGame {
    /// The game's id (as in `/games/{id}`).
    pub id: i64,
    /// The game's name (`dakon`, ...).
    pub game: String,
    /// The replay viewer's drawer for it, if it has one.
    pub drawer: Option<&'static str>,
    /// The versions in seat 0 and seat 1.
    pub seats: [String; 2],
    /// The position before the first move.
    pub initial_state: String,
    /// The moves so far.
    pub moves: Vec<LiveMove>,
}

/// What the hub tells its listeners.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum LiveEvent {
    /// A game began.
    Start {
        /// It, with no moves yet.
        game: LiveGame,
    },
    /// A move was made.
    Move {
        /// In which game.
        id: i64,
        /// Its ply (1 for the first move).
        ply: usize,
        /// The move.
        #[serde(rename = "move")]
        mv: LiveMove,
    },
    /// A game ended (or went back to the queue).
    End {
        /// Which game.
        id: i64,
        /// `1-0`, ... or `None` when it was not finished here.
        result: Option<String>,
    },
}

/// How many events a slow listener may fall behind before it is sent the
/// whole picture again.
const BACKLOG: usize = 1024;

/// The hub: the games in progress and a channel of what happens to them.
pub struct Hub {
    games: Mutex<BTreeMap<i64, LiveGame>>,
    events: broadcast::Sender<LiveEvent>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Hub {
    /// An empty hub.
    pub fn new() -> Hub {
        Hub {
            games: Mutex::new(BTreeMap::new()),
            events: broadcast::channel(BACKLOG).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<i64, LiveGame>> {
        // A panic while holding it leaves a map that is still whole.
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A game begins; returns the feed its referee tells each move to.
    pub fn start(self: &Arc<Self>, game: LiveGame) -> MoveFeed {
        let id = game.id;
        self.lock().insert(id, game.clone());
        let _ = self.events.send(LiveEvent::Start { game });
        let hub = Arc::downgrade(self);
        MoveFeed(Arc::new(move |m| {
            if let Some(hub) = hub.upgrade() {
                hub.moved(id, m);
            }
        }))
    }

    fn moved(&self, id: i64, m: &arena_core::record::MoveRecord) {
        let mv = LiveMove {
            seat: m.seat,
            mv: m.mv.clone(),
            ms: m.ms,
            state: m.state.clone(),
            effects: m.effects.clone(),
        };
        let ply = {
            let mut games = self.lock();
            let Some(g) = games.get_mut(&id) else { return };
            g.moves.push(mv.clone());
            g.moves.len()
        };
        let _ = self.events.send(LiveEvent::Move { id, ply, mv });
    }

    /// A game ended (with its result) or was given back (`None`).
    pub fn end(&self, id: i64, result: Option<String>) {
        if self.lock().remove(&id).is_some() {
            let _ = self.events.send(LiveEvent::End { id, result });
        }
    }

    /// The games in progress, by id, and a receiver of what happens next
    /// (taken together, so nothing falls between the two).
    pub fn watch(&self) -> (Vec<LiveGame>, broadcast::Receiver<LiveEvent>) {
        let games = self.lock();
        let rx = self.events.subscribe();
        (games.values().cloned().collect(), rx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(id: i64) -> LiveGame {
        LiveGame {
            id,
            game: "nim".into(),
            drawer: None,
            seats: ["a.v1".into(), "b.v1".into()],
            initial_state: "3".into(),
            moves: Vec::new(),
        }
    }

    fn mv(state: &str) -> arena_core::record::MoveRecord {
        serde_json::from_value(serde_json::json!({
            "seat": 0, "move": "1", "ms": 2.0, "state": state,
        }))
        .unwrap()
    }

    #[test]
    fn moves_fed_reach_a_watcher_and_the_snapshot() {
        let hub = Arc::new(Hub::new());
        let (now, mut rx) = hub.watch();
        assert!(now.is_empty());
        let feed = hub.start(game(7));
        (feed.0)(&mv("2"));
        (feed.0)(&mv("1"));
        assert!(matches!(rx.try_recv().unwrap(), LiveEvent::Start { game } if game.id == 7));
        match rx.try_recv().unwrap() {
            LiveEvent::Move { id, ply, mv } => {
                assert_eq!((id, ply, mv.state.as_str()), (7, 1, "2"))
            }
            e => panic!("{e:?}"),
        }
        let (now, _) = hub.watch();
        assert_eq!(now[0].moves.len(), 2);
        hub.end(7, Some("1-0".into()));
        assert!(hub.watch().0.is_empty());
        // A move after the end (a late callback) changes nothing.
        (feed.0)(&mv("0"));
        assert!(hub.watch().0.is_empty());
    }
}
