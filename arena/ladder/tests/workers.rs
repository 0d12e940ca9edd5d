//! Remote workers end to end, on loopback with real processes: a server
//! with no built-in workers (`--workers 0`) and three `arena-ladder worker`
//! processes play a ladder to a fixed number of games through `kill -9` of
//! a worker in the middle of a game (that game is leased again and counted
//! once) and of the server (after the restart every finished game is there
//! once); a revoked worker stops, a worker sent SIGTERM gives its game back
//! and exits 0. Forged submissions (an illegal move, a wrong winner, a
//! timeout that was not one, a record for another worker's lease, the same
//! record twice, a record after its lease expired) are refused with their
//! reason and change no rating. A fleet sharing one token records each
//! game's own machine; a version without an archive (stored before they
//! were kept) is never offered to a remote worker. And the load figure: verified submissions
//! per second from a load generator posting valid records, the lease
//! latency's p99 and the server's CPU time per game.
//!
//! Bots run in the sandbox: the test needs bubblewrap and arena's
//! `arena-sandbox-init` beside `arena-ladder` (as `cargo test --workspace`
//! builds it).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn ladder_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena-ladder"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const CONFIG: &str = r#"game = "dakon"
seed = 11
[time_control]
movetime_ms = 200
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
seconds = 5
"#;

/// A child process killed when the test ends, however it ends.
struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn signal(p: &Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(p.id() as i32), sig).unwrap();
}

/// `arena-ladder serve --workers 0` on `listen`; its address.
fn serve(data: &Path, config: &Path, listen: &str) -> (Proc, String) {
    serve_on(data, None, config, listen)
}

/// `serve` on the database `db` (default: SQLite in `data`).
fn serve_on(data: &Path, db: Option<&str>, config: &Path, listen: &str) -> (Proc, String) {
    let mut cmd = Command::new(ladder_bin());
    cmd.arg("serve");
    if let Some(url) = db {
        cmd.args(["--db", url]);
    }
    let mut child = cmd
        .arg("--data")
        .arg(data)
        .args(["--listen", listen, "--workers", "0", "--config"])
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

fn log_file(path: &Path) -> Stdio {
    Stdio::from(
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap(),
    )
}

/// `arena-ladder worker` against `addr`, its stderr in `DIR.stderr`.
fn worker(addr: &str, token: &str, dir: &Path, name: &str) -> Proc {
    Proc(
        Command::new(ladder_bin())
            .args([
                "worker",
                "--server",
                &format!("http://{addr}"),
                "--token",
                token,
            ])
            .args(["--concurrency", "1", "--name", name, "--data"])
            .arg(dir)
            .stdout(Stdio::null())
            .stderr(log_file(&dir.with_extension("stderr")))
            .spawn()
            .expect("arena-ladder worker starts"),
    )
}

fn text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The games a worker's log says it leased and recorded.
fn logged(dir: &Path, what: &str) -> BTreeSet<i64> {
    text(&dir.with_extension("stderr"))
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("arena worker: game ")?;
            let (id, tail) = rest.split_once(": ")?;
            tail.starts_with(what).then(|| id.parse().ok())?
        })
        .collect()
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
    let text = out.stdout;
    let cut = text
        .iter()
        .rposition(|&b| b == b'\n')
        .expect("curl's status");
    let status = String::from_utf8_lossy(&text[cut + 1..])
        .trim()
        .parse()
        .unwrap_or(0);
    (status, text[..cut].to_vec())
}

fn json(bytes: &[u8]) -> Value {
    if bytes.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

fn get(addr: &str, path: &str) -> (u16, Value) {
    let (s, b) = http("GET", &format!("http://{addr}{path}"), &[], None);
    (s, json(&b))
}

fn post(addr: &str, token: &str, path: &str, body: &[u8]) -> (u16, Value) {
    let auth = format!("Bearer {token}");
    let (s, b) = http(
        "POST",
        &format!("http://{addr}{path}"),
        &[
            ("Authorization", &auth),
            ("Content-Type", "application/json"),
        ],
        Some(body),
    );
    (s, json(&b))
}

/// `arena-ladder ladder ARGS...` on `data`; its stdout.
fn ladder(data: &Path, args: &[&str]) -> String {
    ladder_on(data, None, args)
}

/// `ladder` on the database `db` (default: SQLite in `data`).
fn ladder_on(data: &Path, db: Option<&str>, args: &[&str]) -> String {
    let mut cmd = Command::new(ladder_bin());
    cmd.arg("ladder").args(args).arg("--data").arg(data);
    if let Some(url) = db {
        cmd.args(["--db", url]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A token `add` printed: its last line.
fn token_of(out: &str) -> String {
    out.lines().last().unwrap().to_string()
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

/// Bots: (name, archive); the C one is built by the server and by each worker.
fn bots(with_c: bool) -> Vec<(&'static str, Vec<u8>)> {
    let kit = read("bots/python/arena_bot.py");
    let mut out = vec![
        (
            "py-random",
            targz(&[
                (
                    "arena-bot.toml",
                    b"command = [\"python3\", \"random_bot.py\"]\n",
                ),
                ("random_bot.py", &read("bots/python/random_bot.py")),
                ("arena_bot.py", &kit),
            ]),
        ),
        (
            "greedy",
            targz(&[
                (
                    "arena-bot.toml",
                    b"command = [\"python3\", \"dakon_greedy.py\"]\n",
                ),
                ("dakon_greedy.py", &read("bots/python/dakon_greedy.py")),
                ("arena_bot.py", &kit),
            ]),
        ),
    ];
    if with_c {
        out.push((
            "first-legal",
            targz(&[
                (
                    "arena-bot.toml",
                    b"command = [\"./first_legal\"]\nbuild = \"cc -O2 -o first_legal first_legal.c\"\n",
                ),
                ("first_legal.c", &read("bots/c/first_legal.c")),
            ]),
        ));
    }
    out
}

fn wait_for(limit: Duration, why: &str, mut what: impl FnMut() -> bool) {
    let start = Instant::now();
    while !what() {
        assert!(start.elapsed() < limit, "timed out after {limit:?}: {why}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Uploads `bots` as `author` and waits until each is active.
fn upload_all(addr: &str, author: &str, bots: &[(&str, Vec<u8>)]) {
    let auth = format!("Bearer {author}");
    for (name, archive) in bots {
        let (s, b) = http(
            "POST",
            &format!("http://{addr}/api/bots/{name}/versions"),
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/gzip"),
            ],
            Some(archive),
        );
        assert_eq!(s, 201, "{}", String::from_utf8_lossy(&b));
    }
    for (name, _) in bots {
        wait_for(
            Duration::from_secs(300),
            &format!("{name} is active"),
            || {
                let v = get(addr, &format!("/api/bots/{name}")).1;
                let st = v["versions"][0]["status"]
                    .as_str()
                    .unwrap_or("")
                    .to_string();
                assert_ne!(st, "failed", "{v}");
                st == "active"
            },
        );
    }
}

/// A machine as `arena-ladder worker` reports it, named `name`.
fn machine(name: &str) -> Value {
    serde_json::json!({
        "name": name,
        "cores": 2,
        "cpu_model": "test cpu",
        "playouts_per_second": 40000.0,
        "concurrency": 1
    })
}

/// The versions a lease offers, by id.
fn lease_versions(lease: &Value) -> [i64; 2] {
    [0, 1].map(|i| lease["seats"][i]["version"].as_i64().unwrap())
}

#[test]
fn one_token_many_machines_and_versions_without_an_archive() {
    // A fleet shares one token: each game records the machine that played
    // it, not the one that asked last.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("ladder.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let ann = token_of(&ladder(&data, &["author", "add", "ann", "--admin"]));
    let fleet = token_of(&ladder(&data, &["worker", "add", "fleet"]));
    let (server, addr) = serve(&data, &config, "127.0.0.1:0");
    let mut three = bots(false);
    let kit = read("bots/python/arena_bot.py");
    three.push((
        "py-random-3",
        targz(&[
            (
                "arena-bot.toml",
                b"command = [\"python3\", \"random_bot.py\", \"--seed\", \"3\"]\n",
            ),
            ("random_bot.py", &read("bots/python/random_bot.py")),
            ("arena_bot.py", &kit),
        ]),
    ));
    upload_all(&addr, &ann, &three);
    // A machine report is stored with every game: one that is too long is
    // refused before any lease is taken.
    let mut huge = machine("node-a");
    huge["name"] = Value::String("x".repeat(10_000));
    let (s, v) = post(
        &addr,
        &fleet,
        "/api/leases",
        &serde_json::to_vec(&serde_json::json!({ "machine": huge })).unwrap(),
    );
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("bad_machine")),
        "{v}"
    );
    let mut leases = Vec::new();
    for name in ["node-a", "node-b"] {
        let body = serde_json::to_vec(&serde_json::json!({ "machine": machine(name) })).unwrap();
        leases.push((name, take_with(&addr, &fleet, &body)));
    }
    for (name, lease) in &leases {
        assert_eq!(
            post_record(&addr, &fleet, lease, &valid_record(lease)).0,
            200
        );
        let (s, g) = get(&addr, &format!("/api/games/{}", lease["game_id"]));
        assert_eq!(s, 200, "{g}");
        assert_eq!(g["worker"], "fleet", "{g}");
        assert_eq!(
            g["machine"]["name"], *name,
            "game {}: {g}",
            lease["game_id"]
        );
    }

    // A version stored before archives were kept (its archive is gone from
    // disk): remote workers cannot fetch it, so they are never offered its
    // games; the others go on.
    let v = get(&addr, "/api/bots/py-random-3").1;
    let old = v["versions"][0]["id"].as_i64().unwrap();
    let sha = v["versions"][0]["sha256"].as_str().unwrap().to_string();
    // Paused (a fill under way has a moment to end), so that every game
    // scheduled so far is known before the restart.
    assert_eq!(post(&addr, &ann, "/api/admin/pause", b"{}").0, 200);
    std::thread::sleep(Duration::from_secs(1));
    let mut first_after = 1;
    while get(&addr, &format!("/api/games/{first_after}")).0 == 200 {
        first_after += 1;
    }
    drop(server);
    let mut removed = 0;
    for entry in std::fs::read_dir(data.join("versions")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.file_name().unwrap().to_string_lossy().ends_with(&sha) {
            std::fs::remove_file(dir.join("upload.tar.gz")).unwrap();
            removed += 1;
        }
    }
    assert_eq!(removed, 1, "the version's directory");
    let (_server, addr) = serve(&data, &config, "127.0.0.1:0");
    let log = text(&data.with_extension("stderr"));
    assert!(
        log.contains(&format!("stored before archives were kept (v{old})")),
        "{log}"
    );
    let (s, _) = http(
        "GET",
        &format!("http://{addr}/api/versions/{old}/archive"),
        &[("Authorization", &format!("Bearer {fleet}"))],
        None,
    );
    assert_eq!(s, 404);
    assert_eq!(post(&addr, &ann, "/api/admin/resume", b"{}").0, 200);
    let body = serde_json::to_vec(&serde_json::json!({ "machine": machine("node-a") })).unwrap();
    let mut played = 0;
    let mut last = 0;
    let start = Instant::now();
    while played < 8 && start.elapsed() < Duration::from_secs(120) {
        let (s, lease) = post(&addr, &fleet, "/api/leases", &body);
        match s {
            200 => {
                assert!(
                    !lease_versions(&lease).contains(&old),
                    "a remote worker was offered a game of v{old}: {lease}"
                );
                assert_eq!(
                    post_record(&addr, &fleet, &lease, &valid_record(&lease)).0,
                    200
                );
                last = last.max(lease["game_id"].as_i64().unwrap());
                played += 1;
            }
            204 => std::thread::sleep(Duration::from_millis(200)),
            _ => panic!("{s} {lease}"),
        }
    }
    assert_eq!(played, 8, "the other versions' games went on being leased");
    // Without built-in workers nobody here can play the old version: no new
    // game is scheduled for it (so its games cannot fill the queue), and
    // those queued before are passed over, not lost.
    let mut waiting = 0;
    for id in 1..=last {
        let g = get(&addr, &format!("/api/games/{id}")).1;
        if g["seat0_version"] == old || g["seat1_version"] == old {
            assert!(
                id < first_after,
                "game {id} of v{old} scheduled after the restart: {g}"
            );
            if g["status"] == "queued" {
                waiting += 1;
            }
        }
    }
    eprintln!("workers: {waiting} game(s) of v{old} wait for a built-in worker");
}

/// The exported games: id -> (pair, result); no id twice.
fn exported(addr: &str) -> BTreeMap<i64, (i64, String)> {
    let (s, body) = http("GET", &format!("http://{addr}/api/games.jsonl"), &[], None);
    assert_eq!(s, 200);
    let mut out = BTreeMap::new();
    for line in String::from_utf8(body).unwrap().lines() {
        let r = json(line.as_bytes());
        let id = r["index"].as_i64().unwrap();
        let prev = out.insert(id, (r["pair"].as_i64().unwrap(), r["result"].to_string()));
        assert!(prev.is_none(), "game {id} exported twice");
    }
    out
}

fn done(addr: &str) -> i64 {
    get(addr, "/api/health").1["games"]["done"]
        .as_i64()
        .unwrap_or(0)
}

#[test]
fn three_workers_play_a_ladder_through_kills() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("ladder.toml");
    // Time controls scaled to each worker's speed (four times the time,
    // the most, against a reference no machine here reaches).
    let scaled = CONFIG.replace("seconds = 5", "seconds = 5\nscale_to_playouts = 1e9");
    std::fs::write(&config, scaled).unwrap();
    let ann = token_of(&ladder(&data, &["author", "add", "ann"]));
    let tokens: Vec<String> = (1..=3)
        .map(|i| token_of(&ladder(&data, &["worker", "add", &format!("w{i}")])))
        .collect();
    assert!(tokens.iter().all(|t| t.starts_with('w')), "{tokens:?}");
    let (mut server, addr) = serve(&data, &config, "127.0.0.1:0");
    upload_all(&addr, &ann, &bots(true));
    assert_eq!(done(&addr), 0, "no built-in worker plays");

    let dirs: Vec<PathBuf> = (1..=3).map(|i| tmp.path().join(format!("w{i}"))).collect();
    let mut w2 = worker(&addr, &tokens[1], &dirs[1], "w2");
    let mut w3 = worker(&addr, &tokens[2], &dirs[2], "w3");

    // kill -9 of worker 1 in the middle of a game: found by its log (it
    // leased the game and had not recorded it when it was killed).
    let mut killed = None;
    for _ in 0..10 {
        let seen = logged(&dirs[0], "leased");
        let w1 = worker(&addr, &tokens[0], &dirs[0], "w1");
        let mut game = None;
        wait_for(Duration::from_secs(120), "worker 1 leases a game", || {
            game = logged(&dirs[0], "leased").difference(&seen).next().copied();
            game.is_some()
        });
        std::thread::sleep(Duration::from_millis(300));
        signal(&w1.0, nix::sys::signal::Signal::SIGKILL);
        drop(w1);
        let g = game.unwrap();
        if !logged(&dirs[0], "recorded").contains(&g) {
            killed = Some(g);
            break;
        }
    }
    let killed = killed.expect("worker 1 killed in the middle of a game");
    wait_for(
        Duration::from_secs(120),
        "the killed worker's game is played again",
        || get(&addr, &format!("/api/games/{killed}")).1["status"] == "done",
    );
    let g = get(&addr, &format!("/api/games/{killed}")).1;
    assert!(g["attempts"].as_i64().unwrap() >= 2, "leased again: {g}");
    // Played by one of the two other workers, on the machine it reported.
    assert!(
        g["worker"] == "w2" || g["worker"] == "w3",
        "{}",
        g["worker"]
    );
    assert!(
        g["machine"]["cores"].as_u64().unwrap() >= 1,
        "{}",
        g["machine"]
    );
    assert!(g["machine"]["playouts_per_second"].as_f64().unwrap() > 0.0);
    assert!(!logged(&dirs[0], "recorded").contains(&killed));

    // kill -9 of the server while workers play (a game leased); restarted
    // on its address.
    wait_for(Duration::from_secs(300), "8 games, one in play", || {
        done(&addr) >= 8 && get(&addr, "/api/health").1["games"]["leased"].as_i64() > Some(0)
    });
    let before = exported(&addr);
    signal(&server.0, nix::sys::signal::Signal::SIGKILL);
    let _ = server.0.wait();
    std::thread::sleep(Duration::from_secs(2));
    let (s2, addr2) = serve(&data, &config, &addr);
    server = s2;
    assert_eq!(addr2, addr);
    // The workers go on through the restart: 8 more games.
    let target = before.len() as i64 + 8;
    wait_for(
        Duration::from_secs(300),
        "8 games after the restart",
        || done(&addr) >= target,
    );

    // Every game a worker says was recorded is there, once, and the games
    // before the kill are as they were. The logs are read before the
    // export: the workers play on, and a game recorded between the two
    // reads would be in a log and not yet in the export.
    let recorded: Vec<(&PathBuf, BTreeSet<i64>)> = dirs[1..]
        .iter()
        .map(|d| (d, logged(d, "recorded")))
        .collect();
    let games = exported(&addr);
    for (id, g) in &before {
        assert_eq!(games.get(id), Some(g), "game {id} changed or vanished");
    }
    for (d, ids) in recorded {
        for id in ids {
            assert!(
                games.contains_key(&id),
                "game {id} recorded by {} is missing",
                d.display()
            );
        }
    }
    let mut per_pair: BTreeMap<i64, usize> = BTreeMap::new();
    for (pair, _) in games.values() {
        *per_pair.entry(*pair).or_default() += 1;
    }
    assert!(
        per_pair.values().all(|n| *n <= 2),
        "a pair has at most its two games"
    );
    assert!(logged(&dirs[1], "recorded").len() + logged(&dirs[2], "recorded").len() >= 8);

    // The organiser sees each worker's games and machine.
    let list = ladder(&data, &["worker", "list"]);
    for w in ["w2", "w3"] {
        let line = list
            .lines()
            .find(|l| l.starts_with(&format!("{w}\t")))
            .unwrap();
        assert!(line.contains("\"cores\""), "{line}");
        assert!(line.contains("refused 0 []"), "{line}");
        // 200 ms a move, scaled four times for a machine this slow.
        assert!(text(&tmp.path().join(format!("{w}.stderr"))).contains(", 800 ms a move)"));
        assert!(!line.contains("games 0\t"), "{line}");
    }

    // A revoked worker stops, saying why.
    ladder(&data, &["worker", "revoke", "w2"]);
    wait_for(Duration::from_secs(60), "the revoked worker exits", || {
        w2.0.try_wait().unwrap().is_some()
    });
    assert_ne!(w2.0.wait().unwrap().code(), Some(0));
    assert!(text(&dirs[1].with_extension("stderr")).contains("revoked"));

    // SIGTERM: worker 3 gives back its game and exits 0.
    signal(&w3.0, nix::sys::signal::Signal::SIGTERM);
    wait_for(Duration::from_secs(60), "worker 3 stops", || {
        w3.0.try_wait().unwrap().is_some()
    });
    assert_eq!(w3.0.wait().unwrap().code(), Some(0));
    wait_for(Duration::from_secs(30), "no game stays leased", || {
        get(&addr, "/api/health").1["games"]["leased"] == 0
    });
    assert_eq!(exported(&addr).len() as i64, done(&addr));
    println!(
        "workers: game {killed} re-leased after kill -9 of w1 (attempts {}); {} games done, \
         {} before the server's kill -9; w2 recorded {}, w3 {}",
        g["attempts"],
        done(&addr),
        before.len(),
        logged(&dirs[1], "recorded").len(),
        logged(&dirs[2], "recorded").len()
    );
    drop(server);
}

/// A lease for `token`, once the scheduler has queued a game.
fn take(addr: &str, token: &str) -> Value {
    take_with(addr, token, b"{}")
}

/// A lease for `token` asked for with `body` (a lease request).
fn take_with(addr: &str, token: &str, body: &[u8]) -> Value {
    let mut lease = Value::Null;
    wait_for(Duration::from_secs(60), "a lease", || {
        let (s, v) = post(addr, token, "/api/leases", body);
        assert!(s == 200 || s == 204, "{s} {v}");
        lease = v;
        s == 200
    });
    lease
}

/// A valid record of the lease's game (played by the rules, not by bots).
fn valid_record(lease: &Value) -> arena_core::record::GameRecord {
    let params: Vec<(String, String)> = serde_json::from_value(lease["params"].clone()).unwrap();
    let game = arena_core::games::new_game(lease["game"].as_str().unwrap(), &params).unwrap();
    let opening: Vec<String> = serde_json::from_value(lease["opening"].clone()).unwrap();
    let names = [0, 1].map(|i| lease["seats"][i]["name"].as_str().unwrap().to_string());
    arena_ladder::verify::sample_record(
        &*game,
        &opening,
        lease["seed"].as_u64().unwrap(),
        [&names[0], &names[1]],
        arena_core::record::Clock::Wall,
        2.0,
    )
}

fn record_path(lease: &Value, what: &str) -> String {
    format!("/api/leases/{}/{what}", lease["lease"].as_str().unwrap())
}

fn post_record(
    addr: &str,
    token: &str,
    lease: &Value,
    r: &arena_core::record::GameRecord,
) -> (u16, String) {
    let (s, v) = post(
        addr,
        token,
        &record_path(lease, "record"),
        &serde_json::to_vec(r).unwrap(),
    );
    (s, v["error"]["code"].as_str().unwrap_or("").to_string())
}

#[test]
fn forged_records_are_refused_and_change_no_rating() {
    forged_records(None);
}

/// The same on PostgreSQL, when `ARENA_TEST_POSTGRES_URL` names a server
/// (`eval "$(.ci/postgres.sh start)"`): a fresh database of its own.
#[test]
fn forged_records_are_refused_on_postgres() {
    let Ok(url) = std::env::var("ARENA_TEST_POSTGRES_URL") else {
        println!("ARENA_TEST_POSTGRES_URL is not set: the PostgreSQL case is not run");
        return;
    };
    forged_records(Some(&fresh_database(&url)));
}

/// A new, empty database on the server at `url`.
fn fresh_database(url: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("workers_test_{}_{nanos}", std::process::id());
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        use sqlx::Connection;
        let mut c = sqlx::PgConnection::connect(url)
            .await
            .expect("ARENA_TEST_POSTGRES_URL connects");
        sqlx::Executor::execute(&mut c, format!("CREATE DATABASE {name}").as_str())
            .await
            .unwrap();
    });
    let (base, _) = url.rsplit_once('/').expect("postgres://.../DB");
    format!("{base}/{name}")
}

fn forged_records(db: Option<&str>) {
    use arena_core::record::{GameResult, Reason};
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("ladder.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let ann = token_of(&ladder_on(&data, db, &["author", "add", "ann"]));
    let a = token_of(&ladder_on(&data, db, &["worker", "add", "honest-looking"]));
    let b = token_of(&ladder_on(&data, db, &["worker", "add", "other"]));
    let (_server, addr) = serve_on(&data, db, &config, "127.0.0.1:0");
    upload_all(&addr, &ann, &bots(false));

    // Tokens of one kind never act as the other.
    assert_eq!(post(&addr, &ann, "/api/leases", b"{}").0, 401);
    let (s, v) = http(
        "POST",
        &format!("http://{addr}/api/bots/x/versions"),
        &[
            ("Authorization", &format!("Bearer {a}")),
            ("Content-Type", "application/gzip"),
        ],
        Some(&bots(false)[0].1),
    );
    assert_eq!(s, 401, "{}", String::from_utf8_lossy(&v));

    // An illegal move: a bot's second move replaced by one not legal there.
    let lease = take(&addr, &a);
    let mut r = valid_record(&lease);
    let k = r.opening_plies + 1;
    let game = arena_core::games::new_game("dakon", &[]).unwrap();
    let mut st = game.initial_state();
    for m in &r.moves[..k] {
        st.play(&m.mv).unwrap();
    }
    let legal = st.legal_moves();
    r.moves[k].mv = ["a", "b", "c", "d", "e", "f", "g"]
        .into_iter()
        .find(|m| !legal.contains(&m.to_string()))
        .unwrap()
        .to_string();
    assert_eq!(
        post_record(&addr, &a, &lease, &r),
        (422, "illegal_move".into())
    );
    // The refused game is queued again: its lease is gone.
    assert_eq!(
        post(&addr, &a, &record_path(&lease, "heartbeat"), b"").0,
        409
    );

    // A wrong winner.
    let lease = take(&addr, &a);
    let mut r = valid_record(&lease);
    r.result = if r.result == GameResult::Seat0Wins {
        GameResult::Seat1Wins
    } else {
        GameResult::Seat0Wins
    };
    assert_eq!(
        post_record(&addr, &a, &lease, &r),
        (422, "wrong_result".into())
    );

    // A timeout that was not one: cut after 4 bot moves, "took" 20 ms of 200.
    let lease = take(&addr, &a);
    let mut r = valid_record(&lease);
    r.moves.truncate(r.opening_plies + 4);
    r.final_state = r.moves.last().unwrap().state.clone();
    let mut st = game.initial_state();
    for m in &r.moves {
        st.play(&m.mv).unwrap();
    }
    let offender = st.to_move();
    r.reason = Reason::Timeout;
    r.offender = Some(offender);
    r.result = GameResult::win_for(1 - offender);
    r.scores = [0, 0];
    r.detail = Some("move took 20.0 ms, limit 200 ms (+50 ms margin)".into());
    let (s, code) = post_record(&addr, &a, &lease, &r);
    assert_eq!((s, code.as_str()), (422, "not_a_timeout"));

    // A record for another worker's lease; then the same record twice.
    let lease = take(&addr, &a);
    let r = valid_record(&lease);
    assert_eq!(
        post_record(&addr, &b, &lease, &r),
        (409, "foreign_lease".into())
    );
    assert_eq!(post_record(&addr, &a, &lease, &r).0, 200);
    assert_eq!(
        post_record(&addr, &a, &lease, &r),
        (409, "already_recorded".into())
    );
    let unknown = serde_json::json!({ "lease": "0".repeat(32) });
    assert_eq!(
        post_record(&addr, &a, &unknown, &r),
        (409, "unknown_lease".into())
    );

    // A record after its lease expired (5 s without a heartbeat).
    let lease = take(&addr, &a);
    let r = valid_record(&lease);
    std::thread::sleep(Duration::from_secs(7));
    let (s, code) = post_record(&addr, &a, &lease, &r);
    assert_eq!(s, 409, "{code}");
    assert!(code == "lease_expired" || code == "unknown_lease", "{code}");

    // One game counted, in the ratings too; the refusals logged against the worker.
    assert_eq!(done(&addr), 1);
    wait_for(
        Duration::from_secs(30),
        "the leaderboard counts the game",
        || get(&addr, "/api/health").1["leaderboard"]["games"] == 1,
    );
    let board = get(&addr, "/api/leaderboard").1;
    let games: u64 = board
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["games"].as_u64().unwrap())
        .sum();
    assert_eq!(games, 2, "one game, two sides: {board}");
    let list = ladder_on(&data, db, &["worker", "list"]);
    let line = list
        .lines()
        .find(|l| l.starts_with("honest-looking	"))
        .unwrap();
    assert!(
        line.contains("games 1	")
            && line.contains("refused 3 [illegal_move 1, not_a_timeout 1, wrong_result 1]"),
        "{line}"
    );

    // A record a worker finished but could not post (it was stopped, or
    // the server was away) is kept in DATA/pending and posted by its next run.
    let lease = take(&addr, &a);
    let dir = tmp.path().join("a");
    std::fs::create_dir_all(dir.join("pending")).unwrap();
    let kept = dir
        .join("pending")
        .join(format!("{}.json", lease["lease"].as_str().unwrap()));
    std::fs::write(&kept, serde_json::to_vec(&valid_record(&lease)).unwrap()).unwrap();
    let w = worker(&addr, &a, &dir, "a");
    let id = lease["game_id"].as_i64().unwrap();
    wait_for(Duration::from_secs(60), "the kept record is posted", || {
        get(&addr, &format!("/api/games/{id}")).1["status"] == "done"
    });
    wait_for(Duration::from_secs(10), "and forgotten", || !kept.exists());
    drop(w);
    let log = text(&dir.with_extension("stderr"));
    let said = format!(
        "arena worker: lease {}: recorded",
        lease["lease"].as_str().unwrap()
    );
    assert!(log.contains(&said), "{log}");
    assert_eq!(
        get(&addr, &format!("/api/games/{id}")).1["worker"],
        "honest-looking"
    );

    // Suspended: no lease (403); revoked: 401.
    ladder_on(&data, db, &["worker", "suspend", "honest-looking"]);
    let (s, v) = post(&addr, &a, "/api/leases", b"{}");
    assert_eq!((s, v["error"]["code"].as_str()), (403, Some("suspended")));
    ladder_on(&data, db, &["worker", "resume", "honest-looking"]);
    assert_ne!(post(&addr, &a, "/api/leases", b"{}").0, 403);
    ladder_on(&data, db, &["worker", "revoke", "other"]);
    assert_eq!(post(&addr, &b, "/api/leases", b"{}").0, 401);
}

/// CPU seconds (user + system) the process `pid` has used, from /proc.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // Fields after the command's closing parenthesis: utime is the 12th, stime the 13th.
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks
        / nix::unistd::sysconf(nix::unistd::SysconfVar::CLK_TCK)
            .unwrap()
            .unwrap() as f64
}

/// The load figure (docs/performance.md): a load generator on loopback
/// takes N leases (lease latency), then posts a valid prerecorded record
/// for each from 8 connections (verified submissions per second), on
/// SQLite; the server's CPU time per game over both. Every record must be
/// accepted and counted once. N is `ARENA_LOAD_GAMES` (default 600).
#[test]
fn load_figure_verified_submissions_per_second() {
    let n: usize = std::env::var("ARENA_LOAD_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("ladder.toml");
    let load_config = CONFIG
        .replace(
            "max_concurrent_per_bot = 4",
            "max_concurrent_per_bot = 1000000",
        )
        .replace("queue = 6", "queue = 1000")
        .replace("seconds = 5", "seconds = 3600");
    std::fs::write(&config, load_config).unwrap();
    let ann = token_of(&ladder(&data, &["author", "add", "ann"]));
    let token = token_of(&ladder(&data, &["worker", "add", "load"]));
    let (server, addr) = serve(&data, &config, "127.0.0.1:0");
    upload_all(&addr, &ann, &bots(false));
    let pid = server.0.id();
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let auth = format!("Bearer {token}");

    // Leases, from 4 connections.
    let cpu0 = cpu_seconds(pid);
    let t0 = Instant::now();
    let per = n.div_ceil(4);
    let leases: Vec<(Value, Duration)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                let (agent, auth, addr) = (agent.clone(), auth.clone(), addr.clone());
                s.spawn(move || {
                    let mut got = Vec::new();
                    while got.len() < per {
                        let t = Instant::now();
                        let mut r = agent
                            .post(format!("http://{addr}/api/leases"))
                            .header("Authorization", &auth)
                            .send_empty()
                            .unwrap();
                        let took = t.elapsed();
                        match r.status().as_u16() {
                            200 => {
                                let v: Value =
                                    serde_json::from_slice(&r.body_mut().read_to_vec().unwrap())
                                        .unwrap();
                                got.push((v, took));
                            }
                            204 => std::thread::sleep(Duration::from_millis(20)),
                            s => panic!("lease: {s}"),
                        }
                    }
                    got
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let lease_wall = t0.elapsed();
    let cpu1 = cpu_seconds(pid);
    let mut lat: Vec<Duration> = leases.iter().map(|(_, d)| *d).collect();
    lat.sort();
    let p = |q: f64| lat[((lat.len() as f64 * q) as usize).min(lat.len() - 1)];

    // The records, prerecorded (not timed).
    let bodies: Vec<(String, Vec<u8>)> = leases
        .iter()
        .map(|(l, _)| {
            (
                l["lease"].as_str().unwrap().to_string(),
                serde_json::to_vec(&valid_record(l)).unwrap(),
            )
        })
        .collect();

    // Submissions, from 8 connections.
    let t1 = Instant::now();
    let chunks: Vec<&[(String, Vec<u8>)]> = bodies.chunks(bodies.len().div_ceil(8)).collect();
    std::thread::scope(|s| {
        for chunk in chunks {
            let (agent, auth, addr) = (agent.clone(), auth.clone(), addr.clone());
            s.spawn(move || {
                for (lease, body) in chunk {
                    let r = agent
                        .post(format!("http://{addr}/api/leases/{lease}/record"))
                        .header("Authorization", &auth)
                        .header("Content-Type", "application/json")
                        .send(&body[..])
                        .unwrap();
                    assert_eq!(r.status().as_u16(), 200, "record {lease}");
                }
            });
        }
    });
    let post_wall = t1.elapsed();
    let cpu2 = cpu_seconds(pid);
    assert_eq!(
        done(&addr),
        bodies.len() as i64,
        "every record counted once"
    );
    println!(
        "load: {} games on SQLite: leases {:.0}/s (latency p50 {:.2} ms, p99 {:.2} ms), \
         verified submissions {:.0}/s, server CPU per game {:.2} ms ({:.2} leasing + {:.2} verifying and storing)",
        bodies.len(),
        bodies.len() as f64 / lease_wall.as_secs_f64(),
        p(0.5).as_secs_f64() * 1e3,
        p(0.99).as_secs_f64() * 1e3,
        bodies.len() as f64 / post_wall.as_secs_f64(),
        (cpu2 - cpu0) * 1e3 / bodies.len() as f64,
        (cpu1 - cpu0) * 1e3 / bodies.len() as f64,
        (cpu2 - cpu1) * 1e3 / bodies.len() as f64,
    );
}
