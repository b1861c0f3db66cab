//! The one loop on OvercookedV2: every template renders, the paper preset is refused, and
//! the loop's shared parts (belief correction, failure handling, saturating counts) hold
//! on this game as on the classic one.

use super::*;
use crate::ProAgent;
use crate::grounding::overcooked_v2::scripted::ScriptedV2Model;
use crate::preset::Preset;
use crate::prompts::{PromptError, PromptLibrary};
use crate::tests::Huge;
use async_trait::async_trait;
use proagent_core::episode::{EpisodeOptions, EpisodeResult, StepView, play_episode};
use proagent_core::{AgentError, BeliefCorrection, Seat};
use proagent_llm::{ChatRequest, ChatResponse, Fault, LlmError};
use proagent_partners::v2::ScriptedV2;
use std::sync::Mutex;

type Agent = ProAgent<OvercookedV2Grounding>;

fn cfg(model: Arc<dyn LanguageModel>) -> ProAgentConfig {
    let mut cfg = ProAgentConfig::new(model);
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::V2));
    cfg
}

fn game(layout: &str, settings: Settings) -> OvercookedV2 {
    OvercookedV2::new(Arc::new(Layout::builtin(layout).unwrap()), settings)
}

/// The agent in seat 0 beside the scripted cook, with the belief corrections of every step.
fn episode(
    layout: &str,
    cfg: ProAgentConfig,
    settings: Settings,
    seed: u64,
) -> (EpisodeResult<OvercookedV2>, Vec<BeliefCorrection>) {
    let g = Arc::new(game(layout, settings));
    let seats: Vec<Box<dyn Seat<OvercookedV2>>> = vec![Box::new(Agent::new(cfg)), Box::new(ScriptedV2::new())];
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = EpisodeOptions {
        on_step: Some(Box::new(move |v: &StepView<'_, OvercookedV2>| {
            sink.lock().unwrap().extend(v.beliefs.iter().cloned())
        })),
        ..EpisodeOptions::default()
    };
    let r = rt.block_on(play_episode(g, seats, seed, options)).unwrap();
    let beliefs = std::mem::take(&mut *seen.lock().unwrap());
    (r, beliefs)
}

#[test]
fn every_template_renders_for_every_layout_and_seat_and_the_paper_preset_is_refused() {
    let model: Arc<dyn LanguageModel> = Arc::new(ScriptedV2Model);
    for name in Layout::builtin_names() {
        let g = game(name, Settings::default());
        for seat in 0..g.layout.num_agents() {
            Agent::check_prompts(&cfg(Arc::clone(&model)), &g, seat).unwrap();
            let paper = cfg(Arc::clone(&model)).with_preset(Preset::Paper);
            let paper = ProAgentConfig { prompts: Arc::new(PromptLibrary::embedded_family(Family::V2)), ..paper };
            let e = Agent::check_prompts(&paper, &g, seat).unwrap_err();
            assert!(matches!(e, PromptError::NoPreset { .. }), "{e}");
            assert!(e.to_string().contains("OvercookedV2 has no knowledge library"), "{e}");
        }
    }
}

#[test]
fn belief_correction_scores_what_the_agent_sees() {
    let run = |belief: crate::belief::BeliefMode, view_radius: Option<u8>| {
        let mut c = cfg(Arc::new(ScriptedV2Model));
        c.settings.belief = belief;
        c.settings.memory_k = 3;
        let settings = Settings { max_steps: 150, view_radius, ..Settings::default() };
        episode("cramped_room_v2", c, settings, 2)
    };
    let (r, corrections) = run(crate::belief::BeliefMode::Replace, None);
    let m = &r.metrics[0];
    let scored = m["belief_predictions"].as_u64().unwrap();
    assert!(scored > 0, "{m}");
    assert!(m["belief_accuracy"].as_f64().unwrap() > 0.5, "{m}");
    assert_eq!(corrections.len() as u64, scored);
    assert!(corrections.iter().all(|c| c.correction == "replace" && c.real_at >= c.predicted_at), "{corrections:?}");
    // Off: still scored, recorded as not corrected.
    let (_, off) = run(crate::belief::BeliefMode::Off, None);
    assert!(!off.is_empty() && off.iter().all(|c| c.correction == "off"));
}

#[test]
fn absurd_token_counts_saturate_on_v2_too() {
    let (r, _) = episode(
        "cramped_room_v2",
        cfg(Arc::new(Huge(Arc::new(ScriptedV2Model)))),
        Settings { max_steps: 40, ..Settings::default() },
        0,
    );
    let m = &r.metrics[0];
    assert!(m["llm_calls"].as_u64().unwrap() >= 2, "{m}");
    assert_eq!((m["prompt_tokens"].as_u64(), m["completion_tokens"].as_u64()), (Some(u64::MAX), Some(u64::MAX)));
}

/// A model that always fails with `e`, counting its calls.
struct Failing(LlmError, Mutex<u32>);

#[async_trait]
impl LanguageModel for Failing {
    fn name(&self) -> String {
        "failing".into()
    }
    async fn chat(&self, _r: &ChatRequest) -> Result<ChatResponse, LlmError> {
        *self.1.lock().unwrap() += 1;
        Err(self.0.clone())
    }
}

#[test]
fn model_failures_are_handled_as_on_the_classic_game() {
    let g = game("cramped_room_v2", Settings::default());
    let mut chance = proagent_core::episode::env_chance(0);
    let state = proagent_core::Game::initial_state(&g, &mut chance);
    let first_act = |model: Arc<Failing>| {
        let sink: crate::ExchangeSink = Arc::default();
        let mut c = cfg(model);
        c.exchange_sink = Some(Arc::clone(&sink));
        let mut agent = Agent::new(c);
        agent.reset(&g, 0, 0);
        let obs = Observation::new(&g, &state, 0, 0);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let out = rt.block_on(agent.act(&obs));
        (out, agent.agent_metrics().clone(), sink.lock().unwrap().len())
    };
    // Unreachable after every retry: a counted failure and the wait(1) fallback.
    let faults = vec![Fault { attempt: 1, kind: "connect".into(), detail: "refused".into() }];
    let down = Arc::new(Failing(LlmError::Unreachable { faults: faults.clone() }, Mutex::new(0)));
    let (out, m, logged) = first_act(Arc::clone(&down));
    assert_eq!(out.unwrap(), Action::Stay);
    assert_eq!((m.llm_failures, m.fallbacks, logged), (1, 1, 1));
    // A refusal stops the agent at once with the typed error, its exchange recorded.
    let refusal = LlmError::Refused { status: 401, url: "http://127.0.0.1:9/v1".into(), message: "no".into(), faults };
    let refused = Arc::new(Failing(refusal, Mutex::new(0)));
    let (out, m, logged) = first_act(Arc::clone(&refused));
    assert!(matches!(out, Err(AgentError::ModelUnusable(_))));
    assert_eq!((m.llm_calls, m.llm_failures, m.fallbacks, logged), (1, 1, 0, 1));
    assert_eq!(*refused.1.lock().unwrap(), 1);
}
