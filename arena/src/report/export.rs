//! A run's games for other rating tools: PGN with the tags Ordo, BayesElo
//! and pentanomial tools read, and the minimal results CSV that `arena
//! ratings` reads back ([`crate::store::ResultColumns`]).
//!
//! Both keep the games in file order (a run's schedule order) and number
//! the seat-swapped pairs from 1 by first appearance: game 2 of pair 3 is
//! PGN round `3.2`, CSV `pair` 3.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use crate::store::{self, GameLine, LoadError, Manifest};
use arena_core::record::{csv_cell, GameResult};

/// What can be exported to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PGN: the Seven Tag Roster, `Termination`, `PlyCount`, a comment as
    /// movetext.
    Pgn,
    /// `seat0,seat1,result,round,pair`.
    Csv,
}

/// Why an export failed.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The games file could not be read.
    #[error(transparent)]
    Load(#[from] LoadError),
    /// The output could not be written.
    #[error("writing: {0}")]
    Write(#[from] io::Error),
}

/// One game as exported.
struct Game {
    round: u64,
    pair: u64,
    seats: [String; 2],
    result: GameResult,
    /// `None`: not known (a results file from elsewhere).
    game: Option<String>,
    reason: Option<&'static str>,
    plies: Option<usize>,
}

/// The run the games came from, for the PGN tags that describe it.
struct Run {
    event: String,
    site: String,
    date: String,
}

impl Run {
    /// From the manifest beside the games file, if there is one: the run's
    /// name, the host and date of its first sitting. PGN's unknowns
    /// (`?`, `????.??.??`) otherwise.
    fn of(games: &Path) -> Run {
        let dir = games.parent().unwrap_or(Path::new("."));
        // A games file away from its run directory (or beside a manifest
        // that cannot be read) has no description: the PGN unknowns.
        let manifest = Manifest::read(dir).ok().flatten();
        let stem = games
            .file_stem()
            .map_or_else(|| "arena".to_string(), |s| s.to_string_lossy().into_owned());
        let first = manifest.as_ref().and_then(|m| m.sittings.first());
        let date = first
            .and_then(|s| s.started.get(..10))
            .filter(|d| d.as_bytes().get(4) == Some(&b'-'))
            .map_or_else(|| "????.??.??".to_string(), |d| d.replace('-', "."));
        Run {
            event: manifest.as_ref().map_or(stem, |m| m.name.clone()),
            site: first.map_or_else(|| "?".to_string(), |s| s.host.clone()),
            date,
        }
    }
}

/// A PGN tag value: quotes and backslashes escaped as the PGN standard
/// says (8.1.1), line breaks made spaces (Ordo reads a tag per line).
fn pgn_string(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => "\\\"".to_string(),
            '\\' => "\\\\".to_string(),
            '\n' | '\r' | '\t' => " ".to_string(),
            c => c.to_string(),
        })
        .collect()
}

/// Writes the games of `input` (a run directory, `games.jsonl`,
/// `games.csv` or a results file) to `out` in `format`; returns how many.
pub fn export(input: &Path, format: Format, out: &mut dyn Write) -> Result<u64, ExportError> {
    let file = store::games_file(input)?;
    let run = Run::of(&file);
    let mut games = Vec::new();
    // Pair numbers from 1 by first appearance, and each game's place in
    // its pair.
    let mut pairs: HashMap<u64, (u64, u64)> = HashMap::new();
    let mut number = |pair: u64| {
        let next = pairs.len() as u64 + 1;
        let p = pairs.entry(pair).or_insert((next, 0));
        p.1 += 1;
        *p
    };
    store::scan_games(&file, |g| {
        let (pair, seats, result, round, game, reason, plies) = match g {
            GameLine::Record(r) => (
                r.pair,
                [r.seats[0].name.clone(), r.seats[1].name.clone()],
                r.result,
                r.round,
                Some(r.game.clone()),
                Some(r.reason.as_str()),
                Some(r.moves.len()),
            ),
            GameLine::Row(r) => (
                r.pair,
                [
                    arena_core::record::csv_text(&r.seat0).to_string(),
                    arena_core::record::csv_text(&r.seat1).to_string(),
                ],
                r.result,
                r.round,
                Some(r.game.clone()),
                Some(r.reason.as_str()),
                Some(r.plies),
            ),
            GameLine::Result(r) => (r.pair, r.seats.clone(), r.result, r.round, None, None, None),
        };
        let (pair, nth) = number(pair);
        games.push((
            nth,
            Game {
                round,
                pair,
                seats,
                result,
                game,
                reason,
                plies,
            },
        ));
    })?;
    match format {
        Format::Pgn => {
            for (nth, g) in &games {
                write_pgn(out, &run, g, *nth)?;
            }
        }
        Format::Csv => {
            let mut w = csv::Writer::from_writer(&mut *out);
            w.write_record(["seat0", "seat1", "result", "round", "pair"])
                .map_err(io::Error::from)?;
            for (_, g) in &games {
                w.write_record([
                    csv_cell(&g.seats[0]).as_ref(),
                    csv_cell(&g.seats[1]).as_ref(),
                    g.result.as_str(),
                    &g.round.to_string(),
                    &g.pair.to_string(),
                ])
                .map_err(io::Error::from)?;
            }
            w.flush()?;
        }
    }
    out.flush()?;
    Ok(games.len() as u64)
}

/// One game in PGN: seat 0 is White. Ordo reads a tag wherever a line has
/// `[White "`, so nothing else here may hold one: the comment has only
/// the game's name, length and reason.
fn write_pgn(out: &mut dyn Write, run: &Run, g: &Game, nth: u64) -> io::Result<()> {
    let tags = [
        ("Event", run.event.clone()),
        ("Site", run.site.clone()),
        ("Date", run.date.clone()),
        ("Round", format!("{}.{nth}", g.pair)),
        ("White", g.seats[0].clone()),
        ("Black", g.seats[1].clone()),
        ("Result", g.result.as_str().to_string()),
    ];
    for (tag, value) in tags {
        writeln!(out, "[{tag} \"{}\"]", pgn_string(&value))?;
    }
    if let Some(reason) = g.reason {
        // PGN's Termination words where they exist, arena's otherwise.
        let termination = match reason {
            "normal" => "normal",
            "adjudicated" => "adjudication",
            "timeout" => "time forfeit",
            other => other,
        };
        writeln!(out, "[Termination \"{termination}\"]")?;
    }
    if let Some(plies) = g.plies {
        writeln!(out, "[PlyCount \"{plies}\"]")?;
    }
    writeln!(out)?;
    let mut comment = vec![format!("round {}", g.round)];
    if let (Some(game), Some(plies), Some(reason)) = (&g.game, g.plies, g.reason) {
        comment.insert(
            0,
            format!("{} game, {plies} plies, {reason}", pgn_comment(game)),
        );
    }
    writeln!(out, "{{{}}} {}", comment.join("; "), g.result.as_str())?;
    writeln!(out)
}

/// Text safe in a PGN comment: no closing brace, no brackets (a line
/// holding `[White "` would be a tag to Ordo).
fn pgn_comment(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '{' | '}' | '[' | ']' | '"' | '\n' | '\r'))
        .collect()
}
