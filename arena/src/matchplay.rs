//! `arena match`: N games between two bots with alternating seats, seeds
//! drawn from the match seed, records written to `games.jsonl` and
//! `games.csv` as each game finishes.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::bot::{BotSpec, Limits};
use crate::games::AnyGame;
use crate::rating::{Sprt, SprtParams, SprtStatus};
use crate::record::{CsvRow, GameRecord};
use crate::referee::{self, GameSetup, Player, TimeControl};

/// A match as asked for on the command line.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    pub game: Arc<dyn AnyGame>,
    pub bots: [Arc<BotSpec>; 2],
    pub games: u64,
    pub seed: u64,
    pub time: TimeControl,
    pub limits: Limits,
    pub keep_bots: bool,
    pub out: PathBuf,
    /// Stop as soon as this test of the first bot against the second
    /// decides (`games` is then a cap).
    pub sprt: Option<SprtParams>,
}

/// How a match went: the two bots' tallies, in `--bot` order, and the
/// sequential test when one was asked for.
#[derive(Clone, Debug)]
pub struct MatchSummary {
    pub tally: [Tally; 2],
    pub sprt: Option<Sprt>,
}

/// The per-game seeds of a match: pair `k` (games `2k` and `2k+1`, seats
/// swapped) plays on the `k`-th number drawn from ChaCha8 seeded with the
/// match seed.
pub fn game_seeds(match_seed: u64, games: u64) -> Vec<u64> {
    let mut rng = ChaCha8Rng::seed_from_u64(match_seed);
    let pair_seeds: Vec<u64> = (0..games.div_ceil(2)).map(|_| rng.random()).collect();
    (0..games).map(|i| pair_seeds[(i / 2) as usize]).collect()
}

/// Appends records to `games.jsonl` and `games.csv`, flushing after each.
pub struct RecordWriter {
    jsonl: BufWriter<File>,
    csv: csv::Writer<File>,
    pub jsonl_path: PathBuf,
    pub csv_path: PathBuf,
}

impl RecordWriter {
    /// Creates (or empties) both files in `dir`.
    pub fn create(dir: &Path) -> std::io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let jsonl_path = dir.join("games.jsonl");
        let csv_path = dir.join("games.csv");
        Ok(RecordWriter {
            jsonl: BufWriter::new(File::create(&jsonl_path)?),
            csv: csv::Writer::from_writer(File::create(&csv_path)?),
            jsonl_path,
            csv_path,
        })
    }

    pub fn write(&mut self, record: &GameRecord) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.jsonl, record)?;
        self.jsonl.write_all(b"\n")?;
        self.jsonl.flush()?;
        self.csv
            .serialize(CsvRow::from(record))
            .map_err(std::io::Error::other)?;
        self.csv.flush()
    }
}

/// Wins, draws and losses of one bot.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

impl Tally {
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }
    pub fn score(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }
}

/// Plays the match; `each` sees every record as it is finished (after it
/// was written), with the sequential test after it when one runs.
/// Fails only on a user mistake (a bot command that cannot be started at
/// all, an output directory that cannot be written), before any game.
pub async fn run_match(
    config: &MatchConfig,
    mut each: impl FnMut(&GameRecord, &[Tally; 2], Option<&Sprt>),
) -> Result<MatchSummary, String> {
    for spec in &config.bots {
        referee::check_command(spec, &config.limits).await?;
    }
    let mut writer = RecordWriter::create(&config.out)
        .map_err(|e| format!("cannot write to {}: {e}", config.out.display()))?;
    let mut players = [
        Player::new(config.bots[0].clone()),
        Player::new(config.bots[1].clone()),
    ];
    let mut tally = [Tally::default(); 2];
    let mut sprt = config.sprt.map(Sprt::new);
    // The first bot's points in the first game of the current pair.
    let mut pair_first = 0.0;
    let seeds = game_seeds(config.seed, config.games);
    let mut failed = None;
    for (index, seed) in (0..config.games).zip(seeds) {
        let setup = GameSetup {
            game: config.game.clone(),
            index,
            round: index / 2,
            pair: index / 2,
            seed,
            opening: Vec::new(),
            time: config.time,
            log_dir: Some(config.out.join("logs")),
        };
        // Bot `b` sits in seat `(b + index) % 2`.
        let swap = index % 2 == 1;
        let [a, b] = &mut players;
        let seats = if swap { [b, a] } else { [a, b] };
        let record = referee::run_game(&setup, seats, config.keep_bots, &config.limits).await;
        for (seat, t) in [(0, 0), (1, 1)] {
            let who = if swap { 1 - t } else { t };
            let points = record.result.points(seat);
            let tl = &mut tally[who];
            match points {
                p if p > 0.75 => tl.wins += 1,
                p if p > 0.25 => tl.draws += 1,
                _ => tl.losses += 1,
            }
        }
        if let Err(e) = writer.write(&record) {
            failed = Some(format!(
                "cannot write the record of game {index} to {}: {e}",
                config.out.display()
            ));
            break;
        }
        let first_bot_points = record.result.points(usize::from(swap));
        let mut decided = false;
        if let Some(test) = sprt.as_mut() {
            if swap {
                decided = test.record_pair(pair_first, first_bot_points) != SprtStatus::Continue;
            } else {
                pair_first = first_bot_points;
            }
        }
        each(&record, &tally, sprt.as_ref().filter(|_| swap));
        if decided {
            break;
        }
    }
    for p in &mut players {
        p.release().await;
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(MatchSummary { tally, sprt }),
    }
}
