//! The baselines: uniformly random actions (`random`: all six; `random4`: the four
//! moves only, like the original ProAgent's Random partner), and standing still.
//! The random ones draw from a ChaCha8 stream seeded at reset, so a seed fixes their episode.

use async_trait::async_trait;
use proagent_overcooked::env::{Action, Layout};
use proagent_overcooked::policy::{Agent, AgentError, Observation};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Uniform over a fixed set of actions: all six (`random`), or the four moves (`random4`).
pub struct RandomPartner {
    rng: ChaCha8Rng,
    choices: &'static [Action],
}

impl RandomPartner {
    /// Uniform over all six actions, seeded with 0; [`Agent::reset`] reseeds it from the episode seed.
    pub fn new() -> RandomPartner {
        RandomPartner { rng: ChaCha8Rng::seed_from_u64(0), choices: &Action::ALL }
    }

    /// Uniform over north, south, east and west only (never stays, never interacts):
    /// the Random partner of the original ProAgent experiments.
    pub fn moves_only() -> RandomPartner {
        RandomPartner { rng: ChaCha8Rng::seed_from_u64(0), choices: &Action::MOVES }
    }
}

impl Default for RandomPartner {
    fn default() -> Self {
        RandomPartner::new()
    }
}

#[async_trait]
impl Agent for RandomPartner {
    fn name(&self) -> String {
        if self.choices.len() == Action::MOVES.len() { "random4".into() } else { "random".into() }
    }

    fn reset(&mut self, _layout: &Layout, _seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    async fn act(&mut self, _obs: &Observation<'_>) -> Result<Action, AgentError> {
        Ok(self.choices[self.rng.random_range(0..self.choices.len())])
    }
}

/// Always stays.
pub struct StayPartner;

#[async_trait]
impl Agent for StayPartner {
    fn name(&self) -> String {
        "stay".into()
    }

    fn reset(&mut self, _layout: &Layout, _seat: usize, _seed: u64) {}

    async fn act(&mut self, _obs: &Observation<'_>) -> Result<Action, AgentError> {
        Ok(Action::Stay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Layout;

    #[test]
    fn random_is_seeded_and_uses_all_actions_and_stay_stays() {
        let l = Layout::builtin("cramped_room").unwrap();
        let s = l.start_state();
        let obs = Observation { layout: &l, state: &s, seat: 0, last_joint: None, last_events: [None, None] };
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let draw = |seed| {
            let mut r = RandomPartner::new();
            r.reset(&l, 0, seed);
            rt.block_on(async {
                let mut v = Vec::new();
                for _ in 0..200 {
                    v.push(r.act(&obs).await.unwrap());
                }
                v
            })
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        for action in Action::ALL {
            assert!(a.contains(&action), "{action:?}");
        }
        let mut st = StayPartner;
        assert_eq!(rt.block_on(st.act(&obs)).unwrap(), Action::Stay);
    }

    #[test]
    fn random4_moves_only_and_uniformly() {
        let l = Layout::builtin("cramped_room").unwrap();
        let s = l.start_state();
        let obs = Observation { layout: &l, state: &s, seat: 1, last_joint: None, last_events: [None, None] };
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let draw = |seed| {
            let mut r = RandomPartner::moves_only();
            r.reset(&l, 1, seed);
            assert_eq!(r.name(), "random4");
            rt.block_on(async {
                let mut v = Vec::new();
                for _ in 0..4000 {
                    v.push(r.act(&obs).await.unwrap());
                }
                v
            })
        };
        let a = draw(9);
        assert_eq!(a, draw(9), "seeded");
        assert!(!a.contains(&Action::Stay) && !a.contains(&Action::Interact));
        for m in Action::MOVES {
            // 4000 draws: each move about 1000 times; 850 is more than 5 standard deviations below.
            let n = a.iter().filter(|&&x| x == m).count();
            assert!(n > 850 && n < 1150, "{m:?}: {n}");
        }
    }
}
