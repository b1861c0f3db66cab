//! The LLM-Coordination agent (Agashe et al.), written once for every game: [`LlmCo<G>`]
//! over a grounding `G` ([`LlmcoGrounding`]).
//!
//! Each decision, as the paper describes its agent:
//! 1. **Memory.** The game description (rules, map or layout, conventions, the reply
//!    format) is the first user message of every request, answered "Got it!" as in the
//!    published agent; the state description comes from this player's own view only; the
//!    agent's own past actions are listed (as many as the game's setting shows).
//! 2. **Theory of Mind** (optional): one request interprets the partner's last action (or
//!    position) and what the partner needs; its answer goes into the action request. With
//!    the step off, the partner's last action is stated plainly instead.
//! 3. **Action proposal**: one request lists the feasible actions and asks for
//!    `Explanation: ... Action: ...`.
//! 4. **Answer verification** (optional): the state and the proposal are sent to a
//!    verifier that ends with "Verification: Okay" or "Not Okay"; on "Not Okay" the action
//!    request is continued with the verifier's reason and the remaining actions, and the
//!    new proposal is verified again, up to `max_verify` times (the published loop has no
//!    cap); after that the last proposal is played. The paper preset runs the released
//!    loop: a verdict that is not "Okay" is a rejection, each re-prompt offers every action
//!    but the latest rejected one, the verifier's whole answer is passed on, and the loop
//!    goes on until "Okay" (with a safety cap, [`super::settings::PAPER_VERIFY_CAP`]); a
//!    reply that names no action is replaced by the fallback, which is still verified.
//! 5. **Grounding**: the text after `Action:` is matched to one of the offered actions
//!    ([`super::reply::match_option`]); an action that is not offered cannot be played.
//!
//! Failures never crash a seat: a reply that names no offered action is a counted parse
//! failure (`parse_failures`, the reply kept in the transcript) and the grounding's
//! documented fallback is played; a request that fails after every retry is counted
//! (`llm_failures`) and also falls back; a template that does not render is counted
//! (`prompt_errors`) and falls back; a model that cannot serve the run at all stops the
//! seat with [`AgentError::ModelUnusable`]. Only the action requests (proposals and
//! re-proposals) are decisions in the episode's unread share; the Theory-of-Mind and
//! verification requests are helpers, whatever their replies say (see [`crate::call`]).

use super::config::LlmcoConfig;
use super::grounding::{Exec, LlmcoGrounding, player_name};
use super::metrics::LlmcoMetrics;
use super::reply::{
    action_schema, action_text, explanation, match_option, option_letter, structured_action, structured_interpretation,
    structured_verdict, tom_schema, verdict, verdict_schema,
};
use super::settings::DEFAULT_DIR;
use super::settings::{LlmcoPreset, PAPER_TEMPERATURE, Steps};
use crate::call::{self, CallFailure, Calls, Purpose, Reply, Unread};
use crate::prompts::{Family, PromptError, PromptLibrary};
use async_trait::async_trait;
use proagent_core::seat::derive_seed;
use proagent_core::{AgentError, Game, LlmUsage, Observation, Seat, SeatStatus};
use proagent_llm::record::Exchange;
use proagent_llm::{ChatRequest, LlmError, Message, Sampling};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::sync::Arc;

type Action<G> = <<G as LlmcoGrounding>::Game as Game>::Action;

/// The stream of [`derive_seed`] the fallback choices draw from.
const FALLBACK_STREAM: u64 = 0x11c0;

/// The longest Theory-of-Mind answer passed on to the action request, in characters.
const MAX_INTERPRETATION: usize = 2_000;

/// The longest verifier answer the paper preset passes on to a re-proposal, in characters
/// (the released agent passes the whole answer on; a bound keeps a runaway reply out).
const MAX_PAPER_REASON: usize = 2_000;

/// The reply length a dry run assumes for a paper-preset call, in tokens. The paper preset
/// sends no token cap, as the released agent (its `chat.completions.create` calls pass
/// none), so a reply is bounded only by the model's own output limit; 4096 is that limit
/// for the paper's OpenAI models (GPT-4-turbo, GPT-3.5-turbo). A seat given `max_tokens`
/// sends that cap instead.
pub const PAPER_MAX_TOKENS: u32 = 4_096;

/// The reply length a dry run assumes for a seat of `preset` with `sampling` when the seat
/// sends no token cap: [`PAPER_MAX_TOKENS`] for the paper preset with `max_tokens` left at
/// our default; `None` (the seat sends its cap) otherwise.
pub fn uncapped_reply_assumption(preset: LlmcoPreset, sampling: &Sampling) -> Option<u32> {
    (preset == LlmcoPreset::Paper && sampling.max_tokens == Sampling::default().max_tokens).then_some(PAPER_MAX_TOKENS)
}

/// The sampling a seat with `cfg` sends on the game of grounding `G`: the configured one,
/// or in the paper preset the released agent's (temperature 0.6, the game's top_p, no
/// token cap, with [`PAPER_MAX_TOKENS`] as the assumed reply length) for every number
/// still at our default (a value set on purpose, e.g.
/// `llmco[gpt-4o,preset=paper,temperature=0]`, is kept).
pub fn effective_sampling<G: LlmcoGrounding>(cfg: &LlmcoConfig) -> Sampling {
    let mut s = cfg.sampling.clone();
    if cfg.settings.preset == LlmcoPreset::Paper {
        let d = Sampling::default();
        if s.temperature == d.temperature {
            s.temperature = PAPER_TEMPERATURE;
        }
        if s.top_p == d.top_p {
            s.top_p = G::PAPER_TOP_P;
        }
        if let Some(assumed) = uncapped_reply_assumption(cfg.settings.preset, &s) {
            s.max_tokens = assumed;
            s.no_cap = true;
        }
    }
    s
}

/// The messages every request of an episode starts from, rendered once per episode.
///
/// In the paper preset each step has its own primer (the game description for the action,
/// the Theory-of-Mind and the verification descriptions), as the released agent sends
/// them. In the default preset `game` is one description for every step (`tom` and
/// `verify` repeat it), which also says how to answer each step the seat runs, so all of a
/// decision's requests share their beginning and differ only in a short last question.
#[derive(Clone)]
struct Primers {
    system: String,
    game: String,
    ack: String,
    tom: String,
    verify: String,
}

/// Per-episode state.
struct Episode<G: LlmcoGrounding> {
    g: G::Episode,
    steps: Steps,
    /// The template variables shared by every request (names, the game's own).
    vars: Value,
    /// The first messages of every request, or why they could not be rendered.
    primers: Result<Primers, PromptError>,
    /// The actions chosen so far, as offered.
    history: Vec<String>,
    running: Option<G::Choice>,
    rng: ChaCha8Rng,
}

/// Which part of the agent sent a request (the exchange kind in transcripts).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CallKind {
    Tom,
    Action,
    Retry,
    Verify,
}

impl call::CallKind for CallKind {
    fn name(self) -> &'static str {
        match self {
            CallKind::Tom => "tom",
            CallKind::Action => "action",
            CallKind::Retry => "retry",
            CallKind::Verify => "verify",
        }
    }

    /// The action proposal and its re-proposals choose the action; the Theory-of-Mind
    /// and verification steps only inform that choice.
    fn purpose(self) -> Purpose {
        match self {
            CallKind::Action | CallKind::Retry => Purpose::Decision,
            CallKind::Tom | CallKind::Verify => Purpose::Helper,
        }
    }
}

/// What one decision chose.
struct Decision<C> {
    choice: C,
    text: String,
    why: Option<String>,
    interpretation: Option<String>,
}

/// The LLM-Coordination agent on the game of grounding `G`.
pub struct LlmCo<G: LlmcoGrounding> {
    grounding: G,
    cfg: LlmcoConfig,
    ep: Option<Episode<G>>,
    calls: Calls,
    metrics: LlmcoMetrics,
    status: SeatStatus,
    /// The actions the current decision offers (the schema of a structured action request).
    offered: Vec<String>,
}

/// How much of an unreadable reply a parse error quotes, in characters.
const MAX_QUOTED_REPLY: usize = 300;

/// The template `part` for game `G`: `llmco/<part>/<KEY>.j2`, else `llmco/<part>/default.j2`.
fn template<G: LlmcoGrounding>(lib: &PromptLibrary, part: &str) -> String {
    lib.resolve_in("llmco", part, G::KEY, usize::MAX)
}

/// The default preset's template `part` for game `G`: `llmco/default/<part>/<KEY>.j2`, else
/// `llmco/default/<part>/default.j2`.
fn default_template<G: LlmcoGrounding>(lib: &PromptLibrary, part: &str) -> String {
    lib.resolve_in(DEFAULT_DIR, part, G::KEY, usize::MAX)
}

/// `vars` with `extra`'s keys added.
fn with(vars: &Value, extra: Value) -> minijinja::Value {
    let mut v = vars.clone();
    if let (Some(o), Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    jinja(&v)
}

/// A JSON value as a template value.
fn jinja(v: &Value) -> minijinja::Value {
    match v {
        Value::Null => minijinja::Value::from(()),
        Value::Bool(b) => minijinja::Value::from(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => minijinja::Value::from(i),
            (None, Some(u)) => minijinja::Value::from(u),
            _ => minijinja::Value::from(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => minijinja::Value::from(s.as_str()),
        Value::Array(a) => minijinja::Value::from(a.iter().map(jinja).collect::<Vec<_>>()),
        Value::Object(o) => minijinja::Value::from(
            o.iter()
                .map(|(k, v)| (k.clone(), jinja(v)))
                .collect::<std::collections::BTreeMap<String, minijinja::Value>>(),
        ),
    }
}

fn render_primers<G: LlmcoGrounding>(lib: &PromptLibrary, vars: &Value, steps: &Steps) -> Result<Primers, PromptError> {
    let ctx = with(vars, json!({}));
    let r = |part: &str| lib.render(&template::<G>(lib, part), &ctx);
    if steps.preset == LlmcoPreset::Paper {
        return Ok(Primers {
            system: r("system")?,
            game: r("game")?,
            ack: r("ack")?,
            tom: r("tom")?,
            verify: r("verify")?,
        });
    }
    // The default preset's one description says how to answer each step the seat runs.
    let ctx = with(
        vars,
        json!({
            "tom": steps.tom, "verify": steps.verify, "how_tom": default_template::<G>(lib, "how_tom"),
            "how_action": default_template::<G>(lib, "how_action"), "how_verify": default_template::<G>(lib, "how_verify"),
        }),
    );
    let game = lib.render(&default_template::<G>(lib, "game"), &ctx)?;
    Ok(Primers { system: r("system")?, ack: r("ack")?, tom: game.clone(), verify: game.clone(), game })
}

/// The default preset's last user message of a step: the decision's shared state message
/// (`turn`), a blank line, then the step's short question (`ask_tom`, `ask_action`,
/// `ask_verify`; how to answer each is in the game description, `how_<step>`).
fn default_ask<G: LlmcoGrounding>(
    lib: &PromptLibrary,
    turn: &str,
    part: &str,
    ctx: &minijinja::Value,
) -> Result<String, PromptError> {
    let ask = lib.render(&default_template::<G>(lib, part), ctx)?;
    Ok(format!("{turn}\n\n{ask}"))
}

/// The variables every template of an episode of player `me` sees.
fn base_vars<G: LlmcoGrounding>(g: &G, ep: &G::Episode, me: usize, players: usize) -> Value {
    let mut vars = g.game_vars(ep);
    if !vars.is_object() {
        vars = json!({});
    }
    let names: Vec<&str> = (0..players).map(player_name).collect();
    let others: Vec<&str> = (0..players).filter(|&p| p != me).map(player_name).collect();
    if let Some(o) = vars.as_object_mut() {
        o.insert("me".into(), json!(player_name(me)));
        o.insert("partner".into(), json!(others.first().copied().unwrap_or("nobody")));
        o.insert("others".into(), json!(others));
        o.insert("players".into(), json!(names));
        o.insert("game_key".into(), json!(G::KEY));
    }
    vars
}

/// `vars` with the preset's flag: `paper` is true in the paper preset (the templates leave
/// out our added hints then).
fn with_preset(mut vars: Value, preset: LlmcoPreset) -> Value {
    if let Some(o) = vars.as_object_mut() {
        o.insert("paper".into(), json!(preset == LlmcoPreset::Paper));
    }
    vars
}

/// The offered actions as the prompts list them: `A. text`, one per line.
fn listed(options: &[&str]) -> Vec<String> {
    options.iter().enumerate().map(|(i, o)| format!("{}. {o}", option_letter(i))).collect()
}

/// Renders every template a seat with `cfg` reads on `game` as player `seat`, with sample
/// states and options, before anything runs.
pub fn check_prompts<G: LlmcoGrounding + Default>(
    cfg: &LlmcoConfig,
    game: &G::Game,
    seat: usize,
) -> Result<(), PromptError> {
    let g = G::default();
    let n = game.num_players();
    let me = seat.min(n.saturating_sub(1));
    let mut ep = g.begin(game, me, 0);
    g.set_preset(&mut ep, cfg.settings.preset);
    let vars = with_preset(base_vars(&g, &ep, me, n), cfg.settings.preset);
    let lib = &cfg.prompts;
    let preset = cfg.settings.preset;
    let mut steps = cfg.settings.steps(G::PAPER);
    (steps.tom, steps.verify) = (true, true);
    render_primers::<G>(lib, &vars, &steps)?;
    let options = listed(&["the first action", "the second action"]);
    for tom in [true, false] {
        let ctx = with(
            &vars,
            json!({
                "state": "(a sample state)", "history": ["an earlier action"], "interpretation": if tom { "a reading" } else { "" },
                "partner_action": "a sample action", "options": options, "solution": "the first action",
                "rejected": "the first action", "reason": "a reason",
            }),
        );
        if preset == LlmcoPreset::Paper {
            for part in ["state", "tom_state", "verify_state", "retry"] {
                lib.render(&template::<G>(lib, part), &ctx)?;
            }
        } else {
            lib.render(&template::<G>(lib, "retry"), &ctx)?;
            let turn = lib.render(&default_template::<G>(lib, "turn"), &ctx)?;
            for part in ["ask_tom", "ask_action", "ask_verify"] {
                default_ask::<G>(lib, &turn, part, &ctx)?;
            }
        }
    }
    Ok(())
}

impl<G: LlmcoGrounding + Default> LlmCo<G> {
    /// An agent with `cfg` and the default grounding.
    pub fn new(cfg: LlmcoConfig) -> LlmCo<G> {
        LlmCo::with_grounding(cfg, G::default())
    }
}

impl<G: LlmcoGrounding> LlmCo<G> {
    /// An agent with `cfg` and `grounding`.
    pub fn with_grounding(cfg: LlmcoConfig, grounding: G) -> LlmCo<G> {
        LlmCo {
            grounding,
            cfg,
            ep: None,
            calls: Calls::default(),
            metrics: LlmcoMetrics::default(),
            status: SeatStatus::default(),
            offered: Vec::new(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LlmcoConfig {
        &self.cfg
    }

    /// The counters of the current episode.
    pub fn llmco_metrics(&self) -> &LlmcoMetrics {
        &self.metrics
    }

    /// Every exchange of the current episode so far.
    pub fn exchanges(&self) -> &[Exchange] {
        self.calls.exchanges.all()
    }

    /// Sends one request, logs the exchange and counts it; returns the reply, the
    /// exchange's index (for noting what was read from it) and, for an action request,
    /// the token that counts the decision read ([`LlmCo::read`] hands it in).
    async fn call(&mut self, t: u32, kind: CallKind, messages: Vec<Message>) -> Result<Reply, CallFailure> {
        let m = &mut self.metrics;
        m.llm_calls = m.llm_calls.saturating_add(1);
        match kind {
            CallKind::Tom => m.calls_tom = m.calls_tom.saturating_add(1),
            CallKind::Action | CallKind::Retry => m.calls_action = m.calls_action.saturating_add(1),
            CallKind::Verify => m.calls_verify = m.calls_verify.saturating_add(1),
        }
        let mut request = ChatRequest::new(messages, effective_sampling::<G>(&self.cfg));
        // Structured seats ask every step in a schema: the action (among every action of
        // the decision), the verdict, the Theory-of-Mind interpretation.
        if self.cfg.sampling.structured {
            request.response_format = Some(match kind {
                CallKind::Action | CallKind::Retry => action_schema(&self.offered),
                CallKind::Verify => verdict_schema(),
                CallKind::Tom => tom_schema(),
            });
        }
        let log = self.cfg.log_exchanges;
        self.calls.make(&*self.cfg.model, request, t, kind, log, &mut self.metrics).await
    }

    fn note(&mut self, idx: usize, parsed: Option<&str>, parse_error: Option<String>) {
        self.calls.exchanges.note(idx, parsed.map(str::to_string), parse_error);
    }

    /// Reads an action reply against `options`; a failure is counted and noted, a success
    /// counts the decision read.
    fn read(&mut self, reply: &str, idx: usize, unread: Option<Unread>, options: &[&str]) -> Option<usize> {
        // The error quotes the raw reply (cut), so a log shows what the model said.
        let quoted: String = reply.chars().take(MAX_QUOTED_REPLY).collect();
        let cut = if reply.chars().count() > MAX_QUOTED_REPLY { "..." } else { "" };
        let found = if self.calls.structured() {
            structured_action(reply, options).map(|(i, _)| i).map_err(|e| e.to_string())
        } else {
            action_text(reply).ok_or_else(|| format!("the reply has no \"Action:\" line: {quoted:?}{cut}")).and_then(
                |t| {
                    match_option(&t, &options.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                        .ok_or_else(|| format!("{t:?} is none of the {} offered actions", options.len()))
                },
            )
        };
        match found {
            Ok(i) => {
                if let Some(u) = unread {
                    self.calls.read(u);
                }
                self.note(idx, Some(options[i]), None);
                Some(i)
            }
            Err(why) => {
                self.metrics.parse_failures = self.metrics.parse_failures.saturating_add(1);
                self.note(idx, None, Some(why));
                None
            }
        }
    }

    /// One decision: ToM, proposal, verification, grounding.
    async fn decide(
        &mut self,
        ep: &mut Episode<G>,
        obs: &Observation<'_, G::Game>,
    ) -> Result<Option<Decision<G::Choice>>, LlmError> {
        let g = &self.grounding;
        let options = g.options(&ep.g, obs);
        if options.is_empty() {
            return Ok(None);
        }
        self.metrics.decisions = self.metrics.decisions.saturating_add(1);
        let texts: Vec<&str> = options.iter().map(|(_, t)| t.as_str()).collect();
        self.offered = options.iter().map(|(_, t)| t.clone()).collect();
        let state = g.state_text(&ep.g, obs);
        let subject = g.partner_action(&ep.g, obs);
        let t = obs.t;
        let primers = match &ep.primers {
            Ok(p) => p.clone(),
            Err(e) => {
                tracing::error!("{e}");
                self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                return Ok(Some(self.fallen_back(ep, &options, "the templates do not render")));
            }
        };
        let lib = Arc::clone(&self.cfg.prompts);
        let history: Vec<&String> = {
            let h = ep.steps.history.min(ep.history.len());
            ep.history[ep.history.len() - h..].iter().collect()
        };
        // A game whose paper prompt places the history inside the state (the paper preset's card game).
        let (state, history) = match g.state_with_history(&ep.g, obs, &history) {
            Some(s) => (s, Vec::new()),
            None => (state, history),
        };
        let listed_all = listed(&texts);
        let paper = ep.steps.preset == LlmcoPreset::Paper;
        // The default preset's state message, shared by every step of this decision.
        let turn = if paper {
            String::new()
        } else {
            let ctx = with(
                &ep.vars,
                json!({
                    "state": state, "history": history, "partner_action": subject.clone().unwrap_or_default(),
                    "options": listed_all,
                }),
            );
            match lib.render(&default_template::<G>(&lib, "turn"), &ctx) {
                Ok(t) => t,
                Err(e) => {
                    tracing::error!("{e}");
                    self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                    return Ok(Some(self.fallen_back(ep, &options, "the templates do not render")));
                }
            }
        };

        // 2. Theory of Mind.
        let mut interpretation = String::new();
        if ep.steps.tom {
            let ctx = with(
                &ep.vars,
                json!({"state": state, "partner_action": subject.clone().unwrap_or_default(), "options": listed_all}),
            );
            let user = match paper {
                true => lib.render(&template::<G>(&lib, "tom_state"), &ctx),
                false => default_ask::<G>(&lib, &turn, "ask_tom", &ctx),
            };
            match user {
                Ok(user) => {
                    let msgs = vec![
                        Message::system(&primers.system),
                        Message::user(&primers.tom),
                        Message::assistant(&primers.ack),
                        Message::user(user),
                    ];
                    match self.call(t, CallKind::Tom, msgs).await {
                        Ok(Reply { text, idx, .. }) => {
                            let text = match self.calls.structured() {
                                true => structured_interpretation(&text).unwrap_or_else(|e| {
                                    tracing::warn!("{e}");
                                    String::new()
                                }),
                                false => text,
                            };
                            interpretation = text.split_whitespace().collect::<Vec<_>>().join(" ");
                            interpretation = interpretation.chars().take(MAX_INTERPRETATION).collect();
                            self.note(idx, Some(&interpretation.clone()), None);
                        }
                        Err(CallFailure::Unusable(e)) => return Err(e),
                        Err(CallFailure::Down(_)) => {}
                    }
                }
                Err(e) => {
                    tracing::error!("{e}");
                    self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                }
            }
        }

        // 3. The action proposal.
        let ctx = with(
            &ep.vars,
            json!({
                "state": state, "history": history, "interpretation": interpretation,
                "partner_action": subject.clone().unwrap_or_default(), "options": listed_all,
            }),
        );
        let user = match paper {
            true => lib.render(&template::<G>(&lib, "state"), &ctx),
            false => default_ask::<G>(&lib, &turn, "ask_action", &ctx),
        };
        let user = match user {
            Ok(u) => u,
            Err(e) => {
                tracing::error!("{e}");
                self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                return Ok(Some(self.fallen_back(ep, &options, "the templates do not render")));
            }
        };
        let mut conversation = vec![
            Message::system(&primers.system),
            Message::user(&primers.game),
            Message::assistant(&primers.ack),
            Message::user(user),
        ];
        let Reply { text: reply, idx, unread } = match self.call(t, CallKind::Action, conversation.clone()).await {
            Ok(r) => r,
            Err(CallFailure::Unusable(e)) => return Err(e),
            Err(CallFailure::Down(_)) => return Ok(Some(self.fallen_back(ep, &options, "the model did not answer"))),
        };
        let interp = (!interpretation.is_empty()).then(|| interpretation.clone());
        let mut chosen = match self.read(&reply, idx, unread, &texts) {
            Some(i) => i,
            // The paper preset, as the released agent: the fallback is proposed and still
            // goes through verification.
            None if paper => {
                self.metrics.fallbacks = self.metrics.fallbacks.saturating_add(1);
                self.grounding.fallback(&ep.g, &options, &mut ep.rng).min(options.len() - 1)
            }
            None => {
                let mut d = self.fallen_back(ep, &options, "the reply named no offered action");
                d.interpretation = interp;
                return Ok(Some(d));
            }
        };
        let mut why = explanation(&reply, 400);
        let mut last_reply = reply;

        // 4. Answer verification.
        if ep.steps.verify {
            let mut remaining: Vec<usize> = (0..options.len()).collect();
            let mut round = 0u32;
            loop {
                let ctx = with(
                    &ep.vars,
                    json!({
                        "state": state, "solution": texts[chosen], "options": listed_all,
                        "partner_action": subject.clone().unwrap_or_default(),
                    }),
                );
                let user = match paper {
                    true => lib.render(&template::<G>(&lib, "verify_state"), &ctx),
                    false => default_ask::<G>(&lib, &turn, "ask_verify", &ctx),
                };
                let user = match user {
                    Ok(u) => u,
                    Err(e) => {
                        tracing::error!("{e}");
                        self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                        break;
                    }
                };
                let msgs = vec![
                    Message::system(&primers.system),
                    Message::user(&primers.verify),
                    Message::assistant(&primers.ack),
                    Message::user(user),
                ];
                let Reply { text: vreply, idx: vidx, .. } = match self.call(t, CallKind::Verify, msgs).await {
                    Ok(r) => r,
                    Err(CallFailure::Unusable(e)) => return Err(e),
                    Err(CallFailure::Down(_)) => break,
                };
                let read = match self.calls.structured() {
                    true => structured_verdict(&vreply).ok().map(|(ok, _)| ok),
                    false => verdict(&vreply),
                };
                match read {
                    Some(true) => {
                        self.note(vidx, Some("okay"), None);
                        break;
                    }
                    // The paper preset, as the released agent: anything but "Okay" is a rejection.
                    None if paper => {
                        self.metrics.verify_unreadable = self.metrics.verify_unreadable.saturating_add(1);
                        self.metrics.verify_rejections = self.metrics.verify_rejections.saturating_add(1);
                        self.note(
                            vidx,
                            None,
                            Some("no \"Verification: Okay\"; read as a rejection (paper preset)".into()),
                        );
                    }
                    None => {
                        self.metrics.verify_unreadable = self.metrics.verify_unreadable.saturating_add(1);
                        self.note(
                            vidx,
                            None,
                            Some("no \"Verification: Okay\" or \"Not Okay\"; the proposal is played".into()),
                        );
                        break;
                    }
                    Some(false) => {
                        self.note(vidx, Some("not okay"), None);
                        self.metrics.verify_rejections = self.metrics.verify_rejections.saturating_add(1);
                    }
                }
                if paper {
                    // The released agent offers every action but the latest rejected one.
                    remaining = (0..options.len()).filter(|&i| i != chosen).collect();
                } else {
                    remaining.retain(|&i| i != chosen);
                }
                if round >= ep.steps.max_verify || remaining.is_empty() {
                    self.metrics.verify_cap_reached = self.metrics.verify_cap_reached.saturating_add(1);
                    break;
                }
                round += 1;
                let rest: Vec<&str> = remaining.iter().map(|&i| texts[i]).collect();
                let reason = if paper {
                    vreply.trim().chars().take(MAX_PAPER_REASON).collect()
                } else {
                    explanation(&vreply.replace("Verification:", "").replace("verification:", ""), 600)
                };
                let ctx = with(
                    &ep.vars,
                    json!({"rejected": texts[chosen], "reason": reason, "options": listed(&rest), "state": state}),
                );
                let user = match lib.render(&template::<G>(&lib, "retry"), &ctx) {
                    Ok(u) => u,
                    Err(e) => {
                        tracing::error!("{e}");
                        self.metrics.prompt_errors = self.metrics.prompt_errors.saturating_add(1);
                        break;
                    }
                };
                conversation.push(Message::assistant(&last_reply));
                conversation.push(Message::user(user));
                let Reply { text: r, idx: ridx, unread } =
                    match self.call(t, CallKind::Retry, conversation.clone()).await {
                        Ok(r) => r,
                        Err(CallFailure::Unusable(e)) => return Err(e),
                        Err(CallFailure::Down(_)) => break,
                    };
                match self.read(&r, ridx, unread, &rest) {
                    Some(k) => chosen = remaining[k],
                    None => {
                        // An unreadable re-proposal: the fallback among the actions not yet rejected.
                        let sub: Vec<(G::Choice, String)> = remaining.iter().map(|&i| options[i].clone()).collect();
                        let k = self.grounding.fallback(&ep.g, &sub, &mut ep.rng).min(sub.len() - 1);
                        self.metrics.fallbacks = self.metrics.fallbacks.saturating_add(1);
                        chosen = remaining[k];
                    }
                }
                why = explanation(&r, 400);
                last_reply = r;
            }
        }
        Ok(Some(Decision {
            choice: options[chosen].0,
            text: options[chosen].1.clone(),
            why: (!why.is_empty()).then_some(why),
            interpretation: interp,
        }))
    }

    /// The grounding's fallback, counted.
    fn fallen_back(&mut self, ep: &mut Episode<G>, options: &[(G::Choice, String)], why: &str) -> Decision<G::Choice> {
        self.metrics.fallbacks = self.metrics.fallbacks.saturating_add(1);
        let i = self.grounding.fallback(&ep.g, options, &mut ep.rng).min(options.len().saturating_sub(1));
        Decision {
            choice: options[i].0,
            text: options[i].1.clone(),
            why: Some(format!("fallback: {why}")),
            interpretation: None,
        }
    }

    async fn act_inner(&mut self, obs: &Observation<'_, G::Game>) -> Result<Option<Action<G>>, LlmError> {
        let Some(mut ep) = self.ep.take() else { return Ok(self.grounding.idle(obs)) };
        self.grounding.observe(&mut ep.g, obs);
        if let Some(c) = ep.running {
            match self.grounding.execute(&mut ep.g, c, obs) {
                Exec::Act(a) => {
                    self.ep = Some(ep);
                    return Ok(Some(a));
                }
                Exec::ActAndFinish(a) => {
                    ep.running = None;
                    self.ep = Some(ep);
                    return Ok(Some(a));
                }
                Exec::Finished => ep.running = None,
            }
        }
        let decided = self.decide(&mut ep, obs).await;
        let out = match decided {
            Err(e) => Err(e),
            Ok(None) => Ok(self.grounding.idle(obs)),
            Ok(Some(d)) => {
                ep.history.push(d.text.clone());
                self.status = SeatStatus { skill: Some(d.text.clone()), intention: d.interpretation, analysis: d.why };
                Ok(match self.grounding.execute(&mut ep.g, d.choice, obs) {
                    Exec::Act(a) => {
                        ep.running = Some(d.choice);
                        Some(a)
                    }
                    Exec::ActAndFinish(a) => Some(a),
                    Exec::Finished => self.grounding.idle(obs),
                })
            }
        };
        self.ep = Some(ep);
        out
    }
}

#[async_trait]
impl<G: LlmcoGrounding> Seat<G::Game> for LlmCo<G> {
    fn name(&self) -> String {
        match &self.cfg.label {
            Some(l) => l.clone(),
            None => format!("llmco[{}]", self.cfg.model.name()),
        }
    }

    fn reset(&mut self, game: &G::Game, seat: usize, seed: u64) {
        let n = game.num_players();
        let me = seat.min(n.saturating_sub(1));
        let mut g = self.grounding.begin(game, me, seed);
        self.grounding.set_preset(&mut g, self.cfg.settings.preset);
        let vars = with_preset(base_vars(&self.grounding, &g, me, n), self.cfg.settings.preset);
        let lib = &self.cfg.prompts;
        let steps = self.cfg.settings.steps(G::PAPER);
        let primers = if lib.family() == Family::Llmco {
            render_primers::<G>(lib, &vars, &steps)
        } else {
            Err(PromptError::NoPreset { preset: "default", game: lib.family().game(), available: "llmco".into() })
        }
        .inspect_err(|e| tracing::error!("{e}"));
        self.ep = Some(Episode {
            g,
            steps,
            vars,
            primers,
            history: Vec::new(),
            running: None,
            rng: ChaCha8Rng::seed_from_u64(derive_seed(seed, FALLBACK_STREAM)),
        });
        self.calls.reset(self.cfg.exchange_sink.as_ref());
        self.metrics = LlmcoMetrics::default();
        self.status = SeatStatus::default();
    }

    async fn act(&mut self, obs: &Observation<'_, G::Game>) -> Result<Action<G>, AgentError> {
        if self.ep.is_none() {
            self.reset(obs.game, obs.seat, 0);
        }
        let out = self.act_inner(obs).await;
        // The exchanges of this step reach the transcript, also those of a failing call.
        self.calls.exchanges.flush(self.cfg.exchange_sink.as_ref());
        match out {
            Ok(Some(a)) => Ok(a),
            Ok(None) => Err(AgentError::NoLegalAction(obs.seat)),
            Err(e) => Err(AgentError::ModelUnusable(Box::new(e))),
        }
    }

    fn metrics(&self) -> Value {
        self.metrics.to_json()
    }

    fn status(&self) -> SeatStatus {
        self.status.clone()
    }

    fn llm_usage(&self) -> LlmUsage {
        self.calls.usage()
    }

    fn last_llm_failure(&self) -> Option<String> {
        self.calls.last_failure()
    }
}
