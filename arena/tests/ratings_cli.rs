//! `arena ratings` end to end: a small games.csv in, three CSVs out.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const HEADER: &str =
    "index,game,seed,seat0,seat1,result,reason,plies,score0,score1,duration_ms,round,pair,detail";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("arena-ratings-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn arena(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .output()
        .expect("run arena")
}

/// The hand-solvable pool: A-B one win and two draws for A (2 of 3
/// points), B-C 2 wins to 1 for B, A-C 4 wins to 1 for A. Odds 2, 2 and 4
/// are consistent, so the plain maximum-likelihood fit has A - B = B - C =
/// 400 log10 2 = 120.41 Elo exactly. The seats are such that seat 0's
/// points are what that fit expects of it in every pairing (the first bot
/// always in seat 0: 1/3 - 1/6 - 1/6, 1/3 + 1/3 - 2/3 and 4/5 - 4/5 above
/// expectation), so the seat's advantage fitted with the ratings is 0 and
/// leaves them where the hand put them.
fn write_games(dir: &Path) -> PathBuf {
    let games: &[(&str, &str, &str)] = &[
        ("A", "B", "1-0"),
        ("A", "B", "1/2-1/2"),
        ("A", "B", "1/2-1/2"),
        ("B", "C", "1-0"),
        ("B", "C", "1-0"),
        ("B", "C", "0-1"),
        ("A", "C", "1-0"),
        ("A", "C", "1-0"),
        ("A", "C", "1-0"),
        ("A", "C", "1-0"),
        ("A", "C", "0-1"),
    ];
    let mut text = format!("{HEADER}\n");
    for (i, (a, b, r)) in games.iter().enumerate() {
        text += &format!(
            "{i},dakon,{i},{a},{b},{r},normal,30,10,8,120,{},{},\n",
            i / 3,
            i / 2
        );
    }
    let path = dir.join("games.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse()
        .unwrap_or_else(|_| panic!("`{s}` is not a number"))
}

#[test]
fn ratings_from_a_report_dir_match_hand_computed_values() {
    let dir = scratch("values");
    write_games(&dir);
    let out = arena(&["ratings", dir.to_str().unwrap(), "--prior-draws", "0"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("11 games rated"), "{stdout}");

    let ratings = read_csv(&dir.join("ratings.csv"));
    assert_eq!(
        ratings[0][..16],
        [
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
            "los_next"
        ]
    );
    let col = |name: &str| ratings[0].iter().position(|c| c == name).unwrap();
    let bots: Vec<&str> = ratings[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(bots, ["A", "B", "C"]);
    // A: 3-0 and 1 win, 2 draws over B: 5 wins, 2 draws, 1 loss of 8 games.
    assert_eq!(ratings[1][1..5], ["8", "5", "2", "1"]);
    assert_eq!(ratings[1][col("score_pct")], "75.00");
    assert_eq!(ratings[2][1..5], ["6", "2", "2", "2"]);
    assert_eq!(ratings[3][1..5], ["8", "2", "0", "6"]);
    // Bradley-Terry: 1500 + 120.41, 1500, 1500 - 120.41.
    let d = 400.0 * 2f64.log10();
    for (row, want) in ratings[1..].iter().zip([1500.0 + d, 1500.0, 1500.0 - d]) {
        assert!((num(&row[col("bt_elo")]) - want).abs() <= 0.05, "{row:?}");
        let (lo, hi) = (num(&row[col("bt_lo")]), num(&row[col("bt_hi")]));
        assert!(lo <= want && want <= hi, "{row:?}");
    }
    // Elo is zero-sum: the three ratings add up to 3 * 1500 (each rounded
    // to 0.1).
    let elo_sum: f64 = ratings[1..].iter().map(|r| num(&r[col("elo")])).sum();
    assert!((elo_sum - 4500.0).abs() <= 0.15, "{elo_sum}");
    // Wilson 95% for 6 points of 8 games.
    assert_eq!(ratings[1][col("score_lo")], "40.93");
    assert_eq!(ratings[1][col("score_hi")], "92.85");
    let los_a = num(&ratings[1][col("los_next")]);
    assert!(los_a > 0.5 && los_a <= 1.0);
    assert_eq!(ratings[3][col("los_next")], "");
    for row in &ratings[1..] {
        assert!(num(&row[col("glicko_rd")]) < 350.0);
        assert!(num(&row[col("glicko2_vol")]) > 0.0);
    }

    let cross: Vec<Vec<String>> = read_csv(&dir.join("crosstable.csv"))
        .into_iter()
        .map(|r| r[..9].to_vec())
        .collect();
    assert_eq!(
        cross,
        [
            vec![
                "bot",
                "opponent",
                "games",
                "wins",
                "draws",
                "losses",
                "score_pct",
                "score_lo",
                "score_hi"
            ],
            vec!["A", "B", "3", "1", "2", "0", "66.67", "20.77", "93.85"],
            vec!["A", "C", "5", "4", "0", "1", "80.00", "37.55", "96.38"],
            vec!["B", "C", "3", "2", "0", "1", "66.67", "20.77", "93.85"],
        ]
    );

    // LOS from the head-to-head decisive games: A-B 1-0 gives
    // 0.5 (1 + erf(1/sqrt 2)) = 0.8413; A-C 4-1 gives
    // 0.5 (1 + erf(3/sqrt 10)) = 0.9101; B-C 2-1 gives
    // 0.5 (1 + erf(1/sqrt 6)) = 0.7181.
    let los = read_csv(&dir.join("los.csv"));
    assert_eq!(
        los,
        [
            vec!["bot", "A", "B", "C"],
            vec!["A", "", "0.8413", "0.9101"],
            vec!["B", "0.1587", "", "0.7181"],
            vec!["C", "0.0899", "0.2819", ""],
        ]
    );

    assert!(ratings[1..].iter().all(|r| r[col("bt_mle")] == "yes"));
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let w = summary["seat0_advantage_elo"].as_f64().unwrap();
    assert!(w.abs() < 1e-6, "{summary}");

    // Same games, read from the file rather than the directory, rows in
    // another order: byte-identical files.
    let first: Vec<Vec<u8>> = ["ratings.csv", "crosstable.csv", "los.csv"]
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap())
        .collect();
    let text = std::fs::read_to_string(dir.join("games.csv")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].reverse();
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("games.csv"), lines.join("\n") + "\n").unwrap();
    let again = arena(&["ratings", other.join("games.csv").to_str().unwrap()]);
    assert!(again.status.success());
    for (f, want) in ["ratings.csv", "crosstable.csv", "los.csv"]
        .iter()
        .zip(&first)
    {
        assert_eq!(&std::fs::read(other.join(f)).unwrap(), want, "{f}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn options_change_k_and_the_anchor_and_out_picks_the_directory() {
    let dir = scratch("options");
    let games = write_games(&dir);
    let out_dir = dir.join("elsewhere");
    let out = arena(&[
        "ratings",
        games.to_str().unwrap(),
        "--k",
        "0",
        "--anchor",
        "2000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(!out.status.success(), "K 0 is refused");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--k 0 is out of range"));

    let out = arena(&[
        "ratings",
        games.to_str().unwrap(),
        "--k",
        "10",
        "--anchor",
        "2000",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ratings = read_csv(&out_dir.join("ratings.csv"));
    assert!(!dir.join("ratings.csv").exists());
    // Game 0 alone would move A to 2005; every rating starts at 2000.
    let elo_sum: f64 = ratings[1..].iter().map(|r| num(&r[6])).sum();
    assert!((elo_sum - 6000.0).abs() <= 0.15);
    let bt_sum: f64 = ratings[1..].iter().map(|r| num(&r[12])).sum();
    assert!((bt_sum - 6000.0).abs() <= 0.15);
    // The intervals move with the anchor.
    for r in &ratings[1..] {
        let (lo, bt, hi) = (num(&r[13]), num(&r[12]), num(&r[14]));
        assert!(lo < bt && bt < hi && lo > 1500.0, "{r:?}");
    }

    // An anchor bot: C at 1800, every Bradley-Terry number shifted by the
    // same amount, the order and LOS unchanged.
    let anchored = dir.join("anchored");
    let out = arena(&[
        "ratings",
        games.to_str().unwrap(),
        "--anchor",
        "C=1800",
        "--out",
        anchored.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("scale: C at 1800 (--anchor)"), "{stdout}");
    let moved = read_csv(&anchored.join("ratings.csv"));
    let c = moved.iter().position(|r| r[0] == "C").unwrap();
    assert_eq!(num(&moved[c][12]), 1800.0);
    let shift = 1800.0 - num(&ratings[c][12]);
    for (m, r) in moved[1..].iter().zip(&ratings[1..]) {
        assert_eq!((&m[0], &m[15]), (&r[0], &r[15]));
        for col in [12, 13, 14] {
            assert!(
                (num(&m[col]) - num(&r[col]) - shift).abs() <= 0.15,
                "{m:?} {r:?}"
            );
        }
    }
    // A bot that is not in the file: a user mistake, exit 2, with the bots.
    let out = arena(&[
        "ratings",
        games.to_str().unwrap(),
        "--anchor",
        "nobody=1800",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--anchor nobody=1800")
            && err.contains("no bot named `nobody` (bots: A, B, C)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_gives_a_clear_error() {
    let dir = scratch("errors");
    let missing = dir.join("nope.csv");
    let out = arena(&["ratings", missing.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nope.csv") && err.contains("No such file"),
        "{err}"
    );

    let out = arena(&["ratings", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("neither games.csv nor games.jsonl"));

    let bad = dir.join("games.csv");
    std::fs::write(
        &bad,
        format!(
            "{HEADER}\n0,dakon,1,a,b,1-0,normal,10,5,3,100,0,0,\n1,dakon,1,a,b,1-0,normal,10,5,3\n"
        ),
    )
    .unwrap();
    let out = arena(&["ratings", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("games.csv: line 3: 10 fields where the header has 14"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ordo 1.2.6 on the same games, as the reference for the plain
/// maximum-likelihood fit. `tests/data/ordo/games.pgn` holds the games of
/// `games.csv` (82 games, 5 bots, 2 to 9 seat-swapped pairs per pairing,
/// draws); the numbers below are the output of
///
///     ordo -p games.pgn -a 1500 -z 200.24094022767414 -N 2 -q
///
///     ordo -p games.pgn -a 1500 -z 200.24094022767414 -N 2 -q -W
///
/// with Ordo 1.2.6 built from github.com/michiguel/Ordo (commit 17eec77,
/// `make`). `-z 200.2409...` = 400 log10(0.76 / 0.24) puts Ordo on the
/// logistic Elo scale (its default 202 is 1% wider); `-W` fits the white
/// (seat 0) advantage with the ratings, as arena does: Ordo prints
/// `White advantage = -17.94`.
#[test]
fn the_default_fit_equals_ordos() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ordo/games.csv");
    let dir = scratch("ordo");
    let out = arena(&[
        "ratings",
        data.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ordo = [
        ("alpha", 1655.42),
        ("bravo", 1585.30),
        ("charlie", 1547.30),
        ("delta", 1518.23),
        ("echo", 1193.75),
    ];
    let ratings = read_csv(&dir.join("ratings.csv"));
    let col = |name: &str| ratings[0].iter().position(|c| c == name).unwrap();
    assert_eq!(ratings.len(), 6);
    for (row, (bot, elo)) in ratings[1..].iter().zip(ordo) {
        assert_eq!(row[0], bot);
        let ours = num(&row[col("bt_elo")]);
        assert!((ours - elo).abs() <= 0.1, "{bot}: {ours} vs Ordo's {elo}");
        assert_eq!(row[col("bt_mle")], "yes");
    }
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let w = summary["seat0_advantage_elo"].as_f64().unwrap();
    assert!((w - -17.94).abs() <= 0.01, "{summary}");
    let (lo, hi) = (
        summary["seat0_advantage_lo"].as_f64().unwrap(),
        summary["seat0_advantage_hi"].as_f64().unwrap(),
    );
    assert!(lo < w && w < hi && lo < 0.0 && hi > 0.0, "{summary}");
    // 34 seat-0 wins, 11 draws, 37 seat-1 wins.
    assert_eq!(
        [
            &summary["seat0_wins"],
            &summary["draws"],
            &summary["seat1_wins"]
        ],
        [34, 11, 37]
    );
    assert!((summary["seat0_score"].as_f64().unwrap() - 39.5 / 82.0).abs() < 1e-12);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("seat 0 scored 48.2% of 82 games; seat 0 advantage -17.9 Elo [-101, +65] (95% interval, 82 games; bt_elo is fitted with it)"),
        "{stdout}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// 8-0: no maximum-likelihood estimate. Each bot is a group of its own:
/// `L`, first by name, is the scale's reference, and `W` gets a lower
/// bound only, in plain words in the console and in `bt_note`.
#[test]
fn a_perfect_score_is_flagged_and_open_ended() {
    let dir = scratch("perfect");
    let mut text = format!("{HEADER}\n");
    for i in 0..8 {
        let (a, b, r) = if i % 2 == 0 {
            ("W", "L", "1-0")
        } else {
            ("L", "W", "0-1")
        };
        text += &format!(
            "{i},dakon,{i},{a},{b},{r},normal,30,10,8,120,{},{},\n",
            i / 2,
            i / 2
        );
    }
    std::fs::write(dir.join("games.csv"), text).unwrap();
    let out = arena(&["ratings", dir.to_str().unwrap()]);
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("no maximum-likelihood fit of the whole pool exists"),
        "{stdout}"
    );
    assert!(stdout.contains("won every game: at least "), "{stdout}");
    let ratings = read_csv(&dir.join("ratings.csv"));
    let col = |name: &str| ratings[0].iter().position(|c| c == name).unwrap();
    let (w, l) = (&ratings[1], &ratings[2]);
    assert_eq!((w[0].as_str(), l[0].as_str()), ("W", "L"));
    assert_eq!(
        (w[col("bt_mle")].as_str(), l[col("bt_mle")].as_str()),
        ("no-loss", "no-win")
    );
    assert_eq!(
        (w[col("bt_hi")].as_str(), l[col("bt_lo")].as_str()),
        ("inf", "")
    );
    let (lo, bt) = (num(&w[col("bt_lo")]), num(&w[col("bt_elo")]));
    assert!(lo > 1500.0 && lo == bt, "{w:?}");
    assert_eq!(num(&l[col("bt_elo")]), 1500.0);
    assert_eq!(
        w[col("bt_note")],
        format!("won every game: at least {lo:.0}")
    );
    assert_eq!(l[col("bt_note")], "anchor: the others are rated against it");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The games of [`write_games`] as a minimal results file: `seat0,seat1,
/// result` and whichever of `round`, `pair`, `opening` and an unknown
/// column `cols` asks for.
fn write_results(dir: &Path, name: &str, cols: &[&str]) -> PathBuf {
    let full = read_csv(&write_games(dir));
    let at = |c: &str| full[0].iter().position(|h| h == c).unwrap();
    let mut header = vec!["Seat0", " seat1 ", "RESULT"];
    header.extend(cols);
    let mut text = header.join(",") + "\n";
    for row in &full[1..] {
        let mut cells = vec![row[at("seat0")].clone(), row[at("seat1")].clone()];
        cells.push(row[at("result")].clone());
        for c in cols {
            cells.push(match *c {
                // An opening per pair, repeated across pairs (the pair ids
                // of write_games are i / 2): only pairing two by two of
                // consecutive games on one opening tells them apart.
                "opening" => format!("line{}", num(&row[at("pair")]) as u64 % 2),
                "comment" => "anything".to_string(),
                c => row[at(c)].clone(),
            });
        }
        text += &(cells.join(",") + "\n");
    }
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn ratings_of(input: &Path, out: &Path) -> (Vec<Vec<String>>, String) {
    let o = arena(&[
        "ratings",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{stderr}");
    (read_csv(&out.join("ratings.csv")), stderr)
}

/// A results file with `round` and `pair` is rated exactly as arena's own
/// games.csv of the same games; without them the Bradley-Terry fit is the
/// same, Glicko is one rating period, and the intervals treat each game
/// as its own cluster. An `opening` column pairs the games as `pair` does.
#[test]
fn a_minimal_results_file_rates_as_the_games_csv() {
    let dir = scratch("minimal");
    let (ours, err) = ratings_of(&write_games(&dir), &dir.join("ours"));
    assert!(!err.contains("results file"), "{err}");

    let file = write_results(&dir, "full.csv", &["round", "pair", "comment"]);
    let (theirs, err) = ratings_of(&file, &dir.join("full"));
    assert!(
        err.contains(
            "full.csv: results file (seat0, seat1, result); optional columns used: round, pair; \
             ignored: `comment`"
        ),
        "{err}"
    );
    assert_eq!(theirs, ours);

    let col = |name: &str| ours[0].iter().position(|c| c == name).unwrap();
    let file = write_results(&dir, "bare.csv", &[]);
    let (bare, err) = ratings_of(&file, &dir.join("bare"));
    assert!(
        err.contains(
            "optional columns used: none; no round: all games are one Glicko rating period; \
             no pair or opening: every game is a pair of its own"
        ),
        "{err}"
    );
    for (b, o) in bare[1..].iter().zip(&ours[1..]) {
        assert_eq!(b[..6], o[..6]);
        assert_eq!(b[col("bt_elo")], o[col("bt_elo")]);
        assert_eq!(b[col("elo")], o[col("elo")], "Elo runs in file order");
    }
    assert_ne!(
        bare[1][col("bt_lo")],
        ours[1][col("bt_lo")],
        "unpaired games are clusters of their own"
    );

    let file = write_results(&dir, "opening.csv", &["round", "opening"]);
    let (opening, err) = ratings_of(&file, &dir.join("opening"));
    assert!(
        err.contains("optional columns used: round, opening"),
        "{err}"
    );
    assert_eq!(opening, ours);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Each bad row names the file, the line and the column.
#[test]
fn a_bad_results_file_names_line_and_column() {
    let dir = scratch("minimal-errors");
    let cases: &[(&str, &str)] = &[
        (
            "seat0,seat1,result\na,b,1-0\na,b,2-0\n",
            "bad.csv: line 3: column 3 (`result`): result `2-0` is not 1-0, 0-1 or 1/2-1/2",
        ),
        (
            "seat0,seat1,result\na, ,1-0\n",
            "bad.csv: line 2: column 2 (`seat1`): no bot name",
        ),
        (
            "round,seat0,seat1,result\nr1,a,b,1-0\n",
            "bad.csv: line 2: column 1 (`round`): `r1` is not a round number",
        ),
        (
            "seat0,seat1,result\na,b,1-0,extra\n",
            "bad.csv: line 2: 4 fields where the header has 3",
        ),
        (
            "white,black,result\na,b,1-0\n",
            "bad.csv: line 1: no column `seat0`: a results file needs the columns seat0, \
             seat1 and result",
        ),
        (
            "seat0,seat1,result,pair,PAIR\na,b,1-0,1,1\n",
            "bad.csv: line 1: columns 4 and 5 are both `pair`",
        ),
    ];
    let bad = dir.join("bad.csv");
    for (text, want) in cases {
        std::fs::write(&bad, text).unwrap();
        let out = arena(&["ratings", bad.to_str().unwrap()]);
        assert!(!out.status.success(), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{text}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[path = "common/runs.rs"]
mod runs;

/// The PGN's games as a results file, by a reader of the tags alone (as
/// Ordo reads them): White is seat 0, the pair is Round's part before the
/// dot. Checks on the way that each Round is `PAIR.GAME` and that the two
/// games of a pair have their seats swapped.
fn pgn_to_results(pgn: &str) -> String {
    let tag = |line: &str, name: &str| {
        line.strip_prefix(&format!("[{name} \""))
            .and_then(|r| r.strip_suffix("\"]"))
            .map(str::to_string)
    };
    let mut csv = "seat0,seat1,result,pair\n".to_string();
    let mut game: Vec<Option<String>> = vec![None; 4];
    let mut seen: std::collections::HashMap<String, Vec<(String, String)>> = Default::default();
    for line in pgn.lines() {
        for (k, name) in ["White", "Black", "Result", "Round"].iter().enumerate() {
            if let Some(v) = tag(line, name) {
                game[k] = Some(v);
            }
        }
        if let [Some(w), Some(b), Some(r), Some(round)] = &game[..] {
            let (pair, nth) = round.split_once('.').expect("Round is PAIR.GAME");
            let games = seen.entry(pair.to_string()).or_default();
            assert_eq!(nth, (games.len() + 1).to_string(), "{round}");
            if let Some((w0, b0)) = games.first() {
                assert_eq!((w0, b0), (b, w), "pair {pair}: seats swapped");
            }
            games.push((w.clone(), b.clone()));
            csv += &format!("{w},{b},{r},{pair}\n");
            game = vec![None; 4];
        }
    }
    csv
}

/// A real run's games, exported as the minimal CSV and as PGN, are rated
/// by `arena ratings` exactly as the run rated them (its ratings.csv), but
/// for Glicko's rating periods where the PGN does not carry the schedule
/// round.
#[test]
fn a_run_exported_as_csv_and_pgn_rates_the_same() {
    let dir = scratch("export");
    let config = dir.join("pool.toml");
    let py = runs::repo().join("bots/python/random_bot.py");
    let bot = |name: &str, seed: &str| {
        format!(
            "[[bots]]\nname = \"{name}\"\ncommand = [\"{}\", \"{}\", \"--seed\", \"{seed}\"]\n",
            runs::python(),
            py.display()
        )
    };
    // Random openings of 4 plies on 5 holes: every pair its own game, so
    // that no pair repeats another (games.jsonl would count a repeat once,
    // the exports cannot tell).
    let text = format!(
        "game = \"dakon\"\nseed = 5\ngames = 6\nrandom_opening_plies = 4\n\
         [params]\nholes = 5\n[time_control]\nmovetime_ms = 2000\nmargin_ms = 1000\n{}{}{}\
         [[bots]]\nname = \"first\"\ncommand = [\"{}\", \"bot-first\"]\n",
        bot("r1", "1"),
        bot("r2", "2"),
        bot("r3", "3"),
        runs::ARENA,
    );
    std::fs::write(&config, text).unwrap();
    let run = dir.join("run");
    runs::tournament(&config, &run, &[]);
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(
        manifest["distinct"]["distinct_pairs"], manifest["distinct"]["pairs"],
        "a repeated pair: pick another seed"
    );
    let own = read_csv(&run.join("ratings.csv"));
    assert_eq!(own.len(), 5);

    let csv = dir.join("results.csv");
    let out = arena(&[
        "export",
        "--format",
        "csv",
        run.to_str().unwrap(),
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote 36 games to"));
    let (from_csv, _) = ratings_of(&csv, &dir.join("csv"));
    assert_eq!(from_csv, own);

    let out = arena(&["export", "--format", "pgn", run.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pgn = String::from_utf8(out.stdout).unwrap();
    for tag in [
        "Event \"pool\"",
        "Site \"",
        "Date \"",
        "Termination \"",
        "PlyCount \"",
    ] {
        assert_eq!(pgn.matches(&format!("[{tag}")).count(), 36, "{tag}");
    }
    let results = dir.join("from-pgn.csv");
    std::fs::write(&results, pgn_to_results(&pgn)).unwrap();
    let (from_pgn, _) = ratings_of(&results, &dir.join("pgn"));
    let col = |name: &str| own[0].iter().position(|c| c == name).unwrap();
    let glicko = col("glicko");
    for (p, o) in from_pgn.iter().zip(&own) {
        // Every column before Glicko's (Elo runs in game order) and from
        // Bradley-Terry on.
        assert_eq!(p[..glicko], o[..glicko]);
        assert_eq!(p[col("bt_elo")..], o[col("bt_elo")..]);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `arena match` prints cutechess's running score lines every
/// `--score-every` games (no terminal here) and after the last, and
/// `--confidence` sets the level of the Elo difference and of the ratings.
#[test]
fn a_match_prints_running_score_lines_and_takes_a_confidence() {
    let dir = scratch("match");
    let arena_bin = env!("CARGO_BIN_EXE_arena");
    let bot = |name: &str| format!("{name}={arena_bin} bot-first");
    let play = |out: &Path, extra: &[&str]| {
        let (f, g) = (bot("f"), bot("g"));
        let mut args = vec![
            "match",
            "--game",
            "dakon",
            "--param",
            "holes=3",
            "--games",
            "6",
            "--movetime",
            "50",
            "--sandbox",
            "none",
            "--quiet",
            "--out",
            out.to_str().unwrap(),
            "--bot",
            &f,
            "--bot",
            &g,
        ];
        args.extend_from_slice(extra);
        let o = arena(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let stdout = play(&dir.join("a"), &["--score-every", "4"]);
    let scores: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Score of f vs g: "))
        .collect();
    // After game 4 and after the last (6).
    assert_eq!(scores.len(), 2, "{stdout}");
    assert!(
        scores[0].ends_with("] 4") && scores[1].ends_with("] 6"),
        "{stdout}"
    );
    let elo: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Elo difference: "))
        .collect();
    assert_eq!(elo.len(), 2, "{stdout}");
    assert!(
        elo[1].contains(" +/- ")
            && elo[1].contains(", LOS: ")
            && elo[1].contains(" %, DrawRatio: ")
    );
    assert!(stdout.contains("95% interval"), "{stdout}");

    // The same games at 99%: wider, said so, and in summary.json.
    let wide = play(&dir.join("b"), &["--confidence", "0.99"]);
    assert!(wide.contains("99% interval"), "{wide}");
    let half = |line: &str| -> f64 {
        let after = line.split(" +/- ").nth(1).unwrap();
        num(after.split(',').next().unwrap())
    };
    let last = |text: &str| {
        text.lines()
            .filter(|l| l.starts_with("Elo difference: "))
            .next_back()
            .unwrap()
            .to_string()
    };
    assert!(
        half(&last(&wide)) > half(&last(&stdout)),
        "{wide}\n{stdout}"
    );
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("b/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["confidence"], 0.99);
    assert_eq!(summary["games"], 6);
    // The report's interval column and chart say the run's level too.
    let page = std::fs::read_to_string(dir.join("b/index.html")).unwrap();
    assert!(page.contains("99% interval"), "the report names the level");
    assert!(!page.contains("95% interval"), "and no other");
    let page = std::fs::read_to_string(dir.join("a/index.html")).unwrap();
    assert!(page.contains("95% interval"), "95% by default");

    let o = arena(&[
        "ratings",
        dir.join("a").to_str().unwrap(),
        "--confidence",
        "95",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("--confidence 95 is not a level between 0.5 and 1"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A tournament config's `anchor` and `confidence` reach the ratings the
/// run ends with; `--confidence` overrides the config's.
#[test]
fn a_tournament_rates_with_its_configs_anchor_and_confidence() {
    let dir = scratch("config");
    let arena_bin = env!("CARGO_BIN_EXE_arena");
    let mut text = String::from(
        "game = \"dakon\"\nseed = 4\ngames = 4\nanchor = \"b=2000\"\nconfidence = 0.9\n\
         [params]\nholes = 3\n[time_control]\nmovetime_ms = 2000\n",
    );
    for name in ["a", "b", "c"] {
        text.push_str(&format!(
            "[[bots]]\nname = \"{name}\"\ncommand = [\"{arena_bin}\", \"bot-first\"]\n"
        ));
    }
    let config = dir.join("t.toml");
    std::fs::write(&config, text).unwrap();
    let run = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "tournament",
            config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        let o = arena(&args);
        let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{stdout}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        (out, stdout)
    };
    let (out, stdout) = run("t", &[]);
    assert!(stdout.contains("scale: b at 2000 (--anchor)"), "{stdout}");
    assert!(stdout.contains("90% interval"), "{stdout}");
    let ratings = read_csv(&out.join("ratings.csv"));
    let col = |name: &str| ratings[0].iter().position(|c| c == name).unwrap();
    let b = ratings.iter().find(|r| r[0] == "b").unwrap();
    assert_eq!(b[col("bt_elo")], "2000.0");
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["confidence"], 0.9);

    let (_, stdout) = run("u", &["--confidence", "0.8"]);
    assert!(stdout.contains("80% interval"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
