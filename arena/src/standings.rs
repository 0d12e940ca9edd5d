//! Wins, draws and losses: one [`Tally`] (`rating/tally.rs`) per bot (or
//! per pair of bots), and the table of them ([`Standings`]). Counted from game records by one rule
//! ([`GameRecord::forfeited_by`] for the losses by forfeit), whoever counts:
//! the live table of a run, `arena match`'s summary, the ratings' per-bot
//! and head-to-head records, the SPRT's W-D-L and the HTML report.

use crate::display::escape;
use crate::rating::Tally;
use arena_core::record::GameRecord;

/// One bot's line of the table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The bot's name.
    pub name: String,
    /// Its wins, draws and losses, and the points they make.
    pub tally: Tally,
}

/// Points and W-D-L per bot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Standings {
    /// In the order given, then in the order bots first appeared.
    pub rows: Vec<Row>,
}

impl Standings {
    /// A table of `names` with no games yet.
    pub fn new(names: impl IntoIterator<Item = String>) -> Self {
        Standings {
            rows: names
                .into_iter()
                .map(|name| Row {
                    name,
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// The table of `records`' bots.
    pub fn of<'a>(records: impl IntoIterator<Item = &'a GameRecord>) -> Self {
        let mut s = Standings::default();
        for r in records {
            s.add(r);
        }
        s
    }

    /// Counts `r` for both its bots.
    pub fn add(&mut self, r: &GameRecord) {
        for seat in 0..2 {
            let name = &r.seats[seat].name;
            let i = match self.rows.iter().position(|x| &x.name == name) {
                Some(i) => i,
                None => {
                    self.rows.push(Row {
                        name: name.clone(),
                        ..Default::default()
                    });
                    self.rows.len() - 1
                }
            };
            self.rows[i].tally.add(r, seat);
        }
    }

    /// The tally of `name`, if it played.
    pub fn get(&self, name: &str) -> Option<&Tally> {
        self.rows.iter().find(|r| r.name == name).map(|r| &r.tally)
    }

    /// Rows by points, then wins, then name.
    pub fn ranked(&self) -> Vec<&Row> {
        let mut rows: Vec<&Row> = self.rows.iter().collect();
        rows.sort_by(|a, b| {
            b.tally
                .points()
                .total_cmp(&a.tally.points())
                .then(b.tally.wins.cmp(&a.tally.wins))
                .then(a.name.cmp(&b.name))
        });
        rows
    }

    /// One line: `a 3.5, b 2, ...`.
    pub fn one_line(&self) -> String {
        self.ranked()
            .iter()
            .map(|r| format!("{} {}", escape(&r.name), fmt_points(r.tally.points())))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// A table with rank, bot, points, games and W-D-L.
    pub fn table(&self) -> String {
        let rows = self.ranked();
        let width = rows
            .iter()
            .map(|r| escape(&r.name).chars().count())
            .max()
            .unwrap_or(3)
            .max(3);
        let mut s = format!(
            "{:>4}  {:<width$}  {:>7}  {:>5}  {:>14}  {:>8}\n",
            "rank", "bot", "points", "games", "W-D-L", "forfeits"
        );
        for (i, r) in rows.iter().enumerate() {
            let t = &r.tally;
            s.push_str(&format!(
                "{:>4}  {:<width$}  {:>7}  {:>5}  {:>14}  {:>8}\n",
                i + 1,
                escape(&r.name),
                fmt_points(t.points()),
                t.games(),
                format!("{}-{}-{}", t.wins, t.draws, t.losses),
                t.forfeits
            ));
        }
        s
    }

    /// The losses by forfeit, which the ratings table does not show; empty
    /// when there were none.
    pub fn forfeits_line(&self) -> String {
        let lost: Vec<String> = self
            .rows
            .iter()
            .filter(|r| r.tally.forfeits > 0)
            .map(|r| format!("{} {}", r.name, r.tally.forfeits))
            .collect();
        if lost.is_empty() {
            String::new()
        } else {
            format!(
                "losses by forfeit (timeout, crash, illegal move, protocol): {}\n",
                lost.join(", ")
            )
        }
    }
}

fn fmt_points(p: f64) -> String {
    if p.fract() == 0.0 {
        format!("{p:.0}")
    } else {
        format!("{p:.1}")
    }
}
