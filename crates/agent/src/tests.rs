//! The loop on classic Overcooked ([`OvercookedGrounding`]): every part, both presets,
//! failures, and the prompts' bytes where they matter.

use super::*;
use crate::belief::BeliefMode;
use crate::grounding::Grounding;
use crate::grounding::overcooked::align::{AlignStyle, SceneInfo, scene_text};
use crate::grounding::overcooked::scripted::ScriptedModel;
use crate::memory::EntryOutcome;
use crate::preset::Preset;
use crate::prompts::Family;
use crate::verificator::VerificatorMode;
use async_trait::async_trait;
use proagent_core::episode::{EpisodeOptions, EpisodeResult, play_episode};
use proagent_core::{AgentError, Observation, Seat};
use proagent_llm::record::Exchange;
use proagent_llm::{ChatRequest, ChatResponse, Fault, LanguageModel, LlmError, Role, Usage};
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::env::{Action, Layout, State};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked::skills::Skill;
use proagent_partners::basic::{RandomSeat, StaySeat, random4};
use std::sync::{Arc, Mutex};

/// The agent on classic Overcooked.
type ProAgent = crate::ProAgent<OvercookedGrounding>;

type ReplyFn = dyn Fn(&ChatRequest, usize) -> Result<String, LlmError> + Send + Sync;

/// A test model: answers with a function of the request and the call number.
struct FnModel {
    calls: Mutex<usize>,
    f: Box<ReplyFn>,
}

impl FnModel {
    fn new(f: impl Fn(&ChatRequest, usize) -> Result<String, LlmError> + Send + Sync + 'static) -> Arc<FnModel> {
        Arc::new(FnModel { calls: Mutex::new(0), f: Box::new(f) })
    }
}

#[async_trait]
impl LanguageModel for FnModel {
    fn name(&self) -> String {
        "test".into()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let n = {
            let mut c = self.calls.lock().unwrap();
            *c += 1;
            *c - 1
        };
        (self.f)(request, n).map(|t| ChatResponse::simple(t, Usage::new(10, 2)))
    }
}

/// The classic game on `l` (the agent tests' episodes are 400 steps unless they say).
fn game(l: &Layout) -> Overcooked {
    Overcooked::new(Arc::new(l.clone()), 400)
}

/// A partner seat by spec, built as the runner's seat factory builds it.
fn build(spec: &str, k: &Arc<Kitchen>) -> Result<Box<dyn Seat<Overcooked>>, String> {
    Ok(match spec {
        "greedy" => Box::new(proagent_partners::greedy::GreedyPartner::new(Arc::clone(k))),
        "scripted" => Box::new(proagent_partners::scripted::ScriptedPartner::new(Arc::clone(k))),
        "courier" => Box::new(proagent_partners::courier::CourierPartner::new(Arc::clone(k))),
        "random" => Box::new(RandomSeat::<Overcooked>::new()),
        "random4" => Box::new(random4::<Overcooked>()),
        "stay" => Box::new(StaySeat),
        other => return Err(format!("no test partner {other}")),
    })
}

/// What an episode did, step by step: the actions and the states they led to.
fn trajectory(r: &EpisodeResult<Overcooked>) -> Vec<(Vec<Option<Action>>, State)> {
    r.steps.iter().map(|s| (s.actions.clone(), s.state.clone())).collect()
}

fn scripted_cfg() -> ProAgentConfig {
    ProAgentConfig::new(Arc::new(ScriptedModel::new()))
}

fn episode(
    layout: &str,
    cfg: ProAgentConfig,
    partner: &str,
    seat: usize,
    seed: u64,
    horizon: u32,
) -> EpisodeResult<Overcooked> {
    let k = Kitchen::shared(Layout::builtin(layout).unwrap());
    let mut cfg = cfg;
    cfg.horizon = horizon;
    let agent: Box<dyn Seat<Overcooked>> = Box::new(ProAgent::new(cfg));
    let other = build(partner, &k).unwrap();
    let agents = if seat == 0 { vec![agent, other] } else { vec![other, agent] };
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let g = Arc::new(Overcooked::with_kitchen(k, horizon));
    rt.block_on(play_episode(g, agents, seed, EpisodeOptions::default())).unwrap()
}

/// Runs the agent directly (not boxed) so its exchange log can be inspected.
fn drive(layout: &str, agent: &mut ProAgent, partner: &str, seat: usize, seed: u64, steps: u32) -> u32 {
    let k = Kitchen::shared(Layout::builtin(layout).unwrap());
    let mut other = build(partner, &k).unwrap();
    let g = Overcooked::with_kitchen(Arc::clone(&k), 400);
    let layout = Arc::clone(&k.layout);
    agent.reset(&g, seat, seed);
    other.reset(&g, 1 - seat, seed + 1);
    let mut state = layout.start_state();
    let mut last_joint: Vec<Option<Action>> = Vec::new();
    let mut last_events = [None, None];
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut score = 0;
    for t in 0..steps {
        let mut joint = [Action::Stay; 2];
        for (i, slot) in joint.iter_mut().enumerate() {
            let obs = Observation {
                last_actions: &last_joint,
                last_events: &last_events,
                ..Observation::new(&g, &state, i, t)
            };
            *slot = if i == seat { rt.block_on(agent.act(&obs)) } else { rt.block_on(other.act(&obs)) }.unwrap();
        }
        let out = layout.step(&mut state, joint);
        score += out.reward;
        last_joint = joint.map(Some).to_vec();
        last_events = out.events;
    }
    score
}

#[test]
fn full_loop_on_every_layout_and_seat() {
    for layout in
        ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
    {
        for seat in 0..2 {
            let r = episode(layout, scripted_cfg(), "greedy", seat, 1, 400);
            let m = &r.metrics[seat];
            let calls = m["llm_calls"].as_u64().unwrap();
            assert!(calls > 0, "{layout} seat {seat}: {m}");
            assert_eq!(
                calls,
                m["llm_calls_by_kind"]["planner"].as_u64().unwrap()
                    + m["llm_calls_by_kind"]["verificator"].as_u64().unwrap()
            );
            assert!(m["skills_completed"].as_u64().unwrap() > 0, "{layout} seat {seat}: {m}");
            assert_eq!(m["parse_failures"], 0, "{layout} seat {seat}: {m}");
            assert_eq!(m["llm_failures"], 0);
            assert!(m["prompt_tokens"].as_u64().unwrap() > 100 * calls, "{m}");
            assert!(m["belief_accuracy"].is_f64(), "{layout} seat {seat}: {m}");
            // The scripted model plans at skill boundaries only: far fewer calls than steps.
            assert!(calls < 200, "{layout} seat {seat}: {calls} calls");
            if layout != "forced_coordination" {
                assert!(r.score >= 100, "{layout} seat {seat}: score {}", r.score);
            }
        }
    }
}

#[test]
fn every_part_runs_on_forced_coordination_with_a_capable_partner() {
    // The scripted partner does its half of the hand-over; greedy cannot.
    for seat in 0..2 {
        let r = episode("forced_coordination", scripted_cfg(), "scripted", seat, 3, 400);
        assert!(r.score >= 40, "seat {seat}: {}", r.score);
    }
}

#[test]
fn same_seed_same_episode() {
    for style in [AlignStyle::ProAgent, AlignStyle::Coordination] {
        let mut cfg = scripted_cfg();
        cfg.settings.align = style;
        let a = episode("coordination_ring", cfg.clone(), "greedy", 1, 7, 200);
        let b = episode("coordination_ring", cfg, "greedy", 1, 7, 200);
        assert_eq!(trajectory(&a), trajectory(&b));
        assert_eq!(a.metrics, b.metrics);
    }
    let mut x = ProAgent::new(scripted_cfg());
    let mut y = ProAgent::new(scripted_cfg());
    drive("cramped_room", &mut x, "greedy", 0, 5, 150);
    drive("cramped_room", &mut y, "greedy", 0, 5, 150);
    let strip = |v: &[Exchange]| -> Vec<(ChatRequest, Option<String>)> {
        v.iter().map(|e| (e.request.clone(), e.reply_text().map(str::to_string))).collect()
    };
    assert_eq!(strip(x.exchanges()), strip(y.exchanges()));
}

const BAD_THEN_GOOD: &str =
    "Analysis: go.\nIntention for Player 1: \"pickup(onion)\".\nPlan for Player 0: \"deliver_soup()\".";

fn good_reply(req: &ChatRequest) -> String {
    // A plan that is always valid at the start: pick up an onion.
    let _ = req;
    "Analysis: fine.\nIntention for Player 1: \"pickup(onion)\".\nPlan for Player 0: \"pickup(onion)\".".into()
}

#[test]
fn verificator_replan_path() {
    // The first plan is invalid (deliver without soup); the verificator runs its two rounds,
    // and the planner re-plans with the failed condition appended.
    let model = FnModel::new(|req, n| {
        let last = &req.messages.last().unwrap().content;
        Ok(match n {
            0 => BAD_THEN_GOOD.into(),
            1 => {
                assert!(last.contains("Check each precondition"), "{last}");
                assert!(last.contains("- holding_soup:"), "{last}");
                "Condition holding_soup: holds nothing -> not satisfied\nCondition serving_reachable: yes -> satisfied"
                    .into()
            }
            2 => {
                assert!(last.contains("Double-check"), "{last}");
                "Double-check done.\nFailed condition: holding_soup: Player 0 holds no soup.".into()
            }
            3 => {
                assert!(last.contains("Rejected plan: deliver_soup()."), "{last}");
                assert!(last.contains("holding_soup: Player 0 holds no soup."), "{last}");
                assert_eq!(req.messages.len(), 4);
                good_reply(req)
            }
            _ => good_reply(req),
        })
    });
    let mut agent = ProAgent::new(ProAgentConfig::new(model));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    let m = agent.agent_metrics().clone();
    assert_eq!((m.replans, m.fallbacks, m.llm_calls_planner, m.llm_calls_verificator), (1, 0, 2, 2));
    let kinds: Vec<&str> = agent.exchanges().iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["planner", "verificator", "verificator", "planner"]);
    assert_eq!(agent.exchanges()[2].parsed_text(), Some("holding_soup: Player 0 holds no soup."));
    assert_eq!(agent.exchanges()[3].parsed_text(), Some("plan=pickup(onion), intention=pickup(onion)"));
    assert_eq!(agent.memory_entries().last().unwrap().skill, Skill::PickupOnion);

    // `rules`: the reason sentences, no verificator call.
    let model = FnModel::new(|req, n| {
        let last = &req.messages.last().unwrap().content;
        if n == 1 {
            assert!(last.contains("I cannot deliver_soup(), since I am not holding a dish with soup."), "{last}");
        }
        Ok(if n == 0 { BAD_THEN_GOOD.into() } else { good_reply(req) })
    });
    let mut cfg = ProAgentConfig::new(model);
    cfg.settings.verificator = VerificatorMode::Rules;
    let mut agent = ProAgent::new(cfg);
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    let m = agent.agent_metrics();
    assert_eq!((m.replans, m.llm_calls_planner, m.llm_calls_verificator), (1, 2, 0));
}

#[test]
fn exchanges_reach_the_sink_after_the_runner_consumed_the_agent() {
    let sink: ExchangeSink = Default::default();
    let mut cfg = scripted_cfg();
    cfg.exchange_sink = Some(Arc::clone(&sink));
    let r = episode("cramped_room", cfg, "greedy", 0, 1, 100);
    let list = sink.lock().unwrap();
    assert_eq!(list.len() as u64, r.metrics[0]["llm_calls"].as_u64().unwrap());
    assert!(list.iter().all(|e| e.reply_text().is_some() && e.parsed.is_some()));
    assert!(list.windows(2).all(|w| w[0].t <= w[1].t));
}

#[test]
fn scripted_model_answers_the_verificator_from_the_text() {
    // The first plan is forced to be invalid; every later request (both verificator rounds,
    // the re-plan) is answered by the scripted model.
    let scripted = ScriptedModel::new();
    let model = FnModel::new(move |req, n| Ok(if n == 0 { BAD_THEN_GOOD.into() } else { scripted.reply(req) }));
    let mut agent = ProAgent::new(ProAgentConfig::new(model));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    let ex = agent.exchanges();
    assert_eq!(ex.len(), 4);
    let round1 = ex[1].reply_text().unwrap();
    assert!(round1.contains("Condition holding_soup: <Player 0> holds nothing -> not satisfied"), "{round1}");
    assert!(round1.contains("Condition serving_reachable: <Player 0> can reach the serving location -> satisfied"));
    let reason = ex[2].parsed_text().unwrap();
    assert!(reason.starts_with("holding_soup: <Player 0> cannot do deliver_soup() now"), "{reason}");
    let replan = &ex[3].request.messages[3].content;
    assert!(replan.contains(reason), "{replan}");
    assert_eq!(agent.memory_entries().last().unwrap().skill, Skill::PickupOnion);
    assert_eq!(agent.agent_metrics().parse_failures, 0);
}

#[test]
fn replans_are_bounded_then_wait() {
    let model = FnModel::new(|_, _| Ok(BAD_THEN_GOOD.into()));
    let mut cfg = ProAgentConfig::new(model);
    cfg.settings.verificator = VerificatorMode::Off;
    cfg.settings.max_replans = 2;
    let mut agent = ProAgent::new(cfg);
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    let m = agent.agent_metrics();
    assert_eq!((m.replans, m.fallbacks, m.llm_calls_planner), (2, 1, 3));
    let last = agent.memory_entries().pop().unwrap();
    assert_eq!(last.skill, Skill::Wait(1));
    assert!(matches!(last.outcome, EntryOutcome::Fallback { .. }));
}

#[test]
fn verificator_calls_are_no_decisions_in_the_unread_share() {
    // A plan that is read but cannot be carried out (two verificator calls explain it,
    // the double-check naming no condition), then three re-plans in prose: one decision
    // read of four. The verificator's calls are calls, not decisions, and its unreadable
    // double-check is no unread decision: 3 of 4 decisions unread, not 3 of 6 calls.
    let model = FnModel::new(|_, n| Ok(if n == 0 { BAD_THEN_GOOD.into() } else { "I would rather not.".into() }));
    let mut agent = ProAgent::new(ProAgentConfig::new(model));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    assert_eq!(kinds(&agent), ["planner", "verificator", "verificator", "planner", "planner", "planner"]);
    let u = agent.llm_usage();
    assert_eq!((u.calls, u.decisions, u.decisions_unread, u.parse_failures), (6, 4, 3, 3));
    assert_eq!(u.unread_share(), Some(0.75));
    let abort = proagent_core::episode::unread_decisions(&u, 0.5, 1).expect("over half unread");
    assert!(abort.to_string().starts_with("3 of 4 decisions (75%) named no usable action"), "{abort}");
    // The agent's own report still counts both kinds of unreadable reply.
    let m = agent.agent_metrics();
    assert_eq!((m.parse_failures, m.parse_failures_verificator, m.llm_calls), (4, 1, 6));
}

#[test]
fn a_failed_decision_call_is_an_unread_decision() {
    let mut agent = ProAgent::new(ProAgentConfig::new(failing(unreachable())));
    first_act(&mut agent).expect("a failed call is no reason to stop the agent");
    let u = agent.llm_usage();
    assert_eq!((u.calls, u.failures, u.decisions, u.decisions_unread, u.parse_failures), (1, 1, 1, 1, 0));
    let abort = proagent_core::episode::unread_decisions(&u, 0.5, 0).expect("nothing was read");
    assert!(abort.to_string().contains("1 of 1 decisions (100%) named no usable action or got no reply"), "{abort}");
}

#[test]
fn unparseable_reply_is_a_recorded_failure_not_a_wait() {
    let model = FnModel::new(|req, n| {
        if n == 1 {
            let last = &req.messages.last().unwrap().content;
            assert!(last.contains("Rejected plan: no allowed skill could be read"), "{last}");
        }
        Ok(if n == 0 { "<think>hmm</think>I would rather cook something nice.".into() } else { good_reply(req) })
    });
    let mut agent = ProAgent::new(ProAgentConfig::new(model));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    let m = agent.agent_metrics();
    assert_eq!((m.parse_failures, m.replans, m.fallbacks), (1, 1, 0));
    assert!(agent.exchanges()[0].parse_error.as_deref().unwrap().contains("Plan for Player 0"));
    assert_eq!(agent.exchanges()[0].reply_text(), Some("<think>hmm</think>I would rather cook something nice."));
    assert_eq!(agent.memory_entries().last().unwrap().skill, Skill::PickupOnion);
}

#[test]
fn model_errors_do_not_crash() {
    let model = FnModel::new(|_, _| {
        Err(LlmError::Unreachable {
            faults: vec![Fault { attempt: 1, kind: "connect".into(), detail: "refused".into() }],
        })
    });
    let mut agent = ProAgent::new(ProAgentConfig::new(model));
    let score = drive("cramped_room", &mut agent, "stay", 0, 0, 10);
    assert_eq!(score, 0);
    let m = agent.agent_metrics();
    // Each fallback wait(1) lasts one step; the next boundary tries the model again.
    assert_eq!(m.llm_failures, 10);
    assert_eq!(m.fallbacks, 10);
    assert!(agent.exchanges().iter().all(|e| e.error().is_some() && e.outcome.faults().len() == 1));
}

/// A model that always fails with `e`.
fn failing(e: LlmError) -> Arc<FnModel> {
    FnModel::new(move |_, _| Err(e.clone()))
}

fn unreachable() -> LlmError {
    LlmError::Unreachable { faults: vec![Fault { attempt: 1, kind: "connect".into(), detail: "refused".into() }] }
}

fn refused() -> LlmError {
    LlmError::Refused {
        status: 401,
        url: "http://127.0.0.1:9/v1/chat/completions".into(),
        message: "Incorrect API key provided.".into(),
        faults: vec![Fault { attempt: 1, kind: "status_401".into(), detail: "HTTP 401".into() }],
    }
}

fn first_act(agent: &mut ProAgent) -> Result<Action, AgentError> {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let g = game(&k.layout);
    agent.reset(&g, 0, 0);
    let state = k.layout.start_state();
    let obs = Observation::new(&g, &state, 0, 0);
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(agent.act(&obs))
}

#[test]
fn a_refused_configuration_stops_the_agent_with_the_typed_error() {
    let sink: ExchangeSink = Arc::default();
    let mut cfg = ProAgentConfig::new(failing(refused()));
    cfg.exchange_sink = Some(Arc::clone(&sink));
    let mut agent = ProAgent::new(cfg);
    let AgentError::ModelUnusable(e) = first_act(&mut agent).unwrap_err() else { panic!("not a model error") };
    let llm = e.downcast_ref::<LlmError>().expect("the LlmError itself");
    assert!(matches!(llm, LlmError::Refused { status: 401, .. }), "{llm:?}");
    assert_eq!(agent.agent_metrics().llm_failures, 1);
    assert_eq!(agent.agent_metrics().llm_calls, 1, "no retry of a refusal, no second call");
    assert_eq!(sink.lock().unwrap().len(), 1, "the refused exchange reaches the transcript");
    assert!(agent.last_llm_failure().unwrap().contains("HTTP 401"));
}

#[test]
fn an_unreachable_model_is_a_counted_failure_with_a_fallback() {
    let mut agent = ProAgent::new(ProAgentConfig::new(failing(unreachable())));
    first_act(&mut agent).expect("a failed call is no reason to stop the agent");
    assert_eq!((agent.agent_metrics().llm_failures, agent.agent_metrics().fallbacks), (1, 1));
    assert!(agent.last_llm_failure().unwrap().contains("unreachable"));
    assert_eq!(agent.llm_usage().failures, 1);
}

#[test]
fn episodes_stop_at_the_failure_limit_and_keep_what_was_played() {
    let k = Kitchen::shared(Layout::builtin("cramped_room").unwrap());
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let play_with = |model: Arc<FnModel>, limit: Option<u64>, share: Option<f64>| {
        let agent: Box<dyn Seat<Overcooked>> = Box::new(ProAgent::new(ProAgentConfig::new(model)));
        let options =
            EpisodeOptions { max_llm_failures: limit, max_parse_failure_share: share, ..EpisodeOptions::default() };
        let g = Arc::new(Overcooked::with_kitchen(Arc::clone(&k), 20));
        rt.block_on(play_episode(g, vec![agent, build("greedy", &k).unwrap()], 0, options))
    };
    let play = |model: Arc<FnModel>, limit: Option<u64>| play_with(model, limit, None);
    // Default limit 0: the first failed call ends the episode, before the step is played.
    let f = play(failing(unreachable()), Some(0)).unwrap_err();
    assert!(matches!(f.abort, proagent_core::EpisodeAbort::LlmFailures { t: 0, failures: 1, limit: 0, .. }), "{f}");
    assert!(!f.abort.stops_run());
    assert!(f.partial.steps.is_empty());
    assert_eq!((f.partial.llm[0].failures, f.abort.t()), (1, 0));
    assert_eq!(f.partial.metrics[0]["llm_failures"], 1);
    assert!(f.abort.to_string().contains("refused"), "{f}");
    // Limit 3: the fourth failed call (one per fallback wait) ends it, mid-episode.
    let f = play(failing(unreachable()), Some(3)).unwrap_err();
    assert!(matches!(f.abort, proagent_core::EpisodeAbort::LlmFailures { failures: 4, limit: 3, .. }), "{f}");
    assert_eq!(f.partial.steps.len(), 3);
    // No limits: the old degradation (every call failed, the episode is played out).
    let r = play(failing(unreachable()), None).unwrap();
    assert_eq!((r.steps.len(), r.llm[0].failures), (20, 20));
    // No failure limit, but the unread share's default: a decision that got no reply is
    // an unread one, so the played-out episode is still no score.
    let share = Some(proagent_core::episode::DEFAULT_MAX_PARSE_FAILURE_SHARE);
    let f = play_with(failing(unreachable()), None, share).unwrap_err();
    assert!(matches!(f.abort, proagent_core::EpisodeAbort::ParseFailures { unread: 20, decisions: 20, .. }), "{f}");
    assert!(f.abort.to_string().contains("or got no reply (20 of them)"), "{f}");
    // A refusal stops the episode and the run, whatever the limit.
    let f = play(failing(refused()), None).unwrap_err();
    assert!(matches!(f.abort, proagent_core::EpisodeAbort::Agent { t: 0, player: 0, .. }), "{f}");
    assert!(f.abort.stops_run());
    assert!(f.to_string().contains("HTTP 401 Unauthorized"), "{f}");
}

/// A model that answers like `0` with absurd token counts.
pub(crate) struct Huge(pub Arc<dyn LanguageModel>);

#[async_trait]
impl LanguageModel for Huge {
    fn name(&self) -> String {
        "huge".into()
    }
    async fn chat(&self, r: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let text = self.0.chat(r).await?.text;
        Ok(ChatResponse::simple(text, Usage::new(u64::MAX, u64::MAX - 1)))
    }
}

#[test]
fn absurd_token_counts_saturate_in_the_agent() {
    let mut agent = ProAgent::new(ProAgentConfig::new(Arc::new(Huge(Arc::new(ScriptedModel::new())))));
    drive("cramped_room", &mut agent, "greedy", 0, 0, 30);
    let m = agent.agent_metrics();
    assert!(m.llm_calls >= 2, "{m:?}");
    assert_eq!((m.prompt_tokens, m.completion_tokens), (u64::MAX, u64::MAX));
}

#[test]
fn belief_correction_modes() {
    let prompts = |mode: BeliefMode| {
        let mut cfg = scripted_cfg();
        cfg.settings.belief = mode;
        cfg.settings.memory_k = 3;
        let mut agent = ProAgent::new(cfg);
        drive("cramped_room", &mut agent, "greedy", 0, 2, 120);
        let texts: Vec<String> = agent
            .exchanges()
            .iter()
            .filter(|e| e.kind == "planner")
            .map(|e| e.request.messages[1].content.clone())
            .collect();
        let entries = agent.memory_entries();
        (texts.join("\n"), entries, agent.agent_metrics().clone())
    };
    let (replace, entries, m) = prompts(BeliefMode::Replace);
    assert!(replace.contains("<Player 1> then did"), "{replace}");
    assert!(replace.contains("Last observed skill of <Player 1>:"));
    assert!(!replace.contains("You predicted <Player 1> would do pickup(onion); "));
    assert!(entries.iter().any(|e| e.predicted.is_some() && e.real.is_some()));
    assert!(m.belief_predictions > 0);
    let (annotate, _, _) = prompts(BeliefMode::Annotate);
    assert!(annotate.contains("; correct, it did") || annotate.contains("; WRONG, it actually did"), "{annotate}");
    assert!(annotate.contains("predicted ") && annotate.contains("real behaviour"));
    let (off, entries, m) = prompts(BeliefMode::Off);
    assert!(!off.contains("Last observed skill"));
    assert!(!off.contains("then did") && !off.contains("it actually did"));
    assert!(off.contains("You predicted <Player 1> would do"));
    assert!(entries.iter().all(|e| e.real.is_none()));
    // Accuracy is measured whether or not the belief is corrected.
    assert!(m.belief_predictions > 0);
}

#[test]
fn ablation_levels_change_the_prompt() {
    let mut cfg = scripted_cfg();
    cfg.settings.analysis = false;
    cfg.settings.intention = false;
    let mut agent = ProAgent::new(cfg);
    drive("cramped_room", &mut agent, "greedy", 0, 2, 60);
    let ex = &agent.exchanges()[0];
    let user = &ex.request.messages[1].content;
    assert!(!user.contains("Analysis:") && !user.contains("Intention for Player"), "{user}");
    assert!(ex.reply_text().unwrap().starts_with("Plan for Player 0:"));
    assert_eq!(agent.agent_metrics().belief_predictions, 0);
    assert!(agent.agent_metrics().belief_accuracy().is_none());
}

#[test]
fn prompts_check_for_every_layout() {
    let cfg = scripted_cfg();
    for (name, _) in proagent_overcooked::env::layout::BUILTIN {
        let l = Layout::builtin(name).unwrap();
        for seat in 0..2 {
            ProAgent::check_prompts(&cfg, &game(&l), seat).unwrap();
        }
    }
}

// ---- The paper preset ----

fn paper(model: Arc<dyn LanguageModel>) -> ProAgentConfig {
    ProAgentConfig::new(model).with_preset(Preset::Paper)
}

/// One `act` on a hand-made state.
fn act_on(agent: &mut ProAgent, layout: &Layout, state: &State, seat: usize) -> Action {
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let g = game(layout);
    let obs = Observation::new(&g, state, seat, state.timestep);
    rt.block_on(agent.act(&obs)).unwrap()
}

fn kinds(agent: &ProAgent) -> Vec<&str> {
    agent.exchanges().iter().map(|e| e.kind.as_str()).collect()
}

const EXPLANATION: &str = "I have no idea why.";

/// Plans put_onion_in_pot() first (reply `first`), explains with EXPLANATION, then places the onion.
fn onion_model(first: &'static str) -> Arc<FnModel> {
    FnModel::new(move |req, n| {
        let last = &req.messages.last().unwrap().content;
        Ok(if last.contains("Failed skill for") {
            EXPLANATION.into()
        } else if n == 0 {
            first.into()
        } else {
            "Analysis: the pot is busy.\nPlan for Player 0: \"place_obj_on_counter()\"".into()
        })
    })
}

/// cramped_room, player 0 holding an onion: at t=0 the pot is empty, at t=1 it is cooking.
fn onion_states() -> (Layout, State, State) {
    let l = Layout::builtin("cramped_room").unwrap();
    let mut s0 = l.start_state();
    s0.players[0].held = Some(proagent_overcooked::env::Object::ONION);
    let mut s1 = s0.clone();
    s1.timestep = 1;
    let pot = l.index(l.pots[0]).unwrap();
    let soup =
        proagent_overcooked::env::Soup::with_ingredients(&[proagent_overcooked::env::Ingredient::Onion; 3], 1, 20)
            .unwrap();
    s1.objects[pot] = Some(proagent_overcooked::env::Object::Soup(soup));
    (l, s0, s1)
}

#[test]
fn paper_revalidates_the_running_skill_every_step_and_replans_with_the_explanation() {
    let (l, s0, s1) = onion_states();
    let mut agent = ProAgent::new(paper(onion_model("Analysis: fill the pot.\nPlan for Player 0: put_onion_in_pot()")));
    agent.reset(&game(&l), 0, 1);
    act_on(&mut agent, &l, &s0, 0);
    assert_eq!(kinds(&agent), ["planner"]);
    // Midway, the pot starts cooking: the running put_onion_in_pot() is no longer valid.
    act_on(&mut agent, &l, &s1, 0);
    assert_eq!(kinds(&agent), ["planner", "explainer", "planner"]);
    let ex = agent.exchanges();
    // A normal call carries no history: the knowledge and the scene.
    assert_eq!(ex[0].request.messages.len(), 2);
    // The explainer: one call, system + the scene and the failed skill.
    let ask = &ex[1].request.messages;
    assert_eq!(ask.len(), 2);
    assert!(ask[1].content.contains("Failed skill for <Player 0>: put_onion_in_pot()."), "{}", ask[1].content);
    assert!(ask[1].content.starts_with("Scene 1:"));
    // Its reply names no condition; it still goes, word for word, into the re-plan (K = 1).
    let replan = &ex[2].request.messages;
    assert_eq!(replan.len(), 3);
    assert_eq!(replan[1].content, EXPLANATION);
    assert!(replan[2].content.starts_with("Scene 1:") && replan[2].content.contains("give a new plan"));
    // The planner stops at "Scene"; the explainer does not.
    assert_eq!(ex[0].request.sampling.stop, ["Scene"]);
    assert!(ex[1].request.sampling.stop.is_empty());
    let m = agent.agent_metrics();
    assert_eq!((m.skills_invalidated, m.replans, m.llm_calls_verificator, m.parse_failures_verificator), (1, 1, 1, 0));
    let mem = agent.memory_entries();
    assert_eq!(mem[0].skill, Skill::PutOnionInPot);
    assert!(matches!(mem[0].outcome, EntryOutcome::Failed { .. }), "{:?}", mem[0].outcome);
    assert_eq!(mem.last().unwrap().skill, Skill::PlaceObjOnCounter);

    // The default preset checks only when planning: the controller drops the skill and the
    // planner is asked again, without an explainer.
    let mut agent = ProAgent::new(ProAgentConfig::new(onion_model(
        "Analysis: fill the pot.\nIntention for Player 1: \"pickup(onion)\".\nPlan for Player 0: put_onion_in_pot()",
    )));
    agent.reset(&game(&l), 0, 1);
    act_on(&mut agent, &l, &s0, 0);
    act_on(&mut agent, &l, &s1, 0);
    assert_eq!(kinds(&agent), ["planner", "planner"]);
    assert_eq!(agent.agent_metrics().skills_invalidated, 0);
}

#[test]
fn paper_history_is_the_last_k_dialogue_messages_and_only_on_replans() {
    let (l, s0, s1) = onion_states();
    let run = |first: &'static str| {
        let mut cfg = paper(onion_model(first));
        cfg.settings.memory_k = 3;
        let mut agent = ProAgent::new(cfg);
        agent.reset(&game(&l), 0, 1);
        act_on(&mut agent, &l, &s0, 0);
        act_on(&mut agent, &l, &s1, 0);
        let replan = agent.exchanges()[2].request.messages.clone();
        (agent, replan)
    };
    // The dialogue before the re-plan: scene, reply, the chosen skill, the explanation.
    let (agent, replan) = run("Analysis: fill the pot.\nPlan for Player 0: put_onion_in_pot()");
    let roles: Vec<Role> = replan.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::Assistant, Role::Assistant, Role::User, Role::User]);
    assert_eq!(replan[1].content, "Analysis: fill the pot.\nPlan for Player 0: put_onion_in_pot()");
    assert_eq!(replan[2].content, "put_onion_in_pot()");
    assert_eq!(replan[3].content, EXPLANATION);
    assert_eq!(agent.exchanges()[0].request.messages.len(), 2);
    // A reply that mentions "wait" is left out of the history (with its scene).
    let (_, replan) = run("Analysis: no need to wait.\nPlan for Player 0: put_onion_in_pot()");
    let roles: Vec<Role> = replan.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::Assistant, Role::User, Role::User]);
    assert_eq!(replan[1].content, "put_onion_in_pot()");
}

const DELIVER: &str = "Analysis: serve.\nPlan for Player 0: \"deliver_soup()\"";

#[test]
fn paper_forces_wait_after_four_replans_whatever_the_fourth_says() {
    for fourth_valid in [false, true] {
        let planner_calls = Arc::new(Mutex::new(0usize));
        let counter = Arc::clone(&planner_calls);
        let model = FnModel::new(move |req, _| {
            let last = &req.messages.last().unwrap().content;
            if last.contains("Failed skill for") {
                return Ok("holding_soup fails: no soup in hand.".into());
            }
            let mut c = counter.lock().unwrap();
            *c += 1;
            // Planner call 5 is the fourth re-plan.
            Ok(if *c == 5 && fourth_valid { good_reply(req).replace("Player 1", "Player 9") } else { DELIVER.into() })
        });
        let mut agent = ProAgent::new(paper(model));
        drive("cramped_room", &mut agent, "stay", 0, 0, 1);
        let k = kinds(&agent);
        assert_eq!(k.iter().filter(|x| **x == "planner").count(), 5, "{k:?}");
        assert_eq!(k.iter().filter(|x| **x == "explainer").count(), 4, "{k:?}");
        let m = agent.agent_metrics();
        assert_eq!((m.replans, m.fallbacks), (4, 1));
        let last = agent.memory_entries().pop().unwrap();
        assert_eq!(last.skill, Skill::Wait(1), "fourth re-plan valid: {fourth_valid}");
        assert!(matches!(last.outcome, EntryOutcome::Fallback { .. }), "{:?}", last.outcome);
        // Each re-plan carries the latest explanation (K = 1).
        for e in agent.exchanges().iter().filter(|e| e.kind == "planner").skip(1) {
            assert_eq!(e.request.messages[1].content, "holding_soup fails: no soup in hand.");
        }
    }
}

/// Runs `steps` steps with a stay partner; returns the agent's actions and the states before them.
fn run_actions(layout: &str, agent: &mut ProAgent, seat: usize, seed: u64, steps: u32) -> Vec<(State, Action)> {
    let l = Layout::builtin(layout).unwrap();
    agent.reset(&game(&l), seat, seed);
    let mut state = l.start_state();
    let mut out = Vec::new();
    for _ in 0..steps {
        let a = act_on(agent, &l, &state, seat);
        out.push((state.clone(), a));
        let mut joint = [Action::Stay; 2];
        joint[seat] = a;
        l.step(&mut state, joint);
    }
    out
}

#[test]
fn paper_waits_take_random_valid_moves_at_least_three_steps_on_forced_coordination() {
    let waiter =
        |me: usize| FnModel::new(move |_, _| Ok(format!("Analysis: nothing yet.\nPlan for Player {me}: wait(1)")));
    // forced_coordination, seat 1: the left strip (1,1)-(1,3).
    let mut agent = ProAgent::new(paper(waiter(1)));
    let steps = run_actions("forced_coordination", &mut agent, 1, 4, 60);
    let l = Layout::builtin("forced_coordination").unwrap();
    let skills: Vec<Skill> = agent.memory_entries().iter().map(|e| e.skill).collect();
    assert!(skills.iter().all(|&s| s == Skill::Wait(3)), "{skills:?}");
    assert_eq!(agent.agent_metrics().llm_calls, 20, "60 steps of wait(3)");
    let mut moved = 0;
    for (s, a) in &steps {
        match a.dir() {
            Some(d) => {
                let to = s.players[1].pos.step(d).unwrap();
                assert!(l.is_walkable(to), "{a:?} from {:?}", s.players[1].pos);
                moved += 1;
            }
            None => assert_eq!(*a, Action::Stay),
        }
    }
    assert!(moved > 10 && moved < 60, "random moves, not only stays: {moved}");
    let again = run_actions("forced_coordination", &mut ProAgent::new(paper(waiter(1))), 1, 4, 60);
    assert_eq!(steps, again, "seeded");
    // Elsewhere no minimum: wait(1) is one step.
    let mut agent = ProAgent::new(paper(waiter(0)));
    run_actions("cramped_room", &mut agent, 0, 4, 10);
    assert!(agent.memory_entries().iter().all(|e| e.skill == Skill::Wait(1)));
    // The default preset has no minimum wait.
    let mut cfg = ProAgentConfig::new(waiter(1));
    cfg.settings.intention = false;
    let mut agent = ProAgent::new(cfg);
    run_actions("forced_coordination", &mut agent, 1, 4, 30);
    assert!(agent.memory_entries().iter().all(|e| e.skill == Skill::Wait(1)));
}

#[test]
fn paper_unreadable_replies_wait_one_step_silently() {
    const PROSE: &str = "<think>hmm</think>I would rather cook something nice.";
    let prose = FnModel::new(|_, _| Ok(PROSE.into()));
    let mut agent = ProAgent::new(paper(prose));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    assert_eq!(kinds(&agent), ["planner"], "no re-plan, no explainer");
    let m = agent.agent_metrics();
    assert_eq!((m.parse_failures, m.replans, m.fallbacks), (1, 0, 0));
    let ex = &agent.exchanges()[0];
    assert_eq!(ex.reply_text(), Some(PROSE));
    assert!(ex.parse_error.as_deref().unwrap().contains("waiting instead"), "{:?}", ex.parse_error);
    assert_eq!(agent.memory_entries()[0].skill, Skill::Wait(1));
    // The model is not told: the next call (after the one-step wait) has no history either.
    drive("cramped_room", &mut agent, "stay", 0, 0, 3);
    assert!(agent.exchanges().iter().all(|e| e.request.messages.len() == 2));
    // On forced_coordination the wait lasts three steps.
    let mut agent = ProAgent::new(paper(FnModel::new(|_, _| Ok(PROSE.into()))));
    drive("forced_coordination", &mut agent, "stay", 0, 0, 1);
    assert_eq!(agent.memory_entries()[0].skill, Skill::Wait(3));
    // A bare "wait" is wait(1) and no parse failure.
    let bare = FnModel::new(|_, _| Ok("Analysis: nothing to do.\nPlan for Player 0: \"wait\"".into()));
    let mut agent = ProAgent::new(paper(bare));
    drive("cramped_room", &mut agent, "stay", 0, 0, 1);
    assert_eq!(agent.memory_entries()[0].skill, Skill::Wait(1));
    assert_eq!(agent.agent_metrics().parse_failures, 0);
}

#[test]
fn paper_preset_plays_every_layout_and_seat_with_the_scripted_model() {
    for layout in
        ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
    {
        for seat in 0..2 {
            let sink: ExchangeSink = Default::default();
            let mut cfg = paper(Arc::new(ScriptedModel::new()));
            cfg.exchange_sink = Some(Arc::clone(&sink));
            let r = episode(layout, cfg, "greedy", seat, 2, 200);
            let m = &r.metrics[seat];
            assert_eq!(m["parse_failures"], 0, "{layout} {seat}: {m}");
            assert!(m["llm_calls"].as_u64().unwrap() > 0);
            assert!(m["belief_accuracy"].is_null(), "no intention in the paper preset: {m}");
            if layout != "forced_coordination" {
                assert!(r.score >= 40, "{layout} seat {seat}: {}", r.score);
            }
            for e in sink.lock().unwrap().iter() {
                let user = &e.request.messages.last().unwrap().content;
                assert!(!user.contains("Your recent decisions") && !user.contains("Last observed skill"), "{user}");
                match e.kind.as_str() {
                    "planner" if user.contains("give a new plan") => assert!(e.request.messages.len() >= 3),
                    "planner" => assert_eq!(e.request.messages.len(), 2, "{layout} {seat}"),
                    "explainer" => assert_eq!(e.request.messages.len(), 2),
                    k => panic!("unexpected exchange kind {k}"),
                }
            }
        }
    }
    // The same seed gives the same episode.
    let a = episode("coordination_ring", paper(Arc::new(ScriptedModel::new())), "greedy", 1, 7, 120);
    let b = episode("coordination_ring", paper(Arc::new(ScriptedModel::new())), "greedy", 1, 7, 120);
    assert_eq!(trajectory(&a), trajectory(&b));
}

/// Every "Time left: N" of a text, as signed numbers.
fn times_left(text: &str) -> Vec<i64> {
    text.match_indices("Time left: ")
        .filter_map(|(i, k)| {
            let rest = &text[i + k.len()..];
            let end = rest.find(|c: char| !(c == '-' || c.is_ascii_digit())).unwrap_or(rest.len());
            rest[..end].parse().ok()
        })
        .collect()
}

#[test]
fn no_prompt_shows_a_negative_time_for_short_horizons() {
    for preset in Preset::ALL {
        for (name, _) in proagent_overcooked::env::layout::BUILTIN {
            let l = Layout::builtin(name).unwrap();
            let k = Kitchen::new(Arc::new(l.clone()));
            let info = SceneInfo::new(&l, &k.motion);
            for seat in 0..2 {
                for horizon in [1, 7, 30, 60, 139, 400] {
                    let mut cfg = scripted_cfg().with_preset(preset);
                    cfg.horizon = horizon;
                    let g = OvercookedGrounding;
                    let ep = g.begin(&game(&l), seat, 0, &cfg);
                    let dir = Family::Classic.template_dir(preset).unwrap();
                    let (system, checker) = crate::agent::render_systems(&g, &ep, &cfg, dir, seat).unwrap();
                    let mut state = l.start_state();
                    state.timestep = horizon.saturating_sub(1);
                    let scene = scene_text(cfg.settings.align, &info, &l, &k.motion, &state, seat, horizon);
                    for text in [&system, &checker, &scene] {
                        for n in times_left(text) {
                            assert!((0..=horizon as i64).contains(&n), "{preset:?} {name} {seat} h={horizon}: {n}");
                        }
                    }
                    assert!(!times_left(&system).is_empty(), "the demos state times");
                }
            }
        }
    }
    // The 60-step runs of the committed transcripts: through a real episode's prompts too.
    let sink: ExchangeSink = Default::default();
    let mut cfg = scripted_cfg();
    cfg.exchange_sink = Some(Arc::clone(&sink));
    episode("forced_coordination", cfg, "greedy", 0, 0, 60);
    for e in sink.lock().unwrap().iter() {
        for m in &e.request.messages {
            assert!(times_left(&m.content).iter().all(|&n| (0..=60).contains(&n)), "{}", m.content);
        }
    }
}

#[test]
fn paper_prompts_check_for_every_layout() {
    let cfg = scripted_cfg().with_preset(Preset::Paper);
    for (name, _) in proagent_overcooked::env::layout::BUILTIN {
        let l = Layout::builtin(name).unwrap();
        for seat in 0..2 {
            ProAgent::check_prompts(&cfg, &game(&l), seat).unwrap();
        }
    }
}

#[test]
fn paper_belief_revision_only_with_an_intention() {
    let users = |intention: bool, belief: BeliefMode| {
        let mut cfg = paper(Arc::new(ScriptedModel::new()));
        cfg.settings.intention = intention;
        cfg.settings.belief = belief;
        let mut agent = ProAgent::new(cfg);
        drive("cramped_room", &mut agent, "greedy", 0, 2, 120);
        let texts: Vec<String> = agent
            .exchanges()
            .iter()
            .filter(|e| e.kind == "planner")
            .map(|e| e.request.messages[1].content.clone())
            .collect();
        (texts.join("\n"), agent.agent_metrics().clone())
    };
    let (replace, m) = users(true, BeliefMode::Replace);
    assert!(m.belief_predictions > 0);
    assert!(replace.contains("After timestep ") && replace.contains("<Player 1> did "), "{replace}");
    let (annotate, _) = users(true, BeliefMode::Annotate);
    assert!(annotate.contains("you expected <Player 1> to do "), "{annotate}");
    // The published level (analysis + plan): no intention, so nothing to revise.
    let (plain, m) = users(false, BeliefMode::Replace);
    assert!(!plain.contains("After timestep") && !plain.contains("you expected"));
    assert_eq!(m.belief_predictions, 0);
}

/// The planner is game-free: its prompt and reply modules name no game (a game's skills
/// reach it only through its grounding).
#[test]
fn the_planner_names_no_game() {
    let files = [
        ("planner/mod.rs", include_str!("planner/mod.rs")),
        ("planner/prompt.rs", include_str!("planner/prompt.rs")),
        ("planner/reply.rs", include_str!("planner/reply.rs")),
    ];
    for (name, text) in files {
        let text = text.to_ascii_lowercase();
        for game in ["overcooked", concat!("han", "abi"), "collab", "capture", "escape", "proagent_overcooked"] {
            assert!(!text.contains(game), "{name} names {game}");
        }
        // Nor does its code use a game's words (its skills and objects); comments may use
        // the kitchen's skills as examples.
        for (i, line) in text.split("#[cfg(test)]").next().unwrap_or(&text).lines().enumerate() {
            let line = line.trim_start();
            for word in ["onion", "tomato", "pickup", "soup", "dish"] {
                assert!(line.starts_with("//") || !line.contains(word), "{name}:{}: {word}: {line}", i + 1);
            }
        }
    }
}
