//! How to start a bot: its name, argv, working directory and environment,
//! and the `NAME=COMMAND ARGS...` form of the command line.

use std::path::PathBuf;

use super::limits::ResourceLimits;
use super::sandbox::ResolvedSandbox;

/// How to start a bot: an argv list (never a shell line), with an optional
/// working directory and extra environment variables.
///
/// The bot does not inherit the referee's environment: it gets `PATH` (the
/// referee's, to find interpreters), `HOME` and `TMPDIR` (its private
/// directory), `LANG=C.UTF-8`, and `env` — nothing else, so no secret of the
/// referee's environment reaches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    /// The bot's name, in records, logs and messages.
    pub name: String,
    /// The program and its arguments, run without a shell.
    pub command: Vec<String>,
    /// The working directory; `None`: arena's own.
    pub cwd: Option<PathBuf>,
    /// Extra environment variables, on top of the few every bot gets.
    pub env: Vec<(String, String)>,
    /// Operating-system limits, set in the child before `exec`.
    pub resources: ResourceLimits,
    /// How it is confined, decided before it is started (see
    /// [`super::sandbox::resolve`]); [`BotSpec::new`] leaves it unconfined,
    /// for the caller to set from its settings.
    pub sandbox: ResolvedSandbox,
    /// Set when the process is a bot's sandboxed `build` rather than the
    /// bot: see [`Build`].
    pub build: Option<Build>,
    /// Where the `#!` line of a file in the program directory may name an
    /// interpreter besides the system directories, sandboxed (the
    /// organiser's `interpreters`).
    pub interpreters: Vec<PathBuf>,
}

/// How a sandboxed build differs from its bot: it may write its program
/// directory (and works in it), may reach the network if the config says
/// so, and, when arena is root, runs as the directory's owner (never root)
/// so that what it writes belongs to whoever owns the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Build {
    /// Whether it shares the host's network (default: none, like a bot).
    pub network: bool,
    /// The uid (and gid) it runs as when arena is root.
    pub owner: Option<(u32, u32)>,
}

impl BotSpec {
    /// A bot that runs `command` unconfined, with no limits, in arena's working
    /// directory: the caller fills in the rest.
    pub fn new(name: impl Into<String>, command: Vec<String>) -> Self {
        BotSpec {
            name: name.into(),
            command,
            cwd: None,
            env: Vec::new(),
            resources: ResourceLimits::default(),
            sandbox: ResolvedSandbox::None,
            build: None,
            interpreters: Vec::new(),
        }
    }

    /// Parses the command line form `NAME=COMMAND ARGS...`. Arguments are
    /// split as a POSIX shell splits words (quotes and backslashes, by
    /// shell-words), with no other shell syntax: no variables, globs or pipes.
    pub fn parse(text: &str) -> Result<BotSpec, SpecError> {
        let bad = |why| SpecError {
            text: text.to_string(),
            why,
        };
        let Some((name, command)) = text.split_once('=') else {
            return Err(bad(SpecProblem::NoEquals));
        };
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(bad(SpecProblem::BadName));
        }
        let command = shell_words::split(command).map_err(|_| bad(SpecProblem::UnclosedQuote))?;
        if command.is_empty() {
            return Err(bad(SpecProblem::NoCommand(name.to_string())));
        }
        Ok(BotSpec::new(name, command))
    }

    /// The command as one line, quoted as a shell would need it: what a
    /// message shows can be pasted back into `--bot NAME=...`.
    pub fn command_line(&self) -> String {
        shell_words::join(&self.command)
    }
}

/// A `--bot NAME=COMMAND` text that was refused: the text and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bot `{text}`: {why}")]
pub struct SpecError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub why: SpecProblem,
}

/// What is wrong with a `NAME=COMMAND` text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecProblem {
    /// No `=` between the name and the command.
    #[error("expected NAME=COMMAND [ARGS...]")]
    NoEquals,
    /// An empty name, or one with whitespace.
    #[error("the name before `=` must be one non-empty word")]
    BadName,
    /// A quote the command never closes.
    #[error("unclosed quote")]
    UnclosedQuote,
    /// The name given, with nothing after its `=`.
    #[error("no command after `{0}=`")]
    NoCommand(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_specs_parse_name_and_argv() {
        let spec = BotSpec::parse("first=python3 bots/test/testbot.py --mode first").unwrap();
        assert_eq!(spec.name, "first");
        assert_eq!(
            spec.command,
            ["python3", "bots/test/testbot.py", "--mode", "first"]
        );
        let spec = BotSpec::parse("q=prog 'two words' \"x y\" a=b").unwrap();
        assert_eq!(spec.command, ["prog", "two words", "x y", "a=b"]);
        assert!(BotSpec::parse("nocommand").is_err());
        assert!(BotSpec::parse("=prog").is_err());
        assert!(BotSpec::parse("name=").is_err());
        assert!(BotSpec::parse("name=prog 'open").is_err());
        // Backslashes as a shell reads them, and a command line that reads back.
        let spec = BotSpec::parse(r"e=prog a\ b 'it'\''s'").unwrap();
        assert_eq!(spec.command, ["prog", "a b", "it's"]);
        let line = format!("e={}", spec.command_line());
        assert_eq!(BotSpec::parse(&line).unwrap().command, spec.command);
    }
}
