//! `arena slurm` for real: a single-node Slurm cluster on localhost
//! (arena/tests/cluster/slurm-single-node.sh), a 3-shard tournament submitted as an
//! array job plus a dependent merge job, and the merged report compared with
//! the same tournament run on one machine.
//!
//! The cluster test starts daemons as root, so it is `#[ignore]`d: it runs
//! with `cargo test -p arena --test slurm -- --ignored` (`.ci/run` does); the
//! `--dry-run` tests always run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "common/runs.rs"]
mod runs;
use runs::*;

/// A running test cluster; dropping it stops every daemon it started (also
/// when the test panics).
struct Cluster {
    dir: PathBuf,
    stopped: bool,
}

impl Cluster {
    fn helper() -> PathBuf {
        repo().join("arena/tests/cluster/slurm-single-node.sh")
    }

    fn start(dir: PathBuf) -> Cluster {
        std::fs::create_dir_all(&dir).unwrap();
        let cluster = Cluster {
            dir,
            stopped: false,
        };
        let out = Command::new("bash")
            .arg(Self::helper())
            .arg("start")
            .arg(&cluster.dir)
            .stdin(Stdio::null())
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "the test cluster did not start:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("{}", String::from_utf8_lossy(&out.stderr).trim());
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A Slurm client command against this cluster.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf()).stdin(Stdio::null());
        c
    }

    /// The daemons' pids, from their pid files.
    fn daemon_pids(&self) -> Vec<i32> {
        ["run/slurmd.pid", "run/slurmctld.pid", "munge/munged.pid"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(self.dir.join(f)).ok())
            .filter_map(|s| s.trim().parse().ok())
            .collect()
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let status = Command::new("bash")
            .arg(Self::helper())
            .arg("stop")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .status();
        eprintln!("test cluster stopped: {status:?}");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Alive and not a zombie.
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map(|s| {
            !s.lines()
                .any(|l| l.starts_with("State:") && (l.contains('Z') || l.contains('X')))
        })
        .unwrap_or(false)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The job id after `label` in `arena slurm`'s output (`shards: job 12 (...`).
fn job_id(stdout: &str, label: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no `{label}` line in:\n{stdout}"));
    line.split_whitespace().nth(2).unwrap().to_string()
}

/// Everything that helps to see why the jobs did not finish.
fn diagnostics(cluster: &Cluster, run: &Path) -> String {
    let mut s = String::new();
    if let Ok(out) = cluster.command("squeue").arg("-a").output() {
        s.push_str(&format!("squeue:\n{}\n", text(&out)));
    }
    if let Ok(entries) = std::fs::read_dir(run.join("slurm")) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "out") {
                let t = std::fs::read_to_string(e.path()).unwrap_or_default();
                s.push_str(&format!("--- {}:\n{t}\n", e.path().display()));
            }
        }
    }
    for log in ["log/slurmctld.log", "log/slurmd.log"] {
        let t = std::fs::read_to_string(cluster.dir.join(log)).unwrap_or_default();
        let tail: Vec<&str> = t.lines().rev().take(15).collect();
        s.push_str(&format!(
            "--- {log} (last lines):\n{}\n",
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        ));
    }
    s
}

/// Job ids that squeue still lists.
fn queued(cluster: &Cluster, ids: &[&str]) -> Vec<String> {
    let out = cluster
        .command("squeue")
        .args(["-h", "-o", "%i %T", "-j", &ids.join(",")])
        .output()
        .expect("squeue runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

// `cargo test` lists it as ignored, with the reason: a skip that is seen
// without a banner on the terminal.
#[test]
#[ignore = "starts a real Slurm cluster (root, daemons): cargo test -p arena --test slurm -- --ignored"]
fn a_tournament_on_slurm_equals_the_same_tournament_on_one_machine() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let mut cluster = Cluster::start(tmp.path().join("cluster"));
    eprintln!("cluster up after {:.1?}", started.elapsed());
    let tag = format!("slurm-{}", std::process::id());
    // 3 bots, 3 pairings of 16 games: 24 seat-swapped pairs, 8 per shard.
    let config = write_config(tmp.path(), "on-slurm", 16, &tag);
    let run = tmp.path().join("run");

    let out = cluster
        .command(ARENA)
        .current_dir(tmp.path())
        .args(["slurm", config.to_str().unwrap(), "--shards", "3"])
        .args(["--time", "00:10:00", "--out", run.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = ok(&out);
    let array = job_id(&stdout, "shards:");
    let merge = job_id(&stdout, "merge:");
    assert!(
        stdout.contains(&run.join("index.html").display().to_string()),
        "{stdout}"
    );

    // Requeue task 1 in the middle of its shard, as Slurm does when a node
    // fails or a job is preempted: the task is stopped and started again.
    let shard1 = run.join("shard-1-of-3");
    let journaled = |f: &str| {
        std::fs::read_to_string(shard1.join(f))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut requeued = false;
    while Instant::now() < deadline {
        let manifest = std::fs::read_to_string(shard1.join("tournament.json")).unwrap_or_default();
        if manifest.contains("\"complete\"") {
            break;
        }
        if journaled("journal.jsonl") + journaled("games.jsonl") >= 2 {
            let task = format!("{array}_1");
            let rq = cluster
                .command("scontrol")
                .args(["requeue", &task])
                .output()
                .unwrap();
            assert!(rq.status.success(), "scontrol requeue: {}", text(&rq));
            // A requeued job may start again 2 minutes after it is back to
            // pending; make that now (set earlier, while it is still
            // completing, the start time is overwritten).
            let wait = Instant::now();
            while queued(&cluster, &[&task])
                .iter()
                .all(|l| !l.contains("PENDING"))
            {
                assert!(
                    wait.elapsed() < Duration::from_secs(60),
                    "task 1 never went back to pending\n{}",
                    diagnostics(&cluster, &run)
                );
                std::thread::sleep(Duration::from_millis(100));
            }
            let now = cluster
                .command("scontrol")
                .args(["update", &format!("JobId={task}"), "StartTime=now"])
                .output()
                .unwrap();
            assert!(now.status.success(), "scontrol update: {}", text(&now));
            requeued = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if !requeued {
        eprintln!("note: task 1 finished before it could be requeued mid-shard");
    }

    // Wait for the merge job: at most 5 minutes.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        if queued(&cluster, &[&array, &merge]).is_empty() {
            break;
        }
        if Instant::now() > deadline {
            panic!(
                "the jobs did not finish in 5 minutes\n{}",
                diagnostics(&cluster, &run)
            );
        }
        std::thread::sleep(Duration::from_millis(500));
    }
    eprintln!("slurm jobs done after {:.1?}", started.elapsed());
    for f in [
        "tournament.json",
        "games.jsonl",
        "ratings.csv",
        "index.html",
    ] {
        assert!(
            run.join(f).is_file(),
            "the merge job left no {f}\n{}",
            diagnostics(&cluster, &run)
        );
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("tournament.json")).unwrap())
            .unwrap();
    assert_eq!(manifest["status"], "complete");
    assert_eq!(manifest["shard"], serde_json::Value::Null);
    let shard_games: Vec<usize> = (1..=3)
        .map(|k| records_without_timing(&run.join(format!("shard-{k}-of-3"))).len())
        .collect();
    assert_eq!(shard_games, [16, 16, 16], "each task played its own shard");

    // The same tournament on one machine, no shards.
    let local = tmp.path().join("local");
    tournament(&config, &local, &["--concurrency", "2"]);
    assert_same_results(&local, &run);
    assert_eq!(records_without_timing(&run).len(), 48);
    if requeued {
        // The requeued task resumed its journal: the games it had finished
        // were not played again (the merge above refuses duplicates, and
        // each shard holds each of its games once).
        let log = std::fs::read_to_string(run.join("slurm/shard-1-of-3.out")).unwrap();
        assert!(log.contains("DUE TO JOB REQUEUE"), "{log}");
        assert!(log.contains("played now, the rest resumed"), "{log}");
    }

    // A re-run of a task (as after a requeue) resumes its own journal: it
    // plays nothing and leaves the shard as it was.
    let shard2 = run.join("shard-2-of-3");
    let before = std::fs::read(shard2.join("games.jsonl")).unwrap();
    let rerun = cluster
        .command("sbatch")
        .args(["--wait", "--array=2"])
        .arg(run.join("slurm/shards.sbatch"))
        .output()
        .unwrap();
    assert!(
        rerun.status.success(),
        "re-run of task 2 failed: {}\n{}",
        text(&rerun),
        diagnostics(&cluster, &run)
    );
    assert_eq!(std::fs::read(shard2.join("games.jsonl")).unwrap(), before);
    let log = std::fs::read_to_string(run.join("slurm/shard-2-of-3.out")).unwrap();
    assert!(
        log.contains("16 games (shard 2/3), 0 played now, the rest resumed"),
        "{log}"
    );

    // The merge refuses a missing shard and names its games.
    let partial = arena(&[
        "merge",
        run.join("shard-1-of-3").to_str().unwrap(),
        run.join("shard-3-of-3").to_str().unwrap(),
        "--out",
        tmp.path().join("partial").to_str().unwrap(),
    ]);
    assert!(!partial.status.success());
    let err = String::from_utf8_lossy(&partial.stderr);
    assert!(err.contains("missing (shard 2/3?)"), "{err}");

    // Submitting again into a finished run is refused before anything is submitted.
    let again = cluster
        .command(ARENA)
        .current_dir(tmp.path())
        .args(["slurm", config.to_str().unwrap(), "--shards", "3"])
        .args(["--out", run.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1), "{}", text(&again));
    assert!(text(&again).contains("already holds a report"));

    let pids = cluster.daemon_pids();
    assert_eq!(pids.len(), 3, "{pids:?}");
    cluster.stop();
    let start = Instant::now();
    while pids.iter().any(|&p| alive(p)) {
        assert!(
            start.elapsed() < Duration::from_secs(15),
            "daemons survived stop: {pids:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("whole test: {:.1?}", started.elapsed());
}

#[test]
fn dry_run_prints_both_scripts_with_absolute_paths_and_submits_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    write_config(tmp.path(), "dry", 2, "dry");
    let out = Command::new(ARENA)
        .current_dir(tmp.path())
        .env("PATH", "/nonexistent") // no sbatch: nothing may be submitted
        .args(["slurm", "dry.toml", "--shards", "4", "--dry-run"])
        .args(["--partition", "short", "--time", "2:00:00"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stdout = ok(&out);
    let dir = tmp.path().canonicalize().unwrap();
    let run = dir.join("reports/dry");
    for line in [
        format!("# {}/slurm/shards.sbatch", run.display()),
        format!("# {}/slurm/merge.sbatch", run.display()),
        "#SBATCH --array=1-4".into(),
        "#SBATCH --partition=short".into(),
        "#SBATCH --time=2:00:00".into(),
        format!("#SBATCH --chdir={}", dir.display()),
        format!("run={}", run.display()),
        format!("arena={ARENA}"),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no `{line}` in:\n{stdout}"
        );
    }
    assert!(stdout.contains(&format!(
        "tournament {}/dry.toml --shard \"$k/4\"",
        dir.display()
    )));
    assert!(stdout.contains("\"$run/shard-4-of-4\" --out \"$run\""));
    assert!(stdout.contains("--dependency=afterok:"));
    assert!(!run.exists(), "a dry run writes nothing");
}

#[test]
fn without_sbatch_the_error_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    let config = write_config(tmp.path(), "nosb", 2, "nosb");
    let out = Command::new(ARENA)
        .current_dir(tmp.path())
        .env("PATH", "/nonexistent")
        .args(["slurm", config.to_str().unwrap(), "--shards", "2"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("sbatch not found"), "{}", text(&out));
}

#[test]
fn a_dry_run_of_workers_prints_the_script_with_the_token_files_path_not_the_token() {
    use std::os::unix::fs::PermissionsExt as _;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let token = dir.join("worker-token");
    std::fs::write(&token, "w3.SECRETSECRET\n").unwrap();
    let run = |mode: u32, extra: &[&str]| {
        std::fs::set_permissions(&token, std::fs::Permissions::from_mode(mode)).unwrap();
        Command::new(ARENA)
            .current_dir(&dir)
            .env("PATH", "/nonexistent") // no sbatch: nothing may be submitted
            .args([
                "slurm",
                "--workers",
                "3",
                "--server",
                "http://10.1.2.3:8080",
            ])
            .args(["--token-file", "worker-token", "--time", "1:00:00"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(0o600, &["--dry-run", "--cpus-per-task", "2"]);
    let stdout = ok(&out);
    for line in [
        format!("# {}/arena-workers/slurm/workers.sbatch", dir.display()),
        "#SBATCH --array=1-3".into(),
        "#SBATCH --cpus-per-task=2".into(),
        "#SBATCH --time=1:00:00".into(),
        "#SBATCH --signal=B:TERM@120".into(),
        format!("#SBATCH --chdir={}", dir.display()),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no `{line}` in:\n{stdout}"
        );
    }
    assert!(
        stdout.contains(&format!(
            "worker --server http://10.1.2.3:8080 --token-file {} --concurrency 2 --name arena-worker-\"$job-$k\"",
            token.display()
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("SECRET"), "{stdout}");
    assert!(
        !dir.join("arena-workers").exists(),
        "a dry run writes nothing"
    );

    // A token file others can read is refused before anything is written.
    let open = run(0o644, &["--dry-run"]);
    assert_eq!(open.status.code(), Some(2), "{}", text(&open));
    assert!(
        text(&open).contains("open to other users (mode 644)"),
        "{}",
        text(&open)
    );
    // A grace as long as the job, a tournament's flag, a missing token file.
    let long = run(0o600, &["--dry-run", "--grace", "3600"]);
    assert!(text(&long).contains("--grace 3600 is not shorter than --time 1:00:00"));
    let mixed = run(0o600, &["--dry-run", "--shards", "2"]);
    assert_eq!(mixed.status.code(), Some(2));
    assert!(
        text(&mixed).contains("cannot be used with"),
        "{}",
        text(&mixed)
    );
    let missing = Command::new(ARENA)
        .current_dir(&dir)
        .args([
            "slurm",
            "--workers",
            "1",
            "--server",
            "http://h:1",
            "--dry-run",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        text(&missing).contains("--token-file"),
        "{}",
        text(&missing)
    );
}
