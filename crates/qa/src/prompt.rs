//! The chat sent for one question, as the original evaluator sends it to chat models:
//! system = the category's directive, user = the game description, assistant = an
//! acknowledgement, user = the question. Each turn is a minijinja template in
//! `prompts/qa/`; the files there win over the embedded copies so prompts can be edited
//! without recompiling.

use super::data::Question;
use minijinja::{AutoEscape, Environment, UndefinedBehavior, context};
use proagent_llm::{Message, sha256_hex};
use std::path::Path;

/// The four templates, in the order of the turns they produce.
pub const TEMPLATES: [(&str, &str); 4] = [
    ("system.j2", include_str!("../../../prompts/qa/system.j2")),
    ("game.j2", include_str!("../../../prompts/qa/game.j2")),
    ("ack.j2", include_str!("../../../prompts/qa/ack.j2")),
    ("question.j2", include_str!("../../../prompts/qa/question.j2")),
];

/// A QA prompt template that could not be read or rendered.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PromptError {
    /// A template file in the prompts folder could not be read.
    #[error("reading prompt template {path}: {message}")]
    Read {
        /// The file's path.
        path: String,
        /// The operating system's error.
        message: String,
    },
    /// A template failed to compile or render (syntax error, undefined variable).
    #[error("prompt template {name}: {message}")]
    Template {
        /// The template's name, e.g. `question.j2`.
        name: String,
        /// minijinja's message.
        message: String,
    },
}

/// The loaded templates.
pub struct Prompts {
    env: Environment<'static>,
    /// Per template: "embedded" or the file it was read from.
    pub sources: Vec<(String, String)>,
    /// sha256 over the four template texts, so transcripts record which prompts were used.
    pub sha256: String,
}

impl Prompts {
    /// The copies compiled into the binary.
    pub fn embedded() -> Result<Prompts, PromptError> {
        Self::build(TEMPLATES.iter().map(|(n, t)| (n.to_string(), t.to_string(), "embedded".to_string())).collect())
    }

    /// Templates from `dir` (e.g. `prompts/qa`), falling back to the embedded copy for
    /// any file that is not there.
    pub fn load(dir: &Path) -> Result<Prompts, PromptError> {
        let mut items = Vec::new();
        for (name, embedded) in TEMPLATES {
            let path = dir.join(name);
            // Anything there counts as given: a FIFO or a device is refused by the bounded
            // reader, by name, rather than passed over for the embedded copy.
            if path.exists() {
                let text = proagent_core::limits::read_file_text(
                    &path,
                    proagent_core::limits::MAX_PROMPT_FILE_BYTES,
                    "prompt templates",
                )
                .map_err(|e| PromptError::Read { path: path.display().to_string(), message: e.to_string() })?;
                items.push((name.to_string(), text, path.display().to_string()));
            } else {
                items.push((name.to_string(), embedded.to_string(), "embedded".to_string()));
            }
        }
        Self::build(items)
    }

    fn build(items: Vec<(String, String, String)>) -> Result<Prompts, PromptError> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| AutoEscape::None);
        let mut all = String::new();
        let mut sources = Vec::new();
        for (name, text, source) in items {
            all.push_str(&name);
            all.push('\0');
            all.push_str(&text);
            all.push('\0');
            env.add_template_owned(name.clone(), text)
                .map_err(|e| PromptError::Template { name: name.clone(), message: e.to_string() })?;
            sources.push((name, source));
        }
        Ok(Prompts { env, sources, sha256: sha256_hex(all.as_bytes()) })
    }

    fn render(&self, name: &str, q: &Question) -> Result<String, PromptError> {
        let err = |e: minijinja::Error| PromptError::Template { name: name.to_string(), message: e.to_string() };
        let t = self.env.get_template(name).map_err(err)?;
        t.render(context! {
            directive => q.directive.as_str(),
            game_description => q.game_description.as_str(),
            question => q.question.as_str(),
            category => q.category.name(),
            game => q.game.name(),
            id => q.id.as_str(),
        })
        .map_err(err)
    }

    /// The four chat turns for a question.
    pub fn messages(&self, q: &Question) -> Result<Vec<Message>, PromptError> {
        Ok(vec![
            Message::system(self.render("system.j2", q)?),
            Message::user(self.render("game.j2", q)?),
            Message::assistant(self.render("ack.j2", q)?),
            Message::user(self.render("question.j2", q)?),
        ])
    }
}
