//! The switches of an LLM-Coordination seat ([`LlmcoSettings`]), written down once: the
//! command line fills them, a `llmco[key=value,...]` spec overrides them for one seat, the
//! transcript header stores them, `proagent replay` reads them back and the eval key hashes
//! them ([`fingerprint`]).
//!
//! The two optional reasoning steps of the paper are switches with three states: `None`
//! (the default) means "as the paper ran this game" (the card game: Theory of Mind and answer
//! verification; CollabCapture and CollabEscape: Theory of Mind; Overcooked: neither), and
//! `Some(on)` forces the step on or off for the ablations of its Tables 2, 3 and 6.

use crate::config::{OptionError, bool_value, number};
use crate::prompts::PromptLibrary;
use proagent_llm::{LABELLED_OPTIONS, ModelSpec, SAMPLING_OPTIONS, join_options, sha256_hex};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The most verification re-prompts a seat may ask for.
pub const MAX_VERIFY_ROUNDS: u32 = 20;

/// The most past actions of its own a seat may show the model.
pub const MAX_HISTORY: usize = 1_000;

/// The default number of re-prompts after a "Not Okay" verification (the published loop
/// re-prompts until the verifier agrees; a cap keeps a stubborn model from looping).
pub const DEFAULT_VERIFY_ROUNDS: u32 = 3;

/// The re-prompt cap of the paper preset's verification loop. The released agent asks
/// again until the verifier says "Verification: Okay", with no cap at all; this safety cap
/// (far above the default preset's 3) only keeps a model that never agrees from looping
/// forever, and is counted (`verify_cap_reached`) when it is reached.
pub const PAPER_VERIFY_CAP: u32 = 100;

/// The sampling temperature of the released agent's requests (every game).
pub const PAPER_TEMPERATURE: f32 = 0.6;

/// Which version of the LLM-Coordination agent a seat runs (docs/llmco.md has the table of
/// every difference between the two and the released agent).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmcoPreset {
    /// This runtime's agent: greedy sampling with a token cap, a few hints in the prompts,
    /// a capped verification loop that removes every rejected action.
    #[default]
    Default,
    /// The agent as released (Agashe et al.'s code), point by point: its sampling, its
    /// prompts without our hints, its verification loop and fall-backs, every episode scored.
    Paper,
}

impl LlmcoPreset {
    /// The name in seat specs, labels and transcript headers.
    pub fn name(self) -> &'static str {
        match self {
            LlmcoPreset::Default => "default",
            LlmcoPreset::Paper => "paper",
        }
    }

    /// Whether this is the default preset (headers leave it out, so default-preset
    /// transcripts keep their bytes).
    pub fn is_default(&self) -> bool {
        *self == LlmcoPreset::Default
    }
}

impl std::str::FromStr for LlmcoPreset {
    type Err = OptionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "default" | "ours" => Ok(LlmcoPreset::Default),
            "paper" | "original" => Ok(LlmcoPreset::Paper),
            _ => Err(OptionError::BadValue {
                key: "preset".into(),
                value: s.to_string(),
                expected: "default or paper".into(),
            }),
        }
    }
}

/// The switches of an LLM-Coordination seat. The defaults run each game as the paper did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmcoSettings {
    /// The version of the agent ([`LlmcoPreset`]); left out of headers when default.
    #[serde(default, skip_serializing_if = "LlmcoPreset::is_default")]
    pub preset: LlmcoPreset,
    /// The Theory-of-Mind step (interpret the partner's last action and what the partner
    /// needs, before the action is chosen); `None`: as the paper ran the game.
    #[serde(default)]
    pub tom: Option<bool>,
    /// The answer-verification step (re-prompt to confirm the action is safe, and choose
    /// again when it is not); `None`: as the paper ran the game.
    #[serde(default)]
    pub verify: Option<bool>,
    /// How many of its own past actions the state description lists; `None`: as the paper
    /// did (the card game: all, Overcooked: 5, the Collab games: none).
    #[serde(default)]
    pub history: Option<usize>,
    /// Re-prompts after a "Verification: Not Okay" before the last proposal is played
    /// anyway; `None`: [`DEFAULT_VERIFY_ROUNDS`].
    #[serde(default)]
    pub max_verify: Option<u32>,
    /// Prompt templates directory (`None`: ./prompts if it has llmco/, else the embedded copies).
    #[serde(default)]
    pub prompts: Option<PathBuf>,
}

/// How the paper ran a game: which optional steps were on and how much history was shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PaperSteps {
    /// The Theory-of-Mind step.
    pub tom: bool,
    /// Answer verification.
    pub verify: bool,
    /// Own past actions shown (`usize::MAX`: all).
    pub history: usize,
}

/// The steps a seat runs on one game: its switches resolved against the paper's choice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Steps {
    /// Run the Theory-of-Mind step.
    pub tom: bool,
    /// Run answer verification.
    pub verify: bool,
    /// Own past actions shown.
    pub history: usize,
    /// Re-prompts after a rejected verification.
    pub max_verify: u32,
    /// The version of the agent.
    pub preset: LlmcoPreset,
}

impl LlmcoSettings {
    /// The steps these switches run on a game the paper ran with `paper`.
    pub fn steps(&self, paper: PaperSteps) -> Steps {
        Steps {
            tom: self.tom.unwrap_or(paper.tom),
            verify: self.verify.unwrap_or(paper.verify),
            history: self.history.unwrap_or(paper.history),
            max_verify: self.max_verify.unwrap_or(match self.preset {
                LlmcoPreset::Default => DEFAULT_VERIFY_ROUNDS,
                LlmcoPreset::Paper => PAPER_VERIFY_CAP,
            }),
            preset: self.preset,
        }
    }

    /// Checks the numbers against their limits; the error names the field.
    pub fn check(&self) -> Result<(), proagent_core::limits::RangeError> {
        if let Some(h) = self.history {
            proagent_core::limits::check_int("history", h, 0, MAX_HISTORY)?;
        }
        if let Some(v) = self.max_verify {
            proagent_core::limits::check_int("max_verify", v, 0, MAX_VERIFY_ROUNDS)?;
        }
        Ok(())
    }
}

/// The LLM-Coordination agent's own switches a `llmco[...]` seat spec may set (after the
/// model, the preset and the model options), in the order labels list them.
pub const SWITCH_OPTIONS: [&str; 5] = ["tom", "verify", "history", "max_verify", "prompts"];

/// The options a `llmco[...]` seat spec may set, in the order labels list them: the model,
/// the preset, the library's model options ([`LABELLED_OPTIONS`], parsed by
/// [`ModelSpec::apply_option`]) and the [`SWITCH_OPTIONS`].
pub const LLMCO_OPTIONS: [&str; 14] = join_options(&[&["model", "preset"], &LABELLED_OPTIONS, &SWITCH_OPTIONS]);

/// `auto` (the paper's choice), or a switch value.
fn tri(key: &str, value: &str) -> Result<Option<bool>, OptionError> {
    match value.to_ascii_lowercase().as_str() {
        "auto" | "paper" | "default" => Ok(None),
        _ => bool_value(key, value).map(Some),
    }
}

/// Sets one option of an LLM-Coordination seat: the model and its sampling in `model`, the
/// switches in `settings`. Values are range-checked as the command-line flags are.
pub fn apply_option(
    settings: &mut LlmcoSettings,
    model: &mut ModelSpec,
    key: &str,
    value: &str,
) -> Result<(), OptionError> {
    let value = value.trim();
    match key.trim() {
        // The model and its options: the library's one parser.
        k if SAMPLING_OPTIONS.contains(&k) => {
            model.apply_option(key, value)?;
        }
        "preset" => settings.preset = value.parse()?,
        "tom" => settings.tom = tri(key, value)?,
        "verify" => settings.verify = tri(key, value)?,
        "history" => {
            settings.history = Some(number(
                key,
                value,
                |k: &usize| *k <= MAX_HISTORY,
                &format!("a whole number in [0, {MAX_HISTORY}]"),
            )?)
        }
        "max_verify" => {
            settings.max_verify = Some(number(
                key,
                value,
                |k: &u32| *k <= MAX_VERIFY_ROUNDS,
                &format!("a whole number in [0, {MAX_VERIFY_ROUNDS}]"),
            )?)
        }
        "prompts" => settings.prompts = (!value.is_empty()).then(|| PathBuf::from(value)),
        other => return Err(OptionError::Unknown { key: other.to_string(), known: &LLMCO_OPTIONS }),
    }
    Ok(())
}

/// Every option of a seat that differs from the defaults, as `(key, value)` in
/// [`LLMCO_OPTIONS`] order (the model is always listed first).
pub fn options(settings: &LlmcoSettings, model: &ModelSpec) -> Vec<(&'static str, String)> {
    let mut out = vec![("model", model.model.trim().to_string())];
    if !settings.preset.is_default() {
        out.push(("preset", settings.preset.name().to_string()));
    }
    out.extend(model.changed_options());
    let mut put = |key: &'static str, differs: bool, value: String| {
        if differs {
            out.push((key, value));
        }
    };
    put("tom", settings.tom.is_some(), settings.tom.map(|b| b.to_string()).unwrap_or_default());
    put("verify", settings.verify.is_some(), settings.verify.map(|b| b.to_string()).unwrap_or_default());
    put("history", settings.history.is_some(), settings.history.map(|h| h.to_string()).unwrap_or_default());
    put("max_verify", settings.max_verify.is_some(), settings.max_verify.map(|v| v.to_string()).unwrap_or_default());
    put(
        "prompts",
        settings.prompts.is_some(),
        settings.prompts.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
    );
    out
}

/// The name an LLM-Coordination seat goes by in every output: `llmco[MODEL]` followed by
/// each option that was set, e.g. `llmco[gpt-4o,tom=false]`; a preset other than the
/// default is named right after the model (`llmco[gpt-4o,preset=paper]`). A label is itself a seat spec
/// that rebuilds these settings, so two seats share a label exactly when they share their
/// settings (the served model's address aside).
pub fn label(settings: &LlmcoSettings, model: &ModelSpec) -> String {
    let parts: Vec<String> =
        options(settings, model).into_iter().map(|(k, v)| if k == "model" { v } else { format!("{k}={v}") }).collect();
    format!("llmco[{}]", parts.join(","))
}

/// sha256 of everything that makes an LLM-Coordination seat behave differently: the model
/// name and sampling, the switches, and the text of every `llmco/` template the preset can
/// read ([`preset_hashes`]). The model's
/// address and the prompts directory's path are left out (its templates' text counts).
pub fn fingerprint(settings: &LlmcoSettings, model: &ModelSpec, prompts: &PromptLibrary) -> String {
    let mut settings = settings.clone();
    settings.prompts = None;
    let mut v = serde_json::json!({
        "agent": "llmco",
        "model": model.model.trim(),
        "temperature": model.temperature,
        "top_p": model.top_p,
        "max_tokens": model.max_tokens,
        "settings": settings,
        "prompts": preset_hashes(prompts, settings.preset),
    });
    // Only a structured seat says so, so every other seat keeps its fingerprint.
    if model.structured {
        v["structured"] = serde_json::Value::Bool(true);
    }
    sha256_hex(v.to_string().as_bytes())
}

/// The folder of the templates only the default preset reads (its cache-friendly order:
/// one game description and one state message shared by every step of a decision, then
/// the step's question). The paper preset never reads them, and its transcript headers
/// and fingerprints leave them out ([`preset_hashes`]).
pub const DEFAULT_DIR: &str = "llmco/default";

/// sha256 of each `llmco/` template a seat of `preset` can read, for transcript headers and
/// fingerprints: every one for the default preset, all but [`DEFAULT_DIR`]'s for the paper
/// preset (so a paper-preset header records exactly the released agent's templates).
pub fn preset_hashes(prompts: &PromptLibrary, preset: LlmcoPreset) -> std::collections::BTreeMap<String, String> {
    let mut h = prompts.hashes_under("llmco");
    if preset == LlmcoPreset::Paper {
        let own = format!("{DEFAULT_DIR}/");
        h.retain(|n, _| !n.starts_with(&own));
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_paper_and_options_override_them() {
        let all = PaperSteps { tom: true, verify: true, history: usize::MAX };
        let s = LlmcoSettings::default();
        assert_eq!(
            s.steps(all),
            Steps { tom: true, verify: true, history: usize::MAX, max_verify: 3, preset: LlmcoPreset::Default }
        );
        let (mut s, mut m) = (LlmcoSettings::default(), ModelSpec::new("x"));
        for (k, v) in [("model", "gpt-4o"), ("tom", "off"), ("verify", "on"), ("history", "2"), ("max_verify", "0")] {
            apply_option(&mut s, &mut m, k, v).unwrap();
        }
        assert_eq!(
            s.steps(all),
            Steps { tom: false, verify: true, history: 2, max_verify: 0, preset: LlmcoPreset::Default }
        );
        assert_eq!(label(&s, &m), "llmco[gpt-4o,tom=false,verify=true,history=2,max_verify=0]");
        apply_option(&mut s, &mut m, "tom", "auto").unwrap();
        assert_eq!(s.tom, None);
    }

    #[test]
    fn labels_parse_back_into_the_same_settings() {
        let (mut s, mut m) = (LlmcoSettings::default(), ModelSpec::new("?"));
        for (k, v) in [("model", "llama3.1:8b"), ("temperature", "0.6"), ("verify", "false")] {
            apply_option(&mut s, &mut m, k, v).unwrap();
        }
        let l = label(&s, &m);
        assert_eq!(l, "llmco[llama3.1:8b,temperature=0.6,verify=false]");
        let (mut s2, mut m2) = (LlmcoSettings::default(), ModelSpec::new("?"));
        for (i, part) in l["llmco[".len()..l.len() - 1].split(',').enumerate() {
            let (k, v) = part.split_once('=').unwrap_or(("model", part));
            assert!(i == 0 || k != "model");
            apply_option(&mut s2, &mut m2, k, v).unwrap();
        }
        assert_eq!((s2, m2), (s, m));
    }

    #[test]
    fn the_paper_preset_is_named_after_the_model_and_loops_far_longer() {
        let all = PaperSteps { tom: true, verify: true, history: usize::MAX };
        let (mut s, mut m) = (LlmcoSettings::default(), ModelSpec::new("x"));
        for (k, v) in [("model", "gpt-4o"), ("tom", "off"), ("preset", "paper")] {
            apply_option(&mut s, &mut m, k, v).unwrap();
        }
        assert_eq!(label(&s, &m), "llmco[gpt-4o,preset=paper,tom=false]");
        assert_eq!(s.steps(all).max_verify, PAPER_VERIFY_CAP);
        assert_eq!(s.steps(all).preset, LlmcoPreset::Paper);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["preset"], "paper");
        assert_eq!(serde_json::from_value::<LlmcoSettings>(v).unwrap(), s);
        let e = apply_option(&mut s, &mut m, "preset", "both").unwrap_err().to_string();
        assert!(e.contains("default or paper"), "{e}");
        apply_option(&mut s, &mut m, "preset", "default").unwrap();
        assert_eq!(label(&s, &m), "llmco[gpt-4o,tom=false]");
    }

    #[test]
    fn bad_options_are_named() {
        let (mut s, mut m) = (LlmcoSettings::default(), ModelSpec::new("x"));
        for (k, v, needle) in [
            ("tom", "maybe", "true or false"),
            ("history", "-1", "history=\"-1\""),
            ("max_verify", "99", "[0, 20]"),
            ("memory_k", "3", "unknown option \"memory_k\" (known: model, preset, temperature"),
        ] {
            let e = apply_option(&mut s, &mut m, k, v).unwrap_err().to_string();
            assert!(e.contains(needle), "{k}={v}: {e}");
        }
        assert_eq!(s, LlmcoSettings::default());
        let bad = LlmcoSettings { history: Some(MAX_HISTORY + 1), ..LlmcoSettings::default() };
        assert!(bad.check().unwrap_err().to_string().contains("history"));
    }

    #[test]
    fn every_seat_model_option_is_listed_labelled_and_read_back() {
        for k in SAMPLING_OPTIONS {
            assert!(LLMCO_OPTIONS.contains(&k), "{k}");
        }
        let (mut s, mut m) = (LlmcoSettings::default(), ModelSpec::new("x"));
        for (k, v) in [("tom", "off"), ("structured", "on"), ("effort", "low"), ("model", "gpt-5"), ("preset", "paper")]
        {
            apply_option(&mut s, &mut m, k, v).unwrap();
        }
        let l = label(&s, &m);
        assert_eq!(l, "llmco[gpt-5,preset=paper,effort=low,structured=on,tom=false]");
        let (mut s2, mut m2) = (LlmcoSettings::default(), ModelSpec::new("?"));
        for part in l["llmco[".len()..l.len() - 1].split(',') {
            let (k, v) = part.split_once('=').unwrap_or(("model", part));
            apply_option(&mut s2, &mut m2, k, v).unwrap();
        }
        assert_eq!((&s2, &m2), (&s, &m));
        let e = apply_option(&mut s2, &mut m2, "retries", "3").unwrap_err().to_string();
        assert!(
            e.contains("unknown option \"retries\" (known: model, preset, temperature, top_p, max_tokens, effort"),
            "{e}"
        );
        assert_eq!((s2, m2), (s, m), "a refused option changes nothing");
    }

    #[test]
    fn settings_round_trip_through_json() {
        let s = LlmcoSettings {
            tom: Some(false),
            verify: None,
            history: Some(4),
            max_verify: None,
            prompts: None,
            ..LlmcoSettings::default()
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v.to_string(), r#"{"history":4,"max_verify":null,"prompts":null,"tom":false,"verify":null}"#);
        assert_eq!(serde_json::from_value::<LlmcoSettings>(v).unwrap(), s);
        assert_eq!(serde_json::from_str::<LlmcoSettings>("{}").unwrap(), LlmcoSettings::default());
    }
}
