//! The one error of the agent's named switches (`--verificator llm`, `--belief off`,
//! `--align proagent`, `--preset paper`, ...): a name that is none of the known ones.
//! The message lists what is accepted.

/// A switch value that names none of its known settings.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {given:?} (expected {expected})")]
pub struct UnknownName {
    /// What was being named, e.g. "verificator".
    pub what: &'static str,
    /// The name as given.
    pub given: String,
    /// The accepted names, in words ("llm, rules or off").
    pub expected: &'static str,
}

impl UnknownName {
    /// The error for `given` as a `what` that accepts `expected`.
    pub fn new(what: &'static str, given: &str, expected: &'static str) -> Self {
        UnknownName { what, given: given.to_string(), expected }
    }
}
