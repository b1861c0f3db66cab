use super::*;
use crate::agent::align::AlignStyle;
use crate::agent::scripted_model::ScriptedModel;
use crate::env::Layout;
use crate::llm::{ChatResponse, Fault, LanguageModel, LlmError, Usage};
use crate::runner::seats::build_partner as build;
use crate::runner::{EpisodeOptions, EpisodeResult, play_episode};
use std::sync::Mutex;

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
        (self.f)(request, n).map(|t| ChatResponse::simple(t, Usage { prompt_tokens: 10, completion_tokens: 2 }))
    }
}

fn scripted_cfg() -> ProAgentConfig {
    ProAgentConfig::new(Arc::new(ScriptedModel::new()))
}

fn episode(layout: &str, cfg: ProAgentConfig, partner: &str, seat: usize, seed: u64, horizon: u32) -> EpisodeResult {
    let k = Kitchen::shared(Layout::builtin(layout).unwrap());
    let mut cfg = cfg;
    cfg.horizon = horizon;
    let agent: Box<dyn Agent> = Box::new(ProAgent::new(cfg).with_kitchen(Arc::clone(&k)));
    let other = build(partner, &k).unwrap();
    let agents = if seat == 0 { [agent, other] } else { [other, agent] };
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(play_episode(Arc::clone(&k.layout), agents, seed, horizon, EpisodeOptions::default())).unwrap()
}

/// Runs the agent directly (not boxed) so its exchange log can be inspected.
fn drive(layout: &str, agent: &mut ProAgent, partner: &str, seat: usize, seed: u64, steps: u32) -> u32 {
    let k = Kitchen::shared(Layout::builtin(layout).unwrap());
    let mut other = build(partner, &k).unwrap();
    let layout = Arc::clone(&k.layout);
    agent.reset(&layout, seat, seed);
    other.reset(&layout, 1 - seat, seed + 1);
    let mut state = layout.start_state();
    let mut last_joint = None;
    let mut last_events = [None, None];
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut score = 0;
    for _ in 0..steps {
        let mut joint = [Action::Stay; 2];
        for (i, slot) in joint.iter_mut().enumerate() {
            let obs = Observation { layout: &layout, state: &state, seat: i, last_joint, last_events };
            *slot = if i == seat { rt.block_on(agent.act(&obs)) } else { rt.block_on(other.act(&obs)) }.unwrap();
        }
        let out = layout.step(&mut state, joint);
        score += out.reward;
        last_joint = Some(joint);
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
        assert_eq!(a.to_trajectory_json(), b.to_trajectory_json());
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
    agent.reset(&k.layout, 0, 0);
    let state = k.layout.start_state();
    let obs = Observation { layout: &k.layout, state: &state, seat: 0, last_joint: None, last_events: [None, None] };
    tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(agent.act(&obs))
}

#[test]
fn a_refused_configuration_stops_the_agent_with_the_typed_error() {
    let sink: ExchangeSink = Arc::default();
    let mut cfg = ProAgentConfig::new(failing(refused()));
    cfg.exchange_sink = Some(Arc::clone(&sink));
    let mut agent = ProAgent::new(cfg);
    let AgentError::ModelUnusable(e) = first_act(&mut agent).unwrap_err();
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
    let play = |model: Arc<FnModel>, limit: Option<u64>| {
        let agent: Box<dyn Agent> = Box::new(ProAgent::new(ProAgentConfig::new(model)).with_kitchen(Arc::clone(&k)));
        let options = EpisodeOptions { max_llm_failures: limit, ..EpisodeOptions::default() };
        rt.block_on(play_episode(Arc::clone(&k.layout), [agent, build("greedy", &k).unwrap()], 0, 20, options))
    };
    // Default limit 0: the first failed call ends the episode, before the step is played.
    let f = play(failing(unreachable()), Some(0)).unwrap_err();
    assert!(matches!(f.abort, crate::runner::EpisodeAbort::LlmFailures { t: 0, failures: 1, limit: 0, .. }), "{f}");
    assert!(!f.abort.stops_run());
    assert!(f.partial.steps.is_empty());
    let s = f.summary_json(0);
    assert_eq!(
        (s["failed"].as_bool(), s["llm_failures"].as_u64(), s["failed_at"].as_u64()),
        (Some(true), Some(1), Some(0))
    );
    assert!(s["error"].as_str().unwrap().contains("refused"), "{s}");
    // Limit 3: the fourth failed call (one per fallback wait) ends it, mid-episode.
    let f = play(failing(unreachable()), Some(3)).unwrap_err();
    assert!(matches!(f.abort, crate::runner::EpisodeAbort::LlmFailures { failures: 4, limit: 3, .. }), "{f}");
    assert_eq!(f.partial.steps.len(), 3);
    // No limit: the old degradation (every call failed, the episode is played out).
    let r = play(failing(unreachable()), None).unwrap();
    assert_eq!((r.steps.len(), r.llm[0].failures), (20, 20));
    // A refusal stops the episode and the run, whatever the limit.
    let f = play(failing(refused()), None).unwrap_err();
    assert!(matches!(f.abort, crate::runner::EpisodeAbort::Agent { t: 0, player: 0, .. }), "{f}");
    assert!(f.abort.stops_run());
    assert!(f.to_string().contains("HTTP 401 Unauthorized"), "{f}");
}

#[test]
fn absurd_token_counts_saturate_in_the_agent() {
    struct Huge;
    #[async_trait]
    impl LanguageModel for Huge {
        fn name(&self) -> String {
            "huge".into()
        }
        async fn chat(&self, r: &ChatRequest) -> Result<ChatResponse, LlmError> {
            let text = ScriptedModel::new().chat(r).await?.text;
            Ok(ChatResponse::simple(text, Usage { prompt_tokens: u64::MAX, completion_tokens: u64::MAX - 1 }))
        }
    }
    let mut agent = ProAgent::new(ProAgentConfig::new(Arc::new(Huge)));
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
    for (name, _) in crate::env::layout::BUILTIN {
        let l = Layout::builtin(name).unwrap();
        for seat in 0..2 {
            ProAgent::check_prompts(&cfg, &l, seat).unwrap();
        }
    }
}
