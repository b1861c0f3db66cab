//! The baselines, for every game: uniformly random legal actions (`random`; on the
//! Overcooked games `random4` draws from the four moves only, like the original ProAgent's
//! Random partner), and standing still (`stay`). The random ones draw from a ChaCha8 stream
//! seeded at reset, so a seed fixes their episode.

use async_trait::async_trait;
use proagent_core::{AgentError, Game, Observation, Seat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Uniform over the legal actions that pass a filter (all of them for `random`).
pub struct RandomSeat<G: Game> {
    rng: ChaCha8Rng,
    name: &'static str,
    keep: fn(&G::Action) -> bool,
}

impl<G: Game> RandomSeat<G> {
    /// Uniform over every legal action, seeded with 0; [`Seat::reset`] reseeds it.
    pub fn new() -> Self {
        RandomSeat { rng: ChaCha8Rng::seed_from_u64(0), name: "random", keep: |_| true }
    }

    /// Uniform over the legal actions `keep` accepts, reported as `name`.
    pub fn filtered(name: &'static str, keep: fn(&G::Action) -> bool) -> Self {
        RandomSeat { rng: ChaCha8Rng::seed_from_u64(0), name, keep }
    }
}

impl<G: Game> Default for RandomSeat<G> {
    fn default() -> Self {
        RandomSeat::new()
    }
}

#[async_trait]
impl<G: Game> Seat<G> for RandomSeat<G> {
    fn name(&self) -> String {
        self.name.into()
    }

    fn reset(&mut self, _game: &G, _seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        let mut legal = obs.legal_actions();
        legal.retain(|a| (self.keep)(a));
        if legal.is_empty() {
            return Err(AgentError::NoLegalAction(obs.seat));
        }
        Ok(legal[self.rng.random_range(0..legal.len())])
    }
}

/// `random4` on the Overcooked games: north, south, east and west only (never stays,
/// never interacts).
pub fn random4<G: Game<Action = proagent_overcooked::env::Action>>() -> RandomSeat<G> {
    RandomSeat::filtered("random4", |a: &proagent_overcooked::env::Action| a.dir().is_some())
}

/// Does nothing: the game's idle action (Overcooked's stay), or in a game without one the
/// first legal action.
pub struct StaySeat;

#[async_trait]
impl<G: Game> Seat<G> for StaySeat {
    fn name(&self) -> String {
        "stay".into()
    }

    fn reset(&mut self, _game: &G, _seat: usize, _seed: u64) {}

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        match obs.game.idle_action() {
            Some(a) => Ok(a),
            None => obs.legal_actions().first().copied().ok_or(AgentError::NoLegalAction(obs.seat)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Action, Layout};
    use proagent_overcooked::game::Overcooked;
    use std::sync::Arc;

    fn game() -> Overcooked {
        Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400)
    }

    fn draws(r: &mut RandomSeat<Overcooked>, g: &Overcooked, seat: usize, seed: u64, n: usize) -> Vec<Action> {
        let s = g.layout.start_state();
        let obs = Observation::new(g, &s, seat, 0);
        r.reset(g, seat, seed);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let mut v = Vec::new();
            for _ in 0..n {
                v.push(r.act(&obs).await.unwrap());
            }
            v
        })
    }

    #[test]
    fn random_is_seeded_and_uses_all_actions_and_stay_stays() {
        let g = game();
        let mut r = RandomSeat::new();
        let a = draws(&mut r, &g, 0, 1, 200);
        assert_eq!(a, draws(&mut r, &g, 0, 1, 200));
        assert_ne!(a, draws(&mut r, &g, 0, 2, 200));
        for action in Action::ALL {
            assert!(a.contains(&action), "{action:?}");
        }
        let s = g.layout.start_state();
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        assert_eq!(
            rt.block_on(Seat::<Overcooked>::act(&mut StaySeat, &Observation::new(&g, &s, 0, 0))).unwrap(),
            Action::Stay
        );
    }

    #[test]
    fn random4_moves_only_and_uniformly() {
        let g = game();
        let mut r = random4::<Overcooked>();
        assert_eq!(Seat::<Overcooked>::name(&r), "random4");
        let a = draws(&mut r, &g, 1, 9, 4000);
        assert_eq!(a, draws(&mut r, &g, 1, 9, 4000), "seeded");
        assert!(!a.contains(&Action::Stay) && !a.contains(&Action::Interact));
        for m in Action::MOVES {
            // 4000 draws: each move about 1000 times; 850 is more than 5 standard deviations below.
            let n = a.iter().filter(|&&x| x == m).count();
            assert!(n > 850 && n < 1150, "{m:?}: {n}");
        }
    }
}
