//! Reading `key=value` state notations field by field: what the terminal
//! drawers need (they read a notation without the rules, so that a record
//! of any parameters draws).

use super::ParseError;

/// The `key=value` fields of a state, in order.
pub(crate) fn fields(state: &str) -> Vec<(&str, &str)> {
    state
        .split_whitespace()
        .filter_map(|f| f.split_once('='))
        .collect()
}

/// Reads field by field, naming the notation in errors.
pub(crate) struct Fields<'a> {
    what: &'static str,
    state: &'a str,
    fields: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(what: &'static str, state: &'a str) -> Self {
        Fields {
            what,
            state,
            fields: fields(state),
        }
    }

    /// A refusal of this state, saying `why`.
    pub(crate) fn error(&self, why: impl Into<String>) -> ParseError {
        ParseError::new(self.what, why, self.state)
    }

    pub(crate) fn text(&self, key: &str) -> Result<&'a str, ParseError> {
        self.fields
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| *v)
            .ok_or_else(|| self.error(format!("no `{key}=` field")))
    }

    pub(crate) fn number<T: std::str::FromStr>(
        &self,
        text: &str,
        what: &str,
    ) -> Result<T, ParseError> {
        text.parse()
            .map_err(|_| self.error(format!("`{text}` is not a number ({what})")))
    }

    /// The number in field `key`.
    pub(crate) fn get<T: std::str::FromStr>(&self, key: &str) -> Result<T, ParseError> {
        self.number(self.text(key)?, key)
    }

    /// Two numbers `a,b` in field `key`.
    pub(crate) fn pair(&self, key: &str) -> Result<[u32; 2], ParseError> {
        let text = self.text(key)?;
        let v: Vec<&str> = text.split(',').collect();
        match v.as_slice() {
            [a, b] => Ok([self.number(a, key)?, self.number(b, key)?]),
            _ => Err(self.error(format!("{key} should be two numbers, got `{text}`"))),
        }
    }
}

/// `seat S (NAME)`, or `seat S` without names.
pub(crate) fn seat_name(names: Option<[&str; 2]>, seat: usize) -> String {
    match names {
        Some(n) => format!("seat {seat} ({})", n[seat]),
        None => format!("seat {seat}"),
    }
}
