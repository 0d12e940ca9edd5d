//! Bots are strangers: each attack a bot author could try is a hostile bot
//! (`bots/hostile/`, modes of `bots/test/testbot.py`) played through the real
//! `arena` binary, and each test says what it proves.
//!
//! Tests that need bubblewrap or root skip with a message where they cannot
//! run; `.ci/run` (root, bubblewrap installed) sets ARENA_REQUIRE_SANDBOX=1,
//! which turns such a skip into a failure, so CI always runs them.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use arena_core::record::{GameRecord, Reason};

#[path = "common/procs.rs"]
mod procs;
#[path = "common/runs.rs"]
mod runs;

use runs::{repo, ARENA};

/// The sandbox settings to try: `none` always, `bwrap` where it works.
fn sandboxes() -> Vec<&'static str> {
    if sandbox_works("the bwrap half of this test") {
        vec!["none", "bwrap"]
    } else {
        vec!["none"]
    }
}

/// Whether bubblewrap works here; false (with a message) if not, or a panic
/// when CI requires it.
fn sandbox_works(what: &str) -> bool {
    match arena::process::sandbox::usable() {
        Ok(()) => true,
        Err(why) if required() => panic!("{what} needs bubblewrap: {why}"),
        Err(why) => {
            eprintln!("SKIPPED {what}: {why}");
            false
        }
    }
}

fn is_root(what: &str) -> bool {
    let root = nix::unistd::geteuid().is_root();
    if !root {
        assert!(!required(), "{what} needs root");
        eprintln!("SKIPPED {what}: not root");
    }
    root
}

fn required() -> bool {
    std::env::var_os("ARENA_REQUIRE_SANDBOX").is_some_and(|v| v == "1")
}

fn hostile(name: &str) -> String {
    repo().join("bots/hostile").join(name).display().to_string()
}

fn testbot() -> String {
    repo().join("bots/test/testbot.py").display().to_string()
}

/// `arena match` between `bots` (NAME=COMMAND), from the repository root
/// (the bots' program directory), writing to `out`.
fn match_cmd(out: &Path, sandbox: &str, bots: &[String], extra: &[&str]) -> Command {
    let mut cmd = Command::new(ARENA);
    cmd.current_dir(repo())
        .args(["match", "--game", "dakon", "--quiet", "--sandbox", sandbox])
        .arg("--out")
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for b in bots {
        cmd.arg("--bot").arg(b);
    }
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().expect("arena runs")
}

fn records(out: &Path) -> Vec<GameRecord> {
    std::fs::read_to_string(out.join("games.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Every log file of a run, concatenated.
fn logs(out: &Path) -> String {
    let mut all = String::new();
    if let Ok(entries) = std::fs::read_dir(out.join("logs")) {
        for e in entries.flatten() {
            all.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    all
}

/// The bots' own processes (the test bot's, not arena's or bubblewrap's,
/// whose command lines hold the marker too) that carry `marker`.
fn bots_with(marker: &str) -> Vec<(i32, String)> {
    procs::with_cmdline(marker)
        .into_iter()
        .filter(|(_, cmd)| cmd.contains("testbot.py") && !cmd.starts_with("bwrap"))
        .collect()
}

fn survivors(marker: &str) -> Vec<(i32, String)> {
    procs::settle(Duration::from_secs(5), || bots_with(marker), Vec::is_empty)
}

fn unique(tag: &str) -> String {
    format!("arena-contain-{tag}-{}", std::process::id())
}

/// A process a bot leaves behind by leaving its session or process group,
/// daemonizing or double-forking dies with the bot's game, sandboxed or not,
/// with cgroups and without (the subreaper sweep): during the second game
/// of a match, the first game's leftover is gone, and nothing is left after.
#[test]
fn whatever_a_bot_leaves_running_dies_with_its_game() {
    for sandbox in sandboxes() {
        for cgroups in ["on", "off"] {
            for mode in [
                "escape-setsid",
                "escape-setpgid",
                "escape-daemon",
                "escape-double-fork",
            ] {
                let marker = unique(&format!("{mode}-{sandbox}-{cgroups}"));
                let dir = tempfile::tempdir().unwrap();
                let out = dir.path().join("run");
                let slow = format!(
                    "slow={} {} --mode slow --sleep-ms 60",
                    runs::python(),
                    testbot()
                );
                let bots = [format!("esc={} --marker {marker}", hostile(mode)), slow];
                let mut cmd = match_cmd(&out, sandbox, &bots, &["--games", "2"]);
                cmd.env("ARENA_CGROUPS", cgroups);
                let mut child = cmd.spawn().unwrap();
                // While the second game runs, at most its own leftover lives.
                let deadline = Instant::now() + Duration::from_secs(60);
                while records(&out).is_empty() && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(10));
                }
                let during = procs::settle(
                    Duration::from_secs(3),
                    || bots_with(&marker),
                    |p| p.len() <= 2, // the second game's bot and its leftover
                );
                let status = child.wait().unwrap();
                let left = survivors(&marker);
                assert!(status.success(), "{mode} {sandbox} cgroups {cgroups}");
                assert!(
                    during.len() <= 2,
                    "{mode} {sandbox} cgroups {cgroups}: the first game's leftover outlived it: {during:?}"
                );
                assert!(
                    left.is_empty(),
                    "{mode} {sandbox} cgroups {cgroups}: left {left:?}"
                );
                assert!(logs(&out).contains(&format!("attack {mode} started")));
                kill_all(&left);
            }
        }
    }
}

/// A bot that closes its stdout (and goes on running) is a `crash` at once,
/// sandboxed or not: bubblewrap holds its own copies of the standard
/// streams while the sandbox runs, so the bot's pipe must reach it past
/// them, or the referee would see no end of file and wait out the move's
/// whole time (a `timeout`, the probe: 20 s here).
#[test]
fn a_bot_that_closes_its_stdout_is_a_crash_in_every_sandbox_mode() {
    for sandbox in sandboxes() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let bots = [
            format!("closer={}", hostile("close-stdout")),
            format!("first={ARENA} bot-first"),
        ];
        let o = run(match_cmd(
            &out,
            sandbox,
            &bots,
            &["--games", "2", "--movetime", "20000"],
        ));
        assert!(
            o.status.success(),
            "{sandbox}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let recs = records(&out);
        assert_eq!(recs.len(), 2, "{sandbox}");
        for r in &recs {
            let closer = r.seats.iter().position(|s| s.name == "closer");
            assert_eq!(r.offender, closer, "{sandbox}: {r:?}");
            assert_eq!(r.reason, Reason::Crash, "{sandbox}: {:?}", r.detail);
            assert!(
                r.detail
                    .as_deref()
                    .unwrap_or("")
                    .contains("closed its output"),
                "{sandbox}: {:?}",
                r.detail
            );
        }
    }
}

fn kill_all(left: &[(i32, String)]) {
    for (pid, _) in left {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(*pid), nix::sys::signal::SIGKILL);
    }
}

/// `kill -9` of arena (the process started, its keeper) or of the referee
/// inside it leaves no bot alive: not one that ignores end of input, quit
/// and SIGTERM, not a daemon one of them started.
#[test]
fn kill_9_of_arena_leaves_no_bot_alive() {
    for sandbox in sandboxes() {
        for cgroups in ["on", "off"] {
            for target in ["keeper", "referee"] {
                let marker = unique(&format!("k9-{sandbox}-{cgroups}-{target}"));
                let dir = tempfile::tempdir().unwrap();
                let out = dir.path().join("run");
                let bots = [
                    format!("daemon={} --marker {marker}", hostile("escape-daemon")),
                    format!("deaf={} --marker {marker}", hostile("eof-ignorer")),
                ];
                let extra = ["--games", "4", "--movetime", "5000", "--param", "holes=9"];
                let mut cmd = match_cmd(&out, sandbox, &bots, &extra);
                cmd.env("ARENA_CGROUPS", cgroups);
                let mut child: Child = cmd.spawn().unwrap();
                // Both bots run and the daemon is out.
                let seen = procs::settle(
                    Duration::from_secs(20),
                    || bots_with(&marker),
                    |p| p.len() >= 3,
                );
                assert!(seen.len() >= 3, "the bots did not start: {seen:?}");
                let victim = match target {
                    "keeper" => child.id() as i32,
                    _ => referee_of(child.id() as i32),
                };
                nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(victim),
                    nix::sys::signal::SIGKILL,
                )
                .unwrap();
                let _ = child.wait();
                let left = survivors(&marker);
                kill_all(&left);
                assert!(
                    left.is_empty(),
                    "kill -9 of the {target} ({sandbox}, cgroups {cgroups}) left {left:?}"
                );
            }
        }
    }
}

/// The referee: the keeper's child running the same command.
fn referee_of(keeper: i32) -> i32 {
    let found = procs::settle(
        Duration::from_secs(5),
        || {
            procs::with_cmdline("match --game")
                .into_iter()
                .filter(|(pid, _)| parent(*pid) == Some(keeper))
                .collect::<Vec<_>>()
        },
        |v| !v.is_empty(),
    );
    found.first().expect("the keeper has a referee child").0
}

fn parent(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit(')')
        .next()?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// A copy of the hostile bots and the test bot in a program directory of
/// their own (the attacks below write where they can: never into the real
/// checkout), with an opponent script beside them and the run directory
/// inside it, as in the demo (reports/ in the repository).
struct Prog {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Prog {
    fn new() -> Prog {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for sub in ["bots/test", "bots/hostile", "reports"] {
            std::fs::create_dir_all(root.join(sub)).unwrap();
        }
        std::fs::copy(testbot(), root.join("bots/test/testbot.py")).unwrap();
        std::fs::copy(testbot(), root.join("opponent.py")).unwrap();
        for e in std::fs::read_dir(repo().join("bots/hostile"))
            .unwrap()
            .flatten()
        {
            std::fs::copy(e.path(), root.join("bots/hostile").join(e.file_name())).unwrap();
        }
        // The bots' uids (arena as root) read everything here.
        chmod_tree(&root);
        Prog { _dir: dir, root }
    }

    fn out(&self) -> PathBuf {
        self.root.join("reports/run")
    }

    /// `arena match` run from this program directory.
    fn play(&self, sandbox: &str, bots: &[String], extra: &[&str], env: &[(&str, &str)]) -> Output {
        let mut cmd = match_cmd(&self.out(), sandbox, bots, extra);
        cmd.current_dir(&self.root);
        for (k, v) in env {
            cmd.env(k, v);
        }
        run(cmd)
    }
}

fn chmod_tree(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for e in walk(dir) {
        let _ = std::fs::set_permissions(&e, std::fs::Permissions::from_mode(0o755));
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut all = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                all.extend(walk(&e.path()));
            } else {
                all.push(e.path());
            }
        }
    }
    all
}

/// Under the sandbox a bot cannot rewrite its opponent's program, forge a
/// game into the run's records, remount the filesystem (as root), read the
/// referee's environment, signal the referee or stop its opponent: every
/// game is played and recorded as the rules say. The same attacks without
/// the sandbox show that each probe works (the trojan rewrites the
/// opponent's script there).
#[test]
fn a_sandboxed_bot_cannot_touch_its_opponent_the_run_or_the_host() {
    if !sandbox_works("the sandbox attacks") {
        return;
    }
    let prog = Prog::new();
    let opponent = prog.root.join("opponent.py");
    let original = std::fs::read(&opponent).unwrap();
    let journal = prog.out().join("games.jsonl");
    let secret = unique("secret");
    let outside = format!("/usr/local/{}", unique("remounted"));
    let marker = unique("victim");
    let opp = format!("opp=/usr/bin/python3 opponent.py --marker {marker}");
    let attacks = [
        format!(
            "trojan=bots/hostile/trojan --victim {} --append {}",
            opponent.display(),
            journal.display()
        ),
        format!("remount=bots/hostile/remount --probe-write {outside}"),
        format!("environ=bots/hostile/read-environ --victim {secret}"),
        "killer=bots/hostile/kill-parent".to_string(),
        format!("stopper=bots/hostile/stop-opponent --victim {marker}"),
    ];
    for attack in &attacks {
        let _ = std::fs::remove_dir_all(prog.out());
        let o = prog.play(
            "bwrap",
            &[attack.clone(), opp.clone()],
            &["--games", "2", "--movetime", "3000"],
            &[("ARENA_TEST_SECRET", &secret)],
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{attack}: {err}");
        let recs = records(&prog.out());
        assert_eq!(recs.len(), 2, "{attack}: every game recorded, none forged");
        for r in &recs {
            assert!(
                r.offender.is_none() && !r.reason.is_forfeit(),
                "{attack}: {:?} {:?}",
                r.reason,
                r.detail
            );
        }
        assert_eq!(std::fs::read(&opponent).unwrap(), original, "{attack}");
        let log = logs(&prog.out());
        assert!(!log.contains(&secret), "{attack}: the secret leaked: {log}");
        assert!(
            log.contains("testbot: attack"),
            "{attack}: no attack ran: {log}"
        );
    }
    assert!(
        !Path::new(&outside).exists(),
        "a sandboxed bot wrote {outside}"
    );
    let log = logs(&prog.out());
    assert!(log.contains("stop-opponent stopped 0"), "{log}");

    // Control: unsandboxed, the trojan does rewrite its opponent.
    let _ = std::fs::remove_dir_all(prog.out());
    let trojan = format!("trojan=bots/hostile/trojan --victim {}", opponent.display());
    let o = prog.play("none", &[trojan, opp.clone()], &["--games", "1"], &[]);
    assert!(
        o.status.success(),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    assert_ne!(
        std::fs::read(&opponent).unwrap(),
        original,
        "the probe works"
    );
    std::fs::write(&opponent, &original).unwrap();
}

/// A bot cannot fill the disk, nor the memory with files: sandboxed, what
/// it writes goes to a /tmp and a /dev/shm of `disk_mb` each, under its own
/// uid (arena as root) and in a user namespace (arena as `nobody`); beyond,
/// writes fail and the bot plays on. Unsandboxed (the control) its writes
/// are not bounded, and its private directory goes after the game all the same.
#[test]
fn a_sandboxed_bot_writes_no_more_than_disk_mb() {
    if !sandbox_works("the disk limit") {
        return;
    }
    let prog = Prog::new();
    let mut runs = vec![("bwrap", false)];
    if is_root("the disk limit as nobody") {
        nix::unistd::chown(
            &prog.root.join("reports"),
            Some(nix::unistd::Uid::from_raw(65534)),
            None,
        )
        .unwrap();
        runs.push(("bwrap", true));
    }
    runs.push(("none", false));
    for (sandbox, as_nobody) in runs {
        let out = prog.out();
        let _ = std::fs::remove_dir_all(&out);
        let tmp = tempfile::tempdir().unwrap();
        let mut cmd = match_cmd(
            &out,
            sandbox,
            &[
                "filler=bots/hostile/disk-filler --fill-mb 24".to_string(),
                "opp=/usr/bin/python3 opponent.py".to_string(),
            ],
            &["--games", "1", "--movetime", "5000", "--disk-mb", "8"],
        );
        cmd.current_dir(&prog.root).env("TMPDIR", tmp.path());
        if as_nobody {
            let mut wrapped = Command::new("setpriv");
            wrapped
                .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(cmd.get_program())
                .args(cmd.get_args())
                .current_dir(&prog.root)
                .stdin(Stdio::null());
            cmd = wrapped;
        }
        let o = run(cmd);
        let what = format!("{sandbox}{}", if as_nobody { " as nobody" } else { "" });
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let log = logs(&out);
        let wrote: Vec<u64> = log
            .lines()
            .filter_map(|l| l.split("disk-filler wrote ").nth(1))
            .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(wrote.len(), 2, "{what}: {log}");
        if sandbox == "none" {
            assert_eq!(wrote, [24, 24], "{what}: the control writes all: {log}");
        } else {
            // A tmpfs of 8 MB holds seven or eight files of 1 MB.
            assert!(
                wrote.iter().all(|&mb| (6..=8).contains(&mb)),
                "{what}: {log}"
            );
        }
        for r in records(&out) {
            assert!(
                !r.reason.is_forfeit(),
                "{what}: {:?} {:?}",
                r.reason,
                r.detail
            );
        }
        eprintln!("{what}: {wrote:?}");
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "{what}: left in TMPDIR: {left:?}");
    }
}

/// Memory a bot holds without mapping it (a memfd written and kept) counts
/// against `memory_mb` where arena can make memory cgroups (the kernel
/// charges it there): the bot is killed and loses with `memory limit`,
/// sandboxed or not. The control, with cgroups off, shows what the resident
/// memory watchdog alone lets through.
#[test]
fn memory_no_process_maps_counts_against_the_limit() {
    if !arena::process::memcg::available() {
        eprintln!("SKIPPED the kernel memory limit: no writable cgroup v1 memory hierarchy");
        return;
    }
    let bots = [
        format!("hog={} --fill-mb 300", hostile("memfd-hog")),
        format!("first={ARENA} bot-first"),
    ];
    let extra = ["--games", "2", "--memory-mb", "128", "--movetime", "5000"];
    for (sandbox, cgroups) in sandboxes()
        .into_iter()
        .map(|s| (s, "on"))
        .chain([("none", "off")])
    {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let mut cmd = match_cmd(&out, sandbox, &bots, &extra);
        if cgroups == "off" {
            cmd.env("ARENA_CGROUPS", "off");
        }
        let o = run(cmd);
        assert!(
            o.status.success(),
            "{sandbox}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let recs = records(&out);
        assert_eq!(recs.len(), 2, "{sandbox}");
        let log = logs(&out);
        for r in &recs {
            let hog = r.seats.iter().position(|s| s.name == "hog");
            if cgroups == "on" {
                assert_eq!(
                    (r.reason, r.offender, r.detail.as_deref()),
                    (Reason::Crash, hog, Some("memory limit (128 MB)")),
                    "{sandbox}: {log}"
                );
            } else {
                assert!(r.offender.is_none(), "{sandbox}: {:?}", r.detail);
                assert!(log.contains("memfd-hog held 300 MB"), "{log}");
            }
        }
    }
}

/// The bot not on move is frozen: a bot that leaves a process spinning gets
/// (almost) no CPU during its opponent's turns, sandboxed or not, with
/// cgroups or with its process group; with --ponder it keeps running. Each
/// move records its CPU time beside its wall time where it can be measured.
#[test]
fn the_bot_not_on_move_is_frozen_unless_pondering_is_allowed() {
    for sandbox in sandboxes() {
        for cgroups in ["on", "off"] {
            let thief_cpu = |ponder: bool| {
                let dir = tempfile::tempdir().unwrap();
                let out = dir.path().join("run");
                let bots = [
                    format!("thief={}", hostile("cpu-thief")),
                    format!(
                        "slow={} {} --mode slow --sleep-ms 100",
                        runs::python(),
                        testbot()
                    ),
                ];
                let mut extra = vec!["--games", "1"];
                if ponder {
                    extra.push("--ponder");
                }
                let mut cmd = match_cmd(&out, sandbox, &bots, &extra);
                cmd.env("ARENA_CGROUPS", cgroups);
                let o = run(cmd);
                assert!(
                    o.status.success(),
                    "{:?} {}",
                    o.status,
                    String::from_utf8_lossy(&o.stderr)
                );
                let r = &records(&out)[0];
                let measured: Vec<f64> = r
                    .moves
                    .iter()
                    .filter(|m| m.seat == 0)
                    .flat_map(|m| &m.info)
                    .filter_map(|i| i.strip_prefix("thief_cpu_ms=")?.parse().ok())
                    .collect();
                let opponent_ms: f64 = r.moves.iter().filter(|m| m.seat == 1).map(|m| m.ms).sum();
                // The bots' decisions: the referee's opening moves (a
                // match opens with the variant's suite by default) have
                // no CPU time.
                let decisions = &r.moves[r.opening_plies..];
                let cpu_known = decisions.iter().filter(|m| m.cpu_ms.is_some()).count();
                (
                    measured.last().unwrap() - measured[0],
                    opponent_ms,
                    cpu_known,
                    decisions.len(),
                )
            };
            let (frozen, waited, cpu_known, plies) = thief_cpu(false);
            let (pondering, _, _, _) = thief_cpu(true);
            let what = format!("{sandbox}, cgroups {cgroups}");
            assert!(waited >= 1000.0, "{what}: the opponent thought {waited} ms");
            assert!(
                frozen < 200.0,
                "{what}: the spinning child got {frozen} ms of CPU in {waited} ms of its opponent's time"
            );
            assert!(
                pondering > 300.0,
                "{what}: pondering, it got only {pondering} ms"
            );
            // Without a cgroup a sandboxed bot's CPU time cannot be read.
            if cgroups == "on" || sandbox == "none" {
                assert_eq!(cpu_known, plies, "{what}: every move has cpu_ms");
            } else {
                assert_eq!(cpu_known, 0, "{what}");
            }
        }
    }
}

/// `memory_mb` limits resident memory, so bots in the languages people use
/// run under it (a JVM reserves gigabytes of address space): a Java and a
/// Node.js bot play under 256 MB, and a Java bot that keeps allocating loses
/// with `crash`, `memory limit (256 MB)`, or, where the JVM sees the limit
/// (unsandboxed in a memory cgroup: it sizes its heap by it), on its own
/// `OutOfMemoryError`.
#[test]
fn a_memory_limit_that_java_and_node_bots_live_with() {
    let have = |tool: &str| Command::new(tool).arg("--version").output().is_ok();
    if !(have("javac") && have("java") && have("node")) {
        assert!(!required(), "CI has a JDK and Node.js");
        eprintln!("SKIPPED: javac, java or node missing");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let classes = dir.path().join("classes");
    let javac = Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(repo().join("bots/java/ArenaBot.java"))
        .arg(repo().join("bots/java/RandomBot.java"))
        .output()
        .unwrap();
    assert!(
        javac.status.success(),
        "{}",
        String::from_utf8_lossy(&javac.stderr)
    );
    chmod_tree(dir.path());
    let java = |extra: &str| format!("java=java -cp {} RandomBot {extra}", classes.display());
    let node = format!(
        "node=node {}",
        repo().join("bots/js/random_bot.js").display()
    );
    for sandbox in sandboxes() {
        let out = dir.path().join(format!("play-{sandbox}"));
        let o = run(match_cmd(
            &out,
            sandbox,
            &[java("--seed 1"), node.clone()],
            &["--games", "2", "--memory-mb", "256", "--movetime", "5000"],
        ));
        assert!(
            o.status.success(),
            "{:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        for r in records(&out) {
            assert!(
                !r.reason.is_forfeit(),
                "{sandbox}: {:?} {:?}",
                r.reason,
                r.detail
            );
        }
        let out = dir.path().join(format!("hog-{sandbox}"));
        let o = run(match_cmd(
            &out,
            sandbox,
            &[java("--hog"), node.clone()],
            &["--games", "1", "--memory-mb", "256", "--movetime", "20000"],
        ));
        assert!(
            o.status.success(),
            "{:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let r = &records(&out)[0];
        assert_eq!(
            (r.reason, r.offender),
            (Reason::Crash, Some(0)),
            "{sandbox}: {r:?}"
        );
        let jvm_saw_it = sandbox == "none"
            && arena::process::memcg::available()
            && logs(&out).contains("java.lang.OutOfMemoryError");
        if !jvm_saw_it {
            assert_eq!(
                r.detail.as_deref(),
                Some("memory limit (256 MB)"),
                "{sandbox}: {}",
                logs(&out)
            );
        }
    }
}

/// Each bot process has a private directory, fresh for every game, that is
/// its HOME and TMPDIR (and, sandboxed, its working directory): nothing a
/// bot leaves there reaches its next game, and nothing of it is left in
/// arena's temporary directory after the run. Unsandboxed under a uid of its
/// own (arena as root, `processes` set) it can write there too.
#[test]
fn each_game_gives_a_bot_a_fresh_private_directory() {
    let mut runs: Vec<(&str, &[&str])> = sandboxes().into_iter().map(|s| (s, &[][..])).collect();
    if nix::unistd::geteuid().is_root() {
        runs.push(("none", &["--processes", "32"]));
    }
    for (sandbox, limits) in runs {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let arena_tmp = dir.path().join("tmp");
        std::fs::create_dir(&arena_tmp).unwrap();
        // A bot uid enters its working directory and runs the system's
        // Python (root's pyenv is closed to it).
        chmod_tree(dir.path());
        let python = match limits {
            [] => runs::python(),
            _ => "/usr/bin/python3",
        };
        let bots = [
            format!("probe={python} {} --mode private-probe", testbot()),
            format!("first={ARENA} bot-first"),
        ];
        let mut cmd = match_cmd(&out, sandbox, &bots, &["--games", "2"]);
        cmd.args(limits);
        // Unsandboxed, the working directory is the program's own (here
        // this temporary one), shared by its games.
        cmd.current_dir(dir.path()).env("TMPDIR", &arena_tmp);
        let o = run(cmd);
        assert!(
            o.status.success(),
            "{:?} {}",
            o.status,
            String::from_utf8_lossy(&o.stderr)
        );
        let left: Vec<_> = std::fs::read_dir(&arena_tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{sandbox}: left in TMPDIR: {left:?}");
        let log = logs(&out);
        let mut places = vec!["home", "tmpdir"];
        if sandbox == "bwrap" {
            places.push("cwd");
        }
        for place in places {
            let seen: Vec<&str> = log
                .lines()
                .filter(|l| l.contains(&format!("attack private-probe {place} ")))
                .collect();
            assert_eq!(seen.len(), 2, "{sandbox} {place}: {log}");
            assert!(
                seen.iter().all(|l| l.ends_with("fresh, wrote")),
                "{sandbox} {place}: {seen:?}"
            );
        }
    }
}

/// An interpreter installed outside the system directories (under a home
/// directory, as pyenv, nvm and conda do) runs in the sandbox: arena shows
/// the bot what its command resolves to.
#[test]
fn an_interpreter_outside_the_system_directories_runs_sandboxed() {
    if !sandbox_works("the home-installed interpreter") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("home/someone/.tool/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let tool = bin.join("mypython");
    std::fs::write(&tool, "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n").unwrap();
    chmod_tree(dir.path());
    let out = dir.path().join("run");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let bots = [
        "tool=mypython bots/test/testbot.py".to_string(),
        format!("first={ARENA} bot-first"),
    ];
    let mut cmd = match_cmd(&out, "bwrap", &bots, &["--games", "2"]);
    cmd.env("PATH", path);
    let o = run(cmd);
    assert!(
        o.status.success(),
        "{:?} {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    for r in records(&out) {
        assert!(
            !r.reason.is_forfeit(),
            "{:?} {:?} {}",
            r.reason,
            r.detail,
            logs(&out)
        );
    }
}

/// `sandbox = auto` without a usable bubblewrap runs the bots unsandboxed,
/// says so at the start and keeps the warning in the run's manifest; an
/// explicit `bwrap` stops before any game, naming what is missing.
#[test]
fn auto_warns_without_bubblewrap_and_bwrap_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("bin");
    std::fs::create_dir_all(&empty).unwrap();
    let config = dir.path().join("t.toml");
    let write = |sandbox: &str| {
        std::fs::write(
            &config,
            format!(
                "game = \"dakon\"\nseed = 1\ngames = 2\n[params]\nholes = 3\n[time_control]\nmovetime_ms = 1000\n\
                 [[bots]]\nname = \"a\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n{sandbox}\n\
                 [[bots]]\nname = \"b\"\ncommand = [\"{ARENA}\", \"bot-first\"]\n"
            ),
        )
        .unwrap();
    };
    let tournament = |out: &Path| {
        Command::new(ARENA)
            .args(["tournament", "--quiet", "--out"])
            .arg(out)
            .arg(&config)
            .env("PATH", &empty)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    write("");
    let out = dir.path().join("auto");
    let o = tournament(&out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("WITHOUT a sandbox") && err.contains("bwrap is not on PATH"),
        "{err}"
    );
    let manifest = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    assert!(manifest.contains("WITHOUT a sandbox"), "{manifest}");

    write("sandbox = \"bwrap\"");
    let out = dir.path().join("bwrap");
    let o = tournament(&out);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bots[0].sandbox") && err.contains("bwrap is not on PATH"),
        "{err}"
    );
    assert!(!out.join("games.jsonl").exists());
}

/// As an ordinary user (here: arena run as `nobody` by root), where bots
/// share arena's uid and no cgroup can be made: a bot cannot read the
/// referee's environment (arena is not dumpable), a link it plants where
/// its log will go is never followed, and bubblewrap still confines it
/// (unprivileged, in a user namespace).
#[test]
fn as_an_ordinary_user_the_referee_keeps_its_secrets_and_its_logs() {
    if !is_root("switching to nobody") {
        return;
    }
    let prog = Prog::new();
    let nobody = nix::unistd::Uid::from_raw(65534);
    let run_dir = prog.root.join("reports");
    nix::unistd::chown(&run_dir, Some(nobody), None).unwrap();
    let victim = prog.root.join("victim.txt");
    std::fs::write(&victim, "untouched\n").unwrap();
    nix::unistd::chown(&victim, Some(nobody), None).unwrap();
    let secret = unique("user-secret");
    let out = prog.out();
    // The planter is seat 1 in the second game (seats alternate).
    let plant = out.join("logs/game00001-seat1-planter.log");
    let mut sandboxes = vec!["none"];
    if sandbox_works("the unprivileged sandbox") {
        sandboxes.push("bwrap");
    }
    for sandbox in sandboxes {
        let _ = std::fs::remove_dir_all(&out);
        let bots = [
            format!("environ=bots/hostile/read-environ --victim {secret}"),
            format!(
                "planter=bots/hostile/symlink-planter --plant {} --victim {}",
                plant.display(),
                victim.display()
            ),
        ];
        let mut cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(ARENA)
            .args([
                "match",
                "--game",
                "dakon",
                "--quiet",
                "--games",
                "2",
                "--sandbox",
                sandbox,
            ])
            .arg("--out")
            .arg(&out)
            .current_dir(&prog.root)
            .env("ARENA_TEST_SECRET", &secret)
            .stdin(Stdio::null());
        for b in &bots {
            cmd.arg("--bot").arg(b);
        }
        let o = cmd.output().unwrap();
        assert!(
            o.status.success(),
            "{sandbox}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let log = logs(&out);
        assert!(log.contains("attack read-environ"), "{sandbox}: {log}");
        assert!(
            log.contains("found the secret in 0 processes"),
            "{sandbox}: {log}"
        );
        assert!(
            !log.contains(&secret),
            "{sandbox}: the referee's environment leaked: {log}"
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "untouched\n",
            "{sandbox}"
        );
        for r in records(&out) {
            assert!(
                !r.reason.is_forfeit(),
                "{sandbox}: {:?} {:?}",
                r.reason,
                r.detail
            );
        }
    }
}

/// A program directory for a hostile build, owned by `owner` (the build
/// runs as its owner when arena is root), holding the build script, the
/// test bot and a tournament config whose first bot is built with
/// `build` (TOML) and whose second bot lives in `victim_dir`.
fn build_dir(owner: u32, build: &str, victim_dir: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for f in ["build-daemon", "build-forever"] {
        std::fs::copy(repo().join("bots/hostile").join(f), root.join(f)).unwrap();
    }
    std::fs::copy(testbot(), root.join("testbot.py")).unwrap();
    let config = root.join("t.toml");
    std::fs::write(
        &config,
        format!(
            r#"
game = "dakon"
seed = 1
games = 2
[time_control]
movetime_ms = 500
[[bots]]
name = "builder"
command = ["/usr/bin/python3", "testbot.py"]
sandbox = "bwrap"
build = {build}
[[bots]]
name = "victim"
cwd = "{victim}"
command = ["/usr/bin/python3", "testbot.py"]
sandbox = "bwrap"
"#,
            victim = victim_dir.display()
        ),
    )
    .unwrap();
    chmod_tree(&root);
    for p in walk(&root) {
        let _ = nix::unistd::chown(&p, Some(nix::unistd::Uid::from_raw(owner)), None);
    }
    (dir, config)
}

/// Runs `arena tournament config` (as `user` when given: setpriv), with a
/// secret in arena's environment.
fn tournament_as(user: Option<u32>, config: &Path, out: &Path, secret: &str) -> Output {
    let mut cmd = match user {
        Some(uid) => {
            let mut c = Command::new("setpriv");
            c.arg(format!("--reuid={uid}"))
                .arg(format!("--regid={uid}"))
                .args(["--clear-groups", "--"])
                .arg(ARENA);
            c
        }
        None => Command::new(ARENA),
    };
    cmd.args(["tournament", "--quiet", "--out"])
        .arg(out)
        .arg(config)
        .env("ARENA_TEST_SECRET", secret)
        .stdin(Stdio::null());
    cmd.output().unwrap()
}

/// A bot's `build` is strangers' code and runs in the sandbox: the daemon it
/// starts dies with it, it does not get arena's environment, it cannot
/// write another bot's files or reach the network, and it writes its own
/// directory as that directory's owner (arena as root) or in a user
/// namespace (arena as `nobody`). A build that never ends is killed at its
/// time limit, and a root-owned directory is refused (a build never runs
/// as root). Control: the same build with `sandbox = "none"` (a trusted
/// build, on the host) leaves its daemon running, reads the secret and
/// overwrites the victim.
#[test]
fn a_sandboxed_build_is_contained_like_its_bot() {
    if !sandbox_works("sandboxed builds") || !is_root("a build under its directory's owner") {
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let victim_dir = tempfile::tempdir().unwrap();
    let victim = victim_dir.path().canonicalize().unwrap();
    std::fs::copy(testbot(), victim.join("testbot.py")).unwrap();
    let victim_file = victim.join("victim.txt");
    chmod_tree(&victim);
    let secret = unique("build-secret");
    // As root (the build runs as uid 4242, the directory's owner), then
    // as `nobody` (unprivileged bubblewrap), then the control.
    for (user, owner, sandbox) in [
        (None, 4242, "bwrap"),
        (Some(65534), 65534, "bwrap"),
        (None, 4242, "none"),
    ] {
        std::fs::write(&victim_file, "untouched\n").unwrap();
        // Writable by anyone: the probe is the sandbox, not the file mode.
        std::fs::set_permissions(
            &victim_file,
            std::os::unix::fs::PermissionsExt::from_mode(0o666),
        )
        .unwrap();
        let marker = unique(&format!("build-{owner}-{sandbox}"));
        let build = format!(
            r#"{{ command = ["./build-daemon", "{marker}", "{}", "{port}"], sandbox = "{sandbox}" }}"#,
            victim_file.display()
        );
        let (dir, config) = build_dir(owner, &build, &victim);
        let root = dir.path().canonicalize().unwrap();
        let out = root.join("reports/run");
        let o = tournament_as(user, &config, &out, &secret);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{sandbox} as {user:?}: {err}");
        let report = std::fs::read_to_string(root.join("build-report.txt")).unwrap();
        let env = std::fs::read_to_string(root.join("build-env.txt")).unwrap();
        let built = std::fs::read_to_string(root.join("built")).unwrap();
        let daemons = procs::settle(
            Duration::from_secs(3),
            || procs::with_cmdline(&format!("# {marker}")),
            Vec::is_empty,
        );
        let victim_text = std::fs::read_to_string(&victim_file).unwrap();
        let reached = listener.accept().is_ok();
        if sandbox == "bwrap" {
            assert!(
                daemons.is_empty(),
                "{user:?}: the daemon outlived its build: {daemons:?}"
            );
            assert!(
                !env.contains(&secret),
                "{user:?}: arena's environment leaked: {env}"
            );
            assert_eq!(victim_text, "untouched\n", "{user:?}: {report}");
            assert!(report.contains("victim refused"), "{report}");
            assert!(report.contains("network refused"), "{report}");
            assert!(!reached, "{user:?}: the build reached the network");
            // It wrote its own directory, as its owner (in a user namespace
            // unprivileged: the file is nobody's on the host).
            let meta = std::fs::metadata(root.join("built")).unwrap();
            assert_eq!(
                std::os::unix::fs::MetadataExt::uid(&meta),
                owner,
                "{user:?}: {built}"
            );
            // The games were played by the built bot.
            assert_eq!(records(&out).len(), 2);
        } else {
            // The control: each probe works on the host.
            kill_all(&daemons);
            assert!(!daemons.is_empty(), "the control's daemon runs");
            assert!(env.contains(&secret), "the control reads the secret");
            assert_eq!(victim_text, "trojan\n", "{report}");
            assert!(reached || report.contains("network reached"), "{report}");
        }
    }

    // A root-owned directory: refused before anything runs, saying why.
    let build = r#"["./build-daemon", "x", "/dev/null", "1"]"#;
    let (dir, config) = build_dir(0, build, &victim);
    let o = tournament_as(None, &config, &dir.path().join("reports/run"), &secret);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bots[0].build") && err.contains("never as root"),
        "{err}"
    );
    assert!(!dir.path().join("built").exists());

    // A build that never ends is killed at its time limit, with its child.
    let marker = unique("build-forever");
    let build = format!(r#"{{ command = ["./build-forever", "{marker}"], seconds = 2 }}"#);
    let (dir, config) = build_dir(4242, &build, &victim);
    let started = Instant::now();
    let o = tournament_as(None, &config, &dir.path().join("reports/run"), &secret);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("longer than 2 s"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let left = procs::settle(
        Duration::from_secs(3),
        || procs::with_cmdline(&format!("# {marker}")),
        Vec::is_empty,
    );
    assert!(left.is_empty(), "the build's child outlived it: {left:?}");
}

/// Empty files cost the host's kernel about 1 KB each, which no limit
/// counts (no memory cgroup when arena is unprivileged): a sandboxed bot
/// makes at most `disk_mb` * 16 files in its /tmp and as many in its
/// /dev/shm, and none in `/` (bubblewrap's own tmpfs, read-only to it), as
/// its own uid (arena as root) and in a user namespace (arena as nobody);
/// beyond, creation fails and it plays on. Unsandboxed (the control) it
/// makes all it asks for (20,000).
#[test]
fn a_sandboxed_bot_makes_no_more_files_than_disk_mb_allows() {
    if !sandbox_works("the file bound") {
        return;
    }
    let prog = Prog::new();
    let mut runs = vec![("bwrap", false)];
    if is_root("the file bound as nobody") {
        nix::unistd::chown(
            &prog.root.join("reports"),
            Some(nix::unistd::Uid::from_raw(65534)),
            None,
        )
        .unwrap();
        runs.push(("bwrap", true));
    }
    runs.push(("none", false));
    let bound = arena::process::sandbox::files_for(8 << 20);
    assert_eq!(bound, 128, "the documented bound: 16 files per MB");
    for (sandbox, as_nobody) in runs {
        let out = prog.out();
        let _ = std::fs::remove_dir_all(&out);
        let tmp = tempfile::tempdir().unwrap();
        // Unsandboxed, its TMPDIR is its private directory (removed after
        // the game): enough to show the count is not bounded, quickly.
        let hog = match sandbox {
            "none" => "hog=bots/hostile/inode-hog --fill-files 20000".to_string(),
            _ => "hog=bots/hostile/inode-hog --fill-dir /dev/shm --fill-dir /".to_string(),
        };
        let mut cmd = match_cmd(
            &out,
            sandbox,
            &[hog, "opp=/usr/bin/python3 opponent.py".to_string()],
            // Time enough for the control's files on a loaded machine.
            &["--games", "1", "--movetime", "60000", "--disk-mb", "8"],
        );
        cmd.current_dir(&prog.root).env("TMPDIR", tmp.path());
        if as_nobody {
            let mut wrapped = Command::new("setpriv");
            wrapped
                .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                .arg(cmd.get_program())
                .args(cmd.get_args())
                .current_dir(&prog.root)
                .env("TMPDIR", tmp.path())
                .stdin(Stdio::null());
            cmd = wrapped;
        }
        let o = run(cmd);
        let what = format!("{sandbox}{}", if as_nobody { " as nobody" } else { "" });
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let log = logs(&out);
        let made: Vec<(String, u64)> = log
            .lines()
            .filter_map(|l| l.split("inode-hog made ").nth(1))
            .map(|rest| {
                let mut w = rest.split(' ');
                let n = w.next().unwrap().parse().unwrap();
                (w.nth(2).unwrap().to_string(), n)
            })
            .collect();
        eprintln!("{what}: {made:?}");
        if sandbox == "none" {
            assert_eq!(made.len(), 1, "{what}: {log}");
            assert_eq!(made[0].1, 20_000, "{what}: the control makes all: {log}");
        } else {
            let at = |dir: &str| made.iter().find(|(d, _)| d == dir).map(|(_, n)| *n);
            // Bounded, and not by something else: most of the bound is made.
            for dir in ["/tmp", "/dev/shm"] {
                let n = at(dir).unwrap_or_else(|| panic!("{what}: nothing in {dir}: {log}"));
                assert!(
                    n <= bound && n >= bound - 16,
                    "{what}: {n} files in {dir}: {log}"
                );
            }
            assert_eq!(at("/"), Some(0), "{what}: files in /: {log}");
        }
        for r in records(&out) {
            assert!(
                !r.reason.is_forfeit(),
                "{what}: {:?} {:?}",
                r.reason,
                r.detail
            );
        }
        let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().flatten().collect();
        assert!(left.is_empty(), "{what}: left in TMPDIR: {left:?}");
    }
}

/// A bot's own `#!` line cannot make the sandbox show it a directory: not
/// with a NUL after the interpreter (the kernel stops there, a reader
/// splitting on whitespace did not), not through a link of its program
/// directory that resolves only inside (`#!/tmp/L/../../DIR/sh`). Each
/// hostile bot (bots/hostile/make-shebang-bots) runs /bin/sh and asks for
/// one of: a directory under a root-only one (arena as root), its
/// opponent's program directory, the directory of a host process in
/// /proc (its command line), the run directory's logs/. Sandboxed, as root
/// and as nobody, it reads none of them and its games are recorded as
/// usual; unsandboxed (the control) it reads each.
#[test]
fn a_bots_shebang_line_shows_it_nothing_outside_its_directory() {
    use std::os::unix::fs::PermissionsExt;
    if !sandbox_works("the shebang attacks") {
        return;
    }
    let root = is_root("the shebang attacks");
    let prog = Prog::new();
    let base_dir = tempfile::tempdir().unwrap();
    let base = base_dir.path().canonicalize().unwrap();
    let token = |what: &str| unique(&format!("shebang-{what}"));
    let opp = base.join("opp");
    std::fs::create_dir(&opp).unwrap();
    std::fs::copy(testbot(), opp.join("opponent.py")).unwrap();
    std::fs::write(opp.join("secret.txt"), token("opponent")).unwrap();
    let locked_pub = base.join("locked/pub");
    std::fs::create_dir_all(&locked_pub).unwrap();
    std::fs::write(locked_pub.join("secret.txt"), token("locked")).unwrap();
    chmod_tree(&base);
    std::fs::set_permissions(base.join("locked"), std::fs::Permissions::from_mode(0o700)).unwrap();
    // A host process whose command line is the secret.
    let mut host = Command::new("/usr/bin/python3")
        .args(["-c", "import time; time.sleep(600)", &token("cmdline")])
        .spawn()
        .unwrap();
    let proc_dir = PathBuf::from(format!("/proc/{}", host.id()));
    let run_dir = base.join("run");
    // (directory asked for, what is read, what it holds)
    let mut targets = vec![
        (opp.clone(), opp.join("secret.txt"), token("opponent")),
        (proc_dir.clone(), proc_dir.join("cmdline"), token("cmdline")),
        // The second game's bot lists the first game's logs.
        (
            run_dir.join("logs"),
            run_dir.join("logs"),
            "game00000".to_string(),
        ),
    ];
    if root {
        targets.push((
            locked_pub.clone(),
            locked_pub.join("secret.txt"),
            token("locked"),
        ));
    }
    for (i, (dir, _, _)) in targets.iter().enumerate() {
        let gen = Command::new(repo().join("bots/hostile/make-shebang-bots"))
            .arg(&prog.root)
            .arg(dir)
            .arg(format!("sb{i}x{}", std::process::id()))
            .output()
            .unwrap();
        assert!(gen.status.success(), "{gen:?}");
    }
    chmod_tree(&prog.root);
    let mut modes = vec![("bwrap", false), ("none", false)];
    if root {
        modes.insert(1, ("bwrap", true));
    }
    let config = base.join("t.toml");
    for (sandbox, as_nobody) in modes {
        for (i, (dir, read, secret)) in targets.iter().enumerate() {
            if as_nobody && dir.starts_with(base.join("locked")) {
                continue; // nobody cannot reach it even unsandboxed
            }
            for variant in ["nul", "link"] {
                let what = format!(
                    "{sandbox}{} {variant} {}",
                    if as_nobody { " as nobody" } else { "" },
                    dir.display()
                );
                // Unsandboxed, the link's path resolves only with the link
                // in the host's /tmp.
                let name = format!("sb{i}x{}", std::process::id());
                let host_link = PathBuf::from(format!("/tmp/{name}-L"));
                let _ = std::fs::remove_file(&host_link);
                if sandbox == "none" && variant == "link" {
                    std::os::unix::fs::symlink(prog.root.join(format!(".{name}/a")), &host_link)
                        .unwrap();
                }
                std::fs::write(
                    &config,
                    format!(
                        "game = \"dakon\"\nseed = 1\ngames = 2\nconcurrency = 1\n[time_control]\nmovetime_ms = 2000\n\
                         [[bots]]\nname = \"hostile\"\ncommand = [\"bots/hostile/{name}-{variant}\"]\n\
                         env = {{ SHEBANG_READ = \"{}\" }}\n\
                         cwd = \"{}\"\nsandbox = \"{sandbox}\"\n\
                         [[bots]]\nname = \"opp\"\ncommand = [\"/usr/bin/python3\", \"opponent.py\"]\n\
                         cwd = \"{}\"\nsandbox = \"{sandbox}\"\n",
                        read.display(),
                        prog.root.display(),
                        opp.display()
                    ),
                )
                .unwrap();
                let _ = std::fs::remove_dir_all(&run_dir);
                let mut cmd = if as_nobody {
                    std::fs::create_dir(&run_dir).unwrap();
                    nix::unistd::chown(&run_dir, Some(nix::unistd::Uid::from_raw(65534)), None)
                        .unwrap();
                    let mut c = Command::new("setpriv");
                    c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
                        .arg(ARENA);
                    c
                } else {
                    Command::new(ARENA)
                };
                cmd.args(["tournament", "--quiet", "--out"])
                    .arg(&run_dir)
                    .arg(&config)
                    .current_dir(&base)
                    .stdin(Stdio::null());
                let o = cmd.output().unwrap();
                let _ = std::fs::remove_file(&host_link);
                let err = String::from_utf8_lossy(&o.stderr);
                assert!(o.status.success(), "{what}: {err}");
                let log = logs(&run_dir);
                let recs = records(&run_dir);
                assert_eq!(recs.len(), 2, "{what}: {log}");
                for r in &recs {
                    assert!(
                        !r.reason.is_forfeit(),
                        "{what}: {:?} {:?} {log}",
                        r.reason,
                        r.detail
                    );
                }
                let probe = format!("attack shebang read {}: ", read.display());
                let got: Vec<&str> = log.lines().filter(|l| l.contains(&probe)).collect();
                if sandbox == "none" {
                    assert!(
                        got.iter().any(|l| l.contains(secret.as_str())),
                        "{what}: the control reads it: {log}"
                    );
                } else {
                    assert!(
                        log.contains(&format!("attack shebang cannot read {}", read.display())),
                        "{what}: the probe ran: {log}"
                    );
                    assert!(got.is_empty(), "{what}: it read {got:?}");
                    assert!(!log.contains(secret.as_str()), "{what}: leaked: {log}");
                }
            }
        }
    }
    let _ = host.kill();
    let _ = host.wait();
}

/// The init step is `arena-sandbox-init`, the small binary beside `arena`,
/// and `arena` copied alone serves as its own: a sandboxed match plays
/// either way. The probe that the small binary is the one run: a fake one
/// beside the copy (a script that exits at once) keeps the bots from
/// starting, and the same run without it plays.
#[test]
fn the_init_step_is_the_small_binary_beside_arena_or_arena_itself() {
    use std::os::unix::fs::PermissionsExt;
    if !sandbox_works("the init step's binary") {
        return;
    }
    let small = Path::new(ARENA).with_file_name("arena-sandbox-init");
    assert!(small.is_file(), "cargo builds {} too", small.display());
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("arena");
    std::fs::copy(ARENA, &copy).unwrap();
    chmod_tree(dir.path());
    let play = |what: &str| {
        let out = dir.path().join(format!("run-{what}"));
        let bots = [
            format!("a={ARENA} bot-first"),
            format!("b={ARENA} bot-first"),
        ];
        // match_cmd's arguments, run by the copy.
        let args = match_cmd(&out, "bwrap", &bots, &["--games", "2"]);
        let mut cmd = Command::new(&copy);
        cmd.args(args.get_args())
            .current_dir(repo())
            .stdin(Stdio::null());
        (run(cmd), out)
    };
    let (alone, out) = play("alone");
    assert!(
        alone.status.success(),
        "arena alone: {}",
        String::from_utf8_lossy(&alone.stderr)
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| !r.reason.is_forfeit()), "{recs:?}");
    let fake = dir.path().join("arena-sandbox-init");
    std::fs::write(&fake, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (faked, _) = play("fake");
    assert!(
        !faked.status.success(),
        "the fake init step beside arena was not run"
    );
}
