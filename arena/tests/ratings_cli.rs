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
/// 400 log10 2 = 120.41 Elo exactly.
fn write_games(dir: &Path) -> PathBuf {
    let games: &[(&str, &str, &str)] = &[
        ("A", "B", "1-0"),
        ("B", "A", "1/2-1/2"),
        ("A", "B", "1/2-1/2"),
        ("B", "C", "1-0"),
        ("C", "B", "0-1"),
        ("B", "C", "0-1"),
        ("A", "C", "1-0"),
        ("C", "A", "0-1"),
        ("A", "C", "1-0"),
        ("C", "A", "0-1"),
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
    let out = arena(&[
        "ratings",
        dir.to_str().unwrap(),
        "--prior-draws",
        "0",
        "--bootstrap",
        "200",
        "--seed",
        "5",
    ]);
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

    let cross = read_csv(&dir.join("crosstable.csv"));
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

    // Same input and seed: byte-identical files.
    let first = std::fs::read(dir.join("ratings.csv")).unwrap();
    let again = arena(&[
        "ratings",
        dir.join("games.csv").to_str().unwrap(),
        "--prior-draws",
        "0",
        "--bootstrap",
        "200",
        "--seed",
        "5",
    ]);
    assert!(again.status.success());
    assert_eq!(std::fs::read(dir.join("ratings.csv")).unwrap(), first);
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
        "--bootstrap",
        "0",
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
        "--bootstrap",
        "0",
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
    // Without resamples there is no interval and no LOS.
    assert!(ratings[1..]
        .iter()
        .all(|r| r[13].is_empty() && r[14].is_empty() && r[15].is_empty()));
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
