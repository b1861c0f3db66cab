//! An RL policy in a seat of any [`RlGame`]: encode what the seat's player sees, run the
//! network, sample from the softmax with the seat's seeded RNG.
//!
//! A seat is built for one game ([`RlAgent::for_game`]): the model must read an encoding
//! of that game, of the width its network takes, and (unless overridden) have been
//! trained on that layout and those switches ([`RlModel::encoder_for`]).

use super::game::RlGame;
use super::model::{LoadError, RlModel, load_file, shipped_model};
use super::net::{Workspace, log_softmax};
use super::obs::Encode;
use super::rollout::sample_action;
use super::train::Algo;
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_overcooked::env::Action;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::Arc;

/// A parsed RL partner spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlSpec {
    /// `sp`, `pbt`, `fcp`, `mep`, `cole`: the shipped model of that algorithm for the layout.
    Shipped(Algo),
    /// `rl:PATH`: a model file written by `proagent rl train`.
    File(PathBuf),
}

impl RlSpec {
    /// Parses `sp`, `pbt`, `fcp`, `mep`, `cole` or `rl:PATH`; `None` for other specs.
    pub fn parse(spec: &str) -> Option<RlSpec> {
        let s = spec.trim();
        if let Some(a) = Algo::parse(s) {
            return Some(RlSpec::Shipped(a));
        }
        let path = s.strip_prefix("rl:")?;
        (!path.is_empty()).then(|| RlSpec::File(PathBuf::from(path)))
    }

    /// Loads the model the spec names for `game` (not yet checked against it).
    pub fn load<G: RlGame>(&self, game: &G) -> Result<RlModel, LoadError> {
        match self {
            RlSpec::Shipped(a) => shipped_model(game, *a),
            RlSpec::File(p) => load_file(p),
        }
    }
}

/// A seat played by an RL policy.
pub struct RlAgent<G: RlGame> {
    model: Arc<RlModel>,
    label: String,
    enc: G::Encoder,
    rng: ChaCha8Rng,
    ws: Workspace,
    x: Vec<f32>,
    decisions: u32,
}

impl<G: RlGame> RlAgent<G> {
    /// A seat playing `model` on `game`, reported as `label`; RNG seed 0 until
    /// [`Seat::reset`]. Refused when the model cannot play the game (see
    /// [`RlModel::encoder_for`]; `allow_mismatch` lets a model of another layout play).
    pub fn for_game(
        model: Arc<RlModel>,
        label: impl Into<String>,
        game: &G,
        allow_mismatch: bool,
    ) -> Result<Self, LoadError> {
        let enc = model.encoder_for(game, allow_mismatch)?;
        Ok(RlAgent {
            model,
            label: label.into(),
            enc,
            rng: ChaCha8Rng::seed_from_u64(0),
            ws: Workspace::default(),
            x: Vec::new(),
            decisions: 0,
        })
    }

    /// Builds the seat a spec names on `game`.
    pub fn from_spec(spec: &RlSpec, label: &str, game: &G, allow_mismatch: bool) -> Result<Self, LoadError> {
        RlAgent::for_game(Arc::new(spec.load(game)?), label, game, allow_mismatch)
    }

    /// The model this seat samples from.
    pub fn model(&self) -> &RlModel {
        &self.model
    }

    /// The action probabilities of player `seat` seeing `view`.
    pub fn probabilities(&mut self, view: G::View<'_>, seat: usize) -> [f32; 6] {
        let mut x = std::mem::take(&mut self.x);
        x.resize(self.enc.dim(), 0.0);
        self.enc.encode(view, seat, &mut x);
        self.model.net.forward(&x, 1, &mut self.ws);
        self.x = x;
        log_softmax(self.ws.output()).map(f32::exp)
    }

    /// Samples player `seat`'s action.
    pub fn choose(&mut self, view: G::View<'_>, seat: usize) -> Action {
        let p = self.probabilities(view, seat);
        let lp = p.map(|v| if v > 0.0 { v.ln() } else { f32::NEG_INFINITY });
        self.decisions += 1;
        Action::ALL[sample_action(&lp, &mut self.rng)]
    }
}

#[async_trait]
impl<G: RlGame> Seat<G> for RlAgent<G> {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn reset(&mut self, _game: &G, seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.rng.set_stream(seat as u64);
        self.decisions = 0;
    }

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<Action, AgentError> {
        Ok(self.choose(obs.view, obs.seat))
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({"model": self.model.source, "decisions": self.decisions})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::net::Net;
    use crate::rl::obs::FEATURES62;
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;

    #[test]
    fn specs() {
        assert_eq!(RlSpec::parse("sp"), Some(RlSpec::Shipped(Algo::Sp)));
        assert_eq!(RlSpec::parse(" mep "), Some(RlSpec::Shipped(Algo::Mep)));
        assert_eq!(RlSpec::parse("cole"), Some(RlSpec::Shipped(Algo::Cole)));
        assert_eq!(RlSpec::parse("rl:a/b.safetensors"), Some(RlSpec::File("a/b.safetensors".into())));
        assert_eq!(RlSpec::parse("rl:"), None);
        assert_eq!(RlSpec::parse("bc"), None);
        assert_eq!(RlSpec::parse("spx"), None);
    }

    #[test]
    fn seeded_sampling_is_reproducible() {
        let l = Layout::builtin("cramped_room").unwrap();
        let g = Overcooked::new(Arc::new(l.clone()), 400);
        let m = Arc::new(RlModel {
            net: Net::new(62, &[8], 1),
            encoder: FEATURES62.into(),
            source: "t".into(),
            info: serde_json::json!({"layout": "cramped_room"}),
            checkpoints: vec![],
        });
        let run = |seed: u64| {
            let mut a = RlAgent::for_game(Arc::clone(&m), "t", &g, false).unwrap();
            a.reset(&g, 0, seed);
            let s = l.start_state();
            (0..50).map(|_| a.choose(&s, 0)).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        let mut a = RlAgent::for_game(Arc::clone(&m), "t", &g, false).unwrap();
        let p = a.probabilities(&l.start_state(), 1);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
