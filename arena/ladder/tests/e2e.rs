//! The ladder end to end: a real `arena-ladder serve` process on a temporary
//! data directory and SQLite file (and on PostgreSQL when
//! `ARENA_TEST_POSTGRES_URL` is set), driven over HTTP with curl: two
//! authors, good, broken, non-conforming and hostile uploads, bad input of
//! every kind, four bots playing until each has 20 games, `kill -9` of the
//! server in the middle and a restart, the leaderboard, the exports read
//! back by `arena ratings`, ratings rebuilt from the games table equal to
//! the live ones, and SIGTERM ending the server with exit 0.
//!
//! Bots run in the sandbox: the test needs bubblewrap and arena's
//! `arena-sandbox-init` and `arena` binaries beside `arena-ladder` (as
//! `cargo test --workspace` builds them).

use std::collections::BTreeMap;
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

/// A binary of the `arena` package beside `arena-ladder`.
fn arena_bin(name: &str) -> PathBuf {
    let p = ladder_bin().parent().unwrap().join(name);
    assert!(
        p.is_file(),
        "{} is missing: build it first (`cargo build -p arena --bins`; `cargo test --workspace` does)",
        p.display()
    );
    p
}

const CONFIG: &str = r#"game = "dakon"
seed = 7
[time_control]
movetime_ms = 200
[defaults.limits]
memory_mb = 512
processes = 64
[check]
games = 1
movetime_ms = 500
[uploads]
max_compressed_bytes = 200000
max_unpacked_bytes = 1000000
max_files = 50
max_path = 100
[matchmaking]
provisional_games = 10
max_concurrent_per_bot = 2
queue = 6
[leases]
seconds = 6
"#;

/// A running server and what it was started with.
struct Server {
    child: Child,
    base: String,
    data: PathBuf,
    db: Option<String>,
    config: PathBuf,
}

fn start(data: &Path, db: Option<&str>, config: &Path) -> Server {
    let mut cmd = Command::new(ladder_bin());
    cmd.arg("serve")
        .arg("--data")
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--workers", "2", "--config"])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(data.with_extension("stderr"))
                .unwrap(),
        ));
    if let Some(url) = db {
        cmd.args(["--db", url]);
    }
    // The sandbox's init step is found beside the running program.
    let _ = arena_bin("arena-sandbox-init");
    let mut child = cmd.spawn().expect("arena-ladder starts");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let line = lines
        .next()
        .expect("arena-ladder says where it listens")
        .unwrap();
    let addr = line
        .strip_prefix("arena-ladder: listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    // Keep draining stdout (check-bot's findings) so the server never blocks.
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        base: addr,
        data: data.to_path_buf(),
        db: db.map(str::to_string),
        config: config.to_path_buf(),
    }
}

/// A test that fails leaves no server behind.
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn restart(&mut self) {
        let new = start(&self.data, self.db.as_deref(), &self.config);
        *self = new;
    }
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
        .expect("curl's status line");
    let status: u16 = String::from_utf8_lossy(&text[cut + 1..])
        .trim()
        .parse()
        .unwrap_or(0);
    (status, text[..cut].to_vec())
}

fn json(bytes: &[u8]) -> Value {
    serde_json::from_slice(bytes)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(bytes)))
}

impl Server {
    fn get(&self, path: &str) -> (u16, Value) {
        let (s, b) = http("GET", &format!("http://{}{path}", self.base), &[], None);
        (s, json(&b))
    }
    fn get_raw(&self, path: &str) -> (u16, Vec<u8>) {
        http("GET", &format!("http://{}{path}", self.base), &[], None)
    }
    fn upload(&self, token: &str, bot: &str, ct: &str, body: &[u8]) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let (s, b) = http(
            "POST",
            &format!("http://{}/api/bots/{bot}/versions", self.base),
            &[("Authorization", &auth), ("Content-Type", ct)],
            Some(body),
        );
        (s, json(&b))
    }
    fn post(&self, token: &str, path: &str, body: &[u8]) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let (s, b) = http(
            "POST",
            &format!("http://{}{path}", self.base),
            &[
                ("Authorization", &auth),
                ("Content-Type", "application/json"),
            ],
            Some(body),
        );
        (s, json(&b))
    }
}

/// `arena-ladder ladder author add NAME`: the token is the last line.
fn add_author(data: &Path, db: Option<&str>, name: &str, admin: bool) -> String {
    let mut cmd = Command::new(ladder_bin());
    cmd.args(["ladder", "author", "add", name, "--data"])
        .arg(data);
    if admin {
        cmd.arg("--admin");
    }
    if let Some(url) = db {
        cmd.args(["--db", url]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let token = text.lines().last().unwrap().to_string();
    assert!(token.contains('.') && !token.contains(' '), "{text}");
    token
}

/// A .tar.gz of `files` (name, mode, contents) built with the tar crate.
fn targz(files: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut t = tar::Builder::new(gz);
    for (name, mode, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(*mode);
        h.set_entry_type(tar::EntryType::Regular);
        h.set_path(name).unwrap();
        h.set_cksum();
        t.append(&h, *data).unwrap();
    }
    t.into_inner().unwrap().finish().unwrap()
}

/// A tar.gz whose first entry's raw name or type a good packer would refuse.
fn hostile_targz(name: &str, kind: tar::EntryType, link: Option<&str>) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut t = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    let raw = &mut h.as_old_mut().name;
    raw[..name.len()].copy_from_slice(name.as_bytes());
    h.set_size(if kind == tar::EntryType::Regular {
        4
    } else {
        0
    });
    h.set_mode(0o644);
    h.set_entry_type(kind);
    if let Some(l) = link {
        h.set_link_name(l).unwrap();
    }
    h.set_cksum();
    let data: &[u8] = if kind == tar::EntryType::Regular {
        b"evil"
    } else {
        b""
    };
    t.append(&h, data).unwrap();
    let manifest = b"command = [\"./x\"]\n";
    let mut m = tar::Header::new_gnu();
    m.set_size(manifest.len() as u64);
    m.set_mode(0o644);
    m.set_path("arena-bot.toml").unwrap();
    m.set_cksum();
    t.append(&m, &manifest[..]).unwrap();
    t.into_inner().unwrap().finish().unwrap()
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(repo().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The four good bots: (name, archive).
fn good_bots() -> Vec<(&'static str, Vec<u8>)> {
    let first_legal = read("bots/c/first_legal.c");
    let c_random = read("bots/c/random_bot.c");
    let (kit_c, kit_h) = (read("bots/c/arena.c"), read("bots/c/arena.h"));
    let py_random = read("bots/python/random_bot.py");
    let py_kit = read("bots/python/arena_bot.py");
    let greedy = read("bots/python/dakon_greedy.py");
    vec![
        (
            "first-legal",
            targz(&[
                (
                    "arena-bot.toml",
                    0o644,
                    b"command = [\"./first_legal\"]\nbuild = \"cc -O2 -o first_legal first_legal.c\"\n",
                ),
                ("first_legal.c", 0o644, &first_legal),
            ]),
        ),
        (
            "c-random",
            targz(&[
                (
                    "arena-bot.toml",
                    0o644,
                    b"command = \"./random_bot\"\nbuild = \"cc -O2 -o random_bot random_bot.c arena.c\"\n[limits]\nmemory_mb = 256\n",
                ),
                ("random_bot.c", 0o644, &c_random),
                ("arena.c", 0o644, &kit_c),
                ("arena.h", 0o644, &kit_h),
            ]),
        ),
        (
            "py-random",
            targz(&[
                ("arena-bot.toml", 0o644, b"command = [\"python3\", \"random_bot.py\"]\n"),
                ("random_bot.py", 0o644, &py_random),
                ("arena_bot.py", 0o644, &py_kit),
            ]),
        ),
        (
            "greedy",
            targz(&[
                ("arena-bot.toml", 0o644, b"command = [\"python3\", \"dakon_greedy.py\"]\n"),
                ("dakon_greedy.py", 0o644, &greedy),
                ("arena_bot.py", 0o644, &py_kit),
            ]),
        ),
    ]
}

/// Waits for `what` to hold, polling; panics with `why` after `limit`.
fn wait_for(limit: Duration, why: &str, mut what: impl FnMut() -> bool) {
    let start = Instant::now();
    while !what() {
        assert!(start.elapsed() < limit, "timed out after {limit:?}: {why}");
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn status_of(s: &Server, bot: &str) -> String {
    let (_, b) = s.get(&format!("/api/bots/{bot}"));
    b["versions"][0]["status"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn done_games(s: &Server) -> BTreeMap<i64, (i64, i64, String)> {
    let (status, body) = s.get_raw("/api/games.jsonl");
    assert_eq!(status, 200);
    let mut out = BTreeMap::new();
    for line in String::from_utf8(body).unwrap().lines() {
        let r = json(line.as_bytes());
        let id = r["index"].as_i64().unwrap();
        let prev = out.insert(
            id,
            (
                r["pair"].as_i64().unwrap(),
                r["seed"].as_i64().unwrap(),
                r["result"].to_string(),
            ),
        );
        assert!(prev.is_none(), "game {id} exported twice");
    }
    out
}

fn done_ids(s: &Server) -> Vec<i64> {
    done_games(s).into_keys().collect()
}

fn run_ladder(db: Option<&str>) {
    assert!(
        Command::new("curl").arg("--version").output().is_ok(),
        "the test talks HTTP through curl"
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let config = tmp.path().join("ladder.toml");
    std::fs::write(&config, CONFIG).unwrap();

    // Authors and tokens.
    let ann = add_author(&data, db, "ann", false);
    let bob = add_author(&data, db, "bob", false);
    let org = add_author(&data, db, "org", true);
    let mut cmd = Command::new(ladder_bin());
    cmd.args(["ladder", "author", "add", "ann", "--data"])
        .arg(&data);
    if let Some(url) = db {
        cmd.args(["--db", url]);
    }
    let again = cmd.output().unwrap();
    assert_eq!(again.status.code(), Some(2), "a taken name is refused");

    let mut s = start(&data, db, &config);
    let (st, health) = s.get("/api/health");
    assert_eq!(st, 200);
    assert_eq!(health["status"], "ok");
    assert_eq!(health["sandbox"], "bwrap");

    // Bad input: each a 4xx with a JSON error, none changing anything.
    let bots = good_bots();
    let gz = "application/gzip";
    let (st, e) = s.upload("0.00", "x", gz, &bots[0].1);
    assert_eq!(st, 401, "{e}");
    assert_eq!(e["error"]["code"], "unauthorized");
    let forged = format!("{}.{}", ann.split('.').next().unwrap(), "0".repeat(64));
    assert_eq!(s.upload(&forged, "x", gz, &bots[0].1).0, 401);
    let (st, e) = s.upload(&ann, "bad%07name", gz, &bots[0].1);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (400, Some("bad_name")),
        "{e}"
    );
    // Markup in a name is refused, not stored to be shown later.
    let (st, e) = s.upload(&ann, "%3Cscript%3Ealert(1)%3C%2Fscript%3E", gz, &bots[0].1);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (400, Some("bad_name")),
        "{e}"
    );
    let (st, e) = s.upload(&ann, "x", "text/plain", &bots[0].1);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (415, Some("content_type")),
        "{e}"
    );
    let (st, e) = s.upload(&ann, "x", gz, b"not an archive");
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (422, Some("bad_archive")),
        "{e}"
    );
    let big = vec![0u8; 300_000];
    let (st, e) = s.upload(&ann, "x", gz, &big);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (413, Some("too_large")),
        "{e}"
    );
    let (st, e) = s.post(&org, "/api/admin/pause", b"{\"for\": 1}");
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (400, Some("bad_json")),
        "{e}"
    );
    assert_eq!(s.post(&ann, "/api/admin/pause", b"{}").0, 403);
    let (st, e) = s.get("/api/games/abc");
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (400, Some("bad_id")),
        "{e}"
    );
    assert_eq!(s.get("/api/nothing").0, 404);
    assert_eq!(s.get("/api/games.jsonl?since=x").0, 400);

    // Hostile archives.
    let hostile = [
        (
            "dotdot",
            hostile_targz("../evil", tar::EntryType::Regular, None),
        ),
        (
            "absolute",
            hostile_targz("/tmp/evil", tar::EntryType::Regular, None),
        ),
        (
            "symlink",
            hostile_targz("link", tar::EntryType::Symlink, Some("/etc/passwd")),
        ),
        ("device", hostile_targz("dev", tar::EntryType::Char, None)),
        ("bomb", {
            let names: Vec<String> = (0..200).map(|i| format!("f{i}")).collect();
            let files: Vec<(&str, u32, &[u8])> = names
                .iter()
                .map(|n| (n.as_str(), 0o644, &b"x"[..]))
                .collect();
            targz(&files)
        }),
        ("no-manifest", targz(&[("bot.py", 0o644, b"print()")])),
    ];
    for (what, archive) in &hostile {
        let (st, e) = s.upload(&ann, "hostile", gz, archive);
        assert!((400..500).contains(&st), "{what}: {st} {e}");
        assert!(e["error"]["message"].is_string(), "{what}: {e}");
    }
    assert_eq!(
        s.get("/api/bots/hostile").0,
        404,
        "a refused upload leaves no bot"
    );
    assert!(!tmp.path().join("evil").exists());

    // A build that fails, a bot that fails check-bot.
    let (st, v) = s.upload(
        &bob,
        "broken",
        gz,
        &targz(&[(
            "arena-bot.toml",
            0o644,
            b"command = \"./nothing\"\nbuild = \"cc -o nothing missing.c\"\n",
        )]),
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["status"], "queued");
    let liar = b"import sys\nfor line in sys.stdin:\n    w = line.split()\n    if not w: continue\n    if w[0] == 'arena': print('ready liar', flush=True)\n    elif w[0] == 'go': print('move 99', flush=True)\n    elif w[0] == 'quit': break\n";
    let (st, v) = s.upload(
        &bob,
        "liar",
        gz,
        &targz(&[
            (
                "arena-bot.toml",
                0o644,
                b"command = [\"python3\", \"liar.py\"]\n",
            ),
            ("liar.py", 0o644, liar),
        ]),
    );
    assert_eq!(st, 201, "{v}");

    // The good bots: three of ann's, one of bob's.
    for (i, (name, archive)) in bots.iter().enumerate() {
        let token = if i == 3 { &bob } else { &ann };
        let (st, v) = s.upload(token, name, gz, archive);
        assert_eq!(st, 201, "{name}: {v}");
        assert_eq!(v["status"], "queued");
        // The same content again is the same version.
        let (st, again) = s.upload(token, name, gz, archive);
        assert_eq!(st, 200, "{again}");
        assert_eq!(again["id"], v["id"]);
    }
    let (st, e) = s.upload(&bob, "first-legal", gz, &bots[0].1);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{e}"
    );

    wait_for(Duration::from_secs(300), "builds and checks finish", || {
        [
            "broken",
            "liar",
            "first-legal",
            "c-random",
            "py-random",
            "greedy",
        ]
        .iter()
        .all(|b| matches!(status_of(&s, b).as_str(), "active" | "failed"))
    });
    for b in ["first-legal", "c-random", "py-random", "greedy"] {
        assert_eq!(
            status_of(&s, b),
            "active",
            "{b}: {}",
            s.get(&format!("/api/bots/{b}")).1
        );
    }
    let auth = format!("Bearer {bob}");
    let (_, broken) = http(
        "GET",
        &format!("http://{}/api/bots/broken", s.base),
        &[("Authorization", &auth)],
        None,
    );
    let broken = json(&broken);
    assert_eq!(broken["versions"][0]["status"], "failed");
    assert!(
        broken["versions"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("build failed"),
        "{broken}"
    );
    assert!(
        broken["versions"][0]["build_log"]
            .as_str()
            .unwrap()
            .contains("missing.c"),
        "{broken}"
    );
    let (_, liar) = http(
        "GET",
        &format!("http://{}/api/bots/liar", s.base),
        &[("Authorization", &auth)],
        None,
    );
    let liar = json(&liar);
    assert_eq!(liar["versions"][0]["status"], "failed");
    assert!(
        liar["versions"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("check-bot"),
        "{liar}"
    );
    // Logs are the author's: a stranger sees none.
    assert!(s.get("/api/bots/liar").1["versions"][0]
        .get("check_log")
        .is_none());

    // Some games, then kill -9 in the middle of play.
    wait_for(Duration::from_secs(300), "a dozen games", || {
        done_games(&s).len() >= 12
    });
    let before = done_games(&s);
    unsafe { libc_kill(s.child.id() as i32, 9) };
    let _ = s.child.wait();
    s.restart();

    // Pause stops new games; resume goes on.
    assert_eq!(s.post(&org, "/api/admin/pause", b"{}").0, 200);
    assert_eq!(s.get("/api/health").1["paused"], true);
    assert_eq!(s.post(&org, "/api/admin/resume", b"").0, 200);

    wait_for(Duration::from_secs(600), "every bot has 20 games", || {
        let (_, board) = s.get("/api/leaderboard");
        board.as_array().is_some_and(|rows| {
            rows.len() == 4 && rows.iter().all(|r| r["games"].as_u64().unwrap_or(0) >= 20)
        })
    });

    // No game lost or counted twice across the kill.
    let after = done_games(&s);
    for (id, g) in &before {
        assert_eq!(
            after.get(id),
            Some(g),
            "game {id} changed or vanished after the restart"
        );
    }
    let mut per_pair: BTreeMap<i64, usize> = BTreeMap::new();
    for (pair, _, _) in after.values() {
        *per_pair.entry(*pair).or_default() += 1;
    }
    assert!(
        per_pair.values().all(|n| *n <= 2),
        "a pair has at most its two games"
    );

    // Paused, with nothing in play, the tables stand still.
    assert_eq!(s.post(&org, "/api/admin/pause", b"{}").0, 200);
    wait_for(Duration::from_secs(120), "games in play finish", || {
        s.get("/api/health").1["games"]["leased"] == 0
    });
    // The leaderboard is computed in the background: wait until it counts
    // every finished game, and check that it says so.
    wait_for(
        Duration::from_secs(60),
        "the leaderboard counts every game",
        || {
            let h = s.get("/api/health").1;
            h["leaderboard"]["games"] == h["games"]["done"]
        },
    );
    assert!(s.get("/api/health").1["leaderboard"]["computed_at"].is_i64());

    // The leaderboard.
    let (_, board) = s.get("/api/leaderboard");
    let rows = board.as_array().unwrap();
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["rank"], i as u64 + 1);
        for k in [
            "bot",
            "author",
            "version",
            "rating",
            "deviation",
            "games",
            "wins",
            "draws",
            "losses",
            "last_game",
        ] {
            assert!(!r[k].is_null(), "{k} in {r}");
        }
        let g = r["games"].as_u64().unwrap();
        assert_eq!(
            g,
            r["wins"].as_u64().unwrap()
                + r["draws"].as_u64().unwrap()
                + r["losses"].as_u64().unwrap()
        );
    }
    let ratings: Vec<f64> = rows.iter().map(|r| r["rating"].as_f64().unwrap()).collect();
    assert!(ratings.windows(2).all(|w| w[0] >= w[1]), "{board}");

    // One game, and the export from an id on.
    let (&first_id, _) = after.iter().next().unwrap();
    let (st, g) = s.get(&format!("/api/games/{first_id}"));
    assert_eq!(st, 200, "{g}");
    assert_eq!(g["status"], "done");
    assert_eq!(g["record"]["index"], first_id);
    assert_eq!(g["record"]["seats"][0]["name"], g["seat0"], "{g}");
    let (st, _) = s.get("/api/games/999999");
    assert_eq!(st, 404);
    let middle = *after.keys().nth(after.len() / 2).unwrap();
    let (_, tail) = s.get_raw(&format!("/api/games.jsonl?since={middle}"));
    let tail_ids: Vec<i64> = String::from_utf8(tail)
        .unwrap()
        .lines()
        .map(|l| json(l.as_bytes())["index"].as_i64().unwrap())
        .collect();
    let expected: Vec<i64> = done_ids(&s).into_iter().filter(|id| *id > middle).collect();
    assert_eq!(tail_ids, expected);

    // Every route of the OpenAPI document is served (none answers with the
    // router's fallbacks); the unit test in api.rs checks the other way.
    let doc: Value = s.get("/api/openapi.json").1;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            let url = format!(
                "http://{}{}",
                s.base,
                path.replace("{name}", "greedy").replace("{id}", "1")
            );
            let (st, body) = http(&method.to_uppercase(), &url, &[], None);
            let text = String::from_utf8_lossy(&body);
            assert!(
                st != 405 && !text.contains("no such route"),
                "{method} {path}: {st} {text}"
            );
        }
    }

    // Ratings rebuilt from the export alone, through the same pure function.
    let (_, jsonl_live) = s.get_raw("/api/games.jsonl");
    let ids: BTreeMap<String, i64> = rows
        .iter()
        .map(|r| {
            (
                format!("{}.v{}", r["bot"].as_str().unwrap(), r["version"]),
                r["version_id"].as_i64().unwrap(),
            )
        })
        .collect();
    let games: Vec<arena_ladder::ratings::LadderGame> = String::from_utf8(jsonl_live)
        .unwrap()
        .lines()
        .map(|l| {
            let r: arena_core::record::GameRecord = serde_json::from_str(l).unwrap();
            arena_ladder::ratings::LadderGame {
                id: r.index as i64,
                pair: r.pair as i64,
                seat0: ids[&r.seats[0].name],
                seat1: ids[&r.seats[1].name],
                points0: r.result.points(0),
            }
        })
        .collect();
    let settings = arena_ladder::ratings::RatingSettings {
        period_games: 50,
        ..Default::default()
    };
    let rebuilt = arena_ladder::ratings::rate(&games, &Default::default(), &settings);
    for r in rows {
        let v = &rebuilt[&r["version_id"].as_i64().unwrap()];
        assert_eq!(v.rating, r["rating"].as_f64().unwrap(), "{r}");
        assert_eq!(v.deviation, r["deviation"].as_f64().unwrap(), "{r}");
        assert_eq!(v.games, r["games"].as_u64().unwrap(), "{r}");
    }

    // SIGTERM: exit 0, games in progress finished or returned.
    unsafe { libc_kill(s.child.id() as i32, 15) };
    let status = s.child.wait().unwrap();
    assert!(status.success(), "SIGTERM exit: {status}");

    // Exports read back by `arena ratings`, and ratings from the games
    // table alone equal to what the server showed.
    s.restart();
    let (_, jsonl) = s.get_raw("/api/games.jsonl");
    let (st, csv) = s.get_raw("/api/games.csv");
    assert_eq!(st, 200);
    let (_, board_again) = s.get("/api/leaderboard");
    // The organiser's writes: an author may not retire, an admin may; a
    // retired bot leaves the leaderboard (its games stay); a failed version
    // is built again on request.
    assert_eq!(s.post(&bob, "/api/bots/c-random/retire", b"{}").0, 403);
    assert_eq!(s.post(&org, "/api/bots/c-random/retire", b"{}").0, 200);
    let (_, smaller) = s.get("/api/leaderboard");
    assert_eq!(smaller.as_array().unwrap().len(), 3, "{smaller}");
    assert!(smaller
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["bot"] != "c-random"));
    let (st, e) = s.upload(&ann, "c-random", gz, &bots[1].1);
    assert_eq!(st, 403, "a retired bot takes no uploads: {e}");
    let broken_id = broken["versions"][0]["id"].as_i64().unwrap();
    let (st, r) = s.post(&org, &format!("/api/versions/{broken_id}/rebuild"), b"{}");
    assert_eq!((st, r["status"].as_str()), (200, Some("queued")), "{r}");
    // A revoked token stops working at once, on the running server.
    let mut revoke = Command::new(ladder_bin());
    revoke
        .args(["ladder", "author", "revoke", "bob", "--data"])
        .arg(&data);
    if let Some(url) = db {
        revoke.args(["--db", url]);
    }
    assert!(revoke.output().unwrap().status.success());
    let (st, e) = s.upload(&bob, "py-random", gz, &bots[1].1);
    assert_eq!(
        (st, e["error"]["code"].as_str()),
        (401, Some("unauthorized")),
        "{e}"
    );
    unsafe { libc_kill(s.child.id() as i32, 15) };
    assert!(s.child.wait().unwrap().success());
    assert_eq!(
        board_again, board,
        "ratings are a function of the games table"
    );
    let exports = tmp.path().join("export");
    std::fs::create_dir(&exports).unwrap();
    std::fs::write(exports.join("games.jsonl"), &jsonl).unwrap();
    std::fs::write(exports.join("games.csv"), &csv).unwrap();
    let n_games = String::from_utf8_lossy(&jsonl).lines().count();
    assert_eq!(String::from_utf8_lossy(&csv).lines().count(), n_games + 1);
    for file in ["games.jsonl", "games.csv"] {
        let out = Command::new(arena_bin("arena"))
            .arg("ratings")
            .arg(exports.join(file))
            .arg("--out")
            .arg(tmp.path().join(format!("ratings-{file}")))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "arena ratings {file}: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        );
        for r in rows {
            let name = format!("{}.v{}", r["bot"].as_str().unwrap(), r["version"]);
            assert!(
                text.contains(&name),
                "{name} in arena ratings {file}:\n{text}"
            );
        }
    }
    if db.is_none() {
        let bytes: u64 = ["ladder.db", "ladder.db-wal"]
            .iter()
            .filter_map(|f| std::fs::metadata(data.join(f)).ok())
            .map(|m| m.len())
            .sum();
        println!(
            "ladder e2e (sqlite): database {bytes} bytes for {n_games} games with their records: {} bytes per game",
            bytes / n_games.max(1) as u64
        );
    }
    println!(
        "ladder e2e ({}): {n_games} games; leaderboard: {}",
        if db.is_some() { "postgres" } else { "sqlite" },
        rows.iter()
            .map(|r| format!(
                "{} {:.0}±{:.0} ({} games)",
                r["bot"].as_str().unwrap(),
                r["rating"].as_f64().unwrap(),
                r["deviation"].as_f64().unwrap(),
                r["games"]
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
}

unsafe fn libc_kill(pid: i32, sig: i32) {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
    }
    kill(pid, sig);
}

#[test]
fn a_ladder_on_sqlite() {
    run_ladder(None);
}

#[test]
fn a_ladder_on_postgres() {
    let Ok(url) = std::env::var("ARENA_TEST_POSTGRES_URL") else {
        println!("ARENA_TEST_POSTGRES_URL is not set: the PostgreSQL ladder is not run");
        return;
    };
    run_ladder(Some(&fresh_database(&url)));
}

/// A new, empty database on the server at `url` (each run its own).
fn fresh_database(url: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let name = format!("ladder_test_{}_{nanos}", std::process::id());
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

/// Without a usable sandbox (here: no bubblewrap on PATH) the server
/// refuses to start; `--sandbox none` starts it, with a warning on every
/// response.
#[test]
fn without_a_sandbox_it_refuses_to_start_unless_told() {
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(ladder_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(tmp.path().join("data"))
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the sandbox cannot be set up here"), "{err}");
    assert!(err.contains("--sandbox none"), "{err}");

    let mut child = Command::new(ladder_bin())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "0",
            "--sandbox",
            "none",
            "--data",
        ])
        .arg(tmp.path().join("data"))
        .env("PATH", "/nonexistent")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let addr = line
        .strip_prefix("arena-ladder: listening on http://")
        .unwrap()
        .to_string();
    let out = Command::new("curl")
        .args(["-s", "-i"])
        .arg(format!("http://{addr}/api/nothing"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_lowercase();
    assert!(
        text.contains("arena-warning: this ladder runs bots without a sandbox"),
        "{text}"
    );
    let (_, health) = http("GET", &format!("http://{addr}/api/health"), &[], None);
    let health = json(&health);
    assert_eq!(health["sandbox"], "none");
    assert!(health["warning"]
        .as_str()
        .unwrap()
        .contains("without a sandbox"));
    unsafe { libc_kill(child.id() as i32, 15) };
    assert!(child.wait().unwrap().success());
}
