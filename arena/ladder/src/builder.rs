//! The builder: each queued version is built once (sandboxed, no network,
//! with the config's time, memory and disk limits), then checked with
//! check-bot on the ladder's game. A version that passes becomes its bot's
//! active version (replacing the previous one, whose games stay); one that
//! fails keeps the reason and the logs for its author.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arena::process::build::{self, BuildJob};
use arena::process::{BotSpec, LimitSettings, ResolvedSandbox};
use arena::tools::check_bot::{self, CheckOptions, Level};

use crate::app::App;
use crate::config::BuildLimits;
use crate::db::Version;

/// The longest log kept per version (the tail past it is cut).
const LOG_BYTES: usize = 64 << 10;

fn bounded(mut text: String) -> String {
    if text.len() > LOG_BYTES {
        let mut cut = LOG_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[log cut]");
    }
    text
}

/// Builds and checks queued versions, one at a time, until the ladder stops.
pub async fn run(app: Arc<App>) {
    let mut stopping = app.stopping.clone();
    loop {
        if *stopping.borrow() {
            return;
        }
        let queued = match app.db.versions_with("queued").await {
            Ok(v) => v,
            Err(e) => {
                eprintln!("arena-ladder: builder: {e}");
                Vec::new()
            }
        };
        for v in queued {
            if *stopping.borrow() {
                return;
            }
            if let Err(e) = one(&app, &v).await {
                eprintln!("arena-ladder: builder: version {}: {e}", v.id);
            }
        }
        tokio::select! {
            _ = app.builds.notified() => {}
            _ = tokio::time::sleep(Duration::from_secs(2)) => {}
            _ = stopping.changed() => {}
        }
    }
}

/// Builds and checks one version.
async fn one(app: &App, v: &Version) -> Result<(), crate::db::DbError> {
    if !app.db.advance(v.id, "queued", "building", None).await? {
        return Ok(());
    }
    let dir = app.version_dir(v.bot_id, &v.sha256);
    let limits: LimitSettings = serde_json::from_str(&v.limits).unwrap_or_default();
    let command: Vec<String> = serde_json::from_str(&v.command).unwrap_or_default();
    let mut build_log = String::new();
    if let Some(line) = app.build_command(v.bot_id, &v.sha256) {
        build_log.push_str(&format!("$ {line}\n"));
        let result = build_dir(&dir, &line, &app.config.build, app.sandbox).await;
        match result {
            Ok(()) => build_log.push_str("build succeeded\n"),
            Err(why) => {
                build_log.push_str(&why);
                let reason = format!("build failed: {}", why.lines().next().unwrap_or(""));
                app.db
                    .fail_version(v.id, &reason, Some(&bounded(build_log)), None)
                    .await?;
                return Ok(());
            }
        }
    } else {
        build_log.push_str("no build command\n");
    }
    if !app
        .db
        .advance(v.id, "building", "checking", Some(&bounded(build_log)))
        .await?
    {
        return Ok(());
    }
    let mut spec = BotSpec::new(crate::standing::version_name(&v.bot, v.seq), command);
    spec.cwd = Some(dir);
    spec.sandbox = app.sandbox;
    spec.resources = match limits.resources() {
        Ok(r) => r,
        Err(e) => {
            app.db
                .fail_version(v.id, &format!("limits: {e}"), None, None)
                .await?;
            return Ok(());
        }
    };
    let c = &app.config.check;
    let opts = CheckOptions {
        movetime: Duration::from_millis(c.movetime_ms),
        margin: Duration::from_millis(app.config.game.time_control.margin_ms),
        games: c.games,
        seed: app.config.seed ^ v.id as u64,
        startup: Duration::from_millis(c.startup_ms),
    };
    // check-bot's future stays on one thread (its state is not Sync): it
    // runs on a blocking thread of its own, on the server's runtime.
    let game = app.game.clone();
    let handle = tokio::runtime::Handle::current();
    let checked = tokio::task::spawn_blocking(move || {
        handle.block_on(check_bot::check(&opts, game, Arc::new(spec)))
    })
    .await;
    let checked = match checked {
        Ok(c) => c,
        Err(e) => Err(check_bot::CheckError::Bug(e.to_string())),
    };
    match checked {
        Err(e) => {
            app.db
                .fail_version(
                    v.id,
                    &format!("check-bot could not run it: {e}"),
                    None,
                    None,
                )
                .await?;
        }
        Ok(report) => {
            let log: String = report
                .lines
                .iter()
                .map(|(level, text)| {
                    let tag = match level {
                        Level::Pass => "PASS",
                        Level::Warn => "WARN",
                        Level::Fail => "FAIL",
                        Level::Info => "INFO",
                    };
                    format!("{tag} {text}\n")
                })
                .collect();
            let log = bounded(log);
            if report.failures() > 0 {
                let first = report
                    .lines
                    .iter()
                    .find(|(l, _)| *l == Level::Fail)
                    .map(|(_, t)| t.as_str())
                    .unwrap_or("");
                let reason = format!(
                    "check-bot: {} failure(s), first: {first}",
                    report.failures()
                );
                app.db.fail_version(v.id, &reason, None, Some(&log)).await?;
            } else {
                app.db.activate(v.id, &log).await?;
                eprintln!("arena-ladder: {}.v{} is active", v.bot, v.seq);
                // On the leaderboard (and in matchmaking) from now on.
                app.standing
                    .refresh(&app.db, &app.rating_settings())
                    .await?;
            }
        }
    }
    Ok(())
}

/// Builds the bot in `dir` with its build command `line`, within `limits`,
/// in bubblewrap without network unless `sandbox` is `None`: how the server's
/// builder and every remote worker build a version (the same tree builds
/// the same way everywhere). The error is the build's own output.
pub async fn build_dir(
    dir: &Path,
    line: &str,
    limits: &BuildLimits,
    sandbox: ResolvedSandbox,
) -> Result<(), String> {
    let job = BuildJob {
        command: vec!["sh".into(), "-c".into(), line.to_string()],
        dir: dir.to_path_buf(),
        env: Vec::new(),
        network: false,
        time: Duration::from_secs(limits.seconds),
        memory_bytes: limits.memory_mb << 20,
        dir_growth_bytes: limits.disk_mb << 20,
        tmp_bytes: limits.disk_mb << 20,
        hide: Vec::new(),
    };
    if !sandbox.is_bwrap() {
        build_unsandboxed(&job).await
    } else {
        build::run(&job, false).await.map_err(|e| e.to_string())
    }
}

/// A build on the host (only with `--sandbox none`): the same command, time
/// limit and working directory, no isolation.
async fn build_unsandboxed(job: &BuildJob) -> Result<(), String> {
    let mut cmd = tokio::process::Command::new(&job.command[0]);
    cmd.args(&job.command[1..])
        .current_dir(&job.dir)
        .kill_on_drop(true)
        .stdin(std::process::Stdio::null());
    let out = tokio::time::timeout(job.time, cmd.output())
        .await
        .map_err(|_| {
            format!(
                "it took longer than {} s and was killed",
                job.time.as_secs()
            )
        })?
        .map_err(|e| format!("cannot start it: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        Err(format!(
            "it failed ({}); its output:\n{}",
            out.status,
            arena::display::escape(&text)
        ))
    }
}
