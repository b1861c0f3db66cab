//! Model families: which request parameters a served model takes, decided from its
//! name by a small table ([`FAMILY_RULES`]), and overridden by the run's flags or a
//! seat's options ([`ParamRules`]).
//!
//! The table knows two families. **OpenAI reasoning** models (`o1`, `o3`, `o4-mini`,
//! `gpt-5`, ...) refuse `max_tokens` (they take `max_completion_tokens`, which counts
//! their hidden reasoning tokens too) and accept `temperature` and `top_p` only at their
//! defaults, so the backend sends neither unless the user set it explicitly; they take
//! `reasoning_effort`. Every other name is a **chat** model and gets exactly the
//! parameters the backend has always sent (`temperature`, `top_p`, `max_tokens`), which
//! is what vLLM, Ollama, llama.cpp, LM Studio and the OpenAI chat models read.
//!
//! Guarantees: [`family_of`] is total (any name gets a family); a rule the user forced
//! (`--model-family`, `--token-param`) always wins over the table; a parameter the user
//! set explicitly is always sent as set.

use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// A model family: what kind of parameters the model takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// A chat model: `temperature`, `top_p` and `max_tokens`, as always sent.
    Chat,
    /// An OpenAI reasoning model: `max_completion_tokens`, no sampling parameters, and
    /// `reasoning_effort` when asked for.
    Reasoning,
}

impl Family {
    /// The family's name on the command line (`chat`, `reasoning`).
    pub fn name(self) -> &'static str {
        match self {
            Family::Chat => "chat",
            Family::Reasoning => "reasoning",
        }
    }

    /// The token-cap parameter the family takes.
    pub fn token_param(self) -> TokenParam {
        match self {
            Family::Chat => TokenParam::MaxTokens,
            Family::Reasoning => TokenParam::MaxCompletionTokens,
        }
    }

    /// The reply-token cap used when the user sets none: the ProAgent paper's 256 for
    /// chat models, [`REASONING_MAX_TOKENS`] for reasoning models (their hidden reasoning
    /// counts against the cap).
    pub fn default_max_tokens(self) -> u32 {
        match self {
            Family::Chat => 256,
            Family::Reasoning => REASONING_MAX_TOKENS,
        }
    }
}

/// A request-parameter rule refused: a value no rule takes (the message lists those it
/// takes), or rules that contradict each other (the message says how to send it anyway).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParamRuleError(pub String);

impl std::str::FromStr for Family {
    type Err = ParamRuleError;
    fn from_str(s: &str) -> Result<Self, ParamRuleError> {
        match s.trim() {
            "chat" => Ok(Family::Chat),
            "reasoning" => Ok(Family::Reasoning),
            _ => Err(ParamRuleError("chat or reasoning".into())),
        }
    }
}

/// The default reply-token cap of a reasoning model when the user sets none: its hidden
/// reasoning is billed as output and counts against the cap, so the chat models' 256
/// would end most replies before their answer. (OpenAI advises leaving room for several
/// thousand reasoning tokens; a cap bounds the bill, it is not what a reply costs.)
pub const REASONING_MAX_TOKENS: u32 = 16_384;

/// The name of the parameter that caps a reply's length.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenParam {
    /// `max_tokens`: OpenAI's chat models (deprecated there), vLLM, Ollama, llama.cpp, LM Studio.
    MaxTokens,
    /// `max_completion_tokens`: OpenAI's reasoning models (and its newer chat models).
    MaxCompletionTokens,
}

impl TokenParam {
    /// The parameter's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            TokenParam::MaxTokens => "max_tokens",
            TokenParam::MaxCompletionTokens => "max_completion_tokens",
        }
    }

    /// The other one.
    pub fn other(self) -> TokenParam {
        match self {
            TokenParam::MaxTokens => TokenParam::MaxCompletionTokens,
            TokenParam::MaxCompletionTokens => TokenParam::MaxTokens,
        }
    }
}

impl std::str::FromStr for TokenParam {
    type Err = ParamRuleError;
    fn from_str(s: &str) -> Result<Self, ParamRuleError> {
        match s.trim() {
            "max_tokens" => Ok(TokenParam::MaxTokens),
            "max_completion_tokens" => Ok(TokenParam::MaxCompletionTokens),
            _ => Err(ParamRuleError("max_tokens or max_completion_tokens".into())),
        }
    }
}

/// How hard a reasoning model thinks (`reasoning_effort`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effort {
    /// Few reasoning tokens.
    Low,
    /// The servers' default.
    Medium,
    /// Many reasoning tokens.
    High,
}

impl Effort {
    /// The level's name on the wire and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }
}

impl std::str::FromStr for Effort {
    type Err = ParamRuleError;
    fn from_str(s: &str) -> Result<Self, ParamRuleError> {
        match s.trim() {
            "low" => Ok(Effort::Low),
            "medium" => Ok(Effort::Medium),
            "high" => Ok(Effort::High),
            _ => Err(ParamRuleError("low, medium or high".into())),
        }
    }
}

/// One rule of the family table: a model whose name (after any `vendor/` prefix a proxy
/// adds) is `stem` or starts with `stem` followed by `-`, `.` or `:` belongs to `family`.
/// Rules are tried in order; the first match wins.
#[derive(Copy, Clone, Debug)]
pub struct FamilyRule {
    /// The start of the name.
    pub stem: &'static str,
    /// The family of the names it matches.
    pub family: Family,
    /// Which models these are, for the docs.
    pub what: &'static str,
}

/// The family table. `gpt-5-chat*` is a chat model (it takes the sampling parameters);
/// the rest of the gpt-5 family and the o-series reason. Any other name is a chat model.
pub const FAMILY_RULES: &[FamilyRule] = &[
    FamilyRule { stem: "gpt-5-chat", family: Family::Chat, what: "GPT-5 chat (non-reasoning)" },
    FamilyRule { stem: "gpt-5", family: Family::Reasoning, what: "GPT-5, gpt-5-mini, gpt-5-nano, gpt-5.1, ..." },
    FamilyRule { stem: "o1", family: Family::Reasoning, what: "o1, o1-mini, o1-pro" },
    FamilyRule { stem: "o3", family: Family::Reasoning, what: "o3, o3-mini, o3-pro" },
    FamilyRule { stem: "o4", family: Family::Reasoning, what: "o4-mini" },
];

/// The family of model `name` by [`FAMILY_RULES`] (case-insensitive; a `vendor/` prefix,
/// as proxies write `openai/o4-mini`, is ignored); [`Family::Chat`] when no rule matches.
pub fn family_of(name: &str) -> Family {
    let lower = name.trim().to_ascii_lowercase();
    let base = lower.rsplit('/').next().unwrap_or(&lower);
    FAMILY_RULES
        .iter()
        .find(|r| base.strip_prefix(r.stem).is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '.', ':'])))
        .map_or(Family::Chat, |r| r.family)
}

/// What decides a served model's request parameters beyond its sampling: the family
/// forced by the user (else the table's), the token-cap parameter forced by the user
/// (else the family's), the reasoning effort, and which sampling parameters the user set
/// explicitly (those are always sent, as set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParamRules {
    /// `--model-family` / `family=`: overrides the table.
    pub family: Option<Family>,
    /// `--token-param` / `token_param=`: overrides the family's token-cap parameter.
    pub token_param: Option<TokenParam>,
    /// `--reasoning-effort` / `effort=`: sent as `reasoning_effort`.
    pub effort: Option<Effort>,
    /// Sampling parameters the user set (`temperature`, `top_p`, `max_tokens`).
    pub explicit: BTreeSet<String>,
}

impl ParamRules {
    /// The family of model `name` under these rules.
    pub fn family(&self, name: &str) -> Family {
        self.family.unwrap_or_else(|| family_of(name))
    }

    /// The token-cap parameter of model `name` under these rules.
    pub fn token_param(&self, name: &str) -> TokenParam {
        self.token_param.unwrap_or_else(|| self.family(name).token_param())
    }

    /// Whether the user set parameter `param` (a wire name; `max_completion_tokens` is
    /// the user's `max_tokens`).
    pub fn is_explicit(&self, param: &str) -> bool {
        let key = if param == "max_completion_tokens" { "max_tokens" } else { param };
        self.explicit.contains(key)
    }

    /// Refuses rules that contradict each other for model `name`: a reasoning effort for a
    /// chat model (by the table or a forced `chat` family), which takes none. The error
    /// says how to send it anyway.
    pub fn check(&self, name: &str) -> Result<(), ParamRuleError> {
        if let Some(e) = self.effort
            && self.family(name) == Family::Chat
        {
            let why = if self.family == Some(Family::Chat) {
                "--model-family chat (family=chat) was set".to_string()
            } else {
                format!("{:?} is a chat model by the family table", name.trim())
            };
            return Err(ParamRuleError(format!(
                "--reasoning-effort {} (effort=) applies to reasoning models, but {why}; pass --model-family reasoning \
                 (family=reasoning) to send it to this model anyway",
                e.name()
            )));
        }
        Ok(())
    }

    /// Whether `temperature` and `top_p` go on the wire for model `name`: always for a chat
    /// model, for a reasoning model only when the user set them.
    pub fn sends_sampling(&self, name: &str, param: &str) -> bool {
        self.family(name) == Family::Chat || self.explicit.contains(param)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_sorts_names() {
        for name in
            ["o1", "o1-mini", "o3-mini", "o4-mini", "O4-MINI", "gpt-5", "gpt-5-mini", "gpt-5.1", "openai/o4-mini"]
        {
            assert_eq!(family_of(name), Family::Reasoning, "{name}");
        }
        for name in
            ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "llama3.1:8b", "qwen3:8b", "o1x", "omni", "gpt-50", ""]
        {
            assert_eq!(family_of(name), Family::Chat, "{name}");
        }
    }

    #[test]
    fn forced_rules_win_over_the_table() {
        let mut r = ParamRules::default();
        assert_eq!(r.token_param("o4-mini"), TokenParam::MaxCompletionTokens);
        assert_eq!(r.token_param("gpt-4o"), TokenParam::MaxTokens);
        assert!(!r.sends_sampling("o4-mini", "temperature") && r.sends_sampling("gpt-4o", "temperature"));
        r.explicit.insert("temperature".into());
        assert!(r.sends_sampling("o4-mini", "temperature") && !r.sends_sampling("o4-mini", "top_p"));
        r.family = Some(Family::Reasoning);
        assert_eq!(r.token_param("qwen3:8b"), TokenParam::MaxCompletionTokens);
        r.token_param = Some(TokenParam::MaxTokens);
        assert_eq!(r.token_param("o4-mini"), TokenParam::MaxTokens);
        assert!(!r.is_explicit("max_completion_tokens"));
        r.explicit.insert("max_tokens".into());
        assert!(r.is_explicit("max_completion_tokens"));
    }

    #[test]
    fn names_parse_and_refuse() {
        assert_eq!("high".parse::<Effort>(), Ok(Effort::High));
        assert!("extreme".parse::<Effort>().is_err());
        assert_eq!("max_completion_tokens".parse::<TokenParam>(), Ok(TokenParam::MaxCompletionTokens));
        assert!("reasoning".parse::<Family>().is_ok() && "fast".parse::<Family>().is_err());
    }
}
