//! The runner on OvercookedV2: partial view reaches no prompt, every layout and seat
//! delivers, seeds fix episodes.

use crate::games::Playable;
use crate::runner::summary::summary_json;
use proagent_agent::grounding::overcooked_v2::scripted::ScriptedV2Model;
use proagent_agent::prompts::{Family, PromptLibrary};
use proagent_agent::{OvercookedV2Grounding, ProAgent, ProAgentConfig};
use proagent_core::episode::{EpisodeOptions, EpisodeResult, play_episode};
use proagent_core::{Observation, Seat};
use proagent_overcooked_v2::env::{Layout, Settings};
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_partners::v2::ScriptedV2;
use std::sync::Arc;

type V2Seat = Box<dyn Seat<OvercookedV2>>;

pub(crate) fn proagent() -> V2Seat {
    let mut cfg = ProAgentConfig::new(Arc::new(ScriptedV2Model));
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::V2));
    Box::new(ProAgent::<OvercookedV2Grounding>::new(cfg))
}

pub(crate) fn run(layout: &str, seats: Vec<V2Seat>, seed: u64, settings: Settings) -> EpisodeResult<OvercookedV2> {
    let g = Arc::new(OvercookedV2::new(Arc::new(Layout::builtin(layout).unwrap()), settings));
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let options = EpisodeOptions { max_llm_failures: Some(0), ..EpisodeOptions::default() };
    rt.block_on(play_episode(g, seats, seed, options)).unwrap()
}

/// A model that records every request and answers like the scripted one.
#[derive(Default)]
struct Spy(std::sync::Mutex<Vec<proagent_llm::ChatRequest>>);

#[async_trait::async_trait]
impl proagent_llm::LanguageModel for Spy {
    fn name(&self) -> String {
        "spy".into()
    }
    async fn chat(&self, r: &proagent_llm::ChatRequest) -> Result<proagent_llm::ChatResponse, proagent_llm::LlmError> {
        self.0.lock().unwrap().push(r.clone());
        ScriptedV2Model.chat(r).await
    }
}

/// The prompt the agent in seat 0 sends for its first plan, with a tomato on a far counter
/// (outside a view radius of 2) and a plate on a near one (inside it); returns the prompt
/// text the model received and the two counters.
fn first_prompt(view_radius: Option<u8>) -> (String, proagent_overcooked::env::Pos, proagent_overcooked::env::Pos) {
    use proagent_overcooked_v2::env::{Item, Tile, obs};
    let layout = Layout::builtin("grounded_coord_ring").unwrap();
    let settings = Settings { view_radius, ..Settings::default() };
    let mut state = layout.start_state(&settings, &mut FirstDraw);
    let me = state.agents[0].pos;
    let narrow = Settings { view_radius: Some(2), ..Settings::default() };
    let far = layout.cells_of(Tile::Counter).find(|&p| !obs::visible(&narrow, me, p)).unwrap();
    state.items[layout.index(far).unwrap()] = Item::ingredient(1);
    let near = layout
        .cells_of(Tile::Counter)
        .find(|&p| obs::visible(&narrow, me, p) && state.items[layout.index(p).unwrap()].is_empty())
        .unwrap();
    state.items[layout.index(near).unwrap()] = Item::PLATE;
    let spy = Arc::new(Spy::default());
    let mut cfg = ProAgentConfig::new(spy.clone());
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::V2));
    let mut agent = ProAgent::<OvercookedV2Grounding>::new(cfg);
    let game = OvercookedV2::new(Arc::new(layout.clone()), settings);
    agent.reset(&game, 0, 1);
    let events = vec![None; layout.num_agents()];
    let obs = Observation { last_events: &events, ..Observation::new(&game, &state, 0, 0) };
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(agent.act(&obs)).unwrap();
    let reqs = spy.0.lock().unwrap();
    let user =
        reqs[0].messages.iter().filter(|m| m.role == proagent_llm::Role::User).map(|m| m.content.clone()).collect();
    (user, far, near)
}

struct FirstDraw;
impl proagent_overcooked_v2::env::Chance for FirstDraw {
    fn pick(&mut self, _n: usize) -> usize {
        0
    }
}

#[test]
fn an_object_outside_the_view_radius_never_reaches_the_prompt() {
    let line_of = |text: &str, pos: proagent_overcooked::env::Pos| {
        let counter = format!("Counter ({}, {})", pos.x, pos.y);
        text.lines().find(|l| l.contains(&counter)).map(String::from)
    };
    let (seen_all, far, near) = first_prompt(None);
    assert!(
        line_of(&seen_all, far).is_some_and(|l| l.contains("tomato")),
        "control: with full view the far tomato is there\n{seen_all}"
    );
    assert!(line_of(&seen_all, near).is_some_and(|l| l.contains("plate")), "{seen_all}");
    // What the model was sent with a view radius of 2: the near plate, not the far tomato.
    let (narrow, _, _) = first_prompt(Some(2));
    assert!(narrow.contains("Scene 0:"), "{narrow}");
    assert!(line_of(&narrow, far).is_none(), "{narrow}");
    assert!(!narrow.contains("tomato"), "{narrow}");
    assert!(line_of(&narrow, near).is_some_and(|l| l.contains("plate")), "the near plate is seen\n{narrow}");
}

#[test]
fn every_layout_gets_correct_dishes_from_scripted_and_proagent_in_every_seat() {
    let settings = Settings { max_steps: 250, ..Settings::default() };
    for name in Layout::builtin_names() {
        let n = Layout::builtin(name).unwrap().num_agents();
        let scripted: Vec<V2Seat> = (0..n).map(|_| Box::new(ScriptedV2::new()) as V2Seat).collect();
        let r = run(name, scripted, 3, settings.clone());
        let t = r.tally;
        assert!(t.correct > 0 && t.wrong == 0, "{name}: scripted {} correct, {} wrong", t.correct, t.wrong);
        for seat in 0..n {
            let seats: Vec<V2Seat> =
                (0..n).map(|i| if i == seat { proagent() } else { Box::new(ScriptedV2::new()) as V2Seat }).collect();
            let r = run(name, seats, 3, settings.clone());
            let t = r.tally;
            assert!(t.correct > 0, "{name}: proagent in seat {seat}: {} correct, {} wrong", t.correct, t.wrong);
            assert!(r.llm_total().calls > 0);
        }
    }
}

#[test]
fn same_seed_same_episode() {
    let settings = Settings {
        max_steps: 120,
        random_agent_positions: true,
        sample_recipe_on_delivery: true,
        ..Settings::default()
    };
    let a = run("two_rooms", vec![proagent(), Box::new(ScriptedV2::new())], 9, settings.clone());
    let b = run("two_rooms", vec![proagent(), Box::new(ScriptedV2::new())], 9, settings.clone());
    assert_eq!(a.game.trajectory_json(&a), b.game.trajectory_json(&b));
    assert_eq!(summary_json(&a, 0), summary_json(&b, 0));
    let c = run("two_rooms", vec![proagent(), Box::new(ScriptedV2::new())], 10, settings);
    assert_ne!(a.start, c.start, "random starts follow the seed");
}
