//! Text from bots (and from games files anyone may have written) on a
//! terminal: names, `detail`, `info` and `ready` lines reach the screen only
//! through [`escape`], so that no escape sequence, carriage return or bidi
//! override is ever interpreted by the terminal. Names are stricter still:
//! [`check_name`] refuses them in configs and on the command line.

// Escaping lives in arena-core, so that the bot-process crate (which quotes
// a build's output) and every other front end escape alike.
pub use arena_core::text::{escape, is_unsafe};

/// Why a name cannot name a bot (said after "bot name" or a config key).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// An empty name.
    #[error("must not be empty")]
    Empty,
    /// A name with a comma, which would split a CSV field.
    #[error("`{0}` holds a comma (names are CSV fields)")]
    Comma(String),
    /// The name and the character, both shown [`escape`]d.
    #[error("`{name}` holds the control or bidi character {character} (names are shown on terminals and in reports)")]
    Unsafe {
        /// The name, escaped.
        name: String,
        /// The character, escaped.
        character: String,
    },
}

/// Why `name` cannot name a bot, if it cannot: empty, or holding a comma
/// (the CSV files list names) or an [`is_unsafe`] character.
pub fn check_name(name: &str) -> Result<(), NameError> {
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.contains(',') {
        return Err(NameError::Comma(name.to_string()));
    }
    if let Some(c) = name.chars().find(|&c| is_unsafe(c)) {
        return Err(NameError::Unsafe {
            name: escape(name).into_owned(),
            character: escape(&c.to_string()).into_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_with_controls_bidi_or_commas_are_refused() {
        assert!(check_name("alphabeta-rs v2").is_ok());
        assert!(check_name("été").is_ok());
        for bad in [
            "",
            "a,b",
            "a\x1bb",
            "evil\u{202e}",
            "x\u{2067}",
            "tab\t",
            "nl\n",
        ] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        let e = check_name("a\u{202e}b").unwrap_err().to_string();
        assert!(e.contains("\\u{202e}") && !e.contains('\u{202e}'), "{e}");
    }
}
