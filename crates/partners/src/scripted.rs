//! The `scripted` partner: a rule-based skill planner over ProAgent's skills,
//! run through the controller.
//!
//! The skill choice ([`choose_skill`]) is a pure function of [`SkillFacts`],
//! facts a scene description can state (holdings, pot states, counter
//! objects, who reaches what, distances, the teammate's current skill), so the
//! same rules can run on facts parsed from prompt text. Which pot, counter or
//! dispenser a skill uses is the controller's job. [`facts_from_state`] reads
//! the facts off a simulator state, and [`ScriptedPartner`] ties both to a
//! [`Controller`].

use async_trait::async_trait;
use proagent_core::derive_seed;
use proagent_core::{AgentError, Observation, Seat, SeatStatus, SkillEvent, SkillOutcome};
use proagent_overcooked::controller::{Controller, Kitchen, PotPhase, SkillStatus};
use proagent_overcooked::env::{Action, DEFAULT_HORIZON, Layout, ObjKind, Pos, State};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked::skills::Skill;
use proagent_overcooked::skills::facts::{Access, PotFact, PotStatus, SkillFacts, Steps};
use proagent_overcooked::skills::rules::choose_skill;
use std::sync::Arc;

/// Reads the planner's facts for player `me` off a state.
pub fn facts_from_state(
    kitchen: &Kitchen,
    state: &State,
    me: usize,
    partner_skill: Option<Skill>,
    horizon: u32,
) -> SkillFacts {
    let k = kitchen;
    let layout = &*k.layout;
    let mate = 1 - me;
    let pots = layout
        .pots
        .iter()
        .map(|&p| PotFact {
            status: match k.pot_phase(state, p) {
                PotPhase::Filling(n) => PotStatus::Filling(n),
                PotPhase::Cooking(r) => PotStatus::Cooking(r),
                PotPhase::Ready => PotStatus::Ready,
            },
            reachable_by_me: k.reaches(state, me, p),
            reachable_by_partner: k.reaches(state, mate, p),
        })
        .collect();
    let any_shared = layout.counters.iter().any(|&c| k.shared_by_players(state, c));
    let access = |i: usize| Access {
        onion_source: layout.onion_sources.iter().any(|&s| k.reaches(state, i, s)),
        dish_source: layout.dish_sources.iter().any(|&s| k.reaches(state, i, s)),
        serving: layout.serving.iter().any(|&s| k.reaches(state, i, s)),
        shared_counter: any_shared,
    };
    let on_counters = |i: usize, kind: ObjKind| {
        k.counters_with(state, kind).filter(|&c| k.reaches(state, i, c)).count().min(u8::MAX as usize) as u8
    };
    let steps = |i: usize| {
        let obj = |kind: ObjKind| {
            let targets: Vec<Pos> = k.sources(kind).iter().copied().chain(k.counters_with(state, kind)).collect();
            k.cost_to_any(state, i, targets)
        };
        Steps {
            onion: obj(ObjKind::Onion),
            dish: obj(ObjKind::Dish),
            pot: k.cost_to_any(state, i, layout.pots.iter().copied().filter(|&p| k.pot_accepts(state, p))),
            soup_pot: k.cost_to_any(
                state,
                i,
                layout.pots.iter().copied().filter(|&p| k.pot_cooking_or_ready(state, p)),
            ),
            serving: k.cost_to_any(state, i, layout.serving.iter().copied()),
        }
    };
    SkillFacts {
        me,
        my_held: Kitchen::held_kind(state, me),
        partner_held: Kitchen::held_kind(state, mate),
        pots,
        my_access: access(me),
        partner_access: access(mate),
        counter_onions_for_me: on_counters(me, ObjKind::Onion),
        counter_dishes_for_me: on_counters(me, ObjKind::Dish),
        counter_soups_for_me: on_counters(me, ObjKind::Soup),
        partner_skill,
        time_left: horizon.saturating_sub(state.timestep),
        soup_size: layout.rules.num_items.min(u8::MAX as usize) as u8,
        counter_onions_for_partner: on_counters(mate, ObjKind::Onion),
        counter_dishes_for_partner: on_counters(mate, ObjKind::Dish),
        counter_soups_for_partner: on_counters(mate, ObjKind::Soup),
        empty_shared_counters: k.empty_counters(state).filter(|&c| k.shared_by_players(state, c)).count().min(255)
            as u8,
        empty_counters_for_me: k.empty_counters(state).filter(|&c| k.reaches(state, me, c)).count().min(255) as u8,
        my_steps: steps(me),
        partner_steps: steps(mate),
        blocked: false,
    }
}

/// Steps without any change after which the teammate counts as idle.
const IDLE_STEPS: u32 = 4;

/// Guesses the teammate's current skill from what it holds and where it heads.
fn infer_partner_skill(k: &Kitchen, prev: &State, now: &State, mate: usize, last: Option<Skill>) -> Option<Skill> {
    let layout = &*k.layout;
    let reaches_any = |f: &dyn Fn(Pos) -> bool| layout.pots.iter().any(|&p| k.reaches(now, mate, p) && f(p));
    match Kitchen::held_kind(now, mate) {
        Some(ObjKind::Onion) | Some(ObjKind::Tomato) => {
            if !reaches_any(&|p| k.pot_accepts(now, p)) {
                return Some(Skill::PlaceObjOnCounter);
            }
            let pot_dist = |s: &State| {
                let pots: Vec<Pos> = layout.pots.iter().copied().filter(|&p| k.pot_accepts(s, p)).collect();
                k.cost_to_any(s, mate, pots)
            };
            let (before, after) = (pot_dist(prev), pot_dist(now));
            let just_picked = Kitchen::held_kind(prev, mate).is_none();
            // Heading for a pot (or already at one, or just picked the onion up): potting.
            // Carrying it elsewhere: a hand-over or a drop on a counter.
            if just_picked
                || after < before
                || after == Some(1)
                || (after == before && last == Some(Skill::PutOnionInPot))
            {
                Some(Skill::PutOnionInPot)
            } else {
                Some(Skill::PlaceObjOnCounter)
            }
        }
        Some(ObjKind::Dish) => Some(if reaches_any(&|p| k.pot_cooking_or_ready(now, p)) {
            Skill::FillDishWithSoup
        } else {
            Skill::PlaceObjOnCounter
        }),
        Some(ObjKind::Soup) => Some(if layout.serving.iter().any(|&s| k.reaches(now, mate, s)) {
            Skill::DeliverSoup
        } else {
            Skill::PlaceObjOnCounter
        }),
        None => {
            let dist = |s: &State, kind: ObjKind| {
                let targets: Vec<Pos> = k.sources(kind).iter().copied().chain(k.counters_with(s, kind)).collect();
                k.cost_to_any(s, mate, targets)
            };
            let onion = (dist(prev, ObjKind::Onion), dist(now, ObjKind::Onion));
            let dish = (dist(prev, ObjKind::Dish), dist(now, ObjKind::Dish));
            let closer = |(a, b): (Option<u16>, Option<u16>)| matches!((a, b), (Some(a), Some(b)) if b < a);
            let moved =
                prev.players[mate].pos != now.players[mate].pos || prev.players[mate].dir != now.players[mate].dir;
            match (closer(onion), closer(dish)) {
                (true, false) => Some(Skill::PickupOnion),
                (false, true) => Some(Skill::PickupDish),
                _ if !moved || Kitchen::held_kind(prev, mate).is_none() => {
                    last.filter(|s| matches!(s, Skill::PickupOnion | Skill::PickupDish))
                }
                _ => None,
            }
        }
    }
}

/// The scripted partner: [`choose_skill`] on [`facts_from_state`], moved by a [`Controller`].
pub struct ScriptedPartner {
    kitchen: Arc<Kitchen>,
    seat: usize,
    horizon: u32,
    ctrl: Controller,
    prev: Option<State>,
    partner_skill: Option<Skill>,
    /// Steps the teammate has not moved, turned or changed what it holds.
    partner_still: u32,
    blocked: bool,
    events: Vec<SkillEvent>,
    started: u32,
    succeeded: u32,
    failed: u32,
}

impl ScriptedPartner {
    /// A scripted partner on `kitchen`, for seat 0 with the default 400-step horizon until reset.
    pub fn new(kitchen: Arc<Kitchen>) -> ScriptedPartner {
        let ctrl = Controller::new(Arc::clone(&kitchen), 0, 0);
        ScriptedPartner {
            kitchen,
            seat: 0,
            horizon: DEFAULT_HORIZON,
            ctrl,
            prev: None,
            partner_skill: None,
            partner_still: 0,
            blocked: false,
            events: Vec::new(),
            started: 0,
            succeeded: 0,
            failed: 0,
        }
    }

    /// Sets the episode length the facts' `time_left` is computed from.
    pub fn with_horizon(mut self, horizon: u32) -> ScriptedPartner {
        self.horizon = horizon;
        self
    }

    /// The action for this state, choosing new skills as the current one ends.
    pub fn decide(&mut self, state: &State) -> Action {
        let mate = 1 - self.seat;
        if let Some(prev) = &self.prev {
            self.partner_skill = infer_partner_skill(&self.kitchen, prev, state, mate, self.partner_skill);
            self.partner_still = if prev.players[mate] == state.players[mate] { self.partner_still + 1 } else { 0 };
            // A teammate that has not stirred for a while is not about to fetch or carry anything.
            if self.partner_still >= IDLE_STEPS {
                self.partner_skill = Some(Skill::Wait(1));
            }
        }
        self.prev = Some(state.clone());
        // A finished skill hands over to the next one within the same step.
        let mut failed_now: Option<Skill> = None;
        for _ in 0..4 {
            if self.ctrl.skill().is_none() {
                let mut facts = facts_from_state(&self.kitchen, state, self.seat, self.partner_skill, self.horizon);
                facts.blocked = std::mem::take(&mut self.blocked);
                let mut skill = choose_skill(&facts);
                if failed_now == Some(skill) {
                    // It cannot run in this state; do not retry it within the step.
                    skill = Skill::Wait(1);
                }
                self.ctrl.set_skill(skill, state);
                self.started += 1;
                self.events.push(SkillEvent {
                    t: state.timestep,
                    player: self.seat,
                    skill: skill.to_string(),
                    outcome: SkillOutcome::Started,
                });
            }
            let skill = self.ctrl.skill();
            let step = self.ctrl.step(state);
            let outcome = match step.status {
                SkillStatus::Running => return step.action,
                SkillStatus::Succeeded => {
                    self.succeeded += 1;
                    SkillOutcome::Succeeded
                }
                SkillStatus::Failed { reason } => {
                    self.failed += 1;
                    failed_now = skill;
                    self.blocked = reason.contains("no progress");
                    SkillOutcome::Failed { reason }
                }
            };
            if let Some(s) = skill {
                self.events.push(SkillEvent { t: state.timestep, player: self.seat, skill: s.to_string(), outcome });
            }
        }
        Action::Stay
    }
}

#[async_trait]
impl Seat<Overcooked> for ScriptedPartner {
    fn name(&self) -> String {
        "scripted".into()
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let layout: &Layout = &game.layout;
        self.kitchen = Kitchen::reuse_or_build(Some(&self.kitchen), layout);
        self.seat = seat;
        self.ctrl = Controller::new(Arc::clone(&self.kitchen), seat, derive_seed(seed, 1));
        self.prev = None;
        self.partner_skill = None;
        self.partner_still = 0;
        self.blocked = false;
        self.events.clear();
        self.started = 0;
        self.succeeded = 0;
        self.failed = 0;
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        Ok(self.decide(obs.view))
    }

    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        std::mem::take(&mut self.events)
    }

    fn status(&self) -> SeatStatus {
        SeatStatus {
            skill: self.ctrl.skill().map(|s| s.to_string()),
            intention: self.partner_skill.map(|s| s.to_string()),
            analysis: None,
        }
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({
            "skills_started": self.started,
            "skills_succeeded": self.succeeded,
            "skills_failed": self.failed,
        })
    }
}

#[cfg(test)]
mod tests;
