//! Ratings files: reads finished games (`games.csv` or `games.jsonl`) and
//! writes `ratings.csv`, `crosstable.csv` and `los.csv` from
//! [`crate::rating::Ratings`]. Column meanings and formulas:
//! `docs/statistics.md`.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::rating::groups::Place;
use crate::rating::{self, BotRating, Estimate, Played, Pool, PoolBuilder, RatingOptions, Ratings};
use crate::store::{self, GameLine, LoadError, RatingsRow};
use arena_core::record::{csv_text, CsvRow, GameRecord};

/// `ratings.csv` columns, in order. The first 16 are the stable schema;
/// columns may be added at the end, never removed or reordered.
pub const RATINGS_COLUMNS: [&str; 20] = [
    "bot",
    "games",
    "wins",
    "draws",
    "losses",
    "score_pct",
    "elo",
    "glicko",
    "glicko_rd",
    "glicko2",
    "glicko2_rd",
    "glicko2_vol",
    "bt_elo",
    "bt_lo",
    "bt_hi",
    "los_next",
    "score_lo",
    "score_hi",
    "bt_mle",
    "bt_note",
];

/// `crosstable.csv` columns: one row per pair that played, `bot` placed
/// above `opponent`, W-D-L from `bot`'s side.
pub const CROSSTABLE_COLUMNS: [&str; 27] = [
    "bot",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "score_pct",
    "score_lo",
    "score_hi",
    "seat0_games",
    "seat0_score_pct",
    "seat1_games",
    "seat1_score_pct",
    "ptnml_0",
    "ptnml_1",
    "ptnml_2",
    "ptnml_3",
    "ptnml_4",
    "unpaired",
    "elo",
    "elo_lo",
    "elo_hi",
    "los",
    "nelo",
    "nelo_lo",
    "nelo_hi",
    "draw_ratio",
];

/// The run's summary beside `ratings.csv`.
pub const SUMMARY: &str = "summary.json";

/// Why the ratings files could not be written.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {message}")]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// Text that a spreadsheet would take for a formula (leading `=`, `+`,
/// `-`, `@`, tab or carriage return) gets a leading `'`, as OWASP's CSV
/// injection advice says. Only bot names go through this: numbers are
/// written by us.
pub fn spreadsheet_safe(text: &str) -> Cow<'_, str> {
    arena_core::record::csv_cell(text)
}

/// Reads the games of `path` (a report directory, `games.csv` or
/// `games.jsonl`: [`store::games_file`]) as the ratings see them, one at a
/// time: what is kept per game is the pool's index, round, pair, seats and
/// result.
pub fn load_pool(path: &Path) -> Result<Pool, LoadError> {
    let mut b = PoolBuilder::default();
    store::scan_games(path, |g| match g {
        GameLine::Record(r) => b.add_keyed(
            r.index,
            r.round,
            r.pair,
            [&r.seats[0].name, &r.seats[1].name],
            r.result,
            Some(r.play_key()),
        ),
        GameLine::Row(r) => b.add(
            r.index,
            r.round,
            r.pair,
            [csv_text(&r.seat0), csv_text(&r.seat1)],
            r.result,
        ),
        GameLine::Result(r) => b.add(
            r.index,
            r.round,
            r.pair,
            [&r.seats[0], &r.seats[1]],
            r.result,
        ),
    })?;
    Ok(b.finish())
}

/// The Wilson interval of a record's score at level `confidence`, in
/// percent (draws half a point).
fn wilson_pct(t: &crate::rating::Tally, confidence: f64) -> Option<rating::stats::Interval> {
    rating::stats::wilson(t.points(), t.games() as f64, rating::z_of(confidence)).map(|i| {
        rating::stats::Interval {
            lo: 100.0 * i.lo,
            hi: 100.0 * i.hi,
        }
    })
}

fn opt(x: Option<f64>, decimals: usize) -> String {
    x.map_or_else(String::new, |v| format!("{v:.decimals$}"))
}

/// `ratings.csv`, strongest bot first.
pub fn write_ratings_csv<W: Write>(out: W, s: &Ratings) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(RATINGS_COLUMNS)?;
    for b in &s.bots {
        let r = &b.record;
        let wilson = wilson_pct(&b.evidence, s.confidence);
        w.write_record([
            spreadsheet_safe(&b.name).into_owned(),
            r.games().to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            opt(r.score_pct(), 2),
            format!("{:.1}", b.elo),
            format!("{:.1}", b.glicko),
            format!("{:.1}", b.glicko_rd),
            format!("{:.1}", b.glicko2),
            format!("{:.1}", b.glicko2_rd),
            format!("{:.6}", b.glicko2_vol),
            format!("{:.1}", b.bt_elo),
            opt(b.bt_interval.map(|i| i.lo), 1),
            opt(b.bt_interval.map(|i| i.hi), 1),
            opt(b.los_next, 4),
            opt(wilson.map(|i| i.lo), 2),
            opt(wilson.map(|i| i.hi), 2),
            b.bt_mle.as_str().to_string(),
            note(b),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// `crosstable.csv`: every pair that played.
pub fn write_crosstable_csv<W: Write>(out: W, s: &Ratings) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    w.write_record(CROSSTABLE_COLUMNS)?;
    for c in &s.crosstable {
        let r = &c.record;
        let wilson = wilson_pct(&c.evidence, s.confidence);
        let st = &c.stats;
        let [p0, p1, p2, p3, p4] = st.pentanomial.0.map(|x| x.to_string());
        let mut row = vec![
            spreadsheet_safe(&c.bot).into_owned(),
            spreadsheet_safe(&c.opponent).into_owned(),
            r.games().to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            opt(r.score_pct(), 2),
            opt(wilson.map(|i| i.lo), 2),
            opt(wilson.map(|i| i.hi), 2),
        ];
        for seat in &c.by_seat {
            row.push(seat.games().to_string());
            row.push(opt(seat.score_pct(), 2));
        }
        row.extend([p0, p1, p2, p3, p4, st.unpaired.to_string()]);
        row.extend([
            opt(st.elo.map(|e| e.elo), 1),
            opt(st.elo.map(|e| e.lo), 1),
            opt(st.elo.map(|e| e.hi), 1),
            opt(st.elo.map(|e| e.los), 4),
            opt(st.nelo.map(|e| e.0), 1),
            opt(st.nelo.map(|e| e.1.lo), 1),
            opt(st.nelo.map(|e| e.1.hi), 1),
            opt(st.draw_ratio, 4),
        ]);
        w.write_record(&row)?;
    }
    w.flush()?;
    Ok(())
}

/// `los.csv`: header `bot` then every bot in standings order; the cell in
/// row i, column j is the likelihood that i is stronger than j from their
/// head-to-head decisive games (empty on the diagonal and without
/// decisive games).
pub fn write_los_csv<W: Write>(out: W, s: &Ratings) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header = vec!["bot".to_string()];
    header.extend(
        s.bots
            .iter()
            .map(|b| spreadsheet_safe(&b.name).into_owned()),
    );
    w.write_record(&header)?;
    for (b, row) in s.bots.iter().zip(&s.los) {
        let mut rec = vec![spreadsheet_safe(&b.name).into_owned()];
        rec.extend(row.iter().map(|x| opt(*x, 4)));
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}

/// A finite number for JSON, else null (JSON has no infinity).
fn finite(x: Option<f64>) -> serde_json::Value {
    x.filter(|v| v.is_finite())
        .map_or(serde_json::Value::Null, |v| serde_json::json!(v))
}

/// The pool as a whole: its games, seat 0's score, and the first seat's
/// advantage (`summary.json`; `docs/statistics.md`, "Seat advantage").
pub fn summary_json(s: &Ratings) -> serde_json::Value {
    let seat = &s.seat;
    let interval = seat.interval;
    serde_json::json!({
        "confidence": s.confidence,
        "games": s.games,
        "repeats": s.repeats,
        "self_play": s.self_play,
        "seat0_wins": s.seat0_results[0],
        "draws": s.seat0_results[1],
        "seat1_wins": s.seat0_results[2],
        "seat0_score": finite(seat.pool_seat0_score()),
        "seat0_advantage_elo": finite(seat.elo),
        "seat0_advantage_lo": finite(interval.map(|i| i.lo)),
        "seat0_advantage_hi": finite(interval.map(|i| i.hi)),
        "seat0_advantage_games": seat.games,
        "seat0_advantage_note": seat_note(s),
        "ratings_fitted_with_seat": seat.eta() != 0.0,
    })
}

/// What the seat's estimate cannot say, in plain words (empty when it is
/// finite).
fn seat_note(s: &Ratings) -> String {
    let seat = &s.seat;
    let bound = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v:+.0}"));
    match seat.elo {
        None if seat.games == 0 => "no game between bots of one group: not estimated".into(),
        None => "no bot played both seats against the same opponents: the seat cannot be told \
                 from the bots; not estimated"
            .into(),
        Some(e) if e == f64::INFINITY => format!(
            "seat 0 scored every point: at least {} Elo",
            bound(seat.interval.map(|i| i.lo))
        ),
        Some(e) if e == f64::NEG_INFINITY => format!(
            "seat 1 scored every point: at most {} Elo",
            bound(seat.interval.map(|i| i.hi))
        ),
        Some(_) => String::new(),
    }
}

/// "95%", "99%", "99.9%": a confidence level as the console writes it.
pub fn level(confidence: f64) -> String {
    let pct = 100.0 * confidence;
    if (pct - pct.round()).abs() < 1e-9 {
        format!("{pct:.0}%")
    } else {
        format!("{}%", (pct * 1e6).round() / 1e6)
    }
}

/// The console's line on the seats.
pub fn seat_line(s: &Ratings) -> String {
    let seat = &s.seat;
    let score = seat.pool_seat0_score().map_or_else(String::new, |x| {
        format!(
            "seat 0 scored {:.1}% of {} games",
            100.0 * x,
            seat.pool_games
        )
    });
    let advantage = match (seat.elo, seat.interval) {
        (Some(e), Some(i)) if e.is_finite() => format!(
            "seat 0 advantage {e:+.1} Elo [{}, {}] ({} interval, {} games; bt_elo is fitted with it)",
            end_signed(i.lo),
            end_signed(i.hi),
            level(s.confidence),
            seat.games
        ),
        _ => format!("seat 0 advantage: {}", seat_note(s)),
    };
    if score.is_empty() {
        advantage
    } else {
        format!("{score}; {advantage}")
    }
}

/// An interval end with its sign, or `inf`.
fn end_signed(x: f64) -> String {
    if x.is_infinite() {
        end(x)
    } else {
        format!("{x:+.0}")
    }
}

/// Writes `ratings.csv`, `crosstable.csv`, `los.csv` and `summary.json`
/// into `dir` (created if missing; files mode 0600, as every file of a
/// run); returns their paths.
pub fn write_ratings_files(dir: &Path, s: &Ratings) -> Result<Vec<PathBuf>, WriteError> {
    type Writer = fn(&mut Vec<u8>, &Ratings) -> csv::Result<()>;
    let files: [(&str, Writer); 4] = [
        (store::RATINGS, |out, s| write_ratings_csv(out, s)),
        (store::CROSSTABLE, |out, s| write_crosstable_csv(out, s)),
        (store::LOS, |out, s| write_los_csv(out, s)),
        (SUMMARY, |out, s| {
            let mut text =
                serde_json::to_string_pretty(&summary_json(s)).expect("a JSON value serializes");
            text.push('\n');
            out.extend_from_slice(text.as_bytes());
            Ok(())
        }),
    ];
    let mut written = Vec::new();
    for (name, write) in files {
        let fail = |message: String| WriteError {
            path: dir.join(name),
            message,
        };
        let mut bytes = Vec::new();
        write(&mut bytes, s).map_err(|e| fail(e.to_string()))?;
        let path = store::write_file(dir, name, &bytes).map_err(|e| match e {
            store::StoreError::Io { path, source } => WriteError {
                path,
                message: source.to_string(),
            },
            other => fail(other.to_string()),
        })?;
        written.push(path);
    }
    Ok(written)
}

/// The ratings as the report draws them (what `ratings.csv` says, unrounded).
pub fn rows(s: &Ratings) -> Vec<RatingsRow> {
    s.bots
        .iter()
        .map(|b| RatingsRow {
            bot: b.name.clone(),
            bt_elo: Some(b.bt_elo),
            bt_lo: b.bt_interval.map(|i| i.lo),
            bt_hi: b.bt_interval.map(|i| i.hi),
            elo: Some(b.elo),
            glicko2: Some(b.glicko2),
            glicko2_rd: Some(b.glicko2_rd),
            glicko: Some(b.glicko),
            glicko_rd: Some(b.glicko_rd),
            los_next: b.los_next,
            bt_note: note(b),
        })
        .collect()
}

/// Rates `records` and writes the three files into `dir`: what a
/// tournament calls at the end.
pub fn write_ratings_for_records(
    dir: &Path,
    records: &[GameRecord],
    opts: &RatingOptions,
) -> Result<Ratings, WriteError> {
    let mut b = PoolBuilder::default();
    for r in records {
        b.add_keyed(
            r.index,
            r.round,
            r.pair,
            [&r.seats[0].name, &r.seats[1].name],
            r.result,
            Some(r.play_key()),
        );
    }
    let s = rating::compute_pool(&b.finish(), opts);
    write_ratings_files(dir, &s)?;
    Ok(s)
}

/// The same from `games.csv` rows (which hold no moves: no pair is taken
/// for a repeat).
pub fn write_ratings_for_rows(
    dir: &Path,
    rows: &[CsvRow],
    opts: &RatingOptions,
) -> Result<Ratings, WriteError> {
    let played: Vec<Played> = rows.iter().map(Played::from).collect();
    let s = rating::compute(&played, opts);
    write_ratings_files(dir, &s)?;
    Ok(s)
}

/// An interval end for the console: whole Elo, or `inf`.
fn end(x: f64) -> String {
    if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:.0}")
    }
}

/// What a bot's interval can say, in plain words: the console's note and
/// `ratings.csv`'s `bt_note` (empty for a bot of the main group).
pub fn note(b: &BotRating) -> String {
    let r = &b.record;
    let bound = |x: Option<f64>| x.map_or_else(String::new, |v| format!("{v:.0}"));
    match b.place {
        Place::Main => String::new(),
        Place::Reference => "anchor: the others are rated against it".into(),
        Place::Above if r.losses == 0 && r.draws == 0 => format!(
            "won every game: at least {}",
            bound(b.bt_interval.map(|i| i.lo))
        ),
        Place::Above => format!(
            "won every game against the bots below it: at least {}",
            bound(b.bt_interval.map(|i| i.lo))
        ),
        Place::Below if r.wins == 0 && r.draws == 0 => format!(
            "lost every game: at most {}",
            bound(b.bt_interval.map(|i| i.hi))
        ),
        Place::Below => format!(
            "lost every game against the bots above it: at most {}",
            bound(b.bt_interval.map(|i| i.hi))
        ),
        Place::Unordered => "no result orders it against the main group: no bound".into(),
        Place::Apart => "never met the main group, directly or through other bots: no bound".into(),
        Place::NoGames => "no rated games".into(),
    }
}

/// Where the scale's zero is, when that is worth saying: an anchor bot, or
/// a main group that is not the whole pool.
fn scale_line(s: &Ratings) -> Option<String> {
    let main: Vec<&BotRating> = s
        .bots
        .iter()
        .filter(|b| s.reference.contains(&b.name))
        .collect();
    let played = s.bots.iter().filter(|b| b.place != Place::NoGames).count();
    let mean = main.iter().map(|b| b.bt_elo).sum::<f64>() / main.len().max(1) as f64;
    let anchor = s
        .anchor_bot
        .as_ref()
        .and_then(|a| s.bots.iter().find(|b| &b.name == a));
    match (anchor, main.len()) {
        (Some(a), _) => Some(format!(
            "scale: {} at {:.0} (--anchor); the main group averages {mean:.0}",
            crate::display::escape(&a.name),
            a.bt_elo
        )),
        (None, m) if m > 0 && m < played => {
            Some(format!("scale: the main group averages {mean:.0}"))
        }
        _ => None,
    }
}

/// The standings as a fixed-width text table for the console: one row per
/// bot, ordered by the Bradley-Terry rating, with its 95% interval and the
/// likelihood of superiority over the bot below. (Elo, Glicko and
/// Glicko-2 are in `ratings.csv`.)
pub fn standings_table(s: &Ratings) -> String {
    let width = s
        .bots
        .iter()
        .map(|b| crate::display::escape(&b.name).chars().count())
        .max()
        .unwrap_or(3)
        .clamp(3, 40);
    let mut t = String::new();
    let header = format!(
        "{:>3} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>6} {:>7} {:>16} {:>11}  {}",
        "#",
        "bot",
        "games",
        "W",
        "D",
        "L",
        "score%",
        "bt_elo",
        format!("{} interval", level(s.confidence)),
        "LOS vs next",
        "note"
    );
    t.push_str(&header);
    t.push('\n');
    for (i, b) in s.bots.iter().enumerate() {
        let r = &b.record;
        let name: String = crate::display::escape(&b.name)
            .chars()
            .take(width)
            .collect();
        let interval = b
            .bt_interval
            .map_or_else(String::new, |i| format!("[{}, {}]", end(i.lo), end(i.hi)));
        let note = note(b);
        let line = format!(
            "{:>3} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>6} {:>7.1} {:>16} {:>11}  {}",
            i + 1,
            name,
            r.games(),
            r.wins,
            r.draws,
            r.losses,
            opt(r.score_pct(), 1),
            b.bt_elo,
            interval,
            opt(b.los_next, 3),
            note,
        );
        t.push_str(line.trim_end());
        t.push('\n');
    }
    let what = match s.estimate {
        Estimate::Mle => "Bradley-Terry maximum-likelihood fit (as Ordo)".to_string(),
        Estimate::Prior(p) => format!(
            "Bradley-Terry fit with {p} virtual draw{} per bot (--prior-draws)",
            if p == 1.0 { "" } else { "s" }
        ),
        Estimate::Groups => format!(
            "no maximum-likelihood fit of the whole pool exists (some bots won or lost every \
             game against the others); the main group, {} bots that won and lost points among \
             themselves, is fitted alone, and the bots above or below it are placed at their \
             one-sided bounds (note)",
            s.bots
                .iter()
                .filter(|b| matches!(b.place, Place::Main | Place::Reference))
                .count()
        ),
    };
    let _ = writeln!(t, "bt_elo: {what}");
    if let Some(line) = scale_line(s) {
        let _ = writeln!(t, "{line}");
    }
    let _ = writeln!(t, "{}", seat_line(s));
    let _ = writeln!(
        t,
        "{} interval: score test over seat-swapped pairs (inf: no bound); \
         LOS vs next: confidence that the bot is stronger than the next one",
        level(s.confidence)
    );
    let _ = write!(t, "{} games rated", s.games);
    if s.repeats > 0 {
        let _ = write!(
            t,
            " ({} of them in pairs that repeat an earlier pair move for move: counted once)",
            s.repeats
        );
    }
    if s.self_play > 0 {
        let _ = write!(t, ", {} self-play games left out", s.self_play);
    }
    t.push('\n');
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use arena_core::record::GameResult::*;

    fn games() -> Vec<Played> {
        let mk = |index: u64, a: &str, b: &str, result| Played {
            index,
            round: index / 2,
            pair: index / 2,
            bots: [a.into(), b.into()],
            result,
        };
        vec![
            mk(0, "=cmd|' /C calc'!A0", "plain, \"quoted\"", Seat0Wins),
            mk(1, "plain, \"quoted\"", "=cmd|' /C calc'!A0", Draw),
        ]
    }

    #[test]
    fn formula_like_names_are_defused_and_quoting_is_proper() {
        assert_eq!(spreadsheet_safe("=1+2"), "'=1+2");
        assert_eq!(spreadsheet_safe("-x"), "'-x");
        assert_eq!(spreadsheet_safe("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(spreadsheet_safe("alpha-beta"), "alpha-beta");
        let s = rating::compute(&games(), &RatingOptions::default());
        let mut out = Vec::new();
        write_ratings_csv(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut lines = text.lines();
        assert_eq!(lines.next().unwrap(), RATINGS_COLUMNS.join(","));
        assert!(
            text.contains("\n'=cmd|' /C calc'!A0,2,1,1,0,75.00,"),
            "{text}"
        );
        assert!(
            text.contains("\n\"plain, \"\"quoted\"\"\",2,0,1,1,25.00,"),
            "{text}"
        );

        let mut out = Vec::new();
        write_los_csv(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        // One decisive game: LOS = 0.5 (1 + erf(1/sqrt 2)) = 0.8413.
        assert_eq!(
            text,
            "bot,'=cmd|' /C calc'!A0,\"plain, \"\"quoted\"\"\"\n\
             '=cmd|' /C calc'!A0,,0.8413\n\
             \"plain, \"\"quoted\"\"\",0.1587,\n"
        );
        let mut out = Vec::new();
        write_crosstable_csv(&mut out, &s).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with(&CROSSTABLE_COLUMNS.join(",")));
        assert!(text.contains("\n'=cmd|' /C calc'!A0,\"plain, \"\"quoted\"\"\",2,1,1,0,75.00,"));
    }

    #[test]
    fn malformed_csv_rows_name_the_file_line_and_column() {
        let dir = std::env::temp_dir().join(format!("arena-ratings-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.csv");
        std::fs::write(
            &path,
            "index,game,seed,seat0,seat1,result,reason,plies,score0,score1,duration_ms,round,pair,detail\n\
             0,dakon,1,a,b,1-0,normal,10,5,3,100,0,0,\n\
             1,dakon,1,b,a,2-0,normal,10,5,3,100,0,0,\n",
        )
        .unwrap();
        let err = load_pool(&dir).unwrap_err().to_string();
        assert!(
            err.contains("games.csv: line 3: unknown variant `2-0`"),
            "{err}"
        );
        std::fs::write(
            &path,
            "index,game,seed,seat0,seat1,result,reason,plies,score0,score1,duration_ms,round,pair,detail\n\
             0,dakon,1,a,b,1-0,normal,10,5,3,100,zero,0,\n",
        )
        .unwrap();
        let err = load_pool(&path).unwrap_err().to_string();
        assert!(
            err.contains("games.csv: line 2: column `round`: invalid digit"),
            "{err}"
        );
        std::fs::write(&path, "index,game\n0,dakon\n").unwrap();
        let err = load_pool(&path).unwrap_err().to_string();
        assert!(
            err.contains("line 2") && err.contains("missing field"),
            "{err}"
        );
        std::fs::remove_file(&path).unwrap();
        let err = load_pool(&dir).unwrap_err().to_string();
        assert!(
            err.ends_with("directory has neither games.csv nor games.jsonl"),
            "{err}"
        );
        let jsonl = dir.join("games.jsonl");
        std::fs::write(&jsonl, "\n{\"index\": 0}\n").unwrap();
        let err = load_pool(&dir).unwrap_err().to_string();
        assert!(err.contains("games.jsonl: line 2: missing field"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn record(index: u64, a: &str, b: &str, result: arena_core::record::GameResult) -> GameRecord {
        use arena_core::record::{Reason, SeatRecord};
        let seat = |name: &str| SeatRecord {
            name: name.into(),
            command: vec!["./bot".into()],
            log: None,
            budget: Default::default(),
            ready: None,
            transcript: None,
        };
        GameRecord {
            index,
            round: index,
            pair: index / 2,
            game: "dakon".into(),
            params: Default::default(),
            seed: index,
            seats: [seat(a), seat(b)],
            opening_plies: 0,
            initial_state: String::new(),
            moves: Vec::new(),
            final_state: String::new(),
            scores: [0, 0],
            result,
            reason: Reason::Normal,
            detail: None,
            offender: None,
            clock: Default::default(),
            duration_ms: 1,
        }
    }

    #[test]
    fn records_rows_and_jsonl_give_the_same_files() {
        let records = vec![
            record(0, "x", "y", Seat0Wins),
            record(1, "y", "x", Draw),
            record(2, "x", "y", Seat1Wins),
            record(3, "y", "x", Seat1Wins),
        ];
        let opts = RatingOptions::default();
        let base = std::env::temp_dir().join(format!("arena-ratings-same-{}", std::process::id()));
        let (a, b) = (base.join("records"), base.join("rows"));
        let from_records = write_ratings_for_records(&a, &records, &opts).unwrap();
        let rows: Vec<CsvRow> = records.iter().map(CsvRow::from).collect();
        let from_rows = write_ratings_for_rows(&b, &rows, &opts).unwrap();
        assert_eq!(from_records, from_rows);
        for f in [store::RATINGS, store::CROSSTABLE, store::LOS] {
            assert_eq!(
                std::fs::read(a.join(f)).unwrap(),
                std::fs::read(b.join(f)).unwrap()
            );
        }
        // x: two wins, one draw, one loss.
        let x = &from_records.bots[0];
        assert_eq!(
            (
                x.name.as_str(),
                x.record.wins,
                x.record.draws,
                x.record.losses
            ),
            ("x", 2, 1, 1)
        );

        // games.jsonl and games.csv of the same games load the same.
        let jsonl: String = records
            .iter()
            .map(|r| serde_json::to_string(r).unwrap() + "\n")
            .collect();
        std::fs::write(a.join("games.jsonl"), jsonl).unwrap();
        let mut w = csv::Writer::from_path(b.join("games.csv")).unwrap();
        rows.iter().for_each(|r| w.serialize(r).unwrap());
        w.flush().unwrap();
        let from_jsonl = load_pool(&a).unwrap();
        assert_eq!(from_jsonl, load_pool(&b).unwrap());
        assert_eq!(from_jsonl.games.len(), 4);
        assert_eq!(rating::compute_pool(&from_jsonl, &opts), from_records);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
