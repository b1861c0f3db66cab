//! The one LLM-Coordination loop driven end to end with the built-in stand-ins and with
//! canned models: what the switches change in the exchanges, replies that name nothing,
//! determinism.

use super::capture::CaptureLlmco;
use super::config::LlmcoConfig;
use super::escape::EscapeLlmco;
use super::grounding::LlmcoGrounding;
use super::hanabi::HanabiLlmco;
use super::settings::LlmcoSettings;
use super::{LlmCo, reply};
use crate::log::{ExchangeSink, drain_sink};
use async_trait::async_trait;
use proagent_core::episode::{EpisodeOptions, EpisodeResult, play_episode};
use proagent_core::{Game, Seat};
use proagent_llm::record::Exchange;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Usage};
use std::sync::Arc;

fn run<Gr: LlmcoGrounding + Default>(
    game: Gr::Game,
    settings: [LlmcoSettings; 2],
    model: Option<Arc<dyn LanguageModel>>,
    seed: u64,
) -> (EpisodeResult<Gr::Game>, Vec<Exchange>) {
    let (r, ex) = try_run::<Gr>(game, settings, model, seed, EpisodeOptions::default());
    (r.ok().unwrap(), ex)
}

type Played<G> = Result<EpisodeResult<G>, proagent_core::episode::EpisodeFailed<G>>;

fn try_run<Gr: LlmcoGrounding + Default>(
    game: Gr::Game,
    settings: [LlmcoSettings; 2],
    model: Option<Arc<dyn LanguageModel>>,
    seed: u64,
    options: EpisodeOptions<'_, Gr::Game>,
) -> (Played<Gr::Game>, Vec<Exchange>) {
    let sink: ExchangeSink = Arc::default();
    let seats: Vec<Box<dyn Seat<Gr::Game>>> = settings
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let mut cfg = LlmcoConfig::new(model.clone().unwrap_or_else(|| Gr::default().scripted_model()));
            cfg.settings = s;
            if i == 0 {
                cfg.exchange_sink = Some(Arc::clone(&sink));
            }
            Box::new(LlmCo::<Gr>::new(cfg)) as Box<dyn Seat<Gr::Game>>
        })
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let r = rt.block_on(play_episode(Arc::new(game), seats, seed, options));
    (r, drain_sink(&sink))
}

fn kinds(ex: &[Exchange]) -> Vec<&str> {
    let mut k: Vec<&str> = ex.iter().map(|e| e.kind.as_str()).collect();
    k.sort_unstable();
    k.dedup();
    k
}

fn with(tom: Option<bool>, verify: Option<bool>) -> LlmcoSettings {
    LlmcoSettings { tom, verify, ..LlmcoSettings::default() }
}

fn hanabi() -> proagent_hanabi::Hanabi {
    proagent_hanabi::Hanabi::new(2).unwrap()
}

#[test]
fn the_paper_defaults_run_tom_and_verification_on_hanabi() {
    let (r, ex) = run::<HanabiLlmco>(hanabi(), [with(None, None), with(None, None)], None, 0);
    let k = kinds(&ex);
    assert!(k.contains(&"tom") && k.contains(&"action") && k.contains(&"verify"), "{k:?}");
    assert!(r.tally.cards_played > 0, "the stand-ins play cards");
    // Every ToM request asks the ToM question last; no action request does. (The default
    // preset's game description says how to answer every step, so each request carries it.)
    for e in &ex {
        let text: String = e.request.messages.iter().map(|m| m.content.as_str()).collect();
        let last = e.request.messages.last().map(|m| m.content.as_str()).unwrap_or("");
        match e.kind.as_str() {
            "tom" => assert!(text.contains("Theory of Mind") && last.contains("Theory of Mind question:"), "{text}"),
            "verify" => {
                assert!(text.contains("Verification: Okay") && last.contains("Verification question:"), "{text}")
            }
            _ => assert!(!last.contains("Theory of Mind")),
        }
    }
}

/// The requests of each decision at time `t`, by kind (the first of each kind).
fn by_decision(ex: &[Exchange]) -> std::collections::BTreeMap<u32, std::collections::BTreeMap<&str, &Exchange>> {
    let mut d: std::collections::BTreeMap<u32, std::collections::BTreeMap<&str, &Exchange>> = Default::default();
    for e in ex {
        d.entry(e.t).or_default().entry(e.kind.as_str()).or_insert(e);
    }
    d
}

#[test]
fn the_default_preset_sends_one_decisions_steps_the_same_beginning_and_the_paper_preset_does_not() {
    let (_, ex) = run::<HanabiLlmco>(hanabi(), [with(None, None), with(None, None)], None, 0);
    let mut checked = 0;
    for (t, kinds) in by_decision(&ex) {
        let (Some(tom), Some(action), Some(verify)) = (kinds.get("tom"), kinds.get("action"), kinds.get("verify"))
        else {
            continue;
        };
        let m = |e: &Exchange| e.request.messages.clone();
        // System, game description and "Got it!": the same three messages for every step.
        assert_eq!(m(tom)[..3], m(action)[..3], "t={t}");
        assert_eq!(m(tom)[..3], m(verify)[..3], "t={t}");
        // The last message: the decision's one state message, then the step's question.
        let last = |e: &Exchange| e.request.messages[3].content.clone();
        let tom_last = last(tom);
        let (turn, _) = tom_last.rsplit_once("\n\nTheory of Mind question:").unwrap_or_else(|| panic!("{tom_last}"));
        assert!(turn.starts_with("Available actions:\n") && turn.contains("My action history") || t == 0, "{turn}");
        for e in [action, verify] {
            assert!(last(e).starts_with(&format!("{turn}\n\n")), "t={t}: {}\n---\n{turn}", last(e));
        }
        checked += 1;
    }
    assert!(checked > 5, "{checked} decisions with all three steps");
    // The paper preset: each step its own primer, as the released agent sends them.
    let paper = LlmcoSettings { preset: super::settings::LlmcoPreset::Paper, ..LlmcoSettings::default() };
    let (_, ex) = run::<HanabiLlmco>(hanabi(), [paper.clone(), paper], None, 0);
    let d = by_decision(&ex);
    let kinds = d.values().find(|k| k.len() == 3).unwrap();
    let primer = |k: &str| kinds[k].request.messages.iter().find(|m| m.role == proagent_llm::Role::User).cloned();
    assert_ne!(primer("tom"), primer("action"));
    assert_ne!(primer("verify"), primer("action"));
}

#[test]
fn switching_tom_and_verification_off_removes_their_exchanges() {
    let (_, full) = run::<HanabiLlmco>(hanabi(), [with(None, None), with(None, None)], None, 1);
    let (_, no_tom) = run::<HanabiLlmco>(hanabi(), [with(Some(false), None), with(None, None)], None, 1);
    let (_, neither) = run::<HanabiLlmco>(hanabi(), [with(Some(false), Some(false)), with(None, None)], None, 1);
    assert!(kinds(&full).contains(&"tom"));
    assert!(!kinds(&no_tom).contains(&"tom") && kinds(&no_tom).contains(&"verify"), "{:?}", kinds(&no_tom));
    assert_eq!(kinds(&neither), vec!["action"]);
    // Without the ToM step, the action request states the partner's last action plainly.
    let plain = no_tom.iter().filter(|e| e.kind == "action").any(|e| {
        e.request
            .messages
            .last()
            .is_some_and(|m| m.content.contains("Alice's last action:") || m.content.contains("Bob's last action:"))
    });
    assert!(plain);
    // CollabCapture: the paper ran ToM on; off, no ToM exchange, and never a verification.
    let g = || proagent_collab::Capture::builtin("capture:2").unwrap();
    let (_, on) = run::<CaptureLlmco>(g(), [with(None, None), with(None, None)], None, 0);
    let (_, off) = run::<CaptureLlmco>(g(), [with(Some(false), None), with(None, None)], None, 0);
    assert!(!kinds(&on).contains(&"verify"));
    assert!(kinds(&on).contains(&"tom"), "the next-room prediction runs by default: {:?}", kinds(&on));
    assert!(!kinds(&off).contains(&"tom"));
    // It asks for the partner's next room before the action is chosen.
    let tom = on.iter().find(|e| e.kind == "tom").map(|e| format!("{:?}", e.request.messages)).unwrap_or_default();
    assert!(tom.contains("Partner Next Room:"), "{tom}");
}

#[test]
fn the_same_seed_gives_the_same_episode_and_exchanges() {
    let g = || proagent_collab::Escape::builtin("escape:1").unwrap();
    let (a, ea) = run::<EscapeLlmco>(g(), [with(None, None), with(None, None)], None, 3);
    let (b, eb) = run::<EscapeLlmco>(g(), [with(None, None), with(None, None)], None, 3);
    assert_eq!(a.score, b.score);
    assert_eq!(a.steps.len(), b.steps.len());
    let req = |e: &[Exchange]| e.iter().map(|x| format!("{:?}", x.request.messages)).collect::<Vec<_>>();
    assert_eq!(req(&ea), req(&eb));
}

/// A model that answers every request with the same text.
struct Canned(&'static str);

#[async_trait]
impl LanguageModel for Canned {
    fn name(&self) -> String {
        "canned".into()
    }
    async fn chat(&self, _request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(ChatResponse::simple(self.0, Usage::default()))
    }
}

#[test]
fn a_reply_naming_no_action_falls_back_to_a_legal_move_and_the_error_quotes_it() {
    let model: Arc<dyn LanguageModel> = Arc::new(Canned("I would rather not say. Verification: Okay"));
    let g = proagent_collab::Capture::builtin("capture:1").unwrap();
    let off = [with(Some(false), None), with(Some(false), None)];
    // By default an episode whose replies name nothing is a failure, not a score.
    let (failed, _) =
        try_run::<CaptureLlmco>(g.clone(), off.clone(), Some(model.clone()), 0, EpisodeOptions::default());
    assert!(failed.is_err());
    let lenient = EpisodeOptions { max_parse_failure_share: None, ..EpisodeOptions::default() };
    let (r, ex) = try_run::<CaptureLlmco>(g, off, Some(model), 0, lenient);
    let r = r.ok().unwrap();
    assert!(!r.steps.is_empty());
    for s in &r.steps {
        for (p, a) in s.actions.iter().enumerate() {
            assert!(a.is_some(), "player {p} moved");
        }
    }
    let e = ex.iter().find(|e| e.kind == "action").unwrap();
    let why = e.parse_error.as_deref().unwrap_or_default();
    assert!(why.contains("no \"Action:\" line") && why.contains("I would rather not say"), "{why}");
    assert!(r.llm[0].parse_failures > 0);
}

/// The model use of an episode that must have failed on its unread decisions.
fn unread_failure<G: Game>(what: &str, played: Played<G>) -> proagent_core::LlmUsage {
    let f = match played {
        Ok(r) => panic!("{what}: scored {}", r.score),
        Err(f) => f,
    };
    let u = f.partial.llm_total();
    assert!(u.decisions > 0 && u.decisions_unread == u.decisions, "{what}: {u:?}");
    assert!(matches!(f.abort, proagent_core::EpisodeAbort::ParseFailures { .. }), "{what}: {}", f.abort);
    assert!(f.abort.to_string().contains("decisions (100%) named no usable action"), "{what}: {}", f.abort);
    u
}

/// Issue 37: with the Theory-of-Mind step on (the paper's choice on Hanabi and the maze
/// games), a model answering only prose made one ToM and one unread action call per
/// decision, exactly half of the calls, and was scored. Only decisions count now.
#[test]
fn prose_only_replies_fail_the_episode_whatever_the_helper_steps() {
    let prose: Arc<dyn LanguageModel> = Arc::new(Canned("I am thinking about what my partner needs."));
    let both = |tom, verify| [with(tom, verify), with(tom, verify)];
    let (h, _) = try_run::<HanabiLlmco>(hanabi(), both(None, None), Some(prose.clone()), 0, EpisodeOptions::default());
    let u = unread_failure("hanabi", h);
    assert_eq!(u.calls, 2 * u.decisions, "one ToM call per decision: {u:?}");
    let g = proagent_collab::Escape::builtin("escape:1").unwrap();
    let (e, _) = try_run::<EscapeLlmco>(g, both(None, None), Some(prose.clone()), 0, EpisodeOptions::default());
    unread_failure("escape", e);
    let g = proagent_collab::Capture::builtin("capture:1").unwrap();
    let (c, _) = try_run::<CaptureLlmco>(g, both(Some(true), Some(true)), Some(prose), 0, EpisodeOptions::default());
    unread_failure("capture", c);
}

#[test]
fn a_reply_naming_an_offered_action_by_letter_or_words_is_played() {
    // "Action: A" on CollabCapture is the first option offered (staying is always last).
    let model: Arc<dyn LanguageModel> = Arc::new(Canned("Explanation: go.\nAction: A"));
    let g = proagent_collab::Capture::builtin("capture:1").unwrap();
    let (r, ex) = run::<CaptureLlmco>(g, [with(Some(false), None), with(Some(false), None)], Some(model), 0);
    assert!(ex.iter().all(|e| e.parse_error.is_none()), "{:?}", ex.iter().find_map(|e| e.parse_error.clone()));
    assert_eq!(r.llm[0].parse_failures, 0);
}

#[test]
fn reply_parse_edge_cases() {
    let opts: Vec<String> =
        ["Move to room 2", "Move to room 6", "Press the button in room 1", "Stay in room 1"].map(String::from).into();
    let pick = |reply: &str| reply::action_text(reply).and_then(|t| reply::match_option(&t, &opts));
    assert_eq!(pick("Explanation: close in.\nAction: B. Move to room 6"), Some(1));
    assert_eq!(pick("action: move to ROOM 2."), Some(0));
    assert_eq!(pick("Action: **C**"), Some(2));
    assert_eq!(pick("Action: Stay"), Some(3), "the one option that starts so");
    assert_eq!(pick("Action: Move to room"), None, "two options start so");
    assert_eq!(pick("Action:"), None);
    assert_eq!(pick(""), None);
    assert_eq!(pick("Move to room 2"), None, "no Action: line");
    assert_eq!(pick("Action: Z"), None, "a letter no option has");
    assert_eq!(pick("Action: Fly to room 9"), None);
    assert_eq!(pick("Action: Bewegen 🚪 room 6"), Some(1), "shares the most words");
    assert_eq!(reply::verdict("...\nVerification: Not Okay"), Some(false));
    assert_eq!(reply::verdict("Verification: Okay."), Some(true));
    assert_eq!(reply::verdict("looks fine"), None);
}

#[test]
fn prompts_render_for_every_game_and_seat() {
    let cfg = LlmcoConfig::new(HanabiLlmco.scripted_model());
    for players in 2..=5 {
        let g = proagent_hanabi::Hanabi::new(players).unwrap();
        for seat in 0..players {
            super::check_prompts::<HanabiLlmco>(&cfg, &g, seat).unwrap();
        }
    }
    for name in ["capture:1", "capture:2", "capture:3", "capture:4"] {
        let g = proagent_collab::Capture::builtin(name).unwrap();
        super::check_prompts::<CaptureLlmco>(&cfg, &g, 1).unwrap();
        assert_eq!(g.num_players(), 2);
    }
    for name in ["escape:1", "escape:2"] {
        super::check_prompts::<EscapeLlmco>(&cfg, &proagent_collab::Escape::builtin(name).unwrap(), 0).unwrap();
    }
}

#[test]
fn the_router_takes_llmco_prompts_and_leaves_questions_quoting_the_same_rules() {
    use proagent_llm::{Message, Sampling};
    let ask = |system: &str, rules: &str| {
        let m = vec![
            Message::system(system),
            Message::user(rules),
            Message::assistant("Got it!"),
            Message::user("A. Play my Card 0\nB. Discard my Card 0"),
        ];
        super::router::game_of(&ChatRequest::new(m, Sampling::default()))
    };
    let sys = "You are a helpful assistant playing a cooperative game for a player.";
    assert_eq!(ask(sys, "The card game Hanabi, as we play it:"), Some("hanabi"));
    assert_eq!(ask(sys, "The game Collab Capture: Alice and Bob"), Some("collab_capture"));
    assert_eq!(ask(sys, "The game Collab Escape: Alice and Bob"), Some("collab_escape"));
    assert_eq!(ask(sys, "Something else"), None);
    assert_eq!(ask("Answer the multiple-choice question.", "The card game Hanabi, as we play it:"), None);
}
