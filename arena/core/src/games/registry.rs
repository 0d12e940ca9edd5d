//! The registry: every game arena knows, by wire name. The referee, `arena
//! match`, `check-bot`, `show`, `play`, the HTML report, the bench, the
//! Python package and the help texts all loop over [`GAMES`]; each game's
//! [`GameEntry`] is built in the game's own module, and adding a game is
//! that module and one line here.

use super::{dakon_view, latrunculi_view};
use super::{AnyGame, GameEntry, ParamError};

/// Every game arena knows, in the order the front ends list them. Add a
/// game here.
pub const GAMES: &[GameEntry] = &[
    dakon_view::ENTRY,
    latrunculi_view::ENTRY,
    #[cfg(any(test, feature = "nim"))]
    super::nim::ENTRY,
];

/// The entry of the game called `name`.
pub fn entry(name: &str) -> Result<&'static GameEntry, ParamError> {
    GAMES
        .iter()
        .find(|g| g.name == name)
        .ok_or_else(|| ParamError::UnknownGame {
            name: name.to_string(),
            known: GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", "),
        })
}

/// Builds a game by its wire name from `key=value` parameters.
pub fn new_game(name: &str, params: &[(String, String)]) -> Result<Box<dyn AnyGame>, ParamError> {
    (entry(name)?.new)(params)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Start;

    #[test]
    fn every_entry_builds_its_game_draws_it_and_checks_it() {
        for g in GAMES {
            let game = (g.new)(&[]).expect("default parameters");
            assert_eq!(game.name(), g.name);
            let state = game.initial_state().to_string();
            let board = (g.draw)(&state, Some(["a", "b"])).expect("the initial state draws");
            assert!(!board.is_empty());
            for p in (g.check_positions)(1) {
                let game = (g.new)(&p.params).expect(&p.label);
                let mut state = match &p.start {
                    Start::Moves(_) => game.initial_state(),
                    Start::State(text) => game.parse_state(text).expect(&p.label),
                };
                if let Start::Moves(moves) = &p.start {
                    for m in moves {
                        state.play(m).expect(&p.label);
                    }
                }
                assert!(state.outcome().is_none(), "{}: game over", p.label);
                assert!(p.seat < 2 && p.max_decisions > 0, "{}", p.label);
            }
        }
        assert!(entry("chess")
            .unwrap_err()
            .to_string()
            .contains("known games: dakon"));
    }

    /// What the front ends read from an entry besides its rules holds
    /// together: one entry per name, drawer keys that do not collide, the
    /// derived defaults among the game's parameters, every drawer a
    /// JavaScript expression the report can assign.
    #[test]
    fn entries_are_consistent_for_the_front_ends() {
        let mut names: Vec<_> = GAMES.iter().map(|g| g.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), GAMES.len(), "a name twice in GAMES");
        assert!(names.contains(&"nim"), "nim is registered in tests");
        let mut keys = Vec::new();
        for g in GAMES {
            assert!(!g.long_name.is_empty(), "{}", g.name);
            let params = g.default_game().params();
            for key in g.derived_defaults {
                assert!(params.iter().any(|(k, _)| k == key), "{}: {key}", g.name);
            }
            if let Some(d) = g.replay_drawer {
                assert!(!keys.contains(&d.key), "drawer key {} twice", d.key);
                keys.push(d.key);
                let script = d.script.trim();
                assert!(
                    script.starts_with("//") || script.starts_with('('),
                    "{}",
                    g.name
                );
                assert!(script.ends_with(')'), "{}: an expression, no `;`", g.name);
            }
            if let Some(t) = g.playout_target {
                assert!(t.is_finite() && t > 0.0, "{}", g.name);
            }
        }
        let nim = entry("nim").unwrap();
        assert!(nim.replay_drawer.is_none() && nim.playout_target.is_none());
    }
}
