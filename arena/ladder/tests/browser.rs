//! The ladder's pages in a real Chromium: a real `arena-ladder serve` (as
//! e2e.rs starts it, bots in the sandbox) and Debian's chromium driven
//! over WebDriver by chromedriver, headless. The WebDriver calls are plain
//! JSON over HTTP (through curl, as e2e.rs talks to the server), which is
//! all a WebDriver client is: no client crate to build.
//!
//! What it shows: an author signs in with their token, uploads bots
//! through the form and sees them built and checked; a broken archive
//! shows its reason; a bot named `<script>alert(1)</script>` is refused
//! with that name shown as text, and a build log with markup shows as
//! text (no alert opens); the bots' first games reach the leaderboard and
//! their pages; a game's replay steps with the keyboard and the buttons;
//! a live game's board changes as it is played; the organiser pauses and
//! resumes the ladder.
//!
//! Without chromedriver the test says so loudly and passes, unless
//! `ARENA_REQUIRE_BROWSER` is set (CI sets it): then it fails. With
//! `ARENA_SCREENSHOTS=1` it writes `docs/img/ladder-*.png`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
const CHROMIUM: &str = "/usr/bin/chromium";
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

fn ladder_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_arena-ladder"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

const CONFIG: &str = r#"game = "dakon"
seed = 11
[time_control]
movetime_ms = 400
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
queue = 4
[leases]
seconds = 10
"#;

/// One HTTP exchange through curl: (status, body).
fn http(method: &str, url: &str, body: Option<&Value>) -> (u16, Vec<u8>) {
    let mut cmd = Command::new("curl");
    cmd.args(["-s", "-S", "-X", method, "-o", "-", "-w", "\n%{http_code}"]);
    if body.is_some() {
        cmd.args([
            "-H",
            "Content-Type: application/json",
            "--data-binary",
            "@-",
        ]);
    }
    cmd.arg(url).stdin(Stdio::piped()).stdout(Stdio::piped());
    let mut child = cmd.spawn().expect("curl runs");
    let mut stdin = child.stdin.take().unwrap();
    if let Some(b) = body {
        stdin.write_all(b.to_string().as_bytes()).unwrap();
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let text = out.stdout;
    let cut = text.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    let status = String::from_utf8_lossy(&text[(cut + 1).min(text.len())..])
        .trim()
        .parse()
        .unwrap_or(0);
    (status, text[..cut].to_vec())
}

/// A WebDriver session on chromedriver.
struct Browser {
    driver: Child,
    base: String,
    session: String,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = http(
            "DELETE",
            &format!("{}/session/{}", self.base, self.session),
            None,
        );
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        wait_for(Duration::from_secs(20), "chromedriver to listen", || {
            http("GET", &format!("{base}/status"), None).0 == 200
        });
        let caps = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--window-size=1280,1000"],
            },
        } } });
        let (status, body) = http("POST", &format!("{base}/session"), Some(&caps));
        let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        assert_eq!(status, 200, "new WebDriver session: {v}");
        let session = v["value"]["sessionId"].as_str().unwrap().to_string();
        Browser {
            driver,
            base,
            session,
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let (status, bytes) = http(method, &url, body.as_ref());
        let v: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{method} {path}: {v}");
        v["value"].clone()
    }

    /// Like [`Browser::call`], but an error is `None` (no such element...).
    fn try_call(&self, method: &str, path: &str, body: Option<Value>) -> Option<Value> {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let (status, bytes) = http(method, &url, body.as_ref());
        let v: Value = serde_json::from_slice(&bytes).ok()?;
        (status == 200).then(|| v["value"].clone())
    }

    fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn find(&self, css: &str) -> Option<String> {
        let v = self.try_call(
            "POST",
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        )?;
        v[ELEMENT].as_str().map(str::to_string)
    }

    /// The element `css`, waited for: a click that submits a form may
    /// return before the next page has loaded (seen on a busy machine).
    fn el(&self, css: &str) -> String {
        let start = Instant::now();
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            if start.elapsed() > Duration::from_secs(10) {
                panic!("no element `{css}` on {}", self.page_text());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn click(&self, css: &str) {
        let e = self.el(css);
        self.call("POST", &format!("/element/{e}/click"), Some(json!({})));
    }

    fn type_into(&self, css: &str, text: &str) {
        let e = self.el(css);
        self.call(
            "POST",
            &format!("/element/{e}/value"),
            Some(json!({ "text": text })),
        );
    }

    fn clear(&self, css: &str) {
        let e = self.el(css);
        self.call("POST", &format!("/element/{e}/clear"), Some(json!({})));
    }

    fn text(&self, css: &str) -> String {
        let e = self.el(css);
        self.call("GET", &format!("/element/{e}/text"), None)
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    fn page_text(&self) -> String {
        self.try_call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": "return document.body ? document.body.innerText : ''", "args": [] })),
        )
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
    }

    /// Sends keys to the page (the replay's keyboard controls).
    fn key(&self, key: &str) {
        self.call(
            "POST",
            "/actions",
            Some(
                json!({ "actions": [{ "type": "key", "id": "kb", "actions": [
                { "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }
            ] }] }),
            ),
        );
    }

    /// Whether an alert (a script that ran) is open.
    fn alert_open(&self) -> bool {
        self.try_call("GET", "/alert/text", None).is_some()
    }

    fn set_size(&self, w: u32, h: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({ "width": w, "height": h })),
        );
    }

    /// With ARENA_SCREENSHOTS=1: docs/img/ladder-NAME.png.
    fn screenshot(&self, name: &str) {
        if std::env::var("ARENA_SCREENSHOTS").as_deref() != Ok("1") {
            return;
        }
        use base64::Engine;
        let b64 = self.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(b64.as_str().unwrap())
            .unwrap();
        let dir = repo().join("docs/img");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("ladder-{name}.png")), png).unwrap();
    }
}

/// Waits for `what` to hold, polling; panics with `why` after `limit`.
fn wait_for(limit: Duration, why: &str, mut what: impl FnMut() -> bool) {
    let start = Instant::now();
    while !what() {
        assert!(start.elapsed() < limit, "timed out waiting for {why}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A running server.
struct Server {
    child: Child,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(data: &Path, config: &Path) -> Server {
    let mut child = Command::new(ladder_bin())
        .arg("serve")
        .arg("--data")
        .arg(data)
        .args(["--listen", "127.0.0.1:0", "--workers", "2", "--config"])
        .arg(config)
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::File::create(data.with_extension("stderr")).unwrap(),
        ))
        .spawn()
        .expect("arena-ladder starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = lines
        .next()
        .expect("arena-ladder says where it listens")
        .unwrap();
    let addr = line
        .strip_prefix("arena-ladder: listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    std::thread::spawn(move || for _ in lines {});
    Server {
        child,
        base: format!("http://{addr}"),
    }
}

fn add_author(data: &Path, name: &str, admin: bool) -> String {
    let mut cmd = Command::new(ladder_bin());
    cmd.args(["ladder", "author", "add", name, "--data"])
        .arg(data);
    if admin {
        cmd.arg("--admin");
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .to_string()
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

/// A random bot that takes its time (so that a live game lasts a while).
fn slow_bot(extra_manifest: &str) -> Vec<u8> {
    let kit = std::fs::read(repo().join("bots/python/arena_bot.py")).unwrap();
    let random = std::fs::read_to_string(repo().join("bots/python/random_bot.py")).unwrap();
    let slow = random
        .replace("import random\n", "import random\nimport time\n")
        .replace(
            "        return rng.choice(legal)",
            "        time.sleep(0.1)\n        return rng.choice(legal)",
        );
    assert!(slow.contains("time.sleep"), "random_bot.py changed shape");
    let manifest = format!("command = [\"python3\", \"slow_bot.py\"]\n{extra_manifest}");
    targz(&[
        ("arena-bot.toml", manifest.as_bytes()),
        ("slow_bot.py", slow.as_bytes()),
        ("arena_bot.py", &kit),
    ])
}

/// Uploads `file` as bot `bot` through the submit page's form.
fn upload(b: &Browser, server: &Server, bot: &str, file: &Path) {
    b.goto(&format!("{}/submit", server.base));
    // The browser's own check of the name is skipped: the server's must hold.
    b.js("document.getElementById('bot').removeAttribute('pattern')");
    b.clear("#bot");
    b.type_into("#bot", bot);
    b.type_into("#archive", file.to_str().unwrap());
    b.click("#upload button[type=submit]");
}

fn status_of(b: &Browser, bot: &str) -> String {
    b.js(&format!(
        "var e = document.querySelector('article.my-bot[data-bot=\"{bot}\"] li .status'); return e ? e.textContent : ''"
    ))
    .as_str()
    .unwrap_or("")
    .to_string()
}

#[test]
fn the_ladder_in_chromium() {
    if !Path::new(CHROMEDRIVER).exists() || !Path::new(CHROMIUM).exists() {
        if std::env::var_os("ARENA_REQUIRE_BROWSER").is_some() {
            panic!("ARENA_REQUIRE_BROWSER is set but {CHROMEDRIVER} or {CHROMIUM} is missing");
        }
        eprintln!(
            "\n\n*** SKIPPED: the browser test needs {CHROMEDRIVER} and {CHROMIUM} (apt-get install chromium chromium-driver) ***\n\n"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let config = dir.path().join("ladder.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let admin = add_author(&data, "ann", true);
    let server = start(&data, &config);
    let b = Browser::start();
    let files = dir.path().join("files");
    std::fs::create_dir_all(&files).unwrap();
    let write = |name: &str, bytes: &[u8]| {
        let p = files.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let slow = write("slow.tar.gz", &slow_bot(""));
    // A build whose log holds markup.
    let marked = write(
        "marked.tar.gz",
        &slow_bot("build = \"echo '<script>alert(1)</script><b>bold</b>'\"\n"),
    );
    // A gzip stream that is not a tar: cut short.
    let mut broken_bytes = slow_bot("");
    broken_bytes.truncate(60);
    let broken = write("broken.tar.gz", &broken_bytes);

    // Signing in: a wrong token is refused, the right one gives a session.
    b.goto(&format!("{}/submit", server.base));
    b.screenshot("signin");
    b.type_into("#token", "1.nottherighttoken");
    b.click("form[action='/signin'] button");
    assert!(
        b.text("#form-error").contains("not valid"),
        "{}",
        b.page_text()
    );
    b.type_into("#token", &admin);
    b.click("form[action='/signin'] button");
    wait_for(Duration::from_secs(10), "signed in", || {
        b.page_text().contains("signed in as ann")
    });
    let cookie = b.call("GET", "/cookie/arena_session", None);
    assert_eq!(cookie["httpOnly"], true, "{cookie}");
    assert_eq!(cookie["sameSite"], "Strict", "{cookie}");
    assert!(!b.page_text().contains(&admin), "the token is never shown");

    // Uploads through the form.
    upload(&b, &server, "slow-a", &slow);
    upload(&b, &server, "slow-b", &slow);
    upload(&b, &server, "marked", &marked);
    upload(&b, &server, "broken", &broken);
    let why = b.text("#form-error");
    assert!(
        why.contains("gzip") || why.contains("archive") || why.contains("tar"),
        "{why}"
    );
    upload(&b, &server, "<script>alert(1)</script>", &slow);
    let why = b.text("#form-error");
    assert!(
        why.contains("<script>alert(1)</script>"),
        "the name shows as text: {why}"
    );
    assert!(!b.alert_open(), "no script of a stranger ran");
    b.screenshot("submit-refused");

    // Built and checked, as the page (refreshing itself) says.
    b.goto(&format!("{}/submit", server.base));
    wait_for(
        Duration::from_secs(240),
        "the bots built and checked",
        || {
            ["slow-a", "slow-b", "marked"]
                .iter()
                .all(|n| status_of(&b, n) == "active")
        },
    );
    b.screenshot("submit");

    // The build log with markup is text on the bot's page.
    b.goto(&format!("{}/bots/marked", server.base));
    b.js("document.querySelectorAll('details.logs').forEach(function (d) { d.open = true; })");
    let log = b.text("pre.build-log");
    assert!(
        log.contains("<script>alert(1)</script><b>bold</b>"),
        "{log}"
    );
    assert!(
        b.find("pre.build-log b").is_none(),
        "markup in a log stays text"
    );
    assert!(!b.alert_open());

    // A live game's board changes as moves are made.
    b.goto(&format!("{}/live", server.base));
    wait_for(Duration::from_secs(120), "a live game", || {
        b.find(".live-game[data-ply]").is_some()
    });
    // One game, followed by its id (others may start and end meanwhile).
    wait_for(Duration::from_secs(60), "a game in progress", || {
        b.find(".live-game:not(.ended)").is_some()
    });
    let id = b
        .js("return document.querySelector('.live-game:not(.ended)').getAttribute('data-id')")
        .as_str()
        .unwrap()
        .to_string();
    let ply = |b: &Browser| -> i64 {
        b.js(&format!("var e = document.querySelector('.live-game[data-id=\"{id}\"]'); return e ? Number(e.getAttribute('data-ply')) : -1"))
            .as_i64()
            .unwrap_or(-1)
    };
    let board = |b: &Browser| -> String {
        b.js(&format!("var e = document.querySelector('.live-game[data-id=\"{id}\"] .board-box'); return e ? e.innerHTML : ''"))
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let (p0, board0) = (ply(&b), board(&b));
    assert!(
        board0.contains("<svg"),
        "the report's drawer draws it: {board0}"
    );
    wait_for(Duration::from_secs(30), "the live board to move", || {
        ply(&b) > p0 && board(&b) != board0
    });
    b.screenshot("live");

    // The first games reach the leaderboard and the bots' pages.
    wait_for(Duration::from_secs(240), "games on the leaderboard", || {
        b.goto(&format!("{}/", server.base));
        b.js("var n = 0; document.querySelectorAll('#leaderboard tbody tr').forEach(function (r) { n += Number(r.cells[5].textContent); }); return n")
            .as_i64()
            .unwrap_or(0)
            > 0
    });
    let rows = b.js("return Array.prototype.map.call(document.querySelectorAll('#leaderboard tbody tr td:nth-child(2) a'), function (a) { return a.textContent; })");
    for bot in ["slow-a", "slow-b", "marked"] {
        assert!(rows.as_array().unwrap().iter().any(|r| r == bot), "{rows}");
    }
    // Sorting by a column (the script) reorders the table.
    b.click("#leaderboard thead th:nth-child(2) button");
    let sorted = b.js("return Array.prototype.map.call(document.querySelectorAll('#leaderboard tbody tr td:nth-child(2) a'), function (a) { return a.textContent; })");
    assert_eq!(sorted, json!(["marked", "slow-a", "slow-b"]));
    b.screenshot("leaderboard");
    b.set_size(390, 844);
    b.screenshot("leaderboard-phone");
    b.set_size(1280, 1000);

    b.click("a[href='/bots/slow-a']");
    wait_for(Duration::from_secs(10), "the bot page", || {
        b.find("#recent").is_some()
    });
    assert!(b.find("#versions").is_some() && b.find("#rating-plot").is_some());
    let game: i64 = b.text("#recent tbody tr td a").parse().unwrap();
    b.screenshot("bot");

    // A game's replay, stepped with the keyboard and the buttons.
    b.goto(&format!("{}/games/{game}", server.base));
    wait_for(Duration::from_secs(10), "the replay", || {
        b.find("#board svg").is_some()
    });
    assert!(b.text("#ply-label").starts_with("ply 0 /"));
    let before = b.js("return document.getElementById('board').innerHTML");
    b.key("\u{E014}"); // ArrowRight
    assert!(
        b.text("#ply-label").starts_with("ply 1 /"),
        "{}",
        b.text("#ply-label")
    );
    b.click("#next");
    assert!(b.text("#ply-label").starts_with("ply 2 /"));
    assert_ne!(
        b.js("return document.getElementById('board').innerHTML"),
        before
    );
    b.screenshot("game");
    assert!(
        b.find(&format!("a[href='/api/games/{game}']")).is_some(),
        "a download link"
    );

    // The organiser pauses and resumes the ladder.
    b.goto(&format!("{}/admin", server.base));
    b.click("#pause");
    assert!(b.text("#ladder-state").contains("paused"));
    b.screenshot("admin");
    b.click("#resume");
    assert!(b.text("#ladder-state").contains("running"));

    // A form without the session's CSRF token, or sent from another site,
    // changes nothing, even with the session's cookie.
    let session = format!(
        "Cookie: arena_session={}",
        cookie["value"].as_str().unwrap()
    );
    let csrf = b
        .js("return document.querySelector('input[name=csrf]').value")
        .as_str()
        .unwrap()
        .to_string();
    let post = |extra: &[&str], body: &str| -> String {
        let out = Command::new("curl")
            .args([
                "-s",
                "-o",
                "/dev/null",
                "-w",
                "%{http_code}",
                "-H",
                &session,
            ])
            .args(extra)
            .args(["--data", body])
            .arg(format!("{}/admin/pause", server.base))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(post(&[], "csrf=0123"), "403");
    assert_eq!(post(&[], ""), "400");
    let csrf_field = format!("csrf={csrf}");
    assert_eq!(
        post(&["-H", "Origin: http://evil.example"], &csrf_field),
        "403"
    );
    assert_eq!(
        post(&["-H", "Sec-Fetch-Site: cross-site"], &csrf_field),
        "403"
    );
    b.goto(&format!("{}/admin", server.base));
    assert!(b.text("#ladder-state").contains("running"), "still running");

    // Every page says its policy: no inline script may run.
    let (_, head) = {
        let out = Command::new("curl")
            .args(["-s", "-D", "-", "-o", "/dev/null"])
            .arg(format!("{}/", server.base))
            .output()
            .unwrap();
        (0, String::from_utf8_lossy(&out.stdout).to_lowercase())
    };
    assert!(
        head.contains("content-security-policy: default-src 'self'"),
        "{head}"
    );
}
