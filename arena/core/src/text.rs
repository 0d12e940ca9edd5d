//! Text from bots on a terminal: [`escape`] writes every character that
//! would change how a terminal shows the text around it (escape sequences,
//! carriage returns, bidi overrides) as a visible escape. Every front end
//! (the referee's messages, reports, the build step's output) goes through
//! it.

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
}
