//! The two baselines: uniformly random actions, and standing still.

use crate::env::{Action, Layout};
use crate::policy::{Agent, Observation};
use async_trait::async_trait;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Uniform over the six actions.
pub struct RandomPartner {
    rng: ChaCha8Rng,
}

impl RandomPartner {
    pub fn new() -> RandomPartner {
        RandomPartner { rng: ChaCha8Rng::seed_from_u64(0) }
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
        "random".into()
    }

    fn reset(&mut self, _layout: &Layout, _seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    async fn act(&mut self, _obs: &Observation<'_>) -> Action {
        Action::ALL[self.rng.random_range(0..Action::ALL.len())]
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

    async fn act(&mut self, _obs: &Observation<'_>) -> Action {
        Action::Stay
    }
}
