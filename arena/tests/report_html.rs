//! End to end: render the report of real games with `arena report` (a small
//! round robin of random games, and real `arena match`es between bot
//! processes, rated with `arena ratings`), load it in headless Chromium and
//! check what a person would see: no script errors, every bot in the
//! standings, and the replay viewer's board changing when stepped.
//!
//! The page runs its own self-test when its address has `#selftest`: it
//! steps the viewer with the arrow key and the buttons, compares the board's
//! SVG before and after, and writes what it found as JSON into
//! `<pre id="selftest">`, which `chromium --dump-dom` prints. Script errors
//! and `console.error` calls are collected by a trap installed before any
//! other script; Chromium's own log (stderr) must show no console message.
//!
//! Without Chromium the test is skipped with a loud message, except under
//! `CI=true`, where it fails. `ARENA_SCREENSHOTS=DIR` also writes the
//! screenshots kept in docs/img.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use arena_core::record::GameRecord;

fn chromium() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

fn require_chromium() -> Option<PathBuf> {
    let found = chromium();
    if found.is_none() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("CI=true but chromium is not installed (.ci/run installs it)");
        }
        eprintln!(
            "\n*** SKIPPED: chromium not found; install Debian's `chromium` package \
             to run the browser test ***\n"
        );
    }
    found
}

struct Run {
    stdout: String,
    stderr: String,
}

/// Runs headless Chromium with `args` then `url`, killing it after `limit`.
fn run_chromium(bin: &Path, work: &Path, args: &[&str], url: &str) -> Run {
    let profile = work.join(format!(
        "chromium-profile-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let out_path = work.join("chromium.out");
    let err_path = work.join("chromium.err");
    let mut child = Command::new(bin)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("chromium starts");
    let start = Instant::now();
    let limit = Duration::from_secs(180);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "chromium did not finish in {limit:?}; stderr:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&profile);
    Run {
        stdout: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
    }
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The page's self-test results, from the dumped DOM.
fn selftest(dom: &str) -> serde_json::Value {
    let start = dom
        .find("<pre id=\"selftest\"")
        .expect("the dumped DOM has the selftest element");
    let open_end = start + dom[start..].find('>').unwrap() + 1;
    let close = open_end + dom[open_end..].find("</pre>").unwrap();
    let text = unescape(&dom[open_end..close]);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("selftest output is not JSON ({e}): {text:?}"))
}

fn file_url(path: &Path, fragment: &str) -> String {
    format!(
        "file://{}#{fragment}",
        path.canonicalize().unwrap().display()
    )
}

fn render(dir: &Path, records: &[GameRecord]) -> PathBuf {
    common::write_jsonl(dir, records);
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("report")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arena report failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed = String::from_utf8(out.stdout).unwrap();
    let path = PathBuf::from(printed.trim());
    assert_eq!(path, dir.join("index.html"));
    path
}

/// Writes the records and runs `arena ratings` on them, as a tournament would.
fn rate(dir: &Path, records: &[GameRecord]) {
    common::write_jsonl(dir, records);
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .arg("ratings")
        .arg(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arena ratings failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("ratings.csv").is_file());
}

fn check_in_browser(bin: &Path, dir: &Path, page: &Path, records: &[GameRecord]) {
    let run = run_chromium(
        bin,
        dir,
        &["--dump-dom"],
        &file_url(page, "game=0&selftest"),
    );
    let consoles: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE") || l.contains("Uncaught"))
        .collect();
    assert!(consoles.is_empty(), "console messages: {consoles:#?}");
    let result = selftest(&run.stdout);
    eprintln!("selftest: {result}");
    assert_eq!(result["errors"], serde_json::json!([]), "page errors");
    for (check, ok) in result["checks"].as_object().unwrap() {
        assert_eq!(ok, true, "selftest check {check} failed: {result}");
    }
    let game0 = records.iter().find(|r| r.index == 0).unwrap();
    let checks: &[&str] =
        if arena_core::games::entry(&game0.game).is_ok_and(|e| e.replay_drawer.is_some()) {
            &[
                "board_drawn",
                "arrow_key_changes_board",
                "button_changes_board",
                "back_restores_board",
                "all_positions_drawn",
            ]
        } else {
            &["no_drawer_shown", "text_state_changes"]
        };
    for name in checks {
        assert!(result["checks"].get(name).is_some(), "check {name} missing");
    }
    let listed: Vec<&str> = result["standings_bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut bots: Vec<&str> = records
        .iter()
        .flat_map(|r| r.seats.iter().map(|s| s.name.as_str()))
        .collect();
    bots.sort();
    bots.dedup();
    for bot in &bots {
        assert!(listed.contains(bot), "{bot:?} not in standings {listed:?}");
    }
    assert_eq!(listed.len(), bots.len());
    assert_eq!(result["games_listed"], records.len());
    // Every position of a game the replay viewer has a drawer for draws; a
    // game without one (nim) says so instead.
    let drawable = |r: &&GameRecord| {
        arena_core::games::entry(&r.game).is_ok_and(|e| e.replay_drawer.is_some())
    };
    let positions: usize = records
        .iter()
        .filter(drawable)
        .map(|r| r.moves.len() + 1)
        .sum();
    assert_eq!(result["positions_drawn"], positions);
    if records.iter().any(|r| !drawable(&r)) {
        assert_eq!(result["checks"]["no_drawer_shown"], true, "{result}");
    }
    assert_eq!(result["charts"], 2);
    check_course(&result, &listed, records);
    // The replay (game 0) shows each move's CPU time where it was measured.
    let with_cpu = game0.moves.iter().filter(|m| m.cpu_ms.is_some()).count();
    assert_eq!(result["cpu_shown"], with_cpu, "{result}");
    assert!(result["heatmap_cells"].as_u64().unwrap() > 0);
    // The evaluation graph has a point for each move whose `info` gave a score.
    let scored = game0
        .moves
        .iter()
        .filter(|m| {
            m.search
                .get("score")
                .is_some_and(|v| v.parse::<f64>().is_ok())
        })
        .count();
    assert_eq!(result["eval_points"], scored, "{result}");
    // The replay links each seat's stderr log and transcript, where kept.
    let files: Vec<&str> = game0
        .seats
        .iter()
        .flat_map(|s| [s.log.as_deref(), s.transcript.as_deref()])
        .flatten()
        .collect();
    assert_eq!(result["seat_files"], serde_json::json!(files), "{result}");
}

/// "How the games went", as the page drew it, against the records: one
/// time-per-move row per bot that moved (standings order, its moves and its
/// slowest move exact, min <= median <= p90 <= max), the game-length counts
/// summing to the games, one Elo line per bot.
fn check_course(result: &serde_json::Value, standings: &[&str], records: &[GameRecord]) {
    let course = &result["course"];
    let mut moves: std::collections::BTreeMap<&str, (u64, f64)> = Default::default();
    for r in records {
        for m in r.moves.iter().skip(r.opening_plies) {
            let e = moves.entry(r.seats[m.seat].name.as_str()).or_default();
            e.0 += 1;
            e.1 = e.1.max(m.ms);
        }
    }
    let rows = course["time_rows"].as_array().unwrap();
    let row_bots: Vec<&str> = rows.iter().map(|r| r["bot"].as_str().unwrap()).collect();
    let want: Vec<&str> = standings
        .iter()
        .copied()
        .filter(|b| moves.contains_key(b))
        .collect();
    assert_eq!(row_bots, want, "{course}");
    for row in rows {
        let (n, max) = moves[row["bot"].as_str().unwrap()];
        assert_eq!(row["moves"], n, "{row}");
        let ms: Vec<f64> = row["ms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert!(ms.windows(2).all(|w| w[0] <= w[1]), "{row}");
        assert_eq!(ms[3], max, "{row}");
    }
    assert!(course["time_bars"].as_u64().unwrap() >= rows.len() as u64);
    let counts: u64 = course["length_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(counts, records.len() as u64, "{course}");
    let lengths = course["length_games"].as_array().unwrap();
    let plies = records.iter().map(|r| r.moves.len());
    let (shortest, longest) = (plies.clone().min().unwrap(), plies.max().unwrap());
    assert_eq!(lengths[0], records.len(), "{course}");
    assert_eq!(lengths[1], shortest, "{course}");
    assert_eq!(lengths[4], longest, "{course}");
    let lines: Vec<&str> = course["elo_lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["bot"].as_str().unwrap())
        .collect();
    let rated: Vec<&str> = standings
        .iter()
        .copied()
        .filter(|b| {
            records
                .iter()
                .any(|r| r.seats[0].name != r.seats[1].name && r.seats.iter().any(|s| s.name == *b))
        })
        .collect();
    assert_eq!(lines, rated, "{course}");
}

/// Screenshots for docs/img, from a tournament of random players with
/// plain names (the test's own names are made to be hostile, not readable).
fn screenshots(bin: &Path) {
    let Ok(out) = std::env::var("ARENA_SCREENSHOTS") else {
        return;
    };
    let out = PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    // The games a user has (those the viewer draws), not the test-only Nim.
    let games: Vec<&str> = arena_core::games::GAMES
        .iter()
        .filter(|g| g.replay_drawer.is_some())
        .map(|g| g.name)
        .collect();
    let bots = ["random-a", "random-b", "random-c", "random-d"];
    let records = common::round_robin_of(&games, &bots, 2, 2000);
    assert!(!records.is_empty(), "screenshots need the rules engines");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("random-round-robin");
    let _ = std::fs::remove_dir_all(&dir);
    rate(&dir, &records);
    let page = render(&dir, &records);
    let (dir, page, records) = (dir.as_path(), page.as_path(), records.as_slice());
    let shot = |name: &str, size: &str, fragment: &str| {
        let file = out.join(name);
        run_chromium(
            bin,
            dir,
            &[
                &format!("--screenshot={}", file.display()),
                &format!("--window-size={size}"),
            ],
            &file_url(page, fragment),
        );
        assert!(file.is_file(), "no screenshot {}", file.display());
    };
    shot("report.png", "1280,1750", "");
    // A Ludus latrunculorum game some way into the movement phase, and a
    // Dakon game part-way through.
    for (game, name) in [
        ("latrunculi", "replay-latrunculi.png"),
        ("dakon", "replay-dakon.png"),
    ] {
        if let Some(r) = records.iter().find(|r| r.game == game) {
            let target = if game == "latrunculi" {
                r.moves.len() * 2 / 3
            } else {
                r.moves.len() / 2
            };
            // A ply whose mover sent info lines, so the picture shows them,
            // and for Latrunculi one that trapped a piece.
            let shows = |p: usize| {
                let m = &r.moves[p - 1];
                let traps = m.effects["trapped"]
                    .as_array()
                    .is_some_and(|t| !t.is_empty());
                !m.info.is_empty() && (game != "latrunculi" || traps)
            };
            let ply = (target.max(1)..=r.moves.len())
                .chain(1..target.max(1))
                .find(|&p| shows(p))
                .unwrap_or(target.max(1));
            shot(name, "1280,980", &format!("game={}&ply={ply}", r.index));
        }
    }
}

#[test]
fn report_of_a_small_tournament_works_in_a_headless_browser() {
    let records = common::tournament_or_fixture(400);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html_e2e");
    let _ = std::fs::remove_dir_all(&dir);
    let page = render(&dir, &records);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("evil</script>"),
        "a bot name broke out of the data block"
    );
    let outside = html.replace("http://www.w3.org/2000/svg", "");
    assert!(
        !outside.contains("http://") && !outside.contains("https://"),
        "the page refers to the network"
    );
    // The page loads no file but the replay blocks beside it (which a
    // small run does not need: every replay is embedded).
    assert!(
        !html.contains("<link") && !html.contains(" src="),
        "the page loads files"
    );
    let Some(bin) = require_chromium() else {
        return;
    };
    check_in_browser(&bin, &dir, &page, &records);
    screenshots(&bin);
}

#[test]
fn report_with_ratings_csv_works_in_a_headless_browser() {
    let records = common::tournament_or_fixture(120);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html_ratings");
    let _ = std::fs::remove_dir_all(&dir);
    rate(&dir, &records);
    let page = render(&dir, &records);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Bradley-Terry Elo"), "ratings.csv not used");
    let Some(bin) = require_chromium() else {
        return;
    };
    check_in_browser(&bin, &dir, &page, &records);
    // The seats' line, as summary.json has it.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    let run = run_chromium(&bin, &dir, &["--dump-dom"], &file_url(&page, "selftest"));
    let seats = selftest(&run.stdout)["seats"].as_str().unwrap().to_string();
    let score = format!(
        "Seat 0 scored {:.1}% of {} games",
        100.0 * summary["seat0_score"].as_f64().unwrap(),
        summary["games"]
    );
    assert!(seats.starts_with(&score), "{seats} / {summary}");
    match summary["seat0_advantage_elo"].as_f64() {
        Some(w) => assert!(
            seats.contains(&format!("Seat 0 advantage {w:+.1} Elo ["))
                && seats.contains("(95% interval)"),
            "{seats} / {summary}"
        ),
        None => assert!(seats.contains("Seat 0 advantage: "), "{seats}"),
    }
}

/// Runs the arena binary from the repository root; panics with its stderr
/// when it fails.
fn arena_ok(args: &[&str]) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO_BIN_EXE_arena"))
        .current_dir(root)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "arena {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn report_of_a_real_arena_match_works_in_a_headless_browser() {
    // The whole chain a person runs: bots play a match through the referee,
    // arena ratings rates it, arena report draws it.
    let arena = env!("CARGO_BIN_EXE_arena");
    for game in arena_core::games::GAMES.iter().map(|g| g.name) {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("arena_match_{game}"));
        let _ = std::fs::remove_dir_all(&dir);
        let out = dir.to_str().unwrap();
        let first = format!("first={arena} bot-first");
        arena_ok(&[
            "match",
            "--game",
            game,
            "--bot",
            &first,
            "--bot",
            "random=python3 bots/test/testbot.py --mode random",
            "--games",
            "4",
            "--out",
            out,
            "--quiet",
            "--transcript",
        ]);
        arena_ok(&["ratings", out]);
        arena_ok(&["report", out]);
        let records = arena::store::read_games_file(&dir.join("games.jsonl")).unwrap();
        assert_eq!(records.len(), 4);
        // Both seats' transcripts, and the test bot's stderr, in logs/.
        for r in &records {
            for s in &r.seats {
                let t = s.transcript.as_deref().expect("a transcript");
                assert!(t.starts_with("logs/") && dir.join(t).is_file(), "{t}");
            }
            assert!(r.seats.iter().any(|s| s.log.is_some()), "{r:?}");
        }
        let page = dir.join("index.html");
        assert!(std::fs::read_to_string(&page)
            .unwrap()
            .contains("Bradley-Terry Elo"));
        let Some(bin) = require_chromium() else {
            return;
        };
        check_in_browser(&bin, &dir, &page, &records);
        // How the games were played, from the manifest and the records.
        let run = run_chromium(&bin, &dir, &["--dump-dom"], &file_url(&page, "selftest"));
        let facts = selftest(&run.stdout)["run_facts"].clone();
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("tournament.json")).unwrap()).unwrap();
        assert_eq!(facts["arena version"], manifest["arena_version"], "{facts}");
        assert_eq!(facts["seed"], manifest["seed"].to_string(), "{facts}");
        assert_eq!(
            facts["time control"], "1000 ms per move (margin 50 ms)",
            "{facts}"
        );
        assert_eq!(facts["clock"], "wall", "{facts}");
        assert!(
            facts["openings"].as_str().is_some_and(|o| !o.is_empty()),
            "{facts}"
        );
        assert!(facts["sandbox"].as_str().is_some(), "{facts}");
        let distinct = format!("distinct: {} openings, ", manifest["distinct"]["openings"]);
        assert!(
            facts["distinct games"]
                .as_str()
                .unwrap()
                .starts_with(&distinct),
            "{facts}"
        );
        let forfeits = records.iter().filter(|r| r.reason.is_forfeit()).count();
        if forfeits == 0 {
            assert_eq!(facts["forfeits by reason"], "none", "{facts}");
        }
    }
}

#[test]
fn the_report_of_an_sprt_match_draws_its_llr_trace_with_the_bounds() {
    let arena = env!("CARGO_BIN_EXE_arena");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("arena_match_sprt");
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    let first = format!("first={arena} bot-first");
    let params = "elo0=0,elo1=200,alpha=0.1,beta=0.1";
    arena_ok(&[
        "match",
        "--game",
        "dakon",
        "--bot",
        &first,
        "--bot",
        "random=python3 bots/test/testbot.py --mode random",
        "--games",
        "12",
        "--sprt",
        params,
        "--out",
        out,
        "--quiet",
    ]);
    let records = arena::store::read_games_file(&dir.join("games.jsonl")).unwrap();
    // The test the match ran, pair by pair (a pair repeating one is no
    // evidence), as the report must trace it.
    let mut sprt = arena::rating::Sprt::new(params.parse().unwrap());
    let mut seen = std::collections::HashSet::new();
    for pair in records.chunks(2) {
        let key = [pair[0].play_key(), pair[1].play_key()];
        if seen.insert(key) {
            sprt.record_pair(pair[0].result.points(0), pair[1].result.points(1));
        }
    }
    let caption = format!(
        "first ({params}): {} after {} games, LLR {:.3}, bounds [{:.3}, {:.3}]",
        sprt.status(),
        records.len(),
        sprt.llr(),
        sprt.bounds().0,
        sprt.bounds().1
    );
    let page = dir.join("index.html");
    // The section is in the page as written, tables and SVG, before any
    // script runs: it reads without JavaScript.
    let html = std::fs::read_to_string(&page).unwrap();
    for part in [
        "<table id=\"move-times-table\"",
        "<table id=\"game-lengths-table\"",
        "<svg id=\"elo-trace\"",
        caption.as_str(),
    ] {
        assert!(html.contains(part), "{part} not in the page as written");
    }
    assert!(
        !html.contains("<table id=\"standings-table\""),
        "the control"
    );
    let Some(bin) = require_chromium() else {
        return;
    };
    let run = run_chromium(&bin, &dir, &["--dump-dom"], &file_url(&page, "selftest"));
    let result = selftest(&run.stdout);
    assert_eq!(result["errors"], serde_json::json!([]), "page errors");
    let course = &result["course"];
    assert_eq!(course["visible"], true, "{course}");
    let llr = course["llr"].as_array().unwrap();
    assert_eq!(llr.len(), 1, "{course}");
    assert_eq!(llr[0]["caption"], caption, "{course}");
    assert_eq!(llr[0]["bounds"], 2, "{course}");
    // The start, and a point per pair.
    assert_eq!(llr[0]["points"], 1 + records.len() / 2, "{course}");
    let standings: Vec<&str> = result["standings_bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    check_course(&result, &standings, &records);
}

#[test]
fn a_replay_not_embedded_is_loaded_from_its_block_when_opened() {
    use arena::report::html::{block_name, EMBED_ALL, REPLAY_DIR};
    // More games than the page embeds: the early games' replays live only
    // in the block files beside it.
    let records = common::round_robin(&["north", "south", "east", "west"], 10, 300);
    if records.is_empty() {
        eprintln!("\n*** SKIPPED: no rules engine registered ***\n");
        return;
    }
    assert!(records.len() as u64 > EMBED_ALL);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html_blocks");
    let _ = std::fs::remove_dir_all(&dir);
    let page = render(&dir, &records);
    let html = std::fs::read_to_string(&page).unwrap();
    let data = html.split(r#"id="data">"#).nth(1).unwrap();
    let data: serde_json::Value =
        serde_json::from_str(data.split("</script>").next().unwrap()).unwrap();
    // An early game (the page embeds the last ones of each pairing) of a
    // game the viewer draws.
    let game = records[..20]
        .iter()
        .find(|r| arena_core::games::entry(&r.game).is_ok_and(|e| e.replay_drawer.is_some()))
        .unwrap();
    let listed = data["games"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["index"] == game.index)
        .unwrap();
    assert!(listed.get("moves").is_none(), "embedded: {listed}");
    assert!((data["replays"].as_u64().unwrap()) < records.len() as u64);
    let block = dir.join(REPLAY_DIR).join(block_name(game.index));
    assert!(
        std::fs::read_to_string(&block)
            .unwrap()
            .contains(&format!("arenaReplay({{\"index\":{},", game.index)),
        "{} lacks game {}",
        block.display(),
        game.index
    );
    let Some(bin) = require_chromium() else {
        return;
    };
    let run = run_chromium(
        &bin,
        &dir,
        &["--dump-dom"],
        &file_url(&page, &format!("game={}&selftest", game.index)),
    );
    let result = selftest(&run.stdout);
    eprintln!("selftest: {result}");
    assert_eq!(result["errors"], serde_json::json!([]), "page errors");
    assert_eq!(result["block"], "loaded", "{result}");
    assert_eq!(result["block_game"], game.index, "{result}");
    for check in ["block_replay_opened", "block_board_drawn", "board_drawn"] {
        assert_eq!(result["checks"][check], true, "{check}: {result}");
    }
    for (check, ok) in result["checks"].as_object().unwrap() {
        assert_eq!(ok, true, "selftest check {check} failed: {result}");
    }
    assert_eq!(
        result["ply_label"],
        format!("ply 0 / {}", game.moves.len()),
        "{result}"
    );
}

/// A real match between bots that report a search (`info depth 1 score cp
/// N`), with transcripts and resign adjudication: the replay's evaluation
/// graph has a point for every scored move, each saying its bot's score;
/// it links both seats' stderr logs and transcripts (files that exist);
/// and its summary line names the adjudication rule that ended the game.
#[test]
fn a_replay_plots_structured_info_and_links_each_seats_files() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report_html_search");
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.to_str().unwrap();
    arena_ok(&[
        "match",
        "--game",
        "dakon",
        "--bot",
        "up=python3 bots/test/testbot.py --score 250",
        "--bot",
        "down=python3 bots/test/testbot.py --score -180",
        "--games",
        "2",
        "--resign",
        "movecount=4",
        "score=150",
        "--out",
        out,
        "--quiet",
        "--transcript",
    ]);
    arena_ok(&["report", out]);
    let records = arena::store::read_games_file(&dir.join("games.jsonl")).unwrap();
    let game0 = records.iter().find(|r| r.index == 0).unwrap();
    assert_eq!(game0.reason.as_str(), "adjudicated", "{game0:?}");
    let Some(bin) = require_chromium() else {
        return;
    };
    let page = dir.join("index.html");
    let run = run_chromium(
        &bin,
        &dir,
        &["--dump-dom"],
        &file_url(&page, "game=0&selftest"),
    );
    let result = selftest(&run.stdout);
    eprintln!("selftest: {result}");
    assert_eq!(result["errors"], serde_json::json!([]), "page errors");
    // Every move the bots made is scored (the opening's are the referee's).
    let said: Vec<String> = game0
        .moves
        .iter()
        .enumerate()
        .skip(game0.opening_plies)
        .map(|(i, m)| {
            let name = &game0.seats[m.seat].name;
            let score = if name == "up" { 250 } else { -180 };
            assert_eq!(m.search["score"], score.to_string(), "{m:?}");
            assert_eq!(m.search["depth"], "1", "{m:?}");
            format!("ply {}: {name} says {score}", i + 1)
        })
        .collect();
    assert!(said.len() >= 8, "{said:?}");
    assert_eq!(result["eval_points"], said.len(), "{result}");
    // The graph draws seat 0's points, then seat 1's.
    let mut titles: Vec<String> = result["eval_titles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap().to_string())
        .collect();
    let mut want = said.clone();
    titles.sort();
    want.sort();
    assert_eq!(titles, want, "{result}");
    let files: Vec<&str> = game0
        .seats
        .iter()
        .flat_map(|s| [s.log.as_deref(), s.transcript.as_deref()])
        .map(|f| f.expect("a stderr log and a transcript for each seat"))
        .collect();
    assert_eq!(result["seat_files"], serde_json::json!(files), "{result}");
    for f in &files {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let meta = result["replay_meta"].as_str().unwrap();
    assert!(
        meta.contains("(adjudicated: resign movecount=4 score=150: "),
        "{meta}"
    );
}
