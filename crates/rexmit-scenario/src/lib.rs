//! Scenarios: the one schema (serde) for TOML files and the Python `rexmit.Scenario`, its
//! validation with key paths and allowed ranges, and building and running the simulation.
//!
//! Data flows one way: text → `Scenario` → validated → `Simulation` → `RunResults`.

mod apps;
pub mod build;
mod either_de;
pub mod error;
mod filled;
pub mod kinds;
pub mod mirror;
pub mod names;
pub mod queue;
pub mod results;
pub mod run;
pub mod schema;
mod starts;
mod toml_path;
pub mod topology;
pub mod trace;
pub mod traffic;
pub mod transport;
pub mod units;
pub mod validate;

pub use error::ScenarioError;
pub use results::RunResults;
pub use schema::Scenario;

impl Scenario {
    /// Parse and validate a TOML scenario. Errors name the key path (and the line for syntax errors).
    pub fn from_toml(text: &str) -> Result<Scenario, ScenarioError> {
        let de = toml::Deserializer::new(text);
        let s: Scenario = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let msg = inner.message().to_string();
            let span = inner.span();
            let line = span.as_ref().map(|sp| line_of(text, sp.start));
            let path = if path == "." { String::new() } else { path };
            // The reader's messages may take several lines ("invalid inline table\nexpected `}`"):
            // an error is one line.
            let msg = msg
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(": ");
            let (mut path, mut msg) = apps::move_key_into_path(path, msg);
            if msg.contains("too large to fit") {
                msg.push_str(": TOML integers are at most 9223372036854775807 (2^63-1)");
            }
            if msg == "recursion limit exceeded" {
                msg.push_str(": arrays or inline tables nested too deeply");
            }
            if let (true, Some(sp)) = (path.is_empty(), &span) {
                // A parse error before any key reached serde (an integer too large for TOML,
                // nesting too deep): the key path the reader was in, from the text.
                path = toml_path::key_path_at(text, sp.start).unwrap_or_default();
            }
            ScenarioError::new(
                path,
                match line {
                    Some(l) => format!("{msg} (line {l})"),
                    None => msg,
                },
            )
        })?;
        validate::validate(&s)?;
        Ok(s)
    }

    /// Parse and validate a JSON scenario (what the Python front sends).
    pub fn from_json(text: &str) -> Result<Scenario, ScenarioError> {
        let mut de = serde_json::Deserializer::from_str(text);
        let s: Scenario = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            // The JSON comes from a Python dict, on one line: serde_json's "at line 1 column N"
            // points into text the user never wrote.
            let mut msg = e.into_inner().to_string();
            if let Some(i) = msg.rfind(" at line ") {
                let tail = &msg[i + " at line ".len()..];
                let is_position = tail.split_once(" column ").is_some_and(|(l, c)| {
                    !l.is_empty()
                        && !c.is_empty()
                        && l.bytes().all(|b| b.is_ascii_digit())
                        && c.bytes().all(|b| b.is_ascii_digit())
                });
                if is_position {
                    msg.truncate(i);
                }
            }
            let path = if path == "." { String::new() } else { path };
            let (path, msg) = apps::move_key_into_path(path, msg);
            ScenarioError::new(path, msg)
        })?;
        validate::validate(&s)?;
        Ok(s)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a Scenario always serializes to TOML")
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a Scenario always serializes to JSON")
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}
