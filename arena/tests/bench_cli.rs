//! `arena bench --quick --json` prints every figure as a positive finite
//! number. Speed itself is shown by the figures, never asserted here.

use std::process::Command;

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

/// The finite number at `path` (keys and list indices joined by `.`).
fn finite(v: &Value, path: &str) -> f64 {
    let mut at = v;
    for key in path.split('.') {
        at = match key.parse::<usize>() {
            Ok(i) => &at[i],
            Err(_) => &at[key],
        };
    }
    let x = at
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {at}"));
    assert!(x.is_finite(), "{path} = {x}");
    x
}

fn number(v: &Value, path: &str) -> f64 {
    let x = finite(v, path);
    assert!(x > 0.0, "{path} = {x}");
    x
}

/// `arena bench --quick --json` with `CC` set to `cc`, as one JSON value.
fn quick_bench(cc: &str) -> Value {
    bench_json(&["--quick", "--json"], cc)
}

/// `arena bench ARGS` with `CC` set to `cc`; its output as one JSON value.
fn bench_json(args: &[&str], cc: &str) -> Value {
    let out = Command::new(ARENA)
        .arg("bench")
        .args(args)
        .env("CC", cc)
        .output()
        .expect("arena runs");
    assert!(
        out.status.success(),
        "arena bench {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object on stdout")
}

fn has_c_compiler() -> bool {
    Command::new("cc")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn quick_json_has_every_figure() {
    let v = quick_bench("cc");
    // The leanest instant bot: the C one wherever there is a compiler.
    let bot = v["instant_bot"].as_str().expect("instant_bot is text");
    if has_c_compiler() {
        assert!(bot.starts_with("bots/c/first_legal.c"), "{bot}");
    }
    for path in [
        "machine.cores",
        "machine.load_average.0",
        "seconds",
        "load_average_end",
        "pipe.round_trips",
        "pipe.rt_us",
        "pipe.rt_p50_us",
        "pipe.rt_p99_us",
        "pipe.session_ms",
        "referee.plies_per_game",
        "referee.us_per_move_c1",
        "referee.us_per_move_c2",
        "referee.us_per_move_c2_work_stealing",
        "referee.us_per_move_c2_single",
        "referee.moves_per_sec_c2",
        "referee.ratio_c1",
        "referee.us_per_move_c1_cpu_clock",
        "referee.ratio_c1_cpu_clock",
        "referee.ratio_c2",
        "tournament.games",
        "tournament.concurrency",
        "tournament.games_per_sec_c1",
        "tournament.games_per_sec_cn",
        "tournament.rounds",
        "tournament.scaling",
        "tournament.scaling_min",
        "tournament.scaling_max",
        "tournament.cpu_ms_per_game_c1",
        "tournament.cpu_ms_per_game_cn",
        "tournament.cores_busy_c1",
        "tournament.cores_busy_cn",
        "tournament.peak_kib_per_game_c1",
        "tournament.peak_kib_per_game_cn",
        "tournament.base_rss_kib",
        "tournament.plies_per_game",
        "tournament.kept_games_per_sec_c1",
        "tournament.kept_games_per_sec_cn",
        "tournament.ponder_games_per_sec_c1",
        "tournament.ponder_games_per_sec_cn",
        "process_start.games",
        "process_start.fresh_ms_per_game",
        "process_start.kept_ms_per_game",
        "process_start.rust_fresh_ms_per_game",
        "process_start.start_ms_per_game",
    ] {
        number(&v, path);
    }
    // What kept bots save: a difference of two measured rates, so its
    // sign is the machine's to show, not the test's to assert.
    for path in [
        "tournament.kept_saves_ms_per_game_c1",
        "tournament.kept_saves_cpu_ms_per_game_c1",
        "tournament.kept_saves_ms_per_game_cn",
        "tournament.freeze_cost_c1",
        "tournament.freeze_cost_cn",
    ] {
        finite(&v, path);
    }
    assert!(v["machine"]["date"]
        .as_str()
        .is_some_and(|d| d.ends_with('Z')));
    // Every registered game, in the registry's order; the games with a
    // plain-C figure (dakon, latrunculi) are compared with it.
    let engines = v["engines"].as_array().expect("engines is a list");
    let names: Vec<&str> = engines.iter().filter_map(|e| e["game"].as_str()).collect();
    let registered: Vec<&str> = arena_core::games::GAMES.iter().map(|g| g.name).collect();
    assert_eq!(names, registered);
    for (i, name) in names.iter().enumerate() {
        number(&v, &format!("referee.{name}_us_per_move"));
        let mut fields = vec![
            "moves_per_sec",
            "games_per_sec",
            "moves_per_game",
            "games",
            "seconds",
            "cpu_seconds",
            "moves_per_cpu_sec",
        ];
        if arena_core::games::entry(name).is_ok_and(|e| e.playout_target.is_some()) {
            fields.extend(["target_moves_per_sec", "ratio_to_target"]);
        }
        for field in fields {
            number(&v, &format!("engines.{i}.{field}"));
        }
    }
    for game in ["dakon", "latrunculi"] {
        assert!(names.contains(&game), "{names:?}");
    }
    // Without --pingpong the C figures are absent (null), not made up.
    assert!(v["pipe"]["c_rt_us"].is_null());
}

/// Without a C compiler the bench still runs every section, with the Rust
/// instant bot, and says why.
#[test]
fn without_a_c_compiler_the_rust_bot_plays() {
    let v = quick_bench("/nonexistent/cc");
    let bot = v["instant_bot"].as_str().expect("instant_bot is text");
    assert!(bot.starts_with("arena bot-first"), "{bot}");
    assert!(bot.contains("/nonexistent/cc"), "{bot}");
    number(&v, "tournament.games_per_sec_cn");
    number(&v, "process_start.fresh_ms_per_game");
}

#[test]
fn scale_json_has_every_figure_of_each_step() {
    // 100 games: the figures' shape, in seconds (`--scale` alone runs
    // 10^3 and 10^4).
    let v = bench_json(&["--scale", "--scale-max", "100", "--json"], "cc");
    assert_eq!(v["sizes"].as_array().unwrap().len(), 1);
    assert_eq!(number(&v, "sizes.0.games"), 100.0);
    let steps: Vec<&str> = v["sizes"][0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        [
            "play shard 1/2",
            "play shard 2/2",
            "merge (+ report)",
            "report",
            "ratings"
        ]
    );
    for i in 0..steps.len() {
        for f in ["seconds", "games_per_second", "peak_mib"] {
            number(&v, &format!("sizes.0.steps.{i}.{f}"));
        }
    }
    for f in [
        "games_jsonl_bytes",
        "games_csv_bytes",
        "index_html_bytes",
        "replays_bytes",
        "replay_files",
    ] {
        number(&v, &format!("sizes.0.{f}"));
    }
    // Every game's replay is in a block of 100 games.
    assert_eq!(number(&v, "sizes.0.replay_files"), 1.0);
}
