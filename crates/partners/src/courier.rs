//! The `courier`: the scripted cooperative partner of the interdependence
//! study. It only fetches onions and puts them on a counter the other player
//! can reach, ranked by how close the other player is to a pot from that
//! counter (on counter_circuit: the middle island under the pots). It never
//! cooks or serves. When the counters already hold a soup's worth of onions
//! (or only two counters are left free for the other player), it waits with
//! the next one in hand.

use async_trait::async_trait;
use proagent_core::derive_seed;
use proagent_core::{AgentError, Observation, Seat};
use proagent_overcooked::controller::{Goal, Kitchen, Navigator};
use proagent_overcooked::env::motion::interact_spots;
use proagent_overcooked::env::{Action, Layout, ObjKind, Pos, State};
use proagent_overcooked::game::Overcooked;
use std::sync::Arc;

/// The onion courier of the interdependence study (see the module doc); plays the seat given at reset.
pub struct CourierPartner {
    kitchen: Arc<Kitchen>,
    seat: usize,
    nav: Navigator,
    delivered: u32,
}

impl CourierPartner {
    /// A courier on `kitchen`, for seat 0 until [`Agent::reset`] says otherwise.
    pub fn new(kitchen: Arc<Kitchen>) -> CourierPartner {
        let nav = Navigator::new(Arc::clone(&kitchen), 0, 0);
        CourierPartner { kitchen, seat: 0, nav, delivered: 0 }
    }

    /// Counters to drop an onion on, with how far the other player is from a pot once it has it.
    fn drop_goals(&self, state: &State) -> Vec<Goal> {
        let k = &*self.kitchen;
        let layout = &*k.layout;
        let mate = 1 - self.seat;
        let mate_region = k.player_region(state, mate);
        let mut goals = Vec::new();
        for c in k.empty_counters(state) {
            if !k.reaches(state, self.seat, c) || !k.reaches(state, mate, c) {
                continue;
            }
            let use_cost = interact_spots(layout, c)
                .filter(|(s, _)| k.region(*s) == mate_region)
                .filter_map(|spot| {
                    layout.pots.iter().filter_map(|&p| k.motion.cost_to_interact(layout, spot, p).map(|x| x.0)).min()
                })
                .min();
            if let Some(u) = use_cost {
                goals.push(Goal { target: c, bias: u });
            }
        }
        goals
    }

    /// This step's action for the courier's seat: fetch an onion, carry it to the best shared counter, or wait.
    pub fn decide(&mut self, state: &State) -> Action {
        let k = Arc::clone(&self.kitchen);
        let me = self.seat;
        let mate = 1 - me;
        match Kitchen::held_kind(state, me) {
            None => {
                let goals: Vec<Goal> = k
                    .sources(ObjKind::Onion)
                    .iter()
                    .filter(|&&s| k.reaches(state, me, s))
                    .map(|&s| Goal { target: s, bias: 0 })
                    .collect();
                self.nav.toward(state, &goals).action
            }
            Some(_) => {
                // Do not flood the counters: one soup's worth waiting is enough, and
                // the teammate keeps at least two free counters of its own.
                let waiting = k.counters_with(state, ObjKind::Onion).filter(|&c| k.reaches(state, mate, c)).count();
                let free_for_mate = k.empty_counters(state).filter(|&c| k.reaches(state, mate, c)).count();
                let full = waiting >= k.layout.rules.num_items || free_for_mate <= 2;
                let goals = if full { Vec::new() } else { self.drop_goals(state) };
                if goals.is_empty() {
                    return Action::Stay;
                }
                let step = self.nav.toward(state, &goals);
                if step.action == Action::Interact {
                    self.delivered += 1;
                }
                step.action
            }
        }
    }

    /// Counters the courier would use right now (for tests and reports).
    pub fn drop_targets(&self, state: &State) -> Vec<Pos> {
        let mut g = self.drop_goals(state);
        g.sort_by_key(|g| (g.bias, g.target));
        g.into_iter().map(|g| g.target).collect()
    }
}

#[async_trait]
impl Seat<Overcooked> for CourierPartner {
    fn name(&self) -> String {
        "courier".into()
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let layout: &Layout = &game.layout;
        self.kitchen = Kitchen::reuse_or_build(Some(&self.kitchen), layout);
        self.seat = seat;
        self.nav = Navigator::new(Arc::clone(&self.kitchen), seat, derive_seed(seed, 2));
        self.delivered = 0;
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        Ok(self.decide(obs.view))
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({ "onions_placed": self.delivered })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_counter_circuit_it_feeds_the_middle_island() {
        let k = Kitchen::shared(Layout::builtin("counter_circuit").unwrap());
        let mut c = CourierPartner::new(Arc::clone(&k));
        c.reset(&Overcooked::with_kitchen(Arc::clone(&k), 400), 0, 3);
        let mut s = k.layout.start_state();
        let targets = c.drop_targets(&s);
        // The island counters right under the pots come first.
        assert!(targets[..2].contains(&Pos::new(3, 2)) && targets[..2].contains(&Pos::new(4, 2)), "{targets:?}");
        let mut placed = Vec::new();
        for _ in 0..60 {
            let a = c.decide(&s);
            let out = k.layout.step(&mut s, [a, Action::Stay]);
            match out.events[0] {
                Some(proagent_overcooked::env::Event::PlaceCounter { at, kind }) => {
                    assert_eq!(kind, ObjKind::Onion);
                    placed.push(at);
                }
                Some(proagent_overcooked::env::Event::Dispense { kind, .. }) => assert_eq!(kind, ObjKind::Onion),
                Some(e) => panic!("the courier only fetches and drops onions: {e:?}"),
                None => {}
            }
        }
        // The island right under the pots gets them; with nobody taking them, it stops at a soup's worth.
        assert_eq!(placed.len(), 3, "{placed:?}");
        assert!(placed.iter().all(|p| p.y == 2 && (2..=5).contains(&p.x)), "{placed:?}");
    }
}
