//! Scenario errors: every one names the key path it is about (e.g. `links[2].rate`).

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// Key path in the scenario, e.g. `apps[0].packet_size`; empty for the whole file.
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

/// Longest key path and message shown: a 500 000-character key is echoed shortened.
const SHOWN_PATH: usize = 200;
const SHOWN_MESSAGE: usize = 600;

/// `s` cut to at most `max` characters, saying how long it was.
pub(crate) fn shorten(s: &str, max: usize) -> std::borrow::Cow<'_, str> {
    match s.char_indices().nth(max) {
        None => s.into(),
        Some((cut, _)) => format!("{}… ({} characters)", &s[..cut], s.chars().count()).into(),
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = shorten(&self.message, SHOWN_MESSAGE);
        if self.path.is_empty() || self.path == "." {
            write!(f, "{message}")
        } else {
            write!(f, "{}: {message}", shorten(&self.path, SHOWN_PATH))
        }
    }
}

impl std::error::Error for ScenarioError {}

pub type Result<T> = std::result::Result<T, ScenarioError>;
