//! The settings funnel: the checks every way into a run makes (a
//! tournament config, `arena match`'s flags, the ladder's config), written
//! once.
//!
//! A way in reads its own syntax (TOML tables and their defaults, flags and
//! theirs) into the plain values these checks take, and names each value by
//! where it came from: a config key (`bots[1].command`) or a flag (`--bot`).
//! Each check yields the value resolved, or a [`Refusal`] naming that key;
//! the way in turns a refusal into its own error (`file: key: reason` for a
//! config, `key: reason` for flags). What a run is then given is
//! [`crate::settings`]' data: a game with every parameter, bots whose
//! commands were found and whose sandbox is decided ([`ResolvedSandbox`]),
//! a [`TimeControl`].

// The funnel is what the next way in (the ladder's config) reads first.
#![warn(missing_docs)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::process::{LimitSettings, ResolvedSandbox, ResourceLimits, Sandbox};
use crate::referee::TimeControl;
use crate::settings::{schedule_len, FormatKind, MAX_GAMES};
use arena_core::games::{self, AnyGame};
use arena_core::record::Clock;

/// A value refused: the key (or flag) it came from, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{key}: {reason}")]
pub struct Refusal {
    /// As the way in named it: `bots[1].command`, `--games`.
    pub key: String,
    /// Why, in a user's words (`must be at least 1`).
    pub reason: String,
}

impl Refusal {
    /// `key` refused, because `reason`.
    pub fn new(key: impl Into<String>, reason: impl Into<String>) -> Refusal {
        Refusal {
            key: key.into(),
            reason: reason.into(),
        }
    }
}

/// The game `name` with `params` (as text), checked by the engine, which is
/// the judge of what is valid: every parameter then has its value, in the
/// game's canonical order ([`AnyGame::params`]). `game_key` names the game
/// in a refusal, `param_key` a parameter (`params.stones`, `--param`).
pub fn game(
    name: &str,
    params: &[(String, String)],
    game_key: &str,
    param_key: impl Fn(&str) -> String,
) -> Result<Box<dyn AnyGame>, Refusal> {
    games::new_game(name, params).map_err(|e| {
        let key = match &e {
            games::ParamError::UnknownGame { .. } => game_key.to_string(),
            games::ParamError::Unknown { key, .. }
            | games::ParamError::Invalid { key, .. }
            | games::ParamError::Duplicate { key } => param_key(key),
        };
        Refusal::new(key, e.to_string())
    })
}

/// The names of a run's bots, checked one by one as they are given.
#[derive(Clone, Debug, Default)]
pub struct BotNames(Vec<String>);

impl BotNames {
    /// Checks `name` (see [`crate::display::check_name`]) and that no bot
    /// given before has it; `key` names it in a refusal.
    pub fn add(&mut self, name: &str, key: &str) -> Result<(), Refusal> {
        crate::display::check_name(name).map_err(|why| Refusal::new(key, why.to_string()))?;
        if self.0.iter().any(|n| n == name) {
            return Err(Refusal::new(
                key,
                format!("`{name}` is used by two bots; names must be unique"),
            ));
        }
        self.0.push(name.to_string());
        Ok(())
    }

    /// The names so far, in order.
    pub fn names(&self) -> &[String] {
        &self.0
    }
}

/// A bot's working directory `dir`, which must be one, made absolute with
/// its links resolved.
pub fn directory(dir: &Path, key: &str) -> Result<PathBuf, Refusal> {
    if !dir.is_dir() {
        let reason = if dir.exists() {
            format!("{} is a file, not a directory", dir.display())
        } else {
            format!("directory {} does not exist", dir.display())
        };
        return Err(Refusal::new(key, reason));
    }
    dir.canonicalize()
        .map_err(|e| Refusal::new(key, format!("cannot resolve {}: {e}", dir.display())))
}

/// Checks that `command`'s program can be run in `cwd` with `env`: it
/// exists and is executable (see [`executable_problem`]). What `arena
/// check-bot` checks before it starts a bot to see how it fails.
pub fn program(
    command: &[String],
    cwd: &Path,
    env: &BTreeMap<String, String>,
    key: &str,
) -> Result<(), Refusal> {
    let Some(program) = command.first().filter(|p| !p.is_empty()) else {
        return Err(Refusal::new(key, "must be a non-empty list"));
    };
    match executable_problem(program, cwd, env) {
        Some(problem) => Err(Refusal::new(key, problem)),
        None => Ok(()),
    }
}

/// Checks that `command` can be started in `cwd` with `env`: its program
/// exists and is executable (a path relative to `cwd`, or a name on the
/// bot's `PATH`), and script arguments (ending in `.py`, `.js`, `.rb`,
/// `.pl`, `.sh`, `.jar`) name files in `cwd`.
pub fn command(
    command: &[String],
    cwd: &Path,
    env: &BTreeMap<String, String>,
    key: &str,
) -> Result<(), Refusal> {
    program(command, cwd, env, key)?;
    for arg in &command[1..] {
        let script = [".py", ".js", ".rb", ".pl", ".sh", ".jar"]
            .iter()
            .any(|ext| arg.ends_with(ext));
        if script && !arg.starts_with('-') && !cwd.join(arg).is_file() {
            return Err(Refusal::new(
                key,
                format!("file `{arg}` not found in {}", cwd.display()),
            ));
        }
    }
    Ok(())
}

/// Where `exe` is looked for, in order: a path (with `/`) relative to `cwd`,
/// or a bare name in each directory of the bot's `PATH` (its `env.PATH` if
/// given, else arena's).
fn candidates(exe: &str, cwd: &Path, env: &BTreeMap<String, String>) -> Vec<PathBuf> {
    if exe.contains('/') {
        return vec![cwd.join(exe)];
    }
    let path = env
        .get("PATH")
        .cloned()
        .or_else(|| std::env::var("PATH").ok())
        .unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| cwd.join(dir).join(exe))
        .collect()
}

/// Finds an executable: the first of `candidates` that is an executable file.
pub fn resolve_executable(
    exe: &str,
    cwd: &Path,
    env: &BTreeMap<String, String>,
) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &Path| {
        p.is_file()
            && p.metadata()
                .map(|m| m.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
    };
    candidates(exe, cwd, env).into_iter().find(|p| runnable(p))
}

/// Why `exe` (found as [`resolve_executable`] finds it) cannot be run, in
/// the words a user needs: not there, a directory, or a file without the
/// execute permission. `None` when it can be run.
pub fn executable_problem(exe: &str, cwd: &Path, env: &BTreeMap<String, String>) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    if resolve_executable(exe, cwd, env).is_some() {
        return None;
    }
    let not_runnable = |p: &Path| -> Option<String> {
        let meta = p.metadata().ok()?;
        let shown = if !exe.contains('/') || Path::new(exe).is_absolute() {
            p.display().to_string()
        } else {
            cwd.join(exe.trim_start_matches("./")).display().to_string()
        };
        Some(if meta.is_dir() {
            format!("`{shown}` is a directory, not a program")
        } else if meta.permissions().mode() & 0o111 == 0 {
            let interpreter = match p.extension().and_then(|e| e.to_str()) {
                Some("py") => "python3",
                Some("js") => "node",
                Some("pl") => "perl",
                Some("rb") => "ruby",
                Some("sh") => "sh",
                _ => "INTERPRETER",
            };
            format!(
                "`{shown}` is not executable: make it so (chmod +x), or put its \
                 interpreter first (`{interpreter} {exe}`)"
            )
        } else {
            format!("`{shown}` cannot be run")
        })
    };
    let missing = if !exe.contains('/') {
        format!("executable `{exe}` not found (not on PATH)")
    } else if Path::new(exe).is_absolute() {
        format!("executable `{exe}` not found")
    } else {
        format!("executable `{exe}` not found (looked in {})", cwd.display())
    };
    candidates(exe, cwd, env)
        .iter()
        .find_map(|p| not_runnable(p))
        .or(Some(missing))
}

/// A bot's limits as the kernel is given them.
pub fn resources(limits: &LimitSettings, key: &str) -> Result<ResourceLimits, Refusal> {
    limits
        .resources()
        .map_err(|e| Refusal::new(key, e.to_string()))
}

/// Checks that every directory of `interpreters` is absolute (where
/// interpreters are on this machine, like PATH: a relative one would move
/// with the working directory).
pub fn interpreters(interpreters: &[PathBuf], key: &str) -> Result<(), Refusal> {
    match interpreters.iter().find(|p| !p.is_absolute()) {
        Some(p) => Err(Refusal::new(
            key,
            format!("{} is not an absolute path", p.display()),
        )),
        None => Ok(()),
    }
}

/// Checks `games` per pairing for `n_bots` bots in `format`: at least one,
/// and a schedule of at most [`MAX_GAMES`] (refused before anything is
/// allocated).
pub fn games(format: FormatKind, n_bots: usize, games: u64, key: &str) -> Result<(), Refusal> {
    if games == 0 {
        return Err(Refusal::new(
            key,
            format!("must be from 1 to {MAX_GAMES} (got 0)"),
        ));
    }
    let total = schedule_len(format, n_bots, games);
    if total > u128::from(MAX_GAMES) {
        let reason = if format == FormatKind::Match {
            format!("must be from 1 to {MAX_GAMES} (got {games})")
        } else {
            format!(
                "the schedule would hold {total} games ({n_bots} bots, {games} per pairing); \
                 at most {MAX_GAMES} games fit in one run"
            )
        };
        return Err(Refusal::new(key, reason));
    }
    Ok(())
}

/// A time control as given, its shorthands (`tc`, `st`; `--tc`, `--st`)
/// already read into milliseconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct TimeInput {
    /// The limit per move, if any.
    pub movetime_ms: Option<u64>,
    /// The game clock per side, if any.
    pub time_ms: Option<u64>,
    /// The increment per move, if given (it needs a game clock).
    pub inc_ms: Option<u64>,
    /// The overrun tolerated before a bot loses on time.
    pub margin_ms: u64,
    /// Which time is charged, if given (default: wall).
    pub clock: Option<Clock>,
    /// The cpu clock's wall-time ceiling per decision, if given.
    pub ceiling_ms: Option<u64>,
}

/// How a way in names the parts of a time control in a refusal.
#[derive(Clone, Debug)]
pub struct TimeKeys {
    /// The time control as a whole (`time_control`).
    pub whole: String,
    /// Its limit per move (`time_control.movetime_ms`, `--movetime`).
    pub movetime: String,
    /// Its game clock (`time_control.time_ms`, `--time`).
    pub time: String,
    /// Its increment.
    pub inc: String,
    /// Its clock.
    pub clock: String,
    /// Its cpu clock's ceiling.
    pub ceiling: String,
    /// How the cpu clock is asked for (`clock = "cpu"`, `--clock cpu`).
    pub cpu: String,
    /// Why a time control with neither a limit per move nor a game clock
    /// is refused, in the way in's words (what to set instead).
    pub missing: String,
}

/// A time control checked: a limit per move, or a game clock, or both,
/// positive; an increment only with a clock; the cpu clock's ceiling only
/// with the cpu clock. `outer_clock`, a clock given outside it (a config's
/// top-level `clock`, or its tournament's for a bot's own), must agree with
/// its `clock` and is the default.
pub fn time_control(
    t: &TimeInput,
    outer_clock: Option<Clock>,
    keys: &TimeKeys,
) -> Result<TimeControl, Refusal> {
    match (t.movetime_ms, t.time_ms) {
        (None, None) => return Err(Refusal::new(&keys.whole, &keys.missing)),
        (Some(0), _) => return Err(Refusal::new(&keys.movetime, "must be at least 1")),
        (_, Some(0)) => return Err(Refusal::new(&keys.time, "must be at least 1")),
        _ => {}
    }
    if t.inc_ms.is_some() && t.time_ms.is_none() {
        return Err(Refusal::new(
            &keys.inc,
            // Named as in its own table (`time_ms`), or as the flag.
            format!(
                "needs {} (an increment is added to a game clock)",
                keys.time.rsplit('.').next().unwrap_or(&keys.time)
            ),
        ));
    }
    let clock = match (outer_clock, t.clock) {
        (Some(a), Some(b)) if a != b => {
            return Err(Refusal::new(
                &keys.clock,
                format!("is \"{b}\" where the clock is \"{a}\": time controls of one tournament share one clock"),
            ))
        }
        (a, b) => a.or(b).unwrap_or_default(),
    };
    if t.ceiling_ms.is_some() && clock != Clock::Cpu {
        return Err(Refusal::new(
            &keys.ceiling,
            format!(
                "is the cpu clock's wall-time ceiling: it needs {}",
                keys.cpu
            ),
        ));
    }
    if t.ceiling_ms == Some(0) {
        return Err(Refusal::new(&keys.ceiling, "must be at least 1"));
    }
    Ok(TimeControl {
        movetime_ms: t.movetime_ms,
        time_ms: t.time_ms,
        inc_ms: t.inc_ms.unwrap_or(0),
        margin_ms: t.margin_ms,
        clock,
        ceiling_ms: t.ceiling_ms,
    })
}

/// What each bot's sandbox setting means on this machine, decided once for
/// the run ([`crate::process::sandbox::resolve`]), with the warnings to give
/// once each: `auto` without a working bubblewrap falls back to none;
/// `bwrap` without one is refused, naming the bot's key.
pub fn sandboxes<'a>(
    settings: impl IntoIterator<Item = (String, Sandbox)> + 'a,
) -> Result<(Vec<ResolvedSandbox>, Vec<String>), Refusal> {
    let mut warnings: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (key, setting) in settings {
        let (sandbox, warning) = crate::process::sandbox::resolve(setting)
            .map_err(|e| Refusal::new(key, e.to_string()))?;
        if let Some(w) = warning.filter(|w| !warnings.contains(w)) {
            warnings.push(w);
        }
        out.push(sandbox);
    }
    Ok((out, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> TimeKeys {
        TimeKeys {
            whole: "tc".into(),
            movetime: "mt".into(),
            time: "t".into(),
            inc: "i".into(),
            clock: "c".into(),
            ceiling: "ceil".into(),
            cpu: "cpu!".into(),
            missing: "set one".into(),
        }
    }

    /// Each refusal of a time control names the part at fault, with the
    /// way in's own names.
    #[test]
    fn a_time_control_is_refused_by_its_part() {
        let base = TimeInput {
            movetime_ms: Some(100),
            ..TimeInput::default()
        };
        let refused = |t: TimeInput, outer: Option<Clock>| {
            time_control(&t, outer, &keys()).expect_err("refused").key
        };
        assert_eq!(refused(TimeInput::default(), None), "tc");
        assert_eq!(
            refused(
                TimeInput {
                    movetime_ms: Some(0),
                    ..base
                },
                None
            ),
            "mt"
        );
        assert_eq!(
            refused(
                TimeInput {
                    inc_ms: Some(5),
                    ..base
                },
                None
            ),
            "i"
        );
        assert_eq!(
            refused(
                TimeInput {
                    clock: Some(Clock::Cpu),
                    ..base
                },
                Some(Clock::Wall)
            ),
            "c"
        );
        let e = time_control(
            &TimeInput {
                ceiling_ms: Some(5),
                ..base
            },
            None,
            &keys(),
        )
        .unwrap_err();
        assert_eq!((e.key.as_str(), e.reason.ends_with("cpu!")), ("ceil", true));
        let tc = time_control(
            &TimeInput {
                time_ms: Some(1000),
                inc_ms: Some(10),
                clock: Some(Clock::Cpu),
                ceiling_ms: Some(3000),
                ..base
            },
            None,
            &keys(),
        )
        .unwrap();
        assert_eq!(
            (
                tc.movetime_ms,
                tc.time_ms,
                tc.inc_ms,
                tc.clock,
                tc.ceiling_ms
            ),
            (Some(100), Some(1000), 10, Clock::Cpu, Some(3000))
        );
    }

    #[test]
    fn names_are_checked_and_unique() {
        let mut names = BotNames::default();
        names.add("a", "k0").unwrap();
        assert!(names.add("a", "k1").unwrap_err().reason.contains("unique"));
        assert_eq!(names.add("x,y", "k2").unwrap_err().key, "k2");
        assert_eq!(names.names(), ["a".to_string()]);
    }

    #[test]
    fn game_counts_have_bounds() {
        assert!(games(FormatKind::Match, 2, 0, "--games").is_err());
        assert!(games(FormatKind::Match, 2, MAX_GAMES, "--games").is_ok());
        let e = games(FormatKind::Match, 2, MAX_GAMES + 1, "--games").unwrap_err();
        assert!(e.reason.contains("got 10000001"), "{e}");
        let e = games(FormatKind::RoundRobin, 100, MAX_GAMES, "games").unwrap_err();
        assert!(e.reason.contains("at most"), "{e}");
    }

    /// A command is found as a bot would be started: not there, not
    /// executable, or a script argument missing are each refused.
    #[test]
    fn commands_are_found_before_anything_runs() {
        let env = BTreeMap::new();
        let tmp = Path::new("/tmp");
        assert!(command(&["sh".into()], tmp, &env, "k").is_ok());
        assert!(command(&[], tmp, &env, "k").is_err());
        let e = command(&["no-such-program-here".into()], tmp, &env, "k").unwrap_err();
        assert!(e.reason.contains("not found"), "{e}");
        let e = command(&["sh".into(), "no-such-file.py".into()], tmp, &env, "k").unwrap_err();
        assert!(e.reason.contains("no-such-file.py"), "{e}");
    }
}
