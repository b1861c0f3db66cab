//! Classic Overcooked-AI as the ProAgent loop sees it ([`OvercookedGrounding`]): the
//! scene is the full state ([`align`]: the paper's scene text or LLM-Coordination's), the
//! skills are the paper's six plus `wait(n)` (read by [`reply::parse_reply`]),
//! the validator checks their preconditions on the true state, the controller is
//! [`Controller`] (with the preset's stall rule and wait moves), a wait ends early when a
//! hand, a pot or a counter changes, and belief correction reads the teammate's skill off
//! its interact event (or, without one, off consecutive states). The templates are
//! `prompts/agent/` (default preset) and `prompts/paper/` (the published agent's).
//! The built-in stand-in model is [`scripted::ScriptedModel`].

pub mod align;
pub mod reply;
pub mod scripted;

use super::{Control, Grounding, ReplyRead, Unmet};
use crate::ProAgentConfig;
use crate::planner::PromptLevel;
use crate::preset::LoopRules;
use crate::prompts::{Family, PromptLibrary};
use align::{AlignStyle, SceneInfo, scene_text};
use minijinja::{Value, context};
use proagent_core::Observation;
use proagent_llm::LanguageModel;
use proagent_overcooked::controller::{Controller, ControllerOptions, Kitchen, SkillStatus, WaitMoves};
use proagent_overcooked::env::{Action, Event, Layout, ObjKind, Object, State, Tile};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked::skills::{Reach, Skill, check_preconditions};
pub use reply::{ClassicSkills, parse_reply};
use std::sync::Arc;

super::wait_variant_skill!(Skill);

/// Classic Overcooked's grounding (see the module documentation).
#[derive(Copy, Clone, Debug, Default)]
pub struct OvercookedGrounding;

/// What [`OvercookedGrounding`] keeps for one episode.
pub struct OvercookedEpisode {
    kitchen: Arc<Kitchen>,
    info: SceneInfo,
    me: usize,
    controller: Controller,
    /// The state of the previous step, for reading the teammate's skill without an event.
    prev_state: Option<State>,
    align: AlignStyle,
    /// The episode length the scene's "time left" counts down from.
    horizon: u32,
}

/// The knowledge library's variables for one layout and seat; the per-layout parts
/// (task, rules, strategy, demos, explainer notes) resolve in the template folder `dir`.
#[allow(clippy::too_many_arguments)]
pub fn knowledge_context(
    lib: &PromptLibrary,
    dir: &str,
    layout: &Layout,
    info: &SceneInfo,
    me: usize,
    horizon: u32,
    level: PromptLevel,
    wait_interrupt: bool,
) -> Value {
    let mate = 1 - me;
    let (my_can, my_cannot) = align::reach_lines(info, me);
    let (mate_can, mate_cannot) = align::reach_lines(info, mate);
    let rules = &layout.rules;
    let recipe = proagent_overcooked::env::Ingredient::Onion;
    let full = vec![recipe; rules.num_items];
    context! {
        me, mate,
        layout => layout.name.clone(),
        task_template => lib.resolve_in(dir, "task", &layout.name, me),
        rules_template => lib.resolve_in(dir, "rules", &layout.name, me),
        demos_template => lib.resolve_in(dir, "demos", &layout.name, me),
        strategy_template => lib.resolve_in(dir, "strategy", &layout.name, me),
        explainer_template => lib.resolve_in(dir, "explainer", &layout.name, me),
        my_can, my_cannot, mate_can, mate_cannot,
        num_items => rules.num_items,
        num_pots => layout.pots.len(),
        cook_time => rules.cook_time_for(&full),
        soup_value => rules.recipe_value(rules.num_items, 0),
        horizon,
        analysis => level.analysis,
        intention => level.intention,
        wait_interrupt,
    }
}

/// A fingerprint of what the scene text says apart from the time: both hands,
/// every pot's contents and phase, every counter's object. A wait ends early when it changes.
pub fn kitchen_signature(layout: &Layout, state: &State) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x100_0000_01b3);
    let code = |o: Option<&Object>| -> u64 {
        match o {
            None => 0,
            Some(Object::Soup(s)) => {
                let phase = if s.is_ready() {
                    2
                } else if s.is_cooking() {
                    1
                } else {
                    0
                };
                16 + s.num_onions() as u64 * 4 + s.num_tomatoes() as u64 * 32 + phase * 256
            }
            Some(o) => 1 + o.kind() as u64,
        }
    };
    for p in &state.players {
        mix(code(p.held.as_ref()));
    }
    for &p in layout.pots.iter().chain(&layout.counters) {
        mix(code(state.object_at(layout, p)));
    }
    h
}

/// The controller switches a preset's loop rules ask for.
fn controller_options(rules: &LoopRules) -> ControllerOptions {
    ControllerOptions {
        stall_limit: rules.stall_limit,
        wait_moves: if rules.random_wait_moves { WaitMoves::RandomValid } else { WaitMoves::StayOrUnjam },
    }
}

// ---- Belief correction: the teammate's skill, watched ----

/// The skill an interact event completes. Taking a plated soup from a counter
/// matches no planner skill, so it is not reported.
pub fn skill_of_event(e: &Event) -> Option<Skill> {
    match *e {
        Event::Dispense { kind: ObjKind::Onion, .. } | Event::PickupCounter { kind: ObjKind::Onion, .. } => {
            Some(Skill::PickupOnion)
        }
        Event::Dispense { kind: ObjKind::Dish, .. } | Event::PickupCounter { kind: ObjKind::Dish, .. } => {
            Some(Skill::PickupDish)
        }
        Event::PlaceCounter { .. } => Some(Skill::PlaceObjOnCounter),
        Event::Potting { kind: ObjKind::Onion, .. } => Some(Skill::PutOnionInPot),
        Event::PickupSoup { .. } => Some(Skill::FillDishWithSoup),
        Event::Deliver { .. } => Some(Skill::DeliverSoup),
        _ => None,
    }
}

/// The skill player `who` completed between two consecutive states, read from
/// what it held before and after and what it was facing. Used when no event is
/// available; agrees with [`skill_of_event`] on every step of the simulator.
pub fn skill_from_states(layout: &Layout, prev: &State, cur: &State, who: usize) -> Option<Skill> {
    let before = prev.players[who].held.map(|o| o.kind());
    let after = cur.players[who].held.map(|o| o.kind());
    if before == after {
        return None;
    }
    let p = &prev.players[who];
    let facing = p.pos.step(p.dir).map(|t| layout.tile(t));
    match (before, after) {
        (None, Some(ObjKind::Onion)) => Some(Skill::PickupOnion),
        (None, Some(ObjKind::Dish)) => Some(Skill::PickupDish),
        (Some(ObjKind::Dish), Some(ObjKind::Soup)) => Some(Skill::FillDishWithSoup),
        (Some(k), None) => match facing {
            Some(Tile::Counter) => Some(Skill::PlaceObjOnCounter),
            Some(Tile::Pot) if k == ObjKind::Onion => Some(Skill::PutOnionInPot),
            Some(Tile::Serve) if k == ObjKind::Soup => Some(Skill::DeliverSoup),
            _ => None,
        },
        _ => None,
    }
}

/// The watcher's answer for one step: the event if the runner gave one, else the state diff.
pub fn observe_step(
    layout: &Layout,
    prev: Option<&State>,
    cur: &State,
    event: Option<&Event>,
    who: usize,
) -> Option<Skill> {
    if let Some(e) = event {
        return skill_of_event(e);
    }
    prev.and_then(|p| skill_from_states(layout, p, cur, who))
}

impl Grounding for OvercookedGrounding {
    type Game = Overcooked;
    type Skill = Skill;
    type Episode = OvercookedEpisode;
    type Scene<'a> = &'a State;

    const FAMILY: Family = Family::Classic;

    const PLAN_FIELD: &'static str = "your next skill, exactly one, e.g. pickup(onion)";

    fn begin(&self, game: &Overcooked, me: usize, seed: u64, cfg: &ProAgentConfig) -> OvercookedEpisode {
        let kitchen = game.kitchen();
        let info = SceneInfo::new(&game.layout, &kitchen.motion);
        let options = controller_options(&cfg.settings.preset.rules());
        OvercookedEpisode {
            controller: Controller::new(Arc::clone(&kitchen), me, seed).with_options(options),
            kitchen,
            info,
            me,
            prev_state: None,
            align: cfg.settings.align,
            horizon: cfg.horizon,
        }
    }

    fn layout_name<'e>(&self, ep: &'e OvercookedEpisode) -> &'e str {
        &ep.kitchen.layout.name
    }

    fn knowledge(&self, ep: &OvercookedEpisode, cfg: &ProAgentConfig, dir: &str, me: usize) -> Value {
        let s = &cfg.settings;
        knowledge_context(&cfg.prompts, dir, &ep.kitchen.layout, &ep.info, me, cfg.horizon, s.level(), s.wait_interrupt)
    }

    fn perceive<'a>(&self, _ep: &mut OvercookedEpisode, obs: &Observation<'a, Overcooked>) -> &'a State {
        obs.view
    }

    fn time(&self, scene: &&State) -> u32 {
        scene.timestep
    }

    fn scene_text(&self, ep: &OvercookedEpisode, state: &&State) -> String {
        let k = &ep.kitchen;
        scene_text(ep.align, &ep.info, &k.layout, &k.motion, state, ep.me, ep.horizon)
    }

    fn wait_signature(&self, ep: &OvercookedEpisode, state: &&State) -> u64 {
        kitchen_signature(&ep.kitchen.layout, state)
    }

    fn teammate_skill(&self, ep: &mut OvercookedEpisode, obs: &Observation<'_, Overcooked>) -> Option<Skill> {
        let mate = 1 - ep.me;
        let real = observe_step(
            &obs.game.layout,
            ep.prev_state.as_ref(),
            obs.view,
            obs.last_events.get(mate).and_then(Option::as_ref),
            mate,
        );
        match &mut ep.prev_state {
            Some(p) => p.clone_from(obs.view),
            None => ep.prev_state = Some(obs.view.clone()),
        }
        real
    }

    fn skill_text(&self, _ep: &OvercookedEpisode, skill: Skill) -> String {
        skill.to_string()
    }

    fn read_reply(&self, _ep: &OvercookedEpisode, raw: &str, me: usize, _mate: Option<usize>) -> ReplyRead<Skill> {
        parse_reply(raw, me).map_err(|e| e.reason)
    }

    fn check(&self, ep: &OvercookedEpisode, state: &&State, skill: Skill) -> Vec<Unmet> {
        let k = &ep.kitchen;
        let reach = Reach { layout: &k.layout, motion: &k.motion, state, player: ep.me };
        check_preconditions(skill, &reach)
            .into_iter()
            .map(|f| Unmet { condition: f.condition, reason: f.reason })
            .collect()
    }

    fn conditions(&self, _ep: &OvercookedEpisode, _skill: Skill) -> Vec<(String, String)> {
        // `agent/verify_check.j2` writes each skill's preconditions out itself.
        Vec::new()
    }

    fn sample_skills(&self, _ep: &OvercookedEpisode) -> Vec<Skill> {
        Skill::TASK_SKILLS.into_iter().chain([Skill::Wait(3)]).collect()
    }

    fn running(&self, ep: &OvercookedEpisode) -> Option<Skill> {
        ep.controller.skill()
    }

    fn start(&self, ep: &mut OvercookedEpisode, skill: Skill, state: &&State) {
        ep.controller.set_skill(skill, state);
    }

    fn stop(&self, ep: &mut OvercookedEpisode) {
        ep.controller.clear();
    }

    fn control(&self, ep: &mut OvercookedEpisode, state: &&State) -> Control<Action> {
        let cs = ep.controller.step(state);
        match cs.status {
            SkillStatus::Running => Control::Running(cs.action),
            SkillStatus::Succeeded => Control::Succeeded,
            SkillStatus::Failed { reason } => Control::Failed(reason),
        }
    }

    fn skill_done(&self, ep: &OvercookedEpisode, state: &&State) -> bool {
        ep.controller.is_done(state)
    }

    fn idle(&self) -> Action {
        Action::Stay
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(scripted::ScriptedModel::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Pos;

    #[test]
    fn events_map_to_skills() {
        let at = Pos::new(0, 0);
        assert_eq!(skill_of_event(&Event::Dispense { kind: ObjKind::Onion, at }), Some(Skill::PickupOnion));
        assert_eq!(skill_of_event(&Event::PickupCounter { kind: ObjKind::Dish, at }), Some(Skill::PickupDish));
        assert_eq!(skill_of_event(&Event::PickupCounter { kind: ObjKind::Soup, at }), None);
        assert_eq!(skill_of_event(&Event::PlaceCounter { kind: ObjKind::Soup, at }), Some(Skill::PlaceObjOnCounter));
        assert_eq!(skill_of_event(&Event::Potting { kind: ObjKind::Onion, at, count: 2 }), Some(Skill::PutOnionInPot));
        assert_eq!(skill_of_event(&Event::PickupSoup { at }), Some(Skill::FillDishWithSoup));
        assert_eq!(skill_of_event(&Event::Deliver { at, reward: 20 }), Some(Skill::DeliverSoup));
    }

    /// Drives player 1 through a whole soup on cramped_room and checks that the
    /// state-diff watcher and the event mapping agree at every step.
    #[test]
    fn state_diff_agrees_with_events() {
        use Action::*;
        let l = Layout::builtin("cramped_room").unwrap();
        let mut s = l.start_state();
        // Player 1 starts at (3,1). Onion dispenser (4,1): face east, interact; pot (2,0):
        // go west to (2,1), face north, interact. Three times, then the dish and the soup.
        let mut plan = Vec::new();
        for _ in 0..3 {
            plan.extend([East, Interact, West, North, Interact, East]);
        }
        // Then an onion onto the counter at (4,2) and back into the hand.
        plan.extend([East, Interact, South, East, Interact, Interact]);
        let mut seen = Vec::new();
        for a in plan {
            let prev = s.clone();
            let out = l.step(&mut s, [Stay, a]);
            let by_event = out.events[1].as_ref().and_then(skill_of_event);
            let by_state = skill_from_states(&l, &prev, &s, 1);
            assert_eq!(by_event, by_state, "t={} action {a:?} event {:?}", s.timestep, out.events[1]);
            if let Some(k) = by_event {
                seen.push(k);
            }
        }
        use Skill::*;
        let want = [PickupOnion, PutOnionInPot, PickupOnion, PutOnionInPot, PickupOnion, PutOnionInPot];
        assert_eq!(&seen[..6], &want);
        assert_eq!(&seen[6..], &[PickupOnion, PlaceObjOnCounter, PickupOnion]);
    }
}
