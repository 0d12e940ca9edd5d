//! Score adjudication end to end: `arena match --resign`/`--draw` and a
//! tournament's `[adjudication]` with real bot processes that report their
//! scores in `info`, read back from games.csv, games.jsonl and the manifest.

use std::path::Path;
use std::process::{Command, Output, Stdio};

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn run(args: &[&str]) -> Output {
    Command::new(ARENA)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("arena runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The test bot, saying `info depth 1 score cp SCORE` before each move.
fn scorer(name: &str, score: i64) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/test/testbot.py");
    format!("{name}=python3 {} --score {score}", script.display())
}

/// Two games of Dakon from the initial position between bots that say
/// `scores`, with `extra` options.
fn scored_match(out: &Path, scores: [i64; 2], extra: &[&str]) -> Output {
    let (a, b) = (scorer("up", scores[0]), scorer("down", scores[1]));
    let mut args = vec![
        "match",
        "--game",
        "dakon",
        "--openings",
        "none",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        &a,
        "--bot",
        &b,
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// games.csv as maps from column to cell.
fn csv_rows(out: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(out.join("games.csv")).unwrap();
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            header
                .iter()
                .cloned()
                .zip(r.iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn records(out: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `up` says +900 and `down` -900 whatever the position: `--resign` ends
/// each game once both agreed three times, won by `up` in either seat,
/// `adjudicated` with the rule in games.csv, the JSONL and the printed line.
#[test]
fn a_match_with_resign_adjudication_ends_games_the_bots_agree_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("resign");
    let o = scored_match(&out, [900, -900], &["--resign", "movecount=3", "score=600"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    assert!(stdout.contains("up: 2-0-0 (W-D-L)"), "{stdout}");
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 2);
    for (game, row) in rows.iter().enumerate() {
        assert_eq!(row["reason"], "adjudicated", "{row:?}");
        assert_eq!(row["result"], ["1-0", "0-1"][game], "{row:?}");
        assert!(
            row["detail"].starts_with("resign movecount=3 score=600: "),
            "{row:?}"
        );
        assert_eq!(row["offender"], "", "{row:?}");
    }
    for r in records(&out) {
        assert_eq!(r["reason"], "adjudicated");
        let moves = r["moves"].as_array().unwrap();
        // Three scored moves of each side at least (Dakon's extra turns
        // may give one side more), far fewer than a game of Dakon.
        for seat in 0..2 {
            let own = moves.iter().filter(|m| m["seat"] == seat).count();
            assert!(own >= 3, "seat {seat}: {own} moves: {r}");
        }
        assert!(moves.len() < 20, "{} plies", moves.len());
        // Every move carries the score its bot said: `up` (seat 0 of even
        // games) +900, `down` -900.
        let up = r["index"].as_u64().unwrap() % 2;
        for m in moves {
            let want = if m["seat"] == up { "900" } else { "-900" };
            assert_eq!(m["search"]["score"], want, "{m}");
        }
        // The scores are the material when the bots agreed: the seeds in
        // each store of the last position (Dakon's `stores=` field).
        let last = r["moves"].as_array().unwrap().last().unwrap()["state"]
            .as_str()
            .unwrap()
            .to_string();
        let stores = last
            .split_whitespace()
            .find_map(|f| f.strip_prefix("stores="))
            .unwrap();
        let scores = r["scores"].as_array().unwrap();
        assert_eq!(format!("{},{}", scores[0], scores[1]), stores, "{last}");
        assert_ne!(stores, "0,0", "{last}");
    }
    // The manifest keeps the rule (its fingerprint covers it).
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tournament.json")).unwrap())
            .unwrap();
    let json = manifest.to_string();
    assert!(
        json.contains(r#""adjudication":{"resign":{"movecount":3,"score":600}}"#),
        "{json}"
    );

    // The control: both bots think they are winning, so nothing is agreed
    // and the games are played to their end.
    let out = dir.path().join("disagree");
    let o = scored_match(&out, [900, 900], &["--resign", "movecount=3", "score=600"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for row in csv_rows(&out) {
        assert_eq!(row["reason"], "normal", "{row:?}");
    }
}

/// Both bots call the game level: `--draw` (comma form) makes it a draw
/// from full move 10 on, not before.
#[test]
fn a_match_with_draw_adjudication_draws_level_games_after_movenumber() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("draw");
    let o = scored_match(
        &out,
        [3, -5],
        &["--draw", "movenumber=10,movecount=2,score=10"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    for r in records(&out) {
        assert_eq!(r["reason"], "adjudicated", "{r}");
        assert_eq!(r["result"], "1/2-1/2", "{r}");
        let plies = r["moves"].as_array().unwrap().len();
        assert!((20..24).contains(&plies), "{plies} plies");
        let detail = r["detail"].as_str().unwrap();
        assert!(
            detail.starts_with("draw movenumber=10 movecount=2 score=10: "),
            "{detail}"
        );
    }
}

/// A rule with a key missing or unknown is refused before any game, exit
/// 2, naming the flag.
#[test]
fn a_bad_adjudication_flag_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for (flags, why) in [
        (
            &["--resign", "movecount=3"][..],
            "--resign: score is missing",
        ),
        (
            &["--draw", "moves=8", "score=10"][..],
            "--draw: unknown key `moves`",
        ),
    ] {
        let out = dir.path().join("bad");
        let o = scored_match(&out, [1, 1], flags);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert!(
            text(&o.stderr).contains(why),
            "{flags:?}: {}",
            text(&o.stderr)
        );
        assert!(!out.join("games.jsonl").exists());
    }
}

/// A tournament's `[adjudication] resign` beside the engine's `max_plies`.
#[test]
fn a_tournament_adjudicates_by_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bots/test/testbot.py");
    let config = format!(
        r#"
game = "dakon"
seed = 1
games = 2
openings = "none"

[adjudication]
max_plies = 400
resign = {{ movecount = 2, score = 300 }}

[time_control]
movetime_ms = 2000

[[bots]]
name = "up"
command = ["python3", "{s}", "--score", "500"]

[[bots]]
name = "down"
command = ["python3", "{s}", "--score", "-500"]
"#,
        s = script.display()
    );
    let file = dir.path().join("t.toml");
    std::fs::write(&file, config).unwrap();
    let out = dir.path().join("run");
    let o = run(&[
        "tournament",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--concurrency",
        "1",
    ]);
    assert!(o.status.success(), "{}{}", text(&o.stdout), text(&o.stderr));
    let rows = csv_rows(&out);
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["reason"], "adjudicated", "{row:?}");
        assert!(
            row["detail"].starts_with("resign movecount=2 score=300: "),
            "{row:?}"
        );
    }
}
