//! The decision logic of overcooked_ai's `GreedyHumanModel` (default
//! arguments: no Boltzmann rationality), on our motion table.
//!
//! Each step it picks motion goals from the state:
//! - empty-handed: a dish (dispenser or counter) if some pot is cooking or ready
//!   and the partner holds no dish, else an onion (dispenser or counter);
//! - holding an onion: a pot that is not full;
//! - a dish: a cooking or ready pot;
//! - a soup: the serving window;
//!
//! and takes the first move of the cheapest plan (ignoring the partner). When
//! none of the goals is reachable it heads for the closest feature (dispenser or
//! pot), as the original does. If both players' positions and orientations are
//! unchanged since its last step, it instead takes a random move that would
//! move it if the partner stayed (the original's "stuck" hack).

use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::env::motion::first_step;
use proagent_overcooked::env::{Action, Dir, Layout, ObjKind, Object, Pos, State};
use proagent_overcooked::game::Overcooked;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// The `GreedyHumanModel` policy of overcooked_ai (see the module doc); plays the seat given at reset.
pub struct GreedyPartner {
    kitchen: Arc<Kitchen>,
    seat: usize,
    rng: ChaCha8Rng,
    prev: Option<[(Pos, Dir); 2]>,
    unstuck_moves: u32,
}

impl GreedyPartner {
    /// A greedy partner on `kitchen`, for seat 0 with RNG seed 0 until [`Agent::reset`].
    pub fn new(kitchen: Arc<Kitchen>) -> GreedyPartner {
        GreedyPartner { kitchen, seat: 0, rng: ChaCha8Rng::seed_from_u64(0), prev: None, unstuck_moves: 0 }
    }

    /// The greedy motion targets (tiles to interact with), in the original's order.
    pub fn targets(&self, state: &State) -> Vec<Pos> {
        let k = &*self.kitchen;
        let layout = &*k.layout;
        let me = &state.players[self.seat];
        let other = &state.players[1 - self.seat];
        let mut out = Vec::new();
        match me.held {
            None => {
                let soup_nearly_ready = layout.pots.iter().any(|&p| k.pot_cooking_or_ready(state, p));
                let other_has_dish = matches!(other.held, Some(Object::Dish));
                let kind = if soup_nearly_ready && !other_has_dish { ObjKind::Dish } else { ObjKind::Onion };
                out.extend_from_slice(k.sources(kind));
                out.extend(k.counters_with(state, kind));
            }
            Some(Object::Ingredient(_)) => out.extend(layout.pots.iter().copied().filter(|&p| k.pot_accepts(state, p))),
            Some(Object::Dish) => out.extend(layout.pots.iter().copied().filter(|&p| k.pot_cooking_or_ready(state, p))),
            Some(Object::Soup(_)) => out.extend_from_slice(&layout.serving),
        }
        out
    }

    /// The cheapest reachable standing state among the targets' interact spots.
    fn best_spot(&self, from: (Pos, Dir), targets: &[Pos]) -> Option<(Pos, Dir)> {
        let k = &*self.kitchen;
        let mut best: Option<(u16, (Pos, Dir))> = None;
        for &t in targets {
            for spot in proagent_overcooked::env::motion::interact_spots(&k.layout, t) {
                if let Some(c) = k.motion.cost(from, spot)
                    && best.is_none_or(|(b, _)| c < b)
                {
                    best = Some((c, spot));
                }
            }
        }
        best.map(|(_, s)| s)
    }

    /// The greedy action for this state (updates the stuck memory).
    pub fn decide(&mut self, state: &State) -> Action {
        let k = Arc::clone(&self.kitchen);
        let layout = &*k.layout;
        let me = &state.players[self.seat];
        let from = (me.pos, me.dir);
        let targets = self.targets(state);
        let spot = self.best_spot(from, &targets).or_else(|| {
            // Nothing useful is reachable: go to the closest feature instead.
            let features: Vec<Pos> =
                [&layout.onion_sources, &layout.tomato_sources, &layout.pots, &layout.dish_sources]
                    .into_iter()
                    .flatten()
                    .copied()
                    .collect();
            let (closest, _) = k.motion.closest(layout, from, &features)?;
            self.best_spot(from, &[closest])
        });
        let mut action = spot.and_then(|s| first_step(&k.motion, layout, from, s)).unwrap_or(Action::Stay);
        let now = [(state.players[0].pos, state.players[0].dir), (state.players[1].pos, state.players[1].dir)];
        if self.prev == Some(now) {
            let mate = state.players[1 - self.seat].pos;
            let mut options = [Action::Stay; 4];
            let mut n = 0;
            for d in Dir::ALL {
                if let Some(q) = me.pos.step(d)
                    && q != mate
                    && layout.is_walkable(q)
                {
                    options[n] = Action::from_dir(d);
                    n += 1;
                }
            }
            action = if n == 0 { Action::Stay } else { options[self.rng.random_range(0..n)] };
            self.unstuck_moves += 1;
        }
        self.prev = Some(now);
        action
    }
}

#[async_trait]
impl Seat<Overcooked> for GreedyPartner {
    fn name(&self) -> String {
        "greedy".into()
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let layout: &Layout = &game.layout;
        self.kitchen = Kitchen::reuse_or_build(Some(&self.kitchen), layout);
        self.seat = seat;
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.prev = None;
        self.unstuck_moves = 0;
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        Ok(self.decide(obs.view))
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({ "unstuck_moves": self.unstuck_moves })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Ingredient, Player, Soup};

    fn setup(name: &str, seat: usize) -> (GreedyPartner, State) {
        let k = Kitchen::shared(Layout::builtin(name).unwrap());
        let s = k.layout.start_state();
        let mut g = GreedyPartner::new(Arc::clone(&k));
        g.reset(&Overcooked::with_kitchen(Arc::clone(&k), 400), seat, 5);
        (g, s)
    }

    #[test]
    fn fetches_an_onion_then_a_dish_when_a_pot_cooks() {
        let (mut g, mut s) = setup("cramped_room", 0);
        // (1,2) facing north: the onion dispenser at (0,1) is N then W then interact.
        assert_eq!(g.decide(&s), Action::North);
        let k = Arc::clone(&g.kitchen);
        let i = k.layout.index(k.layout.pots[0]).unwrap();
        s.objects[i] = Some(Object::Soup(Soup::with_ingredients(&[Ingredient::Onion; 3], 5, 20).unwrap()));
        // Dish dispenser at (1,3): turn south and interact.
        let (mut g, _) = setup("cramped_room", 0);
        assert_eq!(g.decide(&s), Action::South);
        // Not when the partner already holds a dish.
        s.players[1].held = Some(Object::Dish);
        let (mut g, _) = setup("cramped_room", 0);
        assert_eq!(g.decide(&s), Action::North);
    }

    #[test]
    fn carries_each_object_to_its_use() {
        let (mut g, mut s) = setup("cramped_room", 0);
        s.players[0] = Player { pos: Pos::new(2, 1), dir: Dir::North, held: Some(Object::ONION) };
        assert_eq!(g.decide(&s), Action::Interact);
        s.players[0].held = Some(Object::Soup(Soup::with_ingredients(&[Ingredient::Onion; 3], 20, 20).unwrap()));
        let (mut g, _) = setup("cramped_room", 0);
        // Serving window (3,3): stand on (3,2) facing south.
        assert_eq!(g.decide(&s), Action::East);
    }

    #[test]
    fn unsticks_with_a_seeded_random_move_when_nothing_changed() {
        let (mut g, mut s) = setup("cramped_room", 0);
        s.players[0] = Player { pos: Pos::new(2, 1), dir: Dir::West, held: None };
        s.players[1] = Player { pos: Pos::new(1, 1), dir: Dir::East, held: None };
        let first = g.decide(&s);
        assert_eq!(first, Action::West, "heads for the onion at (0,1) through the partner");
        // Same positions and orientations next step: a move that actually moves it.
        let second = g.decide(&s);
        assert!(matches!(second, Action::East | Action::South), "{second:?}");
        let (mut h, _) = setup("cramped_room", 0);
        h.decide(&s);
        assert_eq!(h.decide(&s), second, "seeded");
    }

    #[test]
    fn on_forced_coordination_the_left_side_keeps_its_onion() {
        let (mut g, mut s) = setup("forced_coordination", 1);
        s.players[1] = Player { pos: Pos::new(1, 1), dir: Dir::West, held: Some(Object::ONION) };
        // No pot is reachable: it goes to the closest feature, never to a counter.
        let a = g.decide(&s);
        assert_eq!(a, Action::Interact, "already facing the onion dispenser");
    }
}
