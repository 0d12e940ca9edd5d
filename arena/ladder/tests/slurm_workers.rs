//! Ladder workers deployed as docs/workers.md says, against a real server on
//! loopback (`arena-ladder serve --workers 0`):
//!
//! - `arena slurm --workers 2` on a real single-node Slurm cluster
//!   (arena/tests/cluster/slurm-single-node.sh, started and stopped once by
//!   the test): both tasks play the ladder's games (their logs say which),
//!   each game is counted once, the token appears in no command line, script
//!   or job record, and at the end of the job's time limit each worker is
//!   told to stop (`--signal=B:TERM@grace`), gives back its games and exits 0:
//!   no game stays leased. It starts daemons as root, so it is `#[ignore]`d:
//!   `cargo test -p arena-ladder --test slurm_workers -- --ignored` (`.ci/run`).
//! - the systemd unit's ExecStart line (docs/deploy/arena-worker.service), run
//!   as written but for the server's URL and the paths systemd fills in,
//!   plays games and stops cleanly on SIGTERM.
//!
//! `arena slurm` and `arena worker` are the `arena` binary's: the test finds
//! it beside `arena-ladder` in target/ (`cargo test --workspace` builds both;
//! else `cargo build -p arena` first). Bots run in the sandbox (bubblewrap).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn ladder_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena-ladder"))
}

/// The `arena` binary beside `arena-ladder` (it forwards `arena worker` there).
fn arena_bin() -> PathBuf {
    let p = ladder_bin().with_file_name("arena");
    assert!(
        p.is_file(),
        "{} is missing: build it with `cargo build -p arena` (cargo test --workspace does)",
        p.display()
    );
    p
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Leases of 60 s: a game "not leased" right after a worker stopped was given
/// back, not left to lapse.
const CONFIG: &str = r#"game = "dakon"
seed = 5
[time_control]
movetime_ms = 100
[defaults.limits]
memory_mb = 512
processes = 64
[check]
games = 1
movetime_ms = 500
[matchmaking]
provisional_games = 10
max_concurrent_per_bot = 4
queue = 6
[leases]
seconds = 60
"#;

/// A child process killed when the test ends, however it ends.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn log_file(path: &Path) -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap(),
    )
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

fn out_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `arena-ladder serve --workers 0` on loopback; its address.
fn serve(data: &Path, config: &Path) -> (Proc, String) {
    let mut child = Command::new(ladder_bin())
        .arg("serve")
        .arg("--data")
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--workers", "0", "--config"])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(log_file(&data.with_extension("stderr")))
        .spawn()
        .expect("arena-ladder starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().map(|l| l.unwrap()).unwrap_or_else(|| {
        panic!(
            "the server did not start: {}",
            text(&data.with_extension("stderr"))
        )
    });
    let addr = line
        .strip_prefix("arena-ladder: listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    std::thread::spawn(move || for _ in lines {});
    (Proc(child), addr)
}

/// One HTTP exchange through curl: (status, body).
fn http(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&[u8]>) -> (u16, Vec<u8>) {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-S", "-X", method, "-o", "-", "-w", "\n%{http_code}"]);
    for (k, v) in headers {
        cmd.arg("-H").arg(format!("{k}: {v}"));
    }
    if body.is_some() {
        cmd.args(["--data-binary", "@-"]);
    }
    cmd.arg(url).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("curl runs");
    let mut stdin = child.stdin.take().unwrap();
    if let Some(b) = body {
        stdin.write_all(b).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let t = out.stdout;
    let cut = t.iter().rposition(|&b| b == b'\n').expect("curl's status");
    let status = String::from_utf8_lossy(&t[cut + 1..])
        .trim()
        .parse()
        .unwrap_or(0);
    (status, t[..cut].to_vec())
}

fn get(addr: &str, path: &str) -> Value {
    let (s, b) = http("GET", &format!("http://{addr}{path}"), &[], None);
    assert_eq!(s, 200, "GET {path}: {}", String::from_utf8_lossy(&b));
    serde_json::from_slice(&b).unwrap()
}

/// `arena-ladder ladder ARGS...` on `data`; its stdout.
fn ladder(data: &Path, args: &[&str]) -> String {
    let out = Command::new(ladder_bin())
        .arg("ladder")
        .args(args)
        .arg("--data")
        .arg(data)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", out_text(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn targz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut t = tar::Builder::new(gz);
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_path(name).unwrap();
        h.set_cksum();
        t.append(&h, *data).unwrap();
    }
    t.into_inner().unwrap().finish().unwrap()
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn wait_for(limit: Duration, why: &str, mut what: impl FnMut() -> bool) {
    let start = Instant::now();
    while !what() {
        assert!(start.elapsed() < limit, "timed out after {limit:?}: {why}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A server with two Python bots active and a worker `worker` added; the
/// server, its address, the data directory and the worker's token.
fn ladder_with_bots(tmp: &Path, worker: &str) -> (Proc, String, PathBuf, String) {
    let data = tmp.join("data");
    let config = tmp.join("ladder.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let last = |s: String| s.lines().last().unwrap().to_string();
    let author = last(ladder(&data, &["author", "add", "ann"]));
    let token = last(ladder(&data, &["worker", "add", worker]));
    let (server, addr) = serve(&data, &config);
    let kit = read("bots/python/arena_bot.py");
    let bots = [
        ("py-random", "random_bot.py"),
        ("greedy", "dakon_greedy.py"),
    ];
    let auth = format!("Bearer {author}");
    for (name, script) in bots {
        let manifest = format!("command = [\"python3\", \"{script}\"]\n");
        let archive = targz(&[
            ("arena-bot.toml", manifest.as_bytes()),
            (script, &read(&format!("bots/python/{script}"))),
            ("arena_bot.py", &kit),
        ]);
        let (s, b) = http(
            "POST",
            &format!("http://{addr}/api/bots/{name}/versions"),
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/gzip"),
            ],
            Some(&archive),
        );
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    }
    for (name, _) in bots {
        wait_for(
            Duration::from_secs(300),
            &format!("{name} is active"),
            || {
                let v = get(&addr, &format!("/api/bots/{name}"));
                let st = v["versions"][0]["status"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                assert_ne!(st, "failed", "{v}");
                st == "active"
            },
        );
    }
    (server, addr, data, token)
}

fn health(addr: &str, what: &str) -> i64 {
    get(addr, "/api/health")["games"][what]
        .as_i64()
        .unwrap_or(-1)
}

/// The exported games' ids and pairs; no id twice.
fn exported(addr: &str) -> BTreeMap<i64, i64> {
    let (s, body) = http("GET", &format!("http://{addr}/api/games.jsonl"), &[], None);
    assert_eq!(s, 200);
    let mut out = BTreeMap::new();
    for line in String::from_utf8(body).unwrap().lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let id = r["index"].as_i64().unwrap();
        assert!(
            out.insert(id, r["pair"].as_i64().unwrap()).is_none(),
            "game {id} exported twice"
        );
    }
    out
}

/// The games a worker's log says it recorded.
fn recorded(log: &str) -> BTreeSet<i64> {
    log.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("arena worker: game ")?;
            let (id, tail) = rest.split_once(": ")?;
            (tail == "recorded").then(|| id.parse().ok())?
        })
        .collect()
}

/// Every process whose command line holds `secret`.
fn command_lines_with(secret: &str) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(secret) {
                found.push(cmd);
            }
        }
    }
    found
}

/// A running test cluster; dropping it stops every daemon it started.
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
            "the test cluster did not start:\n{}",
            out_text(&out)
        );
        eprintln!("{}", String::from_utf8_lossy(&out.stderr).trim());
        cluster
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.dir.join("slurm.conf"))
            .stdin(Stdio::null());
        c
    }

    fn queued(&self, job: &str) -> String {
        let out = self
            .command("squeue")
            .args(["-h", "-o", "%i %T", "-j", job])
            .output()
            .expect("squeue runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
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

/// The tasks' logs, concatenated, with their names.
fn task_logs(slurm_dir: &Path) -> Vec<(String, String)> {
    let mut logs: Vec<(String, String)> = std::fs::read_dir(slurm_dir)
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "out"))
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        text(&e.path()),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    logs
}

fn show(logs: &[(String, String)]) -> String {
    logs.iter()
        .map(|(n, t)| format!("--- {n}:\n{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
#[ignore = "starts a real Slurm cluster (root, daemons): cargo test -p arena-ladder --test slurm_workers -- --ignored"]
fn a_fleet_of_slurm_workers_plays_the_ladder_and_gives_its_games_back_at_the_time_limit() {
    let started = Instant::now();
    let tmp = tempfile::tempdir().unwrap();
    let (server, addr, data, token) = ladder_with_bots(tmp.path(), "fleet");
    let secret = token.split_once('.').unwrap().1.to_string();
    let token_file = tmp.path().join("fleet.token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut cluster = Cluster::start(tmp.path().join("cluster"));
    eprintln!("server and cluster up after {:.1?}", started.elapsed());

    let out_dir = tmp.path().join("fleet");
    let url = format!("http://{addr}");
    // 3 minutes; SIGTERM 60 s before the end (Slurm: up to 60 s earlier), so
    // the workers play for 60 to 120 s.
    let submit = |extra: &[&str]| {
        cluster
            .command(arena_bin())
            .current_dir(tmp.path())
            .args(["slurm", "--workers", "2", "--server", &url, "--token-file"])
            .arg(&token_file)
            .args(["--time", "3", "--grace", "60", "--name", "fleet", "--out"])
            .arg(&out_dir)
            .args(extra)
            .output()
            .unwrap()
    };
    let dry = submit(&["--dry-run"]);
    assert!(dry.status.success(), "{}", out_text(&dry));
    assert!(
        !out_text(&dry).contains(&secret),
        "the token is in the script"
    );
    let out = submit(&[]);
    assert!(out.status.success(), "{}", out_text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let job = stdout
        .lines()
        .find_map(|l| l.strip_prefix("workers: job "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no job id in:\n{stdout}"))
        .to_string();
    let script = text(&out_dir.join("slurm/workers.sbatch"));
    assert!(
        script.contains("--token-file") && !script.contains(&secret),
        "{script}"
    );

    // A fixed number of games, played by the two tasks.
    let target = 6;
    let slurm_dir = out_dir.join("slurm");
    let deadline = Instant::now() + Duration::from_secs(100);
    while health(&addr, "done") < target {
        assert!(
            Instant::now() < deadline,
            "{target} games not played in 100 s ({} done)\nsqueue: {}\n{}",
            health(&addr, "done"),
            cluster.queued(&job),
            show(&task_logs(&slurm_dir))
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    let first_games = started.elapsed();
    // While they play: the secret is in no command line on the machine, nor
    // in what Slurm shows of the job.
    assert_eq!(command_lines_with(&secret), Vec::<String>::new());
    let shown = cluster
        .command("scontrol")
        .args(["show", "job", "-d", &job])
        .output()
        .unwrap();
    assert!(shown.status.success(), "{}", out_text(&shown));
    assert!(!out_text(&shown).contains(&secret), "{}", out_text(&shown));
    let squeue = cluster
        .command("squeue")
        .args(["-h", "-o", "%i %j %o", "-j", &job])
        .output()
        .unwrap();
    assert!(!out_text(&squeue).contains(&secret));

    // The time limit: each worker is told to stop `--grace` before it, gives
    // back its game in progress and exits 0 (the job leaves the queue before
    // Slurm's own kill at the limit).
    wait_for(
        Duration::from_secs(240),
        "the job ends at its time limit",
        || cluster.queued(&job).is_empty(),
    );
    let ended = started.elapsed();
    let logs = task_logs(&slurm_dir);
    assert_eq!(logs.len(), 2, "{}", show(&logs));
    for (name, log) in &logs {
        assert!(
            log.contains("arena worker: stopping: games in progress go back to the server"),
            "{name} was not told to stop:\n{log}"
        );
        assert!(log.contains("arena worker: stopped"), "{name}:\n{log}");
        assert!(
            !log.contains("DUE TO TIME LIMIT"),
            "{name} was killed:\n{log}"
        );
    }
    // Given back, not lapsed: leases are 60 s long.
    wait_for(Duration::from_secs(10), "no game stays leased", || {
        health(&addr, "leased") == 0
    });

    // Every game is there once, and each was played by the fleet's token, on
    // the machine its task reported (NAME-JOB-TASK).
    let games = exported(&addr);
    assert_eq!(games.len() as i64, health(&addr, "done"));
    let mut per_pair: BTreeMap<i64, usize> = BTreeMap::new();
    for pair in games.values() {
        *per_pair.entry(*pair).or_default() += 1;
    }
    assert!(per_pair.values().all(|n| *n <= 2), "{per_pair:?}");
    // All tasks share the token: the server knows them as one worker, and
    // tags a game with the machine that worker reported last (any task's),
    // so which task played a game is read from the tasks' logs.
    for id in games.keys() {
        let g = get(&addr, &format!("/api/games/{id}"));
        assert_eq!(g["worker"], "fleet", "game {id}: {g}");
        let machine = g["machine"]["name"].as_str().unwrap_or("").to_string();
        assert!(
            machine.starts_with(&format!("fleet-{job}-")),
            "game {id}: {machine}"
        );
    }
    let by_task: BTreeMap<String, BTreeSet<i64>> = logs
        .iter()
        .map(|(name, log)| (name.clone(), recorded(log)))
        .collect();
    let mut all = BTreeSet::new();
    for (name, ids) in &by_task {
        assert!(!ids.is_empty(), "{name} played no game:\n{}", show(&logs));
        for id in ids {
            assert!(all.insert(*id), "game {id} recorded by two tasks");
        }
    }
    assert_eq!(
        all,
        games.keys().copied().collect::<BTreeSet<i64>>(),
        "the games the tasks recorded are the ladder's games"
    );
    let by_task: BTreeMap<&String, usize> = by_task.iter().map(|(n, ids)| (n, ids.len())).collect();
    let list = ladder(&data, &["worker", "list"]);
    let line = list.lines().find(|l| l.starts_with("fleet\t")).unwrap();
    assert!(line.contains(&format!("games {}\t", games.len())), "{line}");
    assert!(line.contains("refused 0 []"), "{line}");
    let given_back: usize = logs
        .iter()
        .map(|(_, l)| l.matches("it goes back to the server").count())
        .sum();
    println!(
        "slurm workers: {} games by 2 tasks {by_task:?}; {target} after {first_games:.1?}; \
         the job ended after {ended:.1?}, its workers stopped by Slurm's SIGTERM 60 s (to \
         120 s) before the 3-minute limit; {given_back} games given back, none left leased",
        games.len()
    );
    cluster.stop();
    drop(server);
}

#[test]
fn the_systemd_units_exec_start_plays_games_and_stops_on_sigterm() {
    let tmp = tempfile::tempdir().unwrap();
    let (server, addr, _data, token) = ladder_with_bots(tmp.path(), "unit");
    // What systemd gives the service: its credential (0400, LoadCredential=)
    // in %d, and the state directory.
    let creds = tmp.path().join("credentials");
    std::fs::create_dir(&creds).unwrap();
    std::fs::write(creds.join("token"), &token).unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(creds.join("token"), std::fs::Permissions::from_mode(0o400)).unwrap();
    let state = tmp.path().join("state");
    let unit = text(&repo().join("docs/deploy/arena-worker.service"));
    let exec = unit
        .lines()
        .find_map(|l| l.strip_prefix("ExecStart="))
        .expect("an ExecStart line");
    let line = exec
        .replace("%d", creds.to_str().unwrap())
        .replace("%H", "unit-host")
        .replace("https://ladder.example.org", &format!("http://{addr}"))
        .replace("/var/lib/arena-worker", state.to_str().unwrap());
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "/usr/local/bin/arena", "{exec}");
    let log = tmp.path().join("unit.stderr");
    let mut worker = Proc(
        Command::new(arena_bin())
            .args(&words[1..])
            // As systemd starts it: no ARENA_WORKER_TOKEN in the environment.
            .env_remove("ARENA_WORKER_TOKEN")
            .stdout(Stdio::null())
            .stderr(log_file(&log))
            .spawn()
            .unwrap(),
    );
    wait_for(
        Duration::from_secs(180),
        "2 games by the unit's worker",
        || health(&addr, "done") >= 2,
    );
    for id in exported(&addr).keys() {
        let g = get(&addr, &format!("/api/games/{id}"));
        assert_eq!(g["worker"], "unit", "{g}");
        assert_eq!(g["machine"]["name"], "unit-host", "{g}");
    }
    // systemctl stop: SIGTERM to the worker (KillMode=mixed), exit 0 within
    // TimeoutStopSec, nothing left leased.
    let stop = Instant::now();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(worker.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    wait_for(Duration::from_secs(90), "the worker stops", || {
        worker.0.try_wait().unwrap().is_some()
    });
    assert_eq!(worker.0.wait().unwrap().code(), Some(0), "{}", text(&log));
    let stopped = stop.elapsed();
    wait_for(Duration::from_secs(10), "no game stays leased", || {
        health(&addr, "leased") == 0
    });
    println!(
        "systemd unit's ExecStart: {} games, stopped {stopped:.1?} after SIGTERM",
        health(&addr, "done")
    );
    drop(server);
}

#[test]
fn a_version_without_its_archive_is_given_back_with_backoff_not_in_a_loop() {
    // A version whose archive is gone while the server runs (a server
    // passes over those it finds missing at start: workers.rs): its
    // download is a 404, the worker gives the game back, and the server
    // (oldest queued first) offers it again. Without a pause that was ~170
    // leases a second from one worker (measured), all for the same game.
    let tmp = tempfile::tempdir().unwrap();
    let (server, addr, data, token) = ladder_with_bots(tmp.path(), "old");
    let mut removed = 0;
    for e in std::fs::read_dir(data.join("versions")).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("1-") {
            std::fs::remove_file(e.path().join("upload.tar.gz")).unwrap();
            removed += 1;
        }
    }
    assert_eq!(removed, 1, "version 1's archive");
    let log = tmp.path().join("old.stderr");
    let mut worker = Proc(
        Command::new(ladder_bin())
            .args(["worker", "--server", &format!("http://{addr}")])
            .args(["--concurrency", "1", "--name", "old", "--data"])
            .arg(tmp.path().join("old"))
            .env("ARENA_WORKER_TOKEN", &token)
            .stdout(Stdio::null())
            .stderr(log_file(&log))
            .spawn()
            .unwrap(),
    );
    wait_for(Duration::from_secs(60), "a game given back", || {
        text(&log).contains("cannot be prepared")
    });
    // Backoff 0.5 s doubling: in the next 6 s at most 4 more give-backs.
    std::thread::sleep(Duration::from_secs(6));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(worker.0.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    assert_eq!(worker.0.wait().unwrap().code(), Some(0), "{}", text(&log));
    let t = text(&log);
    let given_back = t.matches("cannot be prepared").count();
    assert!(t.contains("404 not_found: version 1 was uploaded before archives were kept"));
    assert!(
        (1..=6).contains(&given_back),
        "{given_back} give-backs in about 6 s:\n{t}"
    );
    assert_eq!(health(&addr, "leased"), 0);
    println!("archive-less version: {given_back} leases given back in about 6 s by one worker");
    drop(server);
}
