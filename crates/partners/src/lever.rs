//! Rule bots for the lever game (`proagent_lever`): `random` (any lever, seeded), `special`
//! (always the special 9-point lever: the choice Other-Play's symmetric play makes),
//! `first` (always lever 1: an arbitrary convention a stranger cannot guess) and `copy`
//! (pulls what the partner pulled last round; a seeded random lever in the first round).
//! Each is deterministic for a seed.

use crate::basic::RandomSeat;
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_lever::{LEVERS, Lever, Pull};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The seat names [`lever_seat`] knows.
pub const LEVER_SEATS: &[&str] = &["random", "special", "first", "copy"];

/// A lever seat by name (see [`LEVER_SEATS`]).
pub fn lever_seat(name: &str) -> Option<Box<dyn Seat<Lever>>> {
    Some(match name {
        "random" => Box::new(RandomSeat::<Lever>::new()),
        "special" => Box::new(Special),
        "first" => Box::new(First),
        "copy" => Box::new(Copy::default()),
        _ => return None,
    })
}

/// Always the special lever.
#[derive(Clone, Copy, Debug, Default)]
pub struct Special;

#[async_trait]
impl Seat<Lever> for Special {
    fn name(&self) -> String {
        "special".into()
    }
    fn reset(&mut self, _game: &Lever, _seat: usize, _seed: u64) {}
    async fn act(&mut self, obs: &Observation<'_, Lever>) -> Result<Pull, AgentError> {
        Ok(Pull(obs.view.special))
    }
}

/// Always lever 1.
#[derive(Clone, Copy, Debug, Default)]
pub struct First;

#[async_trait]
impl Seat<Lever> for First {
    fn name(&self) -> String {
        "first".into()
    }
    fn reset(&mut self, _game: &Lever, _seat: usize, _seed: u64) {}
    async fn act(&mut self, _obs: &Observation<'_, Lever>) -> Result<Pull, AgentError> {
        Ok(Pull(0))
    }
}

/// The partner's last pull; a seeded random lever before the partner has pulled.
#[derive(Clone, Debug)]
pub struct Copy {
    rng: ChaCha8Rng,
    me: usize,
}

impl Default for Copy {
    fn default() -> Self {
        Copy { rng: ChaCha8Rng::seed_from_u64(0), me: 0 }
    }
}

#[async_trait]
impl Seat<Lever> for Copy {
    fn name(&self) -> String {
        "copy".into()
    }
    fn reset(&mut self, _game: &Lever, seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.me = seat.min(1);
    }
    async fn act(&mut self, obs: &Observation<'_, Lever>) -> Result<Pull, AgentError> {
        let last = obs.view.last();
        let theirs = last.and_then(|r| r[1 - self.me]);
        let mine = last.and_then(|r| r[self.me]);
        Ok(Pull(match theirs.or(mine) {
            Some(l) => l,
            None => self.rng.random_range(0..LEVERS),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_core::Game;
    use proagent_core::episode::env_chance;

    fn pair(a: &str, b: &str, seed: u64) -> (i32, u32) {
        let g = Lever::default();
        let mut seats = [lever_seat(a).unwrap(), lever_seat(b).unwrap()];
        for (i, s) in seats.iter_mut().enumerate() {
            s.reset(&g, i, seed + i as u64);
        }
        let mut chance = env_chance(seed);
        let mut s = g.initial_state(&mut chance);
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut first_match = 0;
        while !g.is_over(&s) {
            let mut acts = Vec::new();
            for (i, seat) in seats.iter_mut().enumerate() {
                let obs = Observation::new(&g, g.view(&s, i), i, s.t());
                acts.push(Some(rt.block_on(seat.act(&obs)).unwrap()));
            }
            if g.step(&mut s, &acts, &mut chance).reward > 0 && first_match == 0 {
                first_match = s.t();
            }
        }
        (s.score, first_match)
    }

    #[test]
    fn the_bots_meet_as_their_rules_say() {
        assert_eq!(pair("special", "special", 1), (90, 1));
        assert_eq!(pair("first", "first", 1).0, 100);
        // Copy follows the partner from the second round on.
        let (score, first) = pair("special", "copy", 3);
        assert!((score, first) == (81, 2) || (score, first) == (90, 1), "{score} {first}");
        assert!(pair("copy", "first", 2).0 >= 90);
        assert!(lever_seat("nobody").is_none());
        for name in LEVER_SEATS {
            assert_eq!(lever_seat(name).unwrap().name(), *name);
        }
    }
}
