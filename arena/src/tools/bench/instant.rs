//! The instant bot of the bench: the C first-legal bot, compiled here, or
//! `arena bot-first`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::BenchError;
use crate::process::BotSpec;

/// The instantly answering bot the referee, tournament and process-start
/// sections play with. The leanest there is, so that the figures are the
/// referee's and not the bot's: `bots/c/first_legal.c --first`, which starts
/// on about half the CPU of `arena bot-first` (it loads and relocates one
/// shared library instead of three, and maps 17 KB instead of 30 MB).
#[derive(Clone, Debug)]
pub struct InstantBot {
    /// The program and its arguments, as a bot spec's `command`.
    pub command: Vec<String>,
    /// What it is and where it came from, for the report.
    pub description: String,
    /// The compiled C bot, removed when the last clone goes.
    _built: Option<Arc<CProgram>>,
}

/// A C program compiled with `$CC` (default `cc`) `-O2` into the temporary
/// directory; the executable is removed when this is dropped.
#[derive(Debug)]
pub struct CProgram {
    /// The executable, in the temporary directory.
    pub exe: PathBuf,
    /// The compiler that built it.
    pub cc: String,
}

impl CProgram {
    /// Compiles `source` into a temporary executable named after `name`; the
    /// compiler's stderr is the error when it refuses.
    pub fn build(source: &Path, name: &str) -> Result<CProgram, BenchError> {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let exe = temp_path(name);
        let out = Command::new(&cc)
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(source)
            .output()
            .map_err(|source| BenchError::Spawn {
                program: cc.clone(),
                source,
            })?;
        if !out.status.success() {
            return Err(BenchError::Compile {
                cc,
                file: source.to_path_buf(),
                status: out.status,
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        Ok(CProgram { exe, cc })
    }
}

/// A path in the temporary directory that no other call returns, so that
/// removing one file never removes another's.
fn temp_path(name: &str) -> PathBuf {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("arena-bench-{}-{n}-{name}", std::process::id()))
}

impl Drop for CProgram {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.exe);
    }
}

/// The C reference bot, built into the bench so that it needs no checkout.
const FIRST_LEGAL_C: &str = include_str!("../../../../bots/c/first_legal.c");

impl InstantBot {
    /// `arena bot-first`: answers every `go` with the first legal move.
    pub fn rust(arena: &Path) -> InstantBot {
        InstantBot {
            command: vec![arena.display().to_string(), "bot-first".into()],
            description: "arena bot-first (Rust)".into(),
            _built: None,
        }
    }

    /// `bots/c/first_legal.c --first`, compiled with [`CProgram`].
    pub fn c() -> Result<InstantBot, BenchError> {
        let source = temp_path("first_legal.c");
        std::fs::write(&source, FIRST_LEGAL_C).map_err(|e| BenchError::Write {
            path: source.clone(),
            source: e,
        })?;
        let built = CProgram::build(&source, "first_legal");
        let _ = std::fs::remove_file(&source);
        let built = built?;
        Ok(InstantBot {
            command: vec![built.exe.display().to_string(), "--first".into()],
            description: format!(
                "bots/c/first_legal.c --first (C, built with {} -O2)",
                built.cc
            ),
            _built: Some(Arc::new(built)),
        })
    }

    /// The C bot, else `arena bot-first` with the reason in its description.
    pub fn lightest(arena: &Path) -> InstantBot {
        InstantBot::c().unwrap_or_else(|e| {
            let mut bot = InstantBot::rust(arena);
            bot.description = format!("{} (no C bot: {e})", bot.description);
            bot
        })
    }

    /// The bot unsandboxed: these figures are the referee's own cost.
    pub(super) fn spec(&self, name: &str) -> Arc<BotSpec> {
        let mut spec = BotSpec::new(name, self.command.clone());
        spec.sandbox = crate::process::ResolvedSandbox::None;
        Arc::new(spec)
    }
}
