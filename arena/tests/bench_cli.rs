//! `arena bench --quick --json` prints every figure as a positive finite
//! number. Speed itself is shown by the figures, never asserted here.

use std::process::Command;

use serde_json::Value;

const ARENA: &str = env!("CARGO_BIN_EXE_arena");

fn number(v: &Value, path: &str) -> f64 {
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
    assert!(x.is_finite() && x > 0.0, "{path} = {x}");
    x
}

#[test]
fn quick_json_has_every_figure() {
    let out = Command::new(ARENA)
        .args(["bench", "--quick", "--json"])
        .output()
        .expect("arena runs");
    assert!(
        out.status.success(),
        "arena bench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
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
        "referee.ratio_c2",
        "referee.dakon_us_per_move",
        "referee.latrunculi_us_per_move",
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
        "process_start.games",
        "process_start.fresh_ms_per_game",
        "process_start.kept_ms_per_game",
        "process_start.start_ms_per_game",
    ] {
        number(&v, path);
    }
    assert!(v["machine"]["date"]
        .as_str()
        .is_some_and(|d| d.ends_with('Z')));
    let engines = v["engines"].as_array().expect("engines is a list");
    let names: Vec<&str> = engines.iter().filter_map(|e| e["game"].as_str()).collect();
    assert_eq!(names, ["dakon", "latrunculi"]);
    for i in 0..engines.len() {
        for field in [
            "moves_per_sec",
            "games_per_sec",
            "moves_per_game",
            "games",
            "seconds",
            "cpu_seconds",
            "moves_per_cpu_sec",
            "target_moves_per_sec",
            "ratio_to_target",
        ] {
            number(&v, &format!("engines.{i}.{field}"));
        }
    }
    // Without --pingpong the C figures are absent (null), not made up.
    assert!(v["pipe"]["c_rt_us"].is_null());
}
