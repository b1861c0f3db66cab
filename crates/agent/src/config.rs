//! One configuration for a ProAgent seat. [`AgentSettings`] (the switches) and
//! [`ModelSpec`] (which model, how it samples, how it is reached) are plain
//! serde records: the CLI fills them, the transcript header stores them as they
//! are, `proagent replay` reads them back, and the eval key hashes them
//! ([`fingerprint`]). [`ProAgentConfig`] adds what cannot be written down (the
//! model object, the loaded prompts, the exchange sink).

use super::belief::BeliefMode;
use super::grounding::overcooked::align::AlignStyle;
use super::log::ExchangeSink;
use super::planner::PromptLevel;
use super::preset::Preset;
use super::prompts::PromptLibrary;
use super::verificator::VerificatorMode;
use proagent_core::limits::{MAX_MEMORY_K, RangeError, check_int};
use proagent_llm::{
    LABELLED_OPTIONS, LanguageModel, ModelOptionError, ModelSpec, SAMPLING_OPTIONS, Sampling, join_options, sha256_hex,
};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::sync::Arc;

/// The most re-plans a configuration may ask for.
pub const MAX_REPLANS: u32 = 20;

/// The agent's switches: which loop runs (the preset), what the planner sees and
/// how rejected plans and teammate predictions are handled. The defaults are this
/// runtime's (analysis + intention + plan, LLM verificator, belief replacement,
/// K = 1); [`AgentSettings::for_preset`] gives the paper's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentSettings {
    /// The loop's mechanics and knowledge library (headers written before presets existed are `default`).
    #[serde(default)]
    pub preset: Preset,
    /// How many recent trajectory entries the planner sees.
    pub memory_k: usize,
    /// Re-plans after a rejected skill before falling back to wait(1).
    pub max_replans: u32,
    /// How a rejected skill is explained.
    pub verificator: VerificatorMode,
    /// What belief correction does with a wrong teammate prediction.
    pub belief: BeliefMode,
    /// Ask the planner for an analysis.
    pub analysis: bool,
    /// Ask the planner for the teammate's intention.
    pub intention: bool,
    /// The scene description style.
    pub align: AlignStyle,
    /// Prompt templates directory (`None`: ./prompts if it has agent/, else the embedded copies).
    pub prompts: Option<PathBuf>,
    /// End a wait(n) early when the kitchen changes (a hand, a pot, a counter), and say so in the rules.
    pub wait_interrupt: bool,
}

impl Default for AgentSettings {
    fn default() -> Self {
        AgentSettings::for_preset(Preset::Default)
    }
}

impl AgentSettings {
    /// Checks the numbers against their limits ([`MAX_MEMORY_K`], [`MAX_REPLANS`]);
    /// the error names the field.
    pub fn check(&self) -> Result<(), RangeError> {
        check_int("memory_k", self.memory_k, 0, MAX_MEMORY_K)?;
        check_int("max_replans", self.max_replans, 0, MAX_REPLANS)
    }

    /// The switches a preset starts from. Paper: analysis + plan without intention and
    /// without belief revision, K = 1, the explainer as verificator, four re-plans, waits
    /// that always run their n steps (the published runs' settings).
    pub fn for_preset(preset: Preset) -> AgentSettings {
        match preset {
            Preset::Default => AgentSettings {
                preset,
                memory_k: 1,
                max_replans: 3,
                verificator: VerificatorMode::Llm,
                belief: BeliefMode::Replace,
                analysis: true,
                intention: true,
                align: AlignStyle::ProAgent,
                prompts: None,
                wait_interrupt: true,
            },
            Preset::Paper => AgentSettings {
                preset,
                memory_k: 1,
                max_replans: 4,
                verificator: VerificatorMode::Llm,
                belief: BeliefMode::Off,
                analysis: true,
                intention: false,
                align: AlignStyle::ProAgent,
                prompts: None,
                wait_interrupt: false,
            },
        }
    }

    /// The prompt level these switches ask for.
    pub fn level(&self) -> PromptLevel {
        PromptLevel { analysis: self.analysis, intention: self.intention }
    }
}

/// sha256 of everything that makes a ProAgent seat behave differently: the model
/// name and sampling, the switches (the preset among them), and the text of every
/// prompt template of the preset's folder.
/// The model's address and time-outs are left out (the same model behind another
/// URL plays the same episodes), and so is the prompts directory's path (its
/// templates' text counts instead).
pub fn fingerprint(settings: &AgentSettings, model: &ModelSpec, prompts: &PromptLibrary) -> String {
    let mut settings = settings.clone();
    settings.prompts = None;
    let mut v = serde_json::json!({
        "model": model.model.trim(),
        "temperature": model.temperature,
        "top_p": model.top_p,
        "max_tokens": model.max_tokens,
        "settings": settings,
        "prompts": prompts.hashes_for(settings.preset),
    });
    // Only a structured seat says so, so every other seat keeps its fingerprint.
    if model.structured {
        v["structured"] = serde_json::Value::Bool(true);
    }
    sha256_hex(v.to_string().as_bytes())
}

/// The ProAgent's own switches a `proagent[...]` seat spec may set (after the model, the
/// preset and the model options), in the order labels list them.
pub const SWITCH_OPTIONS: [&str; 9] =
    ["memory_k", "max_replans", "verificator", "belief", "analysis", "intention", "align", "prompts", "wait_interrupt"];

/// The options a `proagent[...]` seat spec may set, in the order labels list them: the
/// model, the preset, the library's model options ([`LABELLED_OPTIONS`], parsed by
/// [`ModelSpec::apply_option`]) and the [`SWITCH_OPTIONS`].
pub const SEAT_OPTIONS: [&str; 18] = join_options(&[&["model", "preset"], &LABELLED_OPTIONS, &SWITCH_OPTIONS]);

/// A `key=value` of a `proagent[...]` or `llmco[...]` spec that cannot be applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// A key that is not one of the seat kind's options ([`SEAT_OPTIONS`], or
    /// [`crate::llmco::settings::LLMCO_OPTIONS`]).
    #[error("unknown option {key:?} (known: {})", known.join(", "))]
    Unknown {
        /// The key as given.
        key: String,
        /// The options that seat kind knows.
        known: &'static [&'static str],
    },
    /// A value the option does not take.
    #[error("{key}={value:?}: {expected}")]
    BadValue {
        /// The option.
        key: String,
        /// The value as given.
        value: String,
        /// What the option takes.
        expected: String,
    },
}

impl From<ModelOptionError> for OptionError {
    fn from(e: ModelOptionError) -> OptionError {
        OptionError::BadValue { key: e.key, value: e.value, expected: e.expected }
    }
}

/// A switch value: `true`/`on`/`yes`/`1` or `false`/`off`/`no`/`0`.
pub fn bool_value(key: &str, value: &str) -> Result<bool, OptionError> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => Err(OptionError::BadValue { key: key.into(), value: value.into(), expected: "true or false".into() }),
    }
}

/// A number that `ok` accepts; the error says what was `expected`.
pub fn number<T: std::str::FromStr>(
    key: &str,
    value: &str,
    ok: impl Fn(&T) -> bool,
    expected: &str,
) -> Result<T, OptionError> {
    value.trim().parse::<T>().ok().filter(|v| ok(v)).ok_or_else(|| OptionError::BadValue {
        key: key.into(),
        value: value.into(),
        expected: expected.into(),
    })
}

/// Sets one option of a seat: the model and its sampling in `model`, the switches in
/// `settings`. Values are range-checked as the matching command-line flags are.
pub fn apply_option(
    settings: &mut AgentSettings,
    model: &mut ModelSpec,
    key: &str,
    value: &str,
) -> Result<(), OptionError> {
    let value = value.trim();
    let parsed = |r: Result<(), crate::names::UnknownName>| {
        r.map_err(|e| OptionError::BadValue { key: key.into(), value: value.into(), expected: e.expected.into() })
    };
    match key.trim() {
        // The model and its options: the library's one parser.
        k if SAMPLING_OPTIONS.contains(&k) => {
            model.apply_option(key, value)?;
        }
        "memory_k" => {
            settings.memory_k =
                number(key, value, |k: &usize| *k <= MAX_MEMORY_K, &format!("a whole number in [0, {MAX_MEMORY_K}]"))?
        }
        "max_replans" => {
            settings.max_replans =
                number(key, value, |k: &u32| *k <= MAX_REPLANS, &format!("a whole number in [0, {MAX_REPLANS}]"))?
        }
        "verificator" => parsed(value.parse().map(|v| settings.verificator = v))?,
        "belief" => parsed(value.parse().map(|v| settings.belief = v))?,
        "align" => parsed(value.parse().map(|v| settings.align = v))?,
        "preset" => parsed(value.parse().map(|p: Preset| {
            // The preset's switches replace the seat's (the prompts folder stays): give it
            // before the other switches, as labels do.
            let prompts = settings.prompts.take();
            *settings = AgentSettings::for_preset(p);
            settings.prompts = prompts;
        }))?,
        "analysis" => settings.analysis = bool_value(key, value)?,
        "intention" => settings.intention = bool_value(key, value)?,
        "wait_interrupt" => settings.wait_interrupt = bool_value(key, value)?,
        "prompts" => settings.prompts = (!value.is_empty()).then(|| PathBuf::from(value)),
        other => return Err(OptionError::Unknown { key: other.to_string(), known: &SEAT_OPTIONS }),
    }
    Ok(())
}

/// An enum setting as it is written on the command line (its serde name).
pub fn word<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Every option of a seat that differs from its preset's values, as `(key, value)` in
/// [`SEAT_OPTIONS`] order: the model always first, then the preset when it is not the
/// default one, then the switches that differ from that preset's.
pub fn options(settings: &AgentSettings, model: &ModelSpec) -> Vec<(&'static str, String)> {
    let d = AgentSettings::for_preset(settings.preset);
    let mut out = vec![("model", model.model.trim().to_string())];
    if settings.preset != Preset::Default {
        out.push(("preset", word(&settings.preset)));
    }
    out.extend(model.changed_options());
    let mut put = |key: &'static str, differs: bool, value: String| {
        if differs {
            out.push((key, value));
        }
    };
    put("memory_k", settings.memory_k != d.memory_k, settings.memory_k.to_string());
    put("max_replans", settings.max_replans != d.max_replans, settings.max_replans.to_string());
    put("verificator", settings.verificator != d.verificator, word(&settings.verificator));
    put("belief", settings.belief != d.belief, word(&settings.belief));
    put("analysis", settings.analysis != d.analysis, settings.analysis.to_string());
    put("intention", settings.intention != d.intention, settings.intention.to_string());
    put("align", settings.align != d.align, word(&settings.align));
    put(
        "prompts",
        settings.prompts != d.prompts,
        settings.prompts.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
    );
    put("wait_interrupt", settings.wait_interrupt != d.wait_interrupt, settings.wait_interrupt.to_string());
    out
}

/// The name a ProAgent seat goes by in every report, results record, `play` line and
/// heatmap: `proagent[MODEL]`, followed by each option that differs from the defaults,
/// e.g. `proagent[llama3.1:8b,memory_k=3]`. A label is itself a seat spec that
/// rebuilds these settings from the defaults, so two seats share a label exactly when
/// they share their settings (the served model's address and time-outs aside, and the
/// prompts directory's contents, which the episode key hashes instead).
///
/// A preset other than the default goes in as `preset=NAME` right after the model, and
/// the options are then listed against the preset's values: `proagent[gpt-4o,preset=paper]`.
pub fn label(settings: &AgentSettings, model: &ModelSpec) -> String {
    let parts: Vec<String> =
        options(settings, model).into_iter().map(|(k, v)| if k == "model" { v } else { format!("{k}={v}") }).collect();
    format!("proagent[{}]", parts.join(","))
}

/// Everything that configures a running ProAgent.
#[derive(Clone)]
pub struct ProAgentConfig {
    /// The language model every planner and verificator call goes to.
    pub model: Arc<dyn LanguageModel>,
    /// Sampling settings of every request.
    pub sampling: Sampling,
    /// The switches.
    pub settings: AgentSettings,
    /// The knowledge library and message templates.
    pub prompts: Arc<PromptLibrary>,
    /// Episode length, for the "time left" of the scene text.
    pub horizon: u32,
    /// Keep every model exchange in memory (for transcripts).
    pub log_exchanges: bool,
    /// Where finished exchanges are also appended (with their parse results), so the builder
    /// of the agent can read them after a runner has consumed the boxed agent (transcripts).
    pub exchange_sink: Option<ExchangeSink>,
    /// The seat's name ([`label`]); `None`: `proagent[<the model's name>]`.
    pub label: Option<String>,
}

impl ProAgentConfig {
    /// The default switches, the embedded prompts and the paper's sampling.
    pub fn new(model: Arc<dyn LanguageModel>) -> ProAgentConfig {
        ProAgentConfig {
            model,
            sampling: Sampling::default(),
            settings: AgentSettings::default(),
            prompts: Arc::new(PromptLibrary::embedded()),
            horizon: proagent_overcooked::env::DEFAULT_HORIZON,
            log_exchanges: true,
            exchange_sink: None,
            label: None,
        }
    }

    /// The prompt level of the switches.
    pub fn level(&self) -> PromptLevel {
        self.settings.level()
    }

    /// The same configuration running `preset` with that preset's switches.
    pub fn with_preset(mut self, preset: Preset) -> ProAgentConfig {
        self.settings = AgentSettings::for_preset(preset);
        self
    }

    /// sha256 of each template of the preset's folder on the library's game, for
    /// transcript headers.
    pub fn prompt_hashes(&self) -> std::collections::BTreeMap<String, String> {
        self.prompts.hashes_for(self.settings.preset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_are_recorded_as_the_header_always_had_them() {
        let v = serde_json::to_value(AgentSettings::default()).unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"align":"proagent","analysis":true,"belief":"replace","intention":true,"max_replans":3,"memory_k":1,"preset":"default","prompts":null,"verificator":"llm","wait_interrupt":true}"#
        );
        let back: AgentSettings = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back, AgentSettings::default());
        // Headers written before presets existed read back as the default preset.
        let mut old = v;
        old.as_object_mut().unwrap().remove("preset");
        assert_eq!(serde_json::from_value::<AgentSettings>(old).unwrap(), AgentSettings::default());
        let paper = serde_json::to_value(AgentSettings::for_preset(Preset::Paper)).unwrap();
        assert_eq!(
            paper.to_string(),
            r#"{"align":"proagent","analysis":true,"belief":"off","intention":false,"max_replans":4,"memory_k":1,"preset":"paper","prompts":null,"verificator":"llm","wait_interrupt":false}"#
        );
        let m = serde_json::to_value(ModelSpec::new("scripted")).unwrap();
        assert_eq!(m.to_string(), r#"{"max_tokens":256,"model":"scripted","temperature":0.0,"top_p":1.0}"#);
    }

    #[test]
    fn labels_name_a_preset_and_list_switches_against_it() {
        let paper = AgentSettings::for_preset(Preset::Paper);
        let m = ModelSpec::new("gpt-4o");
        assert_eq!(label(&paper, &m), "proagent[gpt-4o,preset=paper]");
        let mut p3 = paper.clone();
        p3.memory_k = 3;
        assert_eq!(label(&p3, &m), "proagent[gpt-4o,preset=paper,memory_k=3]");
        // The label is a spec that rebuilds the same settings.
        let (mut s, mut m2) = (AgentSettings::default(), ModelSpec::new("x"));
        for (k, v) in [("model", "gpt-4o"), ("preset", "paper"), ("memory_k", "3")] {
            apply_option(&mut s, &mut m2, k, v).unwrap();
        }
        assert_eq!((s, m2.model.as_str()), (p3, "gpt-4o"));
        assert!(apply_option(&mut AgentSettings::default(), &mut ModelSpec::new("x"), "preset", "fast").is_err());
    }

    #[test]
    fn labels_name_the_model_and_every_changed_option_and_parse_back() {
        let s = AgentSettings::default();
        assert_eq!(label(&s, &ModelSpec::new("gpt-4o")), "proagent[gpt-4o]");
        let (mut s2, mut m2) = (s.clone(), ModelSpec::new("x"));
        for (k, v) in [
            ("model", "llama3.1:8b"),
            ("memory_k", "3"),
            ("temperature", "0.7"),
            ("verificator", "rules"),
            ("analysis", "off"),
            ("align", "coordination"),
        ] {
            apply_option(&mut s2, &mut m2, k, v).unwrap();
        }
        let l = label(&s2, &m2);
        assert_eq!(
            l,
            "proagent[llama3.1:8b,temperature=0.7,memory_k=3,verificator=rules,analysis=false,align=coordination]"
        );
        // The label's options rebuild the same settings from the defaults.
        let (mut s3, mut m3) = (AgentSettings::default(), ModelSpec::new("?"));
        let inner = &l["proagent[".len()..l.len() - 1];
        for (i, part) in inner.split(',').enumerate() {
            let (k, v) = part.split_once('=').unwrap_or(("model", part));
            assert!(i == 0 || k != "model");
            apply_option(&mut s3, &mut m3, k, v).unwrap();
        }
        assert_eq!((s3, m3), (s2, m2));
    }

    #[test]
    fn options_are_range_checked_and_named() {
        let (mut s, mut m) = (AgentSettings::default(), ModelSpec::new("x"));
        for (k, v, needle) in [
            ("memory_k", "-1", "memory_k=\"-1\""),
            ("max_replans", "99", "[0, 20]"),
            ("temperature", "3", "[0, 2]"),
            ("top_p", "0", "(0, 1]"),
            ("max_tokens", "0", "at least 1"),
            ("analysis", "maybe", "true or false"),
            ("verificator", "maybe", "verificator"),
            ("model", "", "a model name"),
            ("colour", "red", "unknown option \"colour\""),
        ] {
            let e = apply_option(&mut s, &mut m, k, v).unwrap_err().to_string();
            assert!(e.contains(needle), "{k}={v}: {e}");
        }
        assert_eq!((s, m), (AgentSettings::default(), ModelSpec::new("x")), "a refused option changes nothing");
    }

    #[test]
    fn every_seat_model_option_is_listed_labelled_and_read_back() {
        for k in SAMPLING_OPTIONS {
            assert!(SEAT_OPTIONS.contains(&k), "{k}");
        }
        let (mut s, mut m) = (AgentSettings::default(), ModelSpec::new("x"));
        for (k, v) in [
            ("memory_k", "2"),
            ("structured", "on"),
            ("token_param", "max_tokens"),
            ("family", "reasoning"),
            ("effort", "high"),
            ("model", "o4-mini"),
        ] {
            apply_option(&mut s, &mut m, k, v).unwrap();
        }
        let l = label(&s, &m);
        assert_eq!(l, "proagent[o4-mini,effort=high,family=reasoning,token_param=max_tokens,structured=on,memory_k=2]");
        let (mut s2, mut m2) = (AgentSettings::default(), ModelSpec::new("?"));
        for part in l["proagent[".len()..l.len() - 1].split(',') {
            let (k, v) = part.split_once('=').unwrap_or(("model", part));
            apply_option(&mut s2, &mut m2, k, v).unwrap();
        }
        assert_eq!((&s2, &m2), (&s, &m));
        // How a served model is reached is the run's, never a seat's.
        let e = apply_option(&mut s2, &mut m2, "base_url", "http://127.0.0.1:9/v1").unwrap_err().to_string();
        assert!(e.starts_with("unknown option \"base_url\" (known: model, preset, temperature"), "{e}");
        assert!(e.contains("effort, family, token_param, structured, memory_k"), "{e}");
        assert_eq!((s2, m2), (s, m), "a refused option changes nothing");
    }

    #[test]
    fn fingerprint_follows_behaviour_not_addresses() {
        let lib = PromptLibrary::embedded();
        let s = AgentSettings::default();
        let m = ModelSpec::new("gpt-4o");
        let base = fingerprint(&s, &m, &lib);
        let mut elsewhere = m.clone();
        elsewhere.base_url = Some("http://other:8000/v1".into());
        assert_eq!(fingerprint(&s, &elsewhere, &lib), base);
        let mut k3 = s.clone();
        k3.memory_k = 3;
        assert_ne!(fingerprint(&k3, &m, &lib), base);
        assert_ne!(fingerprint(&s, &ModelSpec::new("llama3.1:8b"), &lib), base);
        // The preset is part of it, even with every shared switch equal.
        let mut paper = s.clone();
        paper.preset = Preset::Paper;
        assert_ne!(fingerprint(&paper, &m, &lib), base);
    }
}
