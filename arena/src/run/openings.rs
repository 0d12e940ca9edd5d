//! Opening suites: files of openings (one per line, the moves from the
//! initial position), checked at load; which opening each pair of a
//! schedule plays; the suites shipped with arena (the default of the
//! standard variants); and `arena openings`, which writes suites.
//!
//! A suite file: one opening per line, its moves in protocol notation,
//! separated by spaces; `#` starts a comment (to the end of the line); lines
//! with no moves are skipped. Every opening must be legal from the initial
//! position of the game with the run's parameters, and must not end the
//! game; no two openings may lead to the same position.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::schedule::GameJob;
use crate::settings::{Order, SuiteSpec};
use arena_core::games::{AnyGame, AnyState};

/// The largest suite file arena reads.
pub const MAX_SUITE_BYTES: u64 = 16 << 20;

/// The random plies of a variant without a shipped suite.
pub const DEFAULT_RANDOM_PLIES: u32 = 4;

/// What a config or command line asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningChoice {
    /// The shipped suite of a standard variant, else
    /// [`DEFAULT_RANDOM_PLIES`] random plies.
    Default,
    /// Only the initial position.
    None,
    /// This many random plies, drawn from each pair's seed.
    Plies(u32),
    /// A suite file (`path` resolved; `written` as given).
    File {
        /// The suite file, resolved against the config's directory.
        path: PathBuf,
        /// The path as the user wrote it, for messages and the manifest.
        written: String,
        /// How its openings are dealt to the pairs.
        order: Order,
        /// The line (from 1) dealing starts at.
        start: u32,
    },
}

/// What a run plays: random plies (0: none) or a suite. The default is
/// the initial position only.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Resolved {
    /// Random plies each pair opens with (0: none).
    pub random_plies: u32,
    /// The opening suite, read and checked.
    pub suite: Option<SuiteSpec>,
}

/// A suite line that is not an opening of this game: file, line and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {why}")]
pub struct SuiteError {
    /// The suite file, as written.
    pub file: String,
    /// From 1; 0 for the file as a whole.
    pub line: usize,
    /// What is wrong with the line.
    pub why: String,
}

/// A shipped suite: its file name under `tournaments/openings/`, the game
/// and rule parameters it was made for, and its text (built into arena).
pub struct Shipped {
    /// Its file name under `tournaments/openings/`.
    pub name: &'static str,
    /// The game it was made for.
    pub game: &'static str,
    /// The rule parameters that must match (adjudication parameters such as
    /// `max_plies` may differ: every line is checked against them at load).
    pub rules: &'static [(&'static str, &'static str)],
    /// The suite's text, built into arena so that it need not be found on disk.
    pub text: &'static str,
}

/// The suites of the standard variants.
pub const SHIPPED: &[Shipped] = &[
    Shipped {
        name: "dakon-7.txt",
        game: "dakon",
        rules: &[
            ("holes", "7"),
            ("seeds", "7"),
            ("nembak_takes_lander", "false"),
        ],
        text: include_str!("../../../tournaments/openings/dakon-7.txt"),
    },
    Shipped {
        name: "dakon-5.txt",
        game: "dakon",
        rules: &[
            ("holes", "5"),
            ("seeds", "5"),
            ("nembak_takes_lander", "false"),
        ],
        text: include_str!("../../../tournaments/openings/dakon-5.txt"),
    },
    Shipped {
        name: "latrunculi-8x8.txt",
        game: "latrunculi",
        rules: &[("width", "8"), ("height", "8"), ("pieces", "16")],
        text: include_str!("../../../tournaments/openings/latrunculi-8x8.txt"),
    },
];

/// The shipped suite of `game`'s variant, if it is a standard one.
pub fn shipped_for(game: &dyn AnyGame) -> Option<&'static Shipped> {
    let params = game.params();
    SHIPPED.iter().find(|s| {
        s.game == game.name()
            && s.rules
                .iter()
                .all(|(k, v)| params.iter().any(|(pk, pv)| pk == k && pv == v))
    })
}

/// The moves of each opening of suite `text` (named `file` in errors), every
/// line checked: legal moves of `game` from its initial position, the game
/// not over after them, no position twice.
pub fn parse_suite(file: &str, text: &str, game: &dyn AnyGame) -> Result<Vec<String>, SuiteError> {
    let err = |line: usize, why: String| SuiteError {
        file: file.to_string(),
        line,
        why,
    };
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or("");
        let moves: Vec<&str> = body.split_whitespace().collect();
        if moves.is_empty() {
            continue;
        }
        let state = play_line(game, &moves).map_err(|why| err(line, why))?;
        if let Some(first) = seen.insert(state.to_string(), line) {
            return Err(err(
                line,
                format!("leads to the same position as line {first}: an opening suite holds every position once"),
            ));
        }
        out.push(moves.join(" "));
    }
    if out.is_empty() {
        return Err(err(0, "holds no openings".into()));
    }
    Ok(out)
}

/// Plays `moves` from the initial position; the state, or why not.
fn play_line(game: &dyn AnyGame, moves: &[&str]) -> Result<Box<dyn AnyState>, String> {
    let mut state = game.initial_state();
    for (k, mv) in moves.iter().enumerate() {
        if state.outcome().is_some() {
            return Err(format!(
                "move {} `{mv}`: the game is already over after {k} moves",
                k + 1
            ));
        }
        state.play(mv).map_err(|e| {
            format!(
                "move {} `{}` is not legal in {} ({}): {e}",
                k + 1,
                crate::display::escape(mv),
                game.name(),
                params_text(game)
            )
        })?;
    }
    if state.outcome().is_some() {
        return Err(format!(
            "the game is over after these {} moves: an opening must leave a game to play",
            moves.len()
        ));
    }
    Ok(state)
}

/// `k=v k=v` of a game's parameters.
pub fn params_text(game: &dyn AnyGame) -> String {
    game.params()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads and checks a suite file.
pub fn load_suite(
    path: &Path,
    written: &str,
    game: &dyn AnyGame,
) -> Result<Vec<String>, SuiteError> {
    let bytes = crate::store::read_bounded(path, MAX_SUITE_BYTES).map_err(|e| SuiteError {
        file: written.to_string(),
        line: 0,
        why: e.to_string(),
    })?;
    let text = String::from_utf8(bytes).map_err(|e| SuiteError {
        file: written.to_string(),
        line: 0,
        why: format!("not UTF-8 text: {e}"),
    })?;
    parse_suite(written, &text, game)
}

/// What `choice` means for `game`: a suite read and checked, or random plies.
pub fn resolve(choice: &OpeningChoice, game: &dyn AnyGame) -> Result<Resolved, SuiteError> {
    Ok(match choice {
        OpeningChoice::None => Resolved {
            random_plies: 0,
            suite: None,
        },
        OpeningChoice::Plies(k) => Resolved {
            random_plies: *k,
            suite: None,
        },
        OpeningChoice::Default => match shipped_for(game) {
            Some(s) => {
                let file = format!("builtin:{}", s.name);
                Resolved {
                    random_plies: 0,
                    suite: Some(SuiteSpec {
                        lines: parse_suite(&file, s.text, game)?,
                        file,
                        order: Order::Random,
                        start: 1,
                    }),
                }
            }
            None => Resolved {
                random_plies: DEFAULT_RANDOM_PLIES,
                suite: None,
            },
        },
        OpeningChoice::File {
            path,
            written,
            order,
            start,
        } => {
            let lines = load_suite(path, written, game)?;
            if *start == 0 || *start as usize > lines.len() {
                return Err(SuiteError {
                    file: written.clone(),
                    line: 0,
                    why: format!(
                        "start = {start}, but the suite holds {} openings (start counts from 1)",
                        lines.len()
                    ),
                });
            }
            Resolved {
                random_plies: 0,
                suite: Some(SuiteSpec {
                    file: written.clone(),
                    order: *order,
                    start: *start,
                    lines,
                }),
            }
        }
    })
}

/// The suite line (index into `lines`) of each pair `0..pairs`: dealt
/// without replacement in the suite's order from `start`; once every line
/// was dealt, dealing starts over (a fresh permutation for `random`).
pub fn deal(spec: &SuiteSpec, seed: u64, pairs: u64) -> Vec<u32> {
    let n = spec.lines.len();
    let skip = spec.start.saturating_sub(1) as u64;
    let want = pairs + skip;
    let mut out: Vec<u32> = Vec::with_capacity(want as usize);
    match spec.order {
        Order::Sequential => out.extend((0..want).map(|i| (i % n as u64) as u32)),
        Order::Random => {
            // Its own stream (mixed with a constant): the schedule's stream
            // stays what it was without openings.
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x7375_6974_6564_6561);
            let mut perm: Vec<u32> = (0..n as u32).collect();
            while (out.len() as u64) < want {
                for i in (1..n).rev() {
                    let j = rng.random_range(0..=i);
                    perm.swap(i, j);
                }
                out.extend_from_slice(&perm);
            }
            out.truncate(want as usize);
        }
    }
    out.drain(..skip as usize);
    out
}

/// Sets each job's suite line (`GameJob::opening`) from its pair.
pub fn assign(jobs: &mut [GameJob], spec: Option<&SuiteSpec>, seed: u64) {
    let Some(spec) = spec else { return };
    let pairs = jobs.iter().map(|j| j.pair + 1).max().unwrap_or(0);
    let dealt = deal(spec, seed, pairs);
    for j in jobs {
        j.opening = Some(dealt[j.pair as usize]);
    }
}

/// The opening moves of `job`: its suite line, or the random plies of its
/// seed (the referee plays these; records are checked against them).
pub fn moves_for(
    suite: Option<&SuiteSpec>,
    random_plies: u32,
    game: &dyn AnyGame,
    job: &GameJob,
) -> Vec<String> {
    match (suite, job.opening) {
        (Some(s), Some(i)) => s.lines[i as usize].split(' ').map(str::to_string).collect(),
        _ => super::schedule::random_opening(game, job.seed, random_plies),
    }
}

/// Why `rec`'s opening is not the one the schedule has for `job` (the
/// `opening_plies` and the first moves), if it is not.
pub fn check_opening(
    rec: &arena_core::record::GameRecord,
    job: &GameJob,
    config: &crate::settings::Normalized,
) -> Option<String> {
    // The game was checked against the config already; one that cannot be
    // built is not this run's, and the other checks said so.
    let game = arena_core::games::new_game(&config.game, &config.params).ok()?;
    let want = moves_for(
        config.openings.as_ref(),
        config.random_opening_plies,
        &*game,
        job,
    );
    let got: Vec<&str> = rec
        .moves
        .iter()
        .take(rec.opening_plies)
        .map(|m| m.mv.as_str())
        .collect();
    (rec.opening_plies != want.len() || got != want).then(|| {
        format!(
            "opening is `{}` ({} plies), but the schedule of this config and seed says `{}` ({} plies{})",
            crate::display::escape(&got.join(" ")),
            rec.opening_plies,
            want.join(" "),
            want.len(),
            match (&config.openings, job.opening) {
                (Some(s), Some(i)) => format!(", opening {} of {}", i + 1, s.file),
                _ => String::new(),
            }
        )
    })
}

/// The warning of a schedule of `pairs` pairs that needs more openings than
/// its suite holds, if it does.
pub fn reuse_warning(spec: Option<&SuiteSpec>, pairs: u64) -> Option<String> {
    let spec = spec?;
    let n = spec.lines.len() as u64;
    (pairs > n).then(|| {
        format!(
            "the schedule has {pairs} pairs of games but the opening suite {} holds {n} openings: \
             pairs after the first {n} replay openings already played (each up to {} times); \
             use a larger suite (arena openings --count {pairs}) or fewer games",
            spec.file,
            pairs.div_ceil(n)
        )
    })
}

// ---------------------------------------------------------------------------
// Making suites (`arena openings`).

/// What `arena openings` is asked to make.
#[derive(Clone, Debug)]
pub struct GenerateOptions {
    /// Openings to make.
    pub count: usize,
    /// Plies from `plies.0` to `plies.1` (drawn uniformly per candidate),
    /// after the set-up phase unless `allow_setup`.
    pub plies: (u32, u32),
    /// The seed candidates are drawn from: the same seed, the same suite.
    pub seed: u64,
    /// Keep only openings the reference search finds close to even.
    pub balanced: Option<Balance>,
    /// Count plies from the initial position and allow openings that end
    /// inside the set-up phase (Ludus latrunculorum's placement).
    pub allow_setup: bool,
    /// Give up after this many candidates.
    pub max_candidates: u64,
}

/// The `--balanced` criterion: the reference search's value of the
/// position for seat 0 ([`arena_core::search::reference_value`]: minimax
/// with alpha-beta to `depth` plies, material difference at the leaves)
/// within `margin` either way (seat 1's value is its negation, so both
/// seats are within the margin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Balance {
    /// Plies the reference search looks ahead.
    pub depth: u32,
    /// How far from 0 (in material) the position's value may be.
    pub margin: i32,
}

impl Balance {
    /// The default depth and margin of a game: a search of a fraction of a
    /// second per candidate on a loaded machine.
    pub fn default_for(game: &dyn AnyGame) -> Balance {
        match game.name() {
            "dakon" => Balance {
                depth: 8,
                margin: 2,
            },
            "latrunculi" => Balance {
                depth: 3,
                margin: 0,
            },
            _ => Balance {
                depth: 4,
                margin: 0,
            },
        }
    }
}

/// What making a suite found.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    /// The openings kept, in the order found.
    pub lines: Vec<String>,
    /// Candidates drawn.
    pub tried: u64,
    /// Candidates refused: same position as one already seen, ...
    pub duplicates: u64,
    /// ... the game over or no move left before the plies were played, ...
    pub ended: u64,
    /// ... judged not close to even.
    pub unbalanced: u64,
    /// The reference values of every candidate evaluated (for the spread).
    pub values: Vec<i32>,
}

impl Generated {
    /// `min / 10% / median / 90% / max` of `values`.
    pub fn spread(values: &[i32]) -> String {
        if values.is_empty() {
            return "none".into();
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
        format!(
            "min {} / 10% {} / median {} / 90% {} / max {}",
            q(0.0),
            q(0.1),
            q(0.5),
            q(0.9),
            q(1.0)
        )
    }

    /// How many kept values fall at each value, `value:count` ascending.
    pub fn histogram(values: &[i32]) -> String {
        let mut h: BTreeMap<i32, u64> = BTreeMap::new();
        for &v in values {
            *h.entry(v).or_default() += 1;
        }
        h.iter()
            .map(|(v, c)| format!("{v}:{c}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Makes a suite: candidates are random games of the drawn length (a move
/// that would end the game is never drawn), from a ChaCha8 stream seeded
/// with `seed`; a candidate is refused when it leads to a position already
/// seen, when it cannot be played to its length, and, with `balanced`, when
/// the reference search's value is outside the margin. Stops at `count`
/// openings, `max_candidates` candidates, or [`STALL`] candidates in a row
/// without a new opening.
pub fn generate(game: &dyn AnyGame, opts: &GenerateOptions) -> Generated {
    let mut rng = ChaCha8Rng::seed_from_u64(opts.seed);
    let mut seen: std::collections::HashSet<String> = Default::default();
    let mut out = Generated::default();
    let mut since_kept = 0u64;
    while out.lines.len() < opts.count && out.tried < opts.max_candidates {
        // A variant with fewer openings than asked for would otherwise draw
        // duplicates up to the candidate cap.
        if since_kept >= STALL {
            break;
        }
        out.tried += 1;
        since_kept += 1;
        let plies = rng.random_range(opts.plies.0..=opts.plies.1);
        let mut state = game.initial_state();
        let mut moves: Vec<String> = Vec::new();
        let mut played = 0;
        let mut stuck = false;
        while played < plies || (!opts.allow_setup && state.in_setup()) {
            let candidates = super::schedule::moves_that_go_on(&*state);
            if candidates.is_empty() {
                stuck = true;
                break;
            }
            let setup = state.in_setup();
            let mv = candidates[rng.random_range(0..candidates.len())].clone();
            state.play(&mv).expect("a legal move plays");
            moves.push(mv);
            if opts.allow_setup || !setup {
                played += 1;
            }
        }
        if stuck || state.outcome().is_some() {
            out.ended += 1;
            continue;
        }
        if !seen.insert(state.to_string()) {
            out.duplicates += 1;
            continue;
        }
        if let Some(b) = opts.balanced {
            let v = state.reference_value(b.depth);
            out.values.push(v);
            if v.abs() > b.margin {
                out.unbalanced += 1;
                continue;
            }
        }
        out.lines.push(moves.join(" "));
        since_kept = 0;
    }
    out
}

/// `generate` gives up after this many candidates in a row without a new
/// opening kept.
pub const STALL: u64 = 100_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn nim() -> Box<dyn AnyGame> {
        arena_core::games::new_game("nim", &[("stones".into(), "9".into())]).unwrap()
    }

    fn spec(n: usize, order: Order, start: u32) -> SuiteSpec {
        SuiteSpec {
            file: "x".into(),
            order,
            start,
            lines: (0..n).map(|i| i.to_string()).collect(),
        }
    }

    #[test]
    fn dealing_is_without_replacement_until_the_suite_runs_out() {
        for order in [Order::Random, Order::Sequential] {
            let s = spec(5, order, 1);
            let d = deal(&s, 7, 12);
            assert_eq!(d.len(), 12);
            for cycle in d.chunks(5) {
                let set: std::collections::BTreeSet<u32> = cycle.iter().copied().collect();
                assert_eq!(set.len(), cycle.len(), "{order}: {d:?}");
            }
            assert_eq!(d, deal(&s, 7, 12), "seeded");
        }
        assert_eq!(
            deal(&spec(4, Order::Sequential, 3), 1, 5),
            vec![2, 3, 0, 1, 2]
        );
        assert_ne!(
            deal(&spec(50, Order::Random, 1), 1, 50),
            deal(&spec(50, Order::Random, 1), 2, 50),
            "the seed orders a random suite"
        );
        assert!(reuse_warning(Some(&spec(5, Order::Random, 1)), 5).is_none());
        assert!(reuse_warning(Some(&spec(5, Order::Random, 1)), 6)
            .unwrap()
            .contains("holds 5 openings"));
    }

    #[test]
    fn a_generated_suite_reads_back_legal_and_without_duplicates() {
        let game = arena_core::games::new_game(
            "nim",
            &[("piles".into(), "3".into()), ("stones".into(), "4".into())],
        )
        .unwrap();
        let g = generate(
            &*game,
            &GenerateOptions {
                count: 10,
                plies: (1, 3),
                seed: 3,
                balanced: None,
                allow_setup: false,
                max_candidates: 10_000,
            },
        );
        assert_eq!(g.lines.len(), 10);
        let text = g.lines.join("\n") + "\n# a comment\n\n";
        let back = parse_suite("s.txt", &text, &*game).unwrap();
        assert_eq!(back, g.lines);
        assert!(
            g.duplicates > 0,
            "nim has few positions: duplicates were met"
        );
    }

    #[test]
    fn bad_lines_are_refused_with_file_and_line() {
        let game = nim();
        let cases = [
            ("# header\na1\nzz\n", 3, "not legal"),
            ("a1 a2\na2 a1 # again\n", 2, "same position as line 1"),
            ("a2 a2 a2 a2 a1\n", 1, "over"),
            ("# nothing\n", 0, "no openings"),
        ];
        for (text, line, why) in cases {
            let e = parse_suite("s.txt", text, &*game).unwrap_err();
            assert_eq!((e.file.as_str(), e.line), ("s.txt", line), "{text}: {e}");
            assert!(e.to_string().contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn the_shipped_suites_are_legal_and_large() {
        for s in SHIPPED {
            let params: Vec<(String, String)> = s
                .rules
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            let game = arena_core::games::new_game(s.game, &params).unwrap();
            assert_eq!(shipped_for(&*game).map(|x| x.name), Some(s.name));
            let lines = parse_suite(s.name, s.text, &*game).unwrap();
            assert!(lines.len() >= 500, "{}: {}", s.name, lines.len());
            assert!(s.text.contains("# made by: arena openings "), "{}", s.name);
            for l in &lines {
                let moves: Vec<&str> = l.split(' ').collect();
                let state = play_line(&*game, &moves).unwrap();
                assert!(!state.in_setup(), "{}: {l}", s.name);
            }
        }
        let other = arena_core::games::new_game("dakon", &[("holes".into(), "6".into())]).unwrap();
        assert!(shipped_for(&*other).is_none());
    }

    fn config(dir: &Path, game: &str, extra: &str) -> Result<super::super::config::Config, String> {
        let path = dir.join("t.toml");
        let text = format!(
            "game = \"{game}\"\nseed = 1\ngames = 4\n{extra}\n[time_control]\nmovetime_ms = 10\n\
             [[bots]]\nname = \"a\"\ncommand = [\"sh\"]\n[[bots]]\nname = \"b\"\ncommand = [\"sh\"]\n"
        );
        super::super::config::Config::parse(&path, &text).map_err(|e| e.to_string())
    }

    #[test]
    fn configs_choose_openings_and_default_to_the_shipped_suite() {
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path();
        let c = config(d, "dakon", "").unwrap();
        let suite = c.openings.as_ref().expect("the shipped suite");
        assert_eq!(suite.file, "builtin:dakon-7.txt");
        assert!(suite.lines.len() >= 500);
        assert_eq!(c.random_opening_plies, 0);
        let c5 = config(d, "dakon", "[params]\nholes = 5").unwrap();
        assert_eq!(c5.openings.unwrap().file, "builtin:dakon-5.txt");
        let l = config(d, "latrunculi", "").unwrap();
        assert_eq!(l.openings.unwrap().file, "builtin:latrunculi-8x8.txt");
        let other = config(d, "dakon", "[params]\nholes = 3").unwrap();
        assert_eq!((other.openings, other.random_opening_plies), (None, 4));
        let none = config(d, "dakon", "openings = \"none\"").unwrap();
        assert_eq!(
            (none.openings.clone(), none.random_opening_plies),
            (None, 0)
        );
        let alias = config(d, "dakon", "random_opening_plies = 2").unwrap();
        assert_eq!((alias.openings, alias.random_opening_plies), (None, 2));
        let plies = config(d, "dakon", "openings = { plies = 3 }").unwrap();
        assert_eq!((plies.openings, plies.random_opening_plies), (None, 3));
        assert!(config(
            d,
            "dakon",
            "openings = { plies = 3 }\nrandom_opening_plies = 2"
        )
        .unwrap_err()
        .contains("not both"));
        assert!(config(d, "dakon", "openings = { plies = 3 }")
            .map(|_| ())
            .is_ok());
        let odd = config(d, "dakon", "openings = { plies = 3 }")
            .map(|_| ())
            .and_then(|()| {
                let path = d.join("odd.toml");
                let text = "game = \"dakon\"\nseed = 1\ngames = 3\nopenings = { plies = 3 }\n\
                            [time_control]\nmovetime_ms = 10\n[[bots]]\nname = \"a\"\ncommand = [\"sh\"]\n\
                            [[bots]]\nname = \"b\"\ncommand = [\"sh\"]\n";
                super::super::config::Config::parse(&path, text)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
        assert!(odd.unwrap_err().contains("games: must be even"));

        // A suite file, relative to the config; its lines are in the
        // fingerprint, with its order and start.
        let game = arena_core::games::new_game("dakon", &[]).unwrap();
        let lines = &parse_suite("x", SHIPPED[0].text, &*game).unwrap()[..5];
        std::fs::create_dir(d.join("op")).unwrap();
        std::fs::write(d.join("op/s.txt"), lines.join("\n")).unwrap();
        let file = config(
            d,
            "dakon",
            "openings = { file = \"op/s.txt\", order = \"sequential\", start = 2 }",
        )
        .unwrap();
        let s = file.openings.clone().unwrap();
        assert_eq!(
            (s.file.as_str(), s.order, s.start, s.lines.len()),
            ("op/s.txt", Order::Sequential, 2, 5)
        );
        let fp = file.normalized().fingerprint();
        std::fs::write(d.join("op/s.txt"), lines[..4].join("\n")).unwrap();
        let fewer = config(
            d,
            "dakon",
            "openings = { file = \"op/s.txt\", order = \"sequential\", start = 2 }",
        )
        .unwrap();
        assert_ne!(fewer.normalized().fingerprint(), fp);
        assert_ne!(none.normalized().fingerprint(), fp);
        assert!(
            config(d, "dakon", "openings = { file = \"op/s.txt\", start = 9 }")
                .unwrap_err()
                .contains("start = 9")
        );
        assert!(
            config(d, "dakon", "openings = { file = \"op/missing.txt\" }")
                .unwrap_err()
                .contains("openings.file: op/missing.txt")
        );
        assert!(config(d, "dakon", "openings = \"sometimes\"")
            .unwrap_err()
            .contains("must be \"none\""));
    }
}
