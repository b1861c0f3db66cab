//! OvercookedV2 as the ProAgent loop sees it ([`OvercookedV2Grounding`]). The scene is
//! what the player knows ([`Knowledge`]): what it sees now within its view radius, plus
//! what it remembers ([`Recall`]: the recipe it last saw, what it saw a teammate do,
//! recipes ruled out); the scene text never mentions anything outside the view radius
//! ([`proagent_overcooked_v2::knowledge`]). Skills name ingredients
//! ([`proagent_overcooked_v2::skills`]); the validator checks their preconditions on what
//! the player knows (a hidden cell counts as possibly fine); the controller is [`Nav`]; a
//! wait ends early when a hand, a pot or a counter in sight changes; belief correction
//! scores a prediction against what the player later *sees* the teammate do (an
//! interaction of the teammate in sight). The templates are `prompts/v2/` (default preset
//! only: there is no paper-preset library for this game). The built-in stand-in model is
//! [`scripted::ScriptedV2Model`].

pub mod scripted;

use super::{Control, Grounding, ReplyRead, Unmet};
use crate::ProAgentConfig;
use crate::planner::{PlanReply, reply_fields};
use crate::prompts::Family;
use minijinja::{Value, context};
use proagent_core::Observation;
use proagent_llm::LanguageModel;
use proagent_overcooked::env::{Action, Pos};
use proagent_overcooked_v2::env::{
    BUTTON_COST, BUTTON_TIME, COOK_TIME, DELIVERY_REWARD, Event, Item, Layout, Settings, Tile, obs,
};
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_overcooked_v2::knowledge::{Knowledge, PotSeen, Recall, reach_of, reach_text, scene_text};
use proagent_overcooked_v2::nav::{self, Nav, Status};
use proagent_overcooked_v2::skills::{self, Skill, Target};
use std::sync::Arc;

super::wait_variant_skill!(Skill);

/// OvercookedV2's grounding (see the module documentation).
#[derive(Copy, Clone, Debug, Default)]
pub struct OvercookedV2Grounding;

/// What [`OvercookedV2Grounding`] keeps for one episode.
pub struct OvercookedV2Episode {
    layout: Arc<Layout>,
    settings: Settings,
    me: usize,
    nav: Nav,
    recall: Recall,
    /// What this player's own interaction did in the previous step, until the controller
    /// has read it (it tells the controller whether the running skill succeeded).
    last: Option<Event>,
}

/// The skill a teammate's interaction shows it was doing.
pub fn skill_of_event(e: &Event) -> Skill {
    let target = |item: Item| {
        if item.is_dish() {
            Target::Dish
        } else if item.is_plate() {
            Target::Plate
        } else {
            Target::Ingredient(item.first_kind().unwrap_or(0))
        }
    };
    match *e {
        Event::TakeFromPile { item, .. } | Event::PickUp { item, .. } => Skill::Pickup(target(item)),
        Event::Place { .. } => Skill::PlaceOnCounter,
        Event::AddToPot { kind, .. } => Skill::PutInPot(kind),
        Event::StartCooking { .. } => Skill::StartCooking,
        Event::PlateSoup { .. } => Skill::PlateSoup,
        Event::Deliver { .. } => Skill::Deliver,
        Event::PressButton { .. } => Skill::PressButton,
    }
}

fn xy(p: Pos) -> String {
    format!("({}, {})", p.x, p.y)
}

/// The knowledge library's variables for a layout, settings and seat; per-layout parts
/// resolve in template folder `dir`.
pub fn knowledge_context(cfg: &ProAgentConfig, dir: &str, layout: &Layout, settings: &Settings, me: usize) -> Value {
    let lib = &cfg.prompts;
    let names = &layout.ingredient_names;
    let mates: Vec<usize> = (0..layout.num_agents()).filter(|&i| i != me).collect();
    let mut kitchen = Vec::new();
    for i in 0..layout.cells() {
        let p = layout.pos_of(i);
        let t = layout.tiles[i];
        if !matches!(t, Tile::Floor | Tile::Counter) {
            kitchen.push(format!("{} at {}", t.noun(names), xy(p)));
        }
    }
    kitchen.push(format!("{} counters (the W cells of the grid)", layout.cells_of(Tile::Counter).count()));
    kitchen.push(format!(
        "grid, one row per line (W counter, P pot, X delivery window, B plate pile, R recipe indicator, L recipe button, digits ingredient piles, A a start cell): {}",
        layout.grid.join(" / ")
    ));
    let room = |i: usize| layout.room_of(layout.starts[i]);
    let my_reach = reach_text(&reach_of(layout, settings, room(me)), names);
    let mate_reach: Vec<Value> = mates
        .iter()
        .map(|&m| context! { index => m, text => reach_text(&reach_of(layout, settings, room(m)), names) })
        .collect();
    let level = cfg.settings.level();
    context! {
        me, mates, num_agents => layout.num_agents(),
        layout => layout.name.clone(),
        task_template => lib.resolve_in(dir, "task", &layout.name, me),
        rules_template => lib.resolve_in(dir, "rules", &layout.name, me),
        demos_template => lib.resolve_in(dir, "demos", &layout.name, me),
        ingredients => names.join(", "),
        first_ingredient => names.first().cloned().unwrap_or_default(),
        recipes => layout.recipes.iter().map(|r| r.describe(names)).collect::<Vec<_>>(),
        view_radius => settings.view_radius,
        buttons => layout.cells_of(Tile::Button).next().is_some(),
        indicators => layout.cells_of(Tile::RecipeIndicator).next().is_some(),
        button_time => BUTTON_TIME, button_cost => BUTTON_COST,
        reward => DELIVERY_REWARD, negative => settings.negative_rewards,
        resample => settings.sample_recipe_on_delivery,
        start_on_interact => settings.start_cooking_interaction,
        cook_time => COOK_TIME, horizon => settings.max_steps,
        width => layout.width, height => layout.height,
        kitchen, my_reach, mate_reach,
        analysis => level.analysis, intention => level.intention,
    }
}

/// A fingerprint of what the player sees apart from the time: hands, pots, counters. A wait
/// ends early when it changes.
pub fn signature(k: &Knowledge) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x100_0000_01b3);
    mix(k.held.code() as u64);
    for m in &k.mates {
        mix(m.held.code() as u64 + 1000);
    }
    for p in &k.pots {
        let code = match p.seen {
            None => 1,
            Some(PotSeen::Idle(c)) => 2 + c.code() as u64 * 4,
            Some(PotSeen::Cooking(c, _)) => 3 + c.code() as u64 * 4,
            Some(PotSeen::Ready(c)) => c.code() as u64 * 4,
        };
        mix(code);
    }
    for c in &k.counters {
        mix(((c.pos.x as u64) << 40) | ((c.pos.y as u64) << 32) | c.item.code() as u64);
    }
    h
}

/// Reads a planner reply for player `me` with V2's skills (the fields as
/// [`reply_fields`] finds them; the first skill a field states, in the layout's
/// ingredient names). A reply without a plan field may still be a bare skill.
pub fn read_reply(raw: &str, me: usize, mate: Option<usize>, names: &[String]) -> ReplyRead<Skill> {
    let f = reply_fields(raw, me, mate);
    let intention = f.intention.as_deref().and_then(|t| skills::find_first(t, names).ok());
    let plan = match &f.plan {
        Some(t) => skills::find_first(t, names).map_err(|e| {
            if e.reason == "no skill found" {
                format!("the 'Plan for Player {me}:' field names no allowed skill")
            } else {
                format!("the 'Plan for Player {me}:' field: {}", e.reason)
            }
        })?,
        None => f
            .outside
            .iter()
            .find_map(|l| skills::parse(l, names).ok())
            .ok_or_else(|| format!("the reply has no 'Plan for Player {me}:' field"))?,
    };
    let analysis = f.analysis.filter(|a| !a.is_empty()).map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "));
    Ok(PlanReply { analysis, intention, intention_error: None, plan })
}

impl Grounding for OvercookedV2Grounding {
    type Game = OvercookedV2;
    type Skill = Skill;
    type Episode = OvercookedV2Episode;
    type Scene<'a> = Knowledge;

    const FAMILY: Family = Family::V2;

    const PLAN_FIELD: &'static str = "your next skill, exactly one, e.g. pickup(onion)";

    fn begin(&self, game: &OvercookedV2, me: usize, seed: u64, _cfg: &ProAgentConfig) -> OvercookedV2Episode {
        OvercookedV2Episode {
            layout: Arc::clone(&game.layout),
            settings: game.settings.clone(),
            me,
            nav: Nav::new(seed),
            recall: Recall::default(),
            last: None,
        }
    }

    fn layout_name<'e>(&self, ep: &'e OvercookedV2Episode) -> &'e str {
        &ep.layout.name
    }

    fn knowledge(&self, ep: &OvercookedV2Episode, cfg: &ProAgentConfig, dir: &str, me: usize) -> Value {
        knowledge_context(cfg, dir, &ep.layout, &ep.settings, me)
    }

    fn perceive(&self, ep: &mut OvercookedV2Episode, obs: &Observation<'_, OvercookedV2>) -> Knowledge {
        ep.recall.update(&ep.layout, &ep.settings, obs.view, ep.me, obs.last_events);
        ep.last = obs.last_events.get(ep.me).cloned().flatten();
        Knowledge::observe(&ep.layout, &ep.settings, obs.view, ep.me, &mut ep.recall)
    }

    fn time(&self, k: &Knowledge) -> u32 {
        k.step
    }

    fn scene_text(&self, _ep: &OvercookedV2Episode, k: &Knowledge) -> String {
        scene_text(k)
    }

    fn wait_signature(&self, _ep: &OvercookedV2Episode, k: &Knowledge) -> u64 {
        signature(k)
    }

    fn teammate_skill(&self, ep: &mut OvercookedV2Episode, obs: &Observation<'_, OvercookedV2>) -> Option<Skill> {
        let mate = (0..ep.layout.num_agents()).find(|&i| i != ep.me)?;
        let e = obs.last_events.get(mate)?.as_ref()?;
        let (me_at, mate_at) = (obs.view.agents.get(ep.me)?.pos, obs.view.agents.get(mate)?.pos);
        obs::visible(&ep.settings, me_at, mate_at).then(|| skill_of_event(e))
    }

    fn skill_text(&self, ep: &OvercookedV2Episode, skill: Skill) -> String {
        skill.text(&ep.layout.ingredient_names)
    }

    fn read_reply(&self, ep: &OvercookedV2Episode, raw: &str, me: usize, mate: Option<usize>) -> ReplyRead<Skill> {
        read_reply(raw, me, mate, &ep.layout.ingredient_names)
    }

    fn check(&self, _ep: &OvercookedV2Episode, k: &Knowledge, skill: Skill) -> Vec<Unmet> {
        skills::check(skill, k).into_iter().map(|f| Unmet { condition: f.name, reason: f.reason }).collect()
    }

    fn conditions(&self, ep: &OvercookedV2Episode, skill: Skill) -> Vec<(String, String)> {
        skills::conditions(skill, &ep.layout.ingredient_names).into_iter().map(|(n, t)| (n.to_string(), t)).collect()
    }

    fn sample_skills(&self, _ep: &OvercookedV2Episode) -> Vec<Skill> {
        vec![
            Skill::Pickup(Target::Ingredient(0)),
            Skill::Pickup(Target::Plate),
            Skill::Pickup(Target::Dish),
            Skill::PutInPot(0),
            Skill::StartCooking,
            Skill::PlateSoup,
            Skill::Deliver,
            Skill::PlaceOnCounter,
            Skill::PressButton,
            Skill::CheckRecipe,
            Skill::CheckPot,
            Skill::CheckCounters,
            Skill::Wait(1),
        ]
    }

    fn running(&self, ep: &OvercookedV2Episode) -> Option<Skill> {
        ep.nav.skill()
    }

    fn start(&self, ep: &mut OvercookedV2Episode, skill: Skill, _k: &Knowledge) {
        ep.nav.set(skill);
    }

    fn stop(&self, ep: &mut OvercookedV2Episode) {
        ep.nav.clear();
        ep.last = None;
    }

    fn control(&self, ep: &mut OvercookedV2Episode, k: &Knowledge) -> Control<Action> {
        let last = ep.last.take();
        match ep.nav.step(&ep.layout, &ep.settings, k, last.as_ref()) {
            Status::Running(a) => Control::Running(a),
            Status::Succeeded => Control::Succeeded,
            Status::Failed(reason) => Control::Failed(reason),
        }
    }

    fn skill_done(&self, ep: &OvercookedV2Episode, _k: &Knowledge) -> bool {
        ep.nav.skill().zip(ep.last.as_ref()).is_some_and(|(s, e)| nav::completes(s, e))
    }

    fn idle(&self) -> Action {
        Action::Stay
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(scripted::ScriptedV2Model)
    }
}

#[cfg(test)]
mod tests;
