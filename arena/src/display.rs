//! Text from bots (and from games files anyone may have written) on a
//! terminal: names, `detail`, `info` and `ready` lines reach the screen only
//! through [`escape`], so that no escape sequence, carriage return or bidi
//! override is ever interpreted by the terminal. Names are stricter still:
//! [`check_name`] refuses them in configs and on the command line.

use std::borrow::Cow;

/// Characters that change how a terminal shows the text around them: C0 and
/// C1 controls and DEL (escape sequences, carriage returns, backspaces), the
/// bidirectional formatting characters (U+061C, U+200E, U+200F,
/// U+202A-U+202E, U+2066-U+2069: they reorder what follows), and the line
/// and paragraph separators U+2028, U+2029.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `text` with every [`is_unsafe`] character written as an escape: `\n`,
/// `\r`, `\t`, `\x1b` (other controls up to U+00FF), `\u{202e}` (the rest).
/// Backslashes are left alone: this is for reading, not for parsing back.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) && (c as u32) <= 0xff => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

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
    fn escapes_controls_and_bidi_and_leaves_the_rest() {
        assert!(matches!(escape("alpha-beta été 名前"), Cow::Borrowed(_)));
        assert_eq!(escape("a\x1b[31mred"), "a\\x1b[31mred");
        assert_eq!(
            escape("line\nnext\r\tx\x7f\u{9b}"),
            "line\\nnext\\r\\tx\\x7f\\x9b"
        );
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            escape("\u{2066}x\u{2069}\u{2028}"),
            "\\u{2066}x\\u{2069}\\u{2028}"
        );
        assert_eq!(escape("back\\slash"), "back\\slash");
    }

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
