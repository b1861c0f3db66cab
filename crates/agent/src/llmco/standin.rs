//! The frame of the built-in `scripted` stand-in models of the LLM-Coordination agent:
//! [`StandInModel`] reads a request's text, tells which step asked (Theory of Mind, action,
//! re-proposal after a rejection, verification), and lets a game's rule-based reader
//! ([`Scripted`]) answer in the reply format the templates ask for.
//!
//! **A stand-in is not a language model.** It reads only the prompt text (never the game
//! state), applies fixed rules and answers deterministically, so every path of the agent
//! runs offline and reproducibly. Figures made with it say nothing about an LLM.

use crate::grounding::stand_in_response;
use async_trait::async_trait;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Role};
use std::sync::Arc;

/// How the default preset's game description introduces the Theory-of-Mind step
/// (`prompts/llmco/default/how_tom/`).
const TOM_HOW: &str = "When I ask \"Theory of Mind question\"";

/// How the default preset's last message asks the Theory-of-Mind step
/// (`prompts/llmco/default/ask_tom/`).
const TOM_QUESTION: &str = "\nTheory of Mind question:";

/// What a stand-in reads from a request.
#[derive(Clone, Debug)]
pub struct Prompt<'a> {
    /// The game description (the first user message: rules, map, layout).
    pub rules: &'a str,
    /// The message with the state (history, state, the partner's last action or its
    /// interpretation, the available actions).
    pub text: &'a str,
    /// The available actions listed in the message asked about, without their letters.
    pub options: Vec<String>,
}

/// One game's rule-based answers to the LLM-Coordination prompts.
pub trait Scripted: Send + Sync + 'static {
    /// The game whose prompts it answers, as the router names it (`Game::kind`).
    const GAME: &'static str;
    /// How that game's description, the first user message of every request, starts: the
    /// router ([`super::router`]) tells the game by it.
    const OPENING: &'static str;
    /// Chooses one of `p.options`: (a one-sentence explanation, the option's index).
    fn choose(&self, p: &Prompt<'_>) -> (String, usize);
    /// Checks a proposed action: (the reasoning, whether it is okay).
    fn verify(&self, p: &Prompt<'_>, proposal: &str) -> (String, bool);
    /// Interprets the partner's last action (the Theory-of-Mind step's answer).
    fn interpret(&self, p: &Prompt<'_>) -> String;
}

/// The actions listed after the last "Available actions" line of `text`, letters removed
/// (up to the first blank line: the default preset's state follows its list).
pub fn listed_options(text: &str) -> Vec<String> {
    let Some(at) = text.rfind("Available actions") else { return Vec::new() };
    text[at..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let l = l.trim();
            let (letter, rest) = l.split_once(". ")?;
            (!letter.is_empty() && letter.len() <= 2 && letter.chars().all(|c| c.is_ascii_uppercase()))
                .then(|| rest.trim().to_string())
        })
        .collect()
}

/// The value after `prefix` on the first line of `text` that starts with it.
pub fn line_value<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    text.lines().find_map(|l| l.trim().strip_prefix(prefix)).map(str::trim)
}

/// A language model answering with the rule-based reader `S` (see the module doc).
pub struct StandInModel<S: Scripted> {
    reader: S,
}

impl<S: Scripted> StandInModel<S> {
    /// The stand-in of `reader`.
    pub fn new(reader: S) -> StandInModel<S> {
        StandInModel { reader }
    }

    /// The reply text to a request, by the step that asked.
    pub fn answer(&self, request: &ChatRequest) -> String {
        let users: Vec<&str> =
            request.messages.iter().filter(|m| m.role == Role::User).map(|m| m.content.as_str()).collect();
        let rules = users.first().copied().unwrap_or("");
        let last = users.last().copied().unwrap_or("");
        if let Some(at) = last.find("My selected action:") {
            let state = last[..at].trim_start_matches("State:").trim();
            let proposal = last[at + "My selected action:".len()..].lines().next().unwrap_or("").trim();
            let p = Prompt { rules, text: state, options: Vec::new() };
            let (why, ok) = self.reader.verify(&p, proposal);
            return format!("{why}\nVerification: {}", if ok { "Okay" } else { "Not Okay" });
        }
        // The paper preset's Theory-of-Mind primer names the step; the default preset's one
        // game description says how to answer each step, and its last message asks one.
        let tom = match rules.contains(TOM_HOW) {
            true => last.contains(TOM_QUESTION),
            false => rules.contains("Theory of Mind reasoner"),
        };
        if tom {
            let p = Prompt { rules, text: last, options: listed_options(last) };
            return self.reader.interpret(&p);
        }
        // A re-proposal after a rejection: the options are the retry's, the state is the
        // first action request's.
        let (text, options) = if last.contains("is not appropriate") {
            (users.get(1).copied().unwrap_or(last), listed_options(last))
        } else {
            (last, listed_options(last))
        };
        if options.is_empty() {
            return "Explanation: I see no list of available actions.\nAction: none".to_string();
        }
        let p = Prompt { rules, text, options };
        let (why, i) = self.reader.choose(&p);
        let i = i.min(p.options.len() - 1);
        format!("Explanation: {why}\nAction: {}", p.options[i])
    }
}

#[async_trait]
impl<S: Scripted> LanguageModel for StandInModel<S> {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(stand_in_response(request, self.answer(request)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_read_from_the_last_list() {
        let text = "Available actions:\nA. old\n\nState...\nAvailable actions:\nA. wait\nB. move to room 3\nnot an option\nAB. fix generator in room 1\n";
        assert_eq!(listed_options(text), vec!["wait", "move to room 3", "fix generator in room 1"]);
        assert!(listed_options("nothing here").is_empty());
        assert_eq!(line_value("x\n  Remaining lives: 2\n", "Remaining lives:"), Some("2"));
    }
}

/// One game's stand-in as the router serves it: the words its game description starts
/// with, the game, and how its model is made. Every grounding lists its own in
/// [`super::STAND_INS`](crate::llmco::STAND_INS).
#[derive(Clone, Copy, Debug)]
pub struct Route {
    /// The game ([`Scripted::GAME`]).
    pub game: &'static str,
    /// How its game description starts ([`Scripted::OPENING`]).
    pub opening: &'static str,
    /// Makes a new stand-in as a language model.
    pub(crate) model: fn() -> Arc<dyn LanguageModel>,
}

impl Route {
    /// The route to the stand-in `S`.
    pub const fn of<S: Scripted + Default>() -> Route {
        Route { game: S::GAME, opening: S::OPENING, model: stand_in::<S> }
    }
}

/// A new stand-in `S` as a language model.
fn stand_in<S: Scripted + Default>() -> Arc<dyn LanguageModel> {
    Arc::new(StandInModel::new(S::default()))
}
