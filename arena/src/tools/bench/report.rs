//! The bench's figures as a table for people (`--json` prints them as
//! they are).

use std::fmt;

use super::{BenchReport, TARGET_REFEREE_RATIO, TARGET_SCALING};

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "MISSED"
    }
}

impl fmt::Display for BenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.machine;
        let [l1, l5, l15] = m.load_average;
        writeln!(
            f,
            "arena {} bench{}, {}, {} cores, load average {l1:.2} {l5:.2} {l15:.2} at the start, {:.2} at the end ({:.0} s)",
            m.arena_version,
            if m.quick { " --quick" } else { "" },
            m.date,
            m.cores,
            self.load_average_end,
            self.seconds
        )?;
        writeln!(
            f,
            "The machine may be shared: compare ratios, not absolute figures."
        )?;
        writeln!(f, "Instant bot: {}", self.instant_bot)?;
        writeln!(f)?;
        writeln!(f, "Engines: random playouts, one thread")?;
        for e in &self.engines {
            write!(
                f,
                "  {:<11} {:>7.2} M moves/s {:>9.0} games/s ({:.1} moves/game; {:.2} M per CPU second)",
                e.game,
                e.moves_per_sec / 1e6,
                e.games_per_sec,
                e.moves_per_game,
                e.moves_per_cpu_sec / 1e6,
            )?;
            if let (Some(target), Some(ratio)) = (e.target_moves_per_sec, e.ratio_to_target) {
                write!(
                    f,
                    "   target {:.2} M (plain C): {ratio:.2}x per CPU second, {}",
                    target / 1e6,
                    met(ratio >= 1.0)
                )?;
            }
            writeln!(f)?;
        }
        let p = &self.pipe;
        writeln!(f)?;
        writeln!(
            f,
            "Pipe floor: `go` -> `move 3` round trip to a child process"
        )?;
        writeln!(
            f,
            "  arena bench-echo   {:>8.2} us mean (p50 {:.2}, p99 {:.2}; {} round trips)",
            p.rt_us, p.rt_p50_us, p.rt_p99_us, p.round_trips
        )?;
        match p.c_rt_us {
            Some(c) => writeln!(
                f,
                "  pingpong.c rt      {c:>8.2} us mean (Rust/C {:.2})",
                p.rt_us / c
            )?,
            None => writeln!(
                f,
                "  pingpong.c rt      (not run: give --pingpong PATH/pingpong.c)"
            )?,
        }
        let r = &self.referee;
        writeln!(f)?;
        writeln!(
            f,
            "Referee: instant bots over pipes, {}-ply toy game, bots kept",
            r.plies_per_game
        )?;
        writeln!(
            f,
            "  1 game at a time   {:>8.2} us/move = {:.2}x the pipe floor (median of rounds, each over a floor measured just before)   target <= {TARGET_REFEREE_RATIO}x: {}",
            r.us_per_move_c1,
            r.ratio_c1,
            met(r.ratio_c1 <= TARGET_REFEREE_RATIO)
        )?;
        writeln!(
            f,
            "  ... clock = cpu    {:>8.2} us/move = {:.2}x the pipe floor (the same games, each decision charged the bot's CPU time)   target <= {TARGET_REFEREE_RATIO}x: {}",
            r.us_per_move_c1_cpu_clock,
            r.ratio_c1_cpu_clock,
            met(r.ratio_c1_cpu_clock <= TARGET_REFEREE_RATIO)
        )?;
        writeln!(
            f,
            "  2 games at once    {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; a thread per game, as arena tournament)",
            r.us_per_move_c2, r.ratio_c2, r.moves_per_sec_c2
        )?;
        writeln!(
            f,
            "  2 games, 2 workers {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; one work-stealing runtime)",
            r.us_per_move_c2_work_stealing,
            r.us_per_move_c2_work_stealing / self.pipe.rt_us,
            2e6 / r.us_per_move_c2_work_stealing
        )?;
        writeln!(
            f,
            "  2 games, 1 thread  {:>8.2} us/move each = {:.2}x the floor ({:.0} moves/s in all; current-thread runtime)",
            r.us_per_move_c2_single,
            r.us_per_move_c2_single / self.pipe.rt_us,
            2e6 / r.us_per_move_c2_single
        )?;
        let engines: Vec<String> = r
            .with_engines
            .iter()
            .map(|(game, us)| format!("{game} {us:.2} us/move"))
            .collect();
        writeln!(
            f,
            "  with engines       {} (1 game at a time)",
            engines.join(", ")
        )?;
        let t = &self.tournament;
        writeln!(f)?;
        writeln!(
            f,
            "Tournament: round robin, {} instant bots, {} games of {} ({:.1} plies/game) at each concurrency in {} rounds, fresh bots per game, journal fsynced",
            t.bots, t.games, t.game, t.plies_per_game, t.rounds
        )?;
        writeln!(
            f,
            "  concurrency 1      {:>8.1} games/s",
            t.games_per_sec_c1
        )?;
        writeln!(
            f,
            "  concurrency {:<6} {:>8.1} games/s; speed-up {:.2}x (median of the rounds' ratios; {:.2}x to {:.2}x)   target >= {TARGET_SCALING}x on 2 cores: {}",
            t.concurrency,
            t.games_per_sec_cn,
            t.scaling,
            t.scaling_min,
            t.scaling_max,
            met(t.scaling >= TARGET_SCALING)
        )?;
        writeln!(
            f,
            "  CPU (referee + bots) per game: {:.2} ms at concurrency 1, {:.2} ms at {}; cores busy: {:.2} and {:.2}",
            t.cpu_ms_per_game_c1,
            t.cpu_ms_per_game_cn,
            t.concurrency,
            t.cores_busy_c1,
            t.cores_busy_cn
        )?;
        writeln!(
            f,
            "  referee peak memory per concurrent game: {:.0} KiB at concurrency 1, {:.0} KiB at {} (resident before: {:.0} KiB)",
            t.peak_kib_per_game_c1, t.peak_kib_per_game_cn, t.concurrency, t.base_rss_kib
        )?;
        writeln!(
            f,
            "  keep_bots = true   {:>8.1} games/s at concurrency 1, {:.1} at {}: saves {:.2} ms/game ({:.2} ms CPU) at 1, {:.2} ms/game at {}",
            t.kept_games_per_sec_c1,
            t.kept_games_per_sec_cn,
            t.concurrency,
            t.kept_saves_ms_per_game_c1,
            t.kept_saves_cpu_ms_per_game_c1,
            t.kept_saves_ms_per_game_cn,
            t.concurrency
        )?;
        writeln!(
            f,
            "  ponder = true      {:>8.1} games/s at concurrency 1, {:.1} at {}: freezing the waiting bot costs {:.1}% and {:.1}% (target <= 10%: {})",
            t.ponder_games_per_sec_c1,
            t.ponder_games_per_sec_cn,
            t.concurrency,
            100.0 * t.freeze_cost_c1,
            100.0 * t.freeze_cost_cn,
            met(t.freeze_cost_c1.max(t.freeze_cost_cn) <= 0.10)
        )?;
        match (t.sandboxed_games_per_sec_c1, t.sandbox_ms_per_game_c1) {
            (Some(rate), Some(ms)) => writeln!(
                f,
                "  sandbox = bwrap    {rate:>8.1} games/s at concurrency 1: the sandbox adds {ms:.2} ms/game (two bot starts)"
            )?,
            _ => writeln!(f, "  sandbox = bwrap    not measured: bubblewrap does not work here")?,
        }
        let s = &self.process_start;
        writeln!(f)?;
        writeln!(
            f,
            "Process start: {} games of {}, one at a time",
            s.games, s.game
        )?;
        writeln!(
            f,
            "  fresh bots {:.2} ms/game, kept bots {:.2} ms/game: starting two bots costs {:.2} ms/game",
            s.fresh_ms_per_game, s.kept_ms_per_game, s.start_ms_per_game
        )?;
        writeln!(
            f,
            "  fresh arena bot-first (Rust) bots {:.2} ms/game",
            s.rust_fresh_ms_per_game
        )?;
        write!(
            f,
            "  one echo child: start + round trip + quit {:.3} ms",
            p.session_ms
        )?;
        if let Some(c) = p.c_session_ms {
            write!(f, " (pingpong.c session {c:.3} ms)")?;
        }
        writeln!(f)
    }
}
