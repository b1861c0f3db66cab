//! The knowledge library loader: minijinja templates under `prompts/agent/`.
//!
//! Templates load from a directory at run time so users can edit them without
//! recompiling; every template also has an embedded copy, used when the
//! directory (or one of its files) is missing. Undefined variables are errors
//! (strict mode), so a typo in a template fails loudly instead of producing a
//! silently different prompt.
//!
//! Two folders, one per preset: `agent/` (the default preset) and `paper/` (the
//! published agent's knowledge, in our own words). Per layout and seat: a part such as
//! `rules` resolves to `<dir>/rules/<layout>_<seat>.j2`, then `<dir>/rules/<layout>.j2`,
//! then `<dir>/rules/default.j2`, so a layout overrides only what it needs
//! (forced_coordination's two sides have different skills). Every built-in layout has
//! its own strategy notes and explainer notes in both folders.
//!
//! A third folder, `v2/`, holds OvercookedV2's library (skills name ingredients; default
//! preset only). A library holds one game ([`Family`]), so the template hashes a
//! transcript or an eval key records are those of the game played; which folder a preset
//! reads on that game is [`Family::template_dir`].

use crate::preset::Preset;
use minijinja::syntax::SyntaxConfig;
use minijinja::{Environment, UndefinedBehavior, Value};
use std::path::{Path, PathBuf};

/// The embedded copies, by template name.
pub const EMBEDDED: &[(&str, &str)] = &[
    ("agent/system.j2", include_str!("../../../prompts/agent/system.j2")),
    ("agent/task/default.j2", include_str!("../../../prompts/agent/task/default.j2")),
    ("agent/rules/default.j2", include_str!("../../../prompts/agent/rules/default.j2")),
    ("agent/rules/forced_coordination_0.j2", include_str!("../../../prompts/agent/rules/forced_coordination_0.j2")),
    ("agent/rules/forced_coordination_1.j2", include_str!("../../../prompts/agent/rules/forced_coordination_1.j2")),
    ("agent/demos/default.j2", include_str!("../../../prompts/agent/demos/default.j2")),
    ("agent/demos/forced_coordination_0.j2", include_str!("../../../prompts/agent/demos/forced_coordination_0.j2")),
    ("agent/demos/forced_coordination_1.j2", include_str!("../../../prompts/agent/demos/forced_coordination_1.j2")),
    ("agent/strategy/default.j2", include_str!("../../../prompts/agent/strategy/default.j2")),
    ("agent/strategy/cramped_room.j2", include_str!("../../../prompts/agent/strategy/cramped_room.j2")),
    (
        "agent/strategy/asymmetric_advantages_0.j2",
        include_str!("../../../prompts/agent/strategy/asymmetric_advantages_0.j2"),
    ),
    (
        "agent/strategy/asymmetric_advantages_1.j2",
        include_str!("../../../prompts/agent/strategy/asymmetric_advantages_1.j2"),
    ),
    ("agent/strategy/coordination_ring.j2", include_str!("../../../prompts/agent/strategy/coordination_ring.j2")),
    (
        "agent/strategy/forced_coordination_0.j2",
        include_str!("../../../prompts/agent/strategy/forced_coordination_0.j2"),
    ),
    (
        "agent/strategy/forced_coordination_1.j2",
        include_str!("../../../prompts/agent/strategy/forced_coordination_1.j2"),
    ),
    ("agent/strategy/counter_circuit.j2", include_str!("../../../prompts/agent/strategy/counter_circuit.j2")),
    ("agent/explainer/default.j2", include_str!("../../../prompts/agent/explainer/default.j2")),
    ("agent/explainer/cramped_room.j2", include_str!("../../../prompts/agent/explainer/cramped_room.j2")),
    (
        "agent/explainer/asymmetric_advantages_0.j2",
        include_str!("../../../prompts/agent/explainer/asymmetric_advantages_0.j2"),
    ),
    (
        "agent/explainer/asymmetric_advantages_1.j2",
        include_str!("../../../prompts/agent/explainer/asymmetric_advantages_1.j2"),
    ),
    ("agent/explainer/coordination_ring.j2", include_str!("../../../prompts/agent/explainer/coordination_ring.j2")),
    (
        "agent/explainer/forced_coordination_0.j2",
        include_str!("../../../prompts/agent/explainer/forced_coordination_0.j2"),
    ),
    (
        "agent/explainer/forced_coordination_1.j2",
        include_str!("../../../prompts/agent/explainer/forced_coordination_1.j2"),
    ),
    ("agent/explainer/counter_circuit.j2", include_str!("../../../prompts/agent/explainer/counter_circuit.j2")),
    ("agent/scene.j2", include_str!("../../../prompts/agent/scene.j2")),
    ("agent/belief.j2", include_str!("../../../prompts/agent/belief.j2")),
    ("agent/replan.j2", include_str!("../../../prompts/agent/replan.j2")),
    ("agent/verify_system.j2", include_str!("../../../prompts/agent/verify_system.j2")),
    ("agent/verify_check.j2", include_str!("../../../prompts/agent/verify_check.j2")),
    ("agent/verify_double.j2", include_str!("../../../prompts/agent/verify_double.j2")),
    ("paper/system.j2", include_str!("../../../prompts/paper/system.j2")),
    ("paper/rules.j2", include_str!("../../../prompts/paper/rules.j2")),
    ("paper/demos/default.j2", include_str!("../../../prompts/paper/demos/default.j2")),
    ("paper/demos/forced_coordination_0.j2", include_str!("../../../prompts/paper/demos/forced_coordination_0.j2")),
    ("paper/demos/forced_coordination_1.j2", include_str!("../../../prompts/paper/demos/forced_coordination_1.j2")),
    ("paper/strategy/default.j2", include_str!("../../../prompts/paper/strategy/default.j2")),
    ("paper/strategy/cramped_room.j2", include_str!("../../../prompts/paper/strategy/cramped_room.j2")),
    (
        "paper/strategy/asymmetric_advantages_0.j2",
        include_str!("../../../prompts/paper/strategy/asymmetric_advantages_0.j2"),
    ),
    (
        "paper/strategy/asymmetric_advantages_1.j2",
        include_str!("../../../prompts/paper/strategy/asymmetric_advantages_1.j2"),
    ),
    ("paper/strategy/coordination_ring.j2", include_str!("../../../prompts/paper/strategy/coordination_ring.j2")),
    (
        "paper/strategy/forced_coordination_0.j2",
        include_str!("../../../prompts/paper/strategy/forced_coordination_0.j2"),
    ),
    (
        "paper/strategy/forced_coordination_1.j2",
        include_str!("../../../prompts/paper/strategy/forced_coordination_1.j2"),
    ),
    ("paper/strategy/counter_circuit.j2", include_str!("../../../prompts/paper/strategy/counter_circuit.j2")),
    ("paper/explainer/default.j2", include_str!("../../../prompts/paper/explainer/default.j2")),
    ("paper/explainer/cramped_room.j2", include_str!("../../../prompts/paper/explainer/cramped_room.j2")),
    (
        "paper/explainer/asymmetric_advantages_0.j2",
        include_str!("../../../prompts/paper/explainer/asymmetric_advantages_0.j2"),
    ),
    (
        "paper/explainer/asymmetric_advantages_1.j2",
        include_str!("../../../prompts/paper/explainer/asymmetric_advantages_1.j2"),
    ),
    ("paper/explainer/coordination_ring.j2", include_str!("../../../prompts/paper/explainer/coordination_ring.j2")),
    (
        "paper/explainer/forced_coordination_0.j2",
        include_str!("../../../prompts/paper/explainer/forced_coordination_0.j2"),
    ),
    (
        "paper/explainer/forced_coordination_1.j2",
        include_str!("../../../prompts/paper/explainer/forced_coordination_1.j2"),
    ),
    ("paper/explainer/counter_circuit.j2", include_str!("../../../prompts/paper/explainer/counter_circuit.j2")),
    ("paper/scene.j2", include_str!("../../../prompts/paper/scene.j2")),
    ("paper/belief.j2", include_str!("../../../prompts/paper/belief.j2")),
    ("paper/success.j2", include_str!("../../../prompts/paper/success.j2")),
    ("paper/explain_system.j2", include_str!("../../../prompts/paper/explain_system.j2")),
    ("paper/explain.j2", include_str!("../../../prompts/paper/explain.j2")),
];

/// The embedded OvercookedV2 templates, by template name.
pub const EMBEDDED_V2: &[(&str, &str)] = &[
    ("v2/system.j2", include_str!("../../../prompts/v2/system.j2")),
    ("v2/task/default.j2", include_str!("../../../prompts/v2/task/default.j2")),
    ("v2/rules/default.j2", include_str!("../../../prompts/v2/rules/default.j2")),
    ("v2/demos/default.j2", include_str!("../../../prompts/v2/demos/default.j2")),
    ("v2/scene.j2", include_str!("../../../prompts/v2/scene.j2")),
    ("v2/replan.j2", include_str!("../../../prompts/v2/replan.j2")),
    ("v2/verify_system.j2", include_str!("../../../prompts/v2/verify_system.j2")),
    ("v2/verify_check.j2", include_str!("../../../prompts/v2/verify_check.j2")),
    ("v2/verify_double.j2", include_str!("../../../prompts/v2/verify_double.j2")),
];

/// The embedded LLM-Coordination templates (every game's), by template name.
pub const EMBEDDED_LLMCO: &[(&str, &str)] = &[
    ("llmco/ack/default.j2", include_str!("../../../prompts/llmco/ack/default.j2")),
    ("llmco/default/ask_action/default.j2", include_str!("../../../prompts/llmco/default/ask_action/default.j2")),
    ("llmco/default/ask_tom/default.j2", include_str!("../../../prompts/llmco/default/ask_tom/default.j2")),
    ("llmco/default/ask_verify/default.j2", include_str!("../../../prompts/llmco/default/ask_verify/default.j2")),
    ("llmco/default/game/default.j2", include_str!("../../../prompts/llmco/default/game/default.j2")),
    ("llmco/default/how_action/default.j2", include_str!("../../../prompts/llmco/default/how_action/default.j2")),
    (
        "llmco/default/how_tom/collab_capture.j2",
        include_str!("../../../prompts/llmco/default/how_tom/collab_capture.j2"),
    ),
    ("llmco/default/how_tom/default.j2", include_str!("../../../prompts/llmco/default/how_tom/default.j2")),
    ("llmco/default/how_tom/hanabi.j2", include_str!("../../../prompts/llmco/default/how_tom/hanabi.j2")),
    ("llmco/default/how_tom/lever.j2", include_str!("../../../prompts/llmco/default/how_tom/lever.j2")),
    ("llmco/default/how_verify/default.j2", include_str!("../../../prompts/llmco/default/how_verify/default.j2")),
    ("llmco/default/how_verify/hanabi.j2", include_str!("../../../prompts/llmco/default/how_verify/hanabi.j2")),
    ("llmco/default/turn/default.j2", include_str!("../../../prompts/llmco/default/turn/default.j2")),
    ("llmco/game/default.j2", include_str!("../../../prompts/llmco/game/default.j2")),
    ("llmco/retry/default.j2", include_str!("../../../prompts/llmco/retry/default.j2")),
    ("llmco/rules/collab_capture.j2", include_str!("../../../prompts/llmco/rules/collab_capture.j2")),
    ("llmco/rules/collab_escape.j2", include_str!("../../../prompts/llmco/rules/collab_escape.j2")),
    ("llmco/rules/hanabi.j2", include_str!("../../../prompts/llmco/rules/hanabi.j2")),
    ("llmco/rules/lever.j2", include_str!("../../../prompts/llmco/rules/lever.j2")),
    ("llmco/rules/overcooked.j2", include_str!("../../../prompts/llmco/rules/overcooked.j2")),
    ("llmco/state/default.j2", include_str!("../../../prompts/llmco/state/default.j2")),
    ("llmco/system/default.j2", include_str!("../../../prompts/llmco/system/default.j2")),
    ("llmco/tom/default.j2", include_str!("../../../prompts/llmco/tom/default.j2")),
    ("llmco/tom/collab_capture.j2", include_str!("../../../prompts/llmco/tom/collab_capture.j2")),
    ("llmco/tom/hanabi.j2", include_str!("../../../prompts/llmco/tom/hanabi.j2")),
    ("llmco/tom/lever.j2", include_str!("../../../prompts/llmco/tom/lever.j2")),
    ("llmco/tom_state/default.j2", include_str!("../../../prompts/llmco/tom_state/default.j2")),
    ("llmco/verify/default.j2", include_str!("../../../prompts/llmco/verify/default.j2")),
    ("llmco/verify/hanabi.j2", include_str!("../../../prompts/llmco/verify/hanabi.j2")),
    ("llmco/verify_state/default.j2", include_str!("../../../prompts/llmco/verify_state/default.j2")),
];

/// Which game's templates a library holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    /// `agent/` and `paper/`: the classic Overcooked-AI game (both presets).
    Classic,
    /// `v2/`: OvercookedV2.
    V2,
    /// `llmco/`: the LLM-Coordination agent's templates, every game's (one folder per part,
    /// one file per game: `llmco/<part>/<game>.j2`, then `llmco/<part>/default.j2`).
    Llmco,
}

impl Family {
    /// The folder of the default templates (`resolve` looks there).
    pub fn prefix(self) -> &'static str {
        match self {
            Family::Classic => "agent",
            Family::V2 => "v2",
            Family::Llmco => "llmco",
        }
    }

    /// The folder of `preset`'s knowledge library in this family (template names start
    /// with it); `None`: the family has none, and a seat with that preset is refused.
    pub fn template_dir(self, preset: Preset) -> Option<&'static str> {
        match (self, preset) {
            (Family::Classic, Preset::Default) => Some("agent"),
            (Family::Classic, Preset::Paper) => Some("paper"),
            (Family::V2, Preset::Default) => Some("v2"),
            (Family::V2, Preset::Paper) => None,
            (Family::Llmco, Preset::Default) => Some("llmco"),
            (Family::Llmco, Preset::Paper) => None,
        }
    }

    /// The game these templates are written for, in words.
    pub fn game(self) -> &'static str {
        match self {
            Family::Classic => "classic Overcooked",
            Family::V2 => "OvercookedV2",
            Family::Llmco => "the LLM-Coordination agent",
        }
    }

    /// The presets this family has a knowledge library for.
    pub fn presets(self) -> Vec<Preset> {
        Preset::ALL.into_iter().filter(|&p| self.template_dir(p).is_some()).collect()
    }

    /// The error for a preset this family has no knowledge library for.
    pub fn no_preset(self, preset: Preset) -> PromptError {
        let available: Vec<&str> = self.presets().into_iter().map(Preset::name).collect();
        PromptError::NoPreset { preset: preset.name(), game: self.game(), available: available.join(", ") }
    }

    /// The folders under the prompts directory this family loads.
    fn folders(self) -> &'static [&'static str] {
        match self {
            Family::Classic => &["agent", "paper"],
            Family::V2 => &["v2"],
            Family::Llmco => &["llmco"],
        }
    }

    fn embedded(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Family::Classic => EMBEDDED,
            Family::V2 => EMBEDDED_V2,
            Family::Llmco => EMBEDDED_LLMCO,
        }
    }
}

/// A template that could not be read, compiled or rendered, or a preset a game has no
/// templates for.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// The game has no knowledge library for the preset asked for.
    #[error("--preset {preset}: {game} has no knowledge library for this preset (available: {available})")]
    NoPreset {
        /// The preset asked for.
        preset: &'static str,
        /// The game played.
        game: &'static str,
        /// The presets the game has templates for.
        available: String,
    },
    /// A template file or the prompts directory could not be read.
    #[error("reading prompt file {path}: {source}")]
    Io {
        /// The file (or the `--prompts` directory) that could not be read.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A template failed to compile or render (syntax error, undefined variable, missing include).
    #[error("prompt template {name}{}: {detail}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Template {
        /// The innermost failing template: its name, or its file path when loaded from a directory.
        name: String,
        /// 1-based line in that template, when minijinja knows it.
        line: Option<usize>,
        /// minijinja's message followed by its chain of causes.
        detail: String,
    },
}

impl PromptError {
    fn from_jinja(origin: &str, e: &minijinja::Error) -> PromptError {
        // The innermost template name is the one that failed (an include may fail inside another).
        let name = e.name().unwrap_or(origin).to_string();
        let mut detail = e.to_string();
        let mut src = std::error::Error::source(e);
        while let Some(s) = src {
            detail.push_str(": ");
            detail.push_str(&s.to_string());
            src = s.source();
        }
        PromptError::Template { name, line: e.line(), detail }
    }
}

/// The knowledge library: a compiled set of templates.
pub struct PromptLibrary {
    env: Environment<'static>,
    family: Family,
    /// Where the templates came from, for reports ("embedded", or the directory and what it overrode).
    origin: String,
}

impl std::fmt::Debug for PromptLibrary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PromptLibrary").field("origin", &self.origin).finish()
    }
}

fn new_env() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    // Block tags on their own lines leave no blank lines behind, so templates stay readable.
    if let Ok(syntax) = SyntaxConfig::builder().trim_blocks(true).lstrip_blocks(true).build() {
        env.set_syntax(syntax);
    }
    env
}

impl PromptLibrary {
    /// The embedded classic templates only.
    pub fn embedded() -> PromptLibrary {
        PromptLibrary::embedded_family(Family::Classic)
    }

    /// The embedded templates of a family only.
    pub fn embedded_family(family: Family) -> PromptLibrary {
        let mut env = new_env();
        for (name, src) in family.embedded() {
            // The embedded set is compiled by the test suite; a failure here is a build defect,
            // reported at render time as a missing template rather than a panic.
            if let Err(e) = env.add_template_owned(name.to_string(), src.to_string()) {
                tracing::error!("embedded prompt {name} does not compile: {e}");
            }
        }
        PromptLibrary { env, family, origin: "embedded".into() }
    }

    /// Templates from `dir` (its `agent/**/*.j2` and `paper/**/*.j2` files), embedded copies for the rest.
    pub fn load(dir: &Path) -> Result<PromptLibrary, PromptError> {
        PromptLibrary::load_family(dir, Family::Classic)
    }

    /// A family's templates from `dir` (its files under the family's folders), embedded copies for the rest.
    pub fn load_family(dir: &Path, family: Family) -> Result<PromptLibrary, PromptError> {
        let mut files = Vec::new();
        collect_j2(dir, dir, family.folders(), &mut files)?;
        files.sort();
        let mut env = new_env();
        let mut overridden = 0;
        for (name, path) in &files {
            let src = proagent_core::limits::read_file_text(
                path,
                proagent_core::limits::MAX_PROMPT_FILE_BYTES,
                "prompt templates",
            )
            .map_err(|source| PromptError::Io { path: path.clone(), source })?;
            env.add_template_owned(name.clone(), src).map_err(|e| {
                let mut err = PromptError::from_jinja(name, &e);
                if let PromptError::Template { name: n, .. } = &mut err {
                    *n = path.display().to_string();
                }
                err
            })?;
            overridden += 1;
        }
        for (name, src) in family.embedded() {
            if !files.iter().any(|(n, _)| n == name) {
                env.add_template_owned(name.to_string(), src.to_string())
                    .map_err(|e| PromptError::from_jinja(name, &e))?;
            }
        }
        let origin = format!("{} ({overridden} template files, embedded copies for the rest)", dir.display());
        Ok(PromptLibrary { env, family, origin })
    }

    /// Classic templates: `dir` if it exists, else the embedded templates.
    pub fn load_or_embedded(dir: Option<&Path>) -> Result<PromptLibrary, PromptError> {
        PromptLibrary::load_or_embedded_family(dir, Family::Classic)
    }

    /// A family's templates from `dir` if given (it must exist), else from `./prompts` when it
    /// has the family's folder, else the embedded copies.
    pub fn load_or_embedded_family(dir: Option<&Path>, family: Family) -> Result<PromptLibrary, PromptError> {
        match dir {
            Some(d) if d.is_dir() => PromptLibrary::load_family(d, family),
            Some(d) => Err(PromptError::Io {
                path: d.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "not a directory"),
            }),
            None => {
                let default = Path::new("prompts");
                if default.join(family.prefix()).is_dir() {
                    PromptLibrary::load_family(default, family)
                } else {
                    Ok(PromptLibrary::embedded_family(family))
                }
            }
        }
    }

    /// The game this library holds.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Template name → sha256 of its source text, for every loaded template.
    pub fn hashes(&self) -> std::collections::BTreeMap<String, String> {
        self.env.templates().map(|(n, t)| (n.to_string(), proagent_llm::sha256_hex(t.source().as_bytes()))).collect()
    }

    /// Template name → sha256 of its source text, for the templates of one folder
    /// (`agent`, `paper`, `v2`): what a preset's transcript header and fingerprint record.
    pub fn hashes_under(&self, dir: &str) -> std::collections::BTreeMap<String, String> {
        let prefix = format!("{dir}/");
        let mut h = self.hashes();
        h.retain(|n, _| n.starts_with(&prefix));
        h
    }

    /// Template name → sha256 of each template `preset` reads on this library's game (none
    /// when the game has no library for the preset).
    pub fn hashes_for(&self, preset: Preset) -> std::collections::BTreeMap<String, String> {
        self.family.template_dir(preset).map(|d| self.hashes_under(d)).unwrap_or_default()
    }

    /// Where the templates came from: "embedded", or the directory and how many files it overrode.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// A template of exactly this name (e.g. `agent/rules/default.j2`) is loaded.
    pub fn has(&self, name: &str) -> bool {
        self.env.get_template(name).is_ok()
    }

    /// The most specific default template of the library's game for a part (`agent/` or
    /// `v2/`): `<layout>_<seat>`, `<layout>`, then `default`.
    pub fn resolve(&self, part: &str, layout: &str, seat: usize) -> String {
        self.resolve_in(self.family.prefix(), part, layout, seat)
    }

    /// The most specific template for a part in folder `dir` (`agent` or `paper`):
    /// `<dir>/<part>/<layout>_<seat>.j2`, `<dir>/<part>/<layout>.j2`, then `<dir>/<part>/default.j2`.
    pub fn resolve_in(&self, dir: &str, part: &str, layout: &str, seat: usize) -> String {
        for cand in [format!("{dir}/{part}/{layout}_{seat}.j2"), format!("{dir}/{part}/{layout}.j2")] {
            if self.has(&cand) {
                return cand;
            }
        }
        format!("{dir}/{part}/default.j2")
    }

    /// Renders a template; trailing whitespace is trimmed so messages compare stably.
    pub fn render(&self, name: &str, ctx: &Value) -> Result<String, PromptError> {
        let t = self.env.get_template(name).map_err(|e| PromptError::from_jinja(name, &e))?;
        let mut out = t.render(ctx).map_err(|e| PromptError::from_jinja(name, &e))?;
        out.truncate(out.trim_end().len());
        Ok(out)
    }
}

fn collect_j2(root: &Path, dir: &Path, folders: &[&str], out: &mut Vec<(String, PathBuf)>) -> Result<(), PromptError> {
    let rd = std::fs::read_dir(dir).map_err(|source| PromptError::Io { path: dir.to_path_buf(), source })?;
    for entry in rd {
        let entry = entry.map_err(|source| PromptError::Io { path: dir.to_path_buf(), source })?;
        let path = entry.path();
        if path.is_dir() {
            collect_j2(root, &path, folders, out)?;
        } else if path.extension().is_some_and(|e| e == "j2") {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let name = rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
            if folders.iter().any(|f| name.strip_prefix(f).is_some_and(|rest| rest.starts_with('/'))) {
                out.push((name, path));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::context;

    #[test]
    fn embedded_templates_compile() {
        let lib = PromptLibrary::embedded();
        for (name, _) in EMBEDDED {
            assert!(lib.has(name), "{name}");
        }
        let v2 = PromptLibrary::embedded_family(Family::V2);
        for (name, _) in EMBEDDED_V2 {
            assert!(v2.has(name), "{name}");
        }
        // Each library hashes only its own game (classic transcripts keep their hashes).
        assert!(lib.hashes().keys().all(|k| !k.starts_with("v2/")));
        assert!(v2.hashes().keys().all(|k| k.starts_with("v2/")));
        assert_eq!(v2.resolve("rules", "two_rooms", 0), "v2/rules/default.j2");
        let llmco = PromptLibrary::embedded_family(Family::Llmco);
        for (name, _) in EMBEDDED_LLMCO {
            assert!(llmco.has(name), "{name}");
        }
        assert!(llmco.hashes().keys().all(|k| k.starts_with("llmco/")));
        assert_eq!(llmco.resolve("tom", "hanabi", 1), "llmco/tom/hanabi.j2");
        assert_eq!(llmco.resolve("state", "hanabi", 1), "llmco/state/default.j2");
    }

    #[test]
    fn resolution_prefers_layout_and_seat() {
        let lib = PromptLibrary::embedded();
        assert_eq!(lib.resolve("rules", "forced_coordination", 0), "agent/rules/forced_coordination_0.j2");
        assert_eq!(lib.resolve("rules", "cramped_room", 1), "agent/rules/default.j2");
        assert_eq!(lib.resolve("demos", "forced_coordination", 1), "agent/demos/forced_coordination_1.j2");
        assert_eq!(lib.resolve_in("paper", "strategy", "counter_circuit", 1), "paper/strategy/counter_circuit.j2");
        assert_eq!(lib.resolve_in("paper", "explainer", "my_kitchen", 0), "paper/explainer/default.j2");
    }

    #[test]
    fn every_builtin_layout_and_seat_has_its_own_knowledge_in_both_presets() {
        let lib = PromptLibrary::embedded();
        for (layout, _) in proagent_overcooked::env::layout::BUILTIN {
            for seat in 0..2 {
                for dir in ["agent", "paper"] {
                    for part in ["strategy", "explainer"] {
                        let t = lib.resolve_in(dir, part, layout, seat);
                        assert!(!t.ends_with("/default.j2"), "{dir} {part} for {layout} seat {seat} falls back to {t}");
                    }
                }
            }
        }
        let agent = lib.hashes_under("agent");
        let paper = lib.hashes_under("paper");
        assert!(agent.keys().all(|k| k.starts_with("agent/")) && paper.keys().all(|k| k.starts_with("paper/")));
        assert_eq!(agent.len() + paper.len(), lib.hashes().len());
    }

    #[test]
    fn strict_undefined_is_an_error() {
        let lib = PromptLibrary::embedded();
        let e = lib.render("agent/replan.j2", &context! { me => 0 }).unwrap_err();
        assert!(e.to_string().contains("agent/replan.j2"), "{e}");
    }

    #[test]
    fn directory_overrides_embedded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("agent/demos")).unwrap();
        std::fs::write(dir.path().join("agent/demos/cramped_room.j2"), "custom demos for {{ me }}\n").unwrap();
        let lib = PromptLibrary::load(dir.path()).unwrap();
        assert_eq!(lib.resolve("demos", "cramped_room", 0), "agent/demos/cramped_room.j2");
        assert_eq!(lib.render("agent/demos/cramped_room.j2", &context! { me => 1 }).unwrap(), "custom demos for 1");
        assert!(lib.has("agent/scene.j2"));
        // A syntax error names the file and line.
        std::fs::write(dir.path().join("agent/scene.j2"), "ok\n{% if %}\n").unwrap();
        let e = PromptLibrary::load(dir.path()).unwrap_err().to_string();
        assert!(e.contains("scene.j2:2"), "{e}");
    }
}
