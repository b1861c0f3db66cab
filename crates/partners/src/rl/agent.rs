//! An RL policy in a seat: encode the state from the seat's side, run the network,
//! sample from the softmax with the seat's seeded RNG.

use super::model::{LoadError, RlModel, load_file, shipped_model};
use super::net::{Workspace, log_softmax};
use super::obs::LayoutEncoder;
use super::rollout::sample_action;
use super::train::Algo;
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_overcooked::env::{Action, Layout, Tile};
use proagent_overcooked::game::Overcooked;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;
use std::sync::Arc;

/// A parsed RL partner spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RlSpec {
    /// `sp`, `pbt`, `fcp`, `mep`: the shipped model of that algorithm for the layout.
    Shipped(Algo),
    /// `rl:PATH`: a model file written by `proagent rl train`.
    File(PathBuf),
}

impl RlSpec {
    /// Parses `sp`, `pbt`, `fcp`, `mep` or `rl:PATH`; `None` for other specs.
    pub fn parse(spec: &str) -> Option<RlSpec> {
        let s = spec.trim();
        if let Some(a) = Algo::parse(s) {
            return Some(RlSpec::Shipped(a));
        }
        let path = s.strip_prefix("rl:")?;
        (!path.is_empty()).then(|| RlSpec::File(PathBuf::from(path)))
    }

    /// Loads the model the spec names for `layout`.
    pub fn load(&self, layout: &Layout) -> Result<RlModel, LoadError> {
        match self {
            RlSpec::Shipped(a) => shipped_model(layout, *a),
            RlSpec::File(p) => load_file(p),
        }
    }
}

/// A seat played by an RL policy.
pub struct RlAgent {
    model: Arc<RlModel>,
    label: String,
    enc: Option<(usize, Vec<Tile>, LayoutEncoder)>,
    rng: ChaCha8Rng,
    ws: Workspace,
    x: Vec<f32>,
    decisions: u32,
}

impl RlAgent {
    /// A seat playing `model`, reported as `label`; RNG seed 0 until [`Agent::reset`].
    pub fn new(model: Arc<RlModel>, label: impl Into<String>) -> RlAgent {
        RlAgent {
            model,
            label: label.into(),
            enc: None,
            rng: ChaCha8Rng::seed_from_u64(0),
            ws: Workspace::default(),
            x: Vec::new(),
            decisions: 0,
        }
    }

    /// Builds the seat a spec names on `layout`.
    pub fn from_spec(spec: &RlSpec, label: &str, layout: &Layout) -> Result<RlAgent, LoadError> {
        Ok(RlAgent::new(Arc::new(spec.load(layout)?), label))
    }

    /// The model this seat samples from.
    pub fn model(&self) -> &RlModel {
        &self.model
    }

    fn encoder_for(&mut self, l: &Layout) -> &LayoutEncoder {
        let stale = !matches!(&self.enc, Some((w, tiles, _)) if *w == l.width && *tiles == l.tiles);
        if stale {
            self.enc = Some((l.width, l.tiles.clone(), self.model.encoder.for_layout(l)));
        }
        match &self.enc {
            Some((_, _, e)) => e,
            None => unreachable!("set just above"),
        }
    }

    /// The action probabilities for `seat` in `state`.
    pub fn probabilities(&mut self, l: &Layout, state: &proagent_overcooked::env::State, seat: usize) -> [f32; 6] {
        let dim = self.model.encoder.dim(l);
        let mut x = std::mem::take(&mut self.x);
        x.resize(dim, 0.0);
        self.encoder_for(l).encode(l, state, seat.min(1), &mut x);
        let model = Arc::clone(&self.model);
        model.net.forward(&x, 1, &mut self.ws);
        self.x = x;
        log_softmax(self.ws.output()).map(f32::exp)
    }

    /// Samples `seat`'s action.
    pub fn choose(&mut self, l: &Layout, state: &proagent_overcooked::env::State, seat: usize) -> Action {
        let p = self.probabilities(l, state, seat);
        let lp = p.map(|v| if v > 0.0 { v.ln() } else { f32::NEG_INFINITY });
        self.decisions += 1;
        Action::ALL[sample_action(&lp, &mut self.rng)]
    }
}

#[async_trait]
impl Seat<Overcooked> for RlAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let l: &Layout = &game.layout;
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.rng.set_stream(seat as u64);
        self.decisions = 0;
        self.encoder_for(l);
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        Ok(self.choose(&obs.game.layout, obs.view, obs.seat))
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({"model": self.model.source, "decisions": self.decisions})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::net::Net;
    use crate::rl::obs::ObsEncoder;

    #[test]
    fn specs() {
        assert_eq!(RlSpec::parse("sp"), Some(RlSpec::Shipped(Algo::Sp)));
        assert_eq!(RlSpec::parse(" mep "), Some(RlSpec::Shipped(Algo::Mep)));
        assert_eq!(RlSpec::parse("rl:a/b.safetensors"), Some(RlSpec::File("a/b.safetensors".into())));
        assert_eq!(RlSpec::parse("rl:"), None);
        assert_eq!(RlSpec::parse("bc"), None);
        assert_eq!(RlSpec::parse("spx"), None);
    }

    #[test]
    fn seeded_sampling_is_reproducible() {
        let l = Layout::builtin("cramped_room").unwrap();
        let m = Arc::new(RlModel {
            net: Net::new(62, &[8], 1),
            encoder: ObsEncoder::Features62,
            source: "t".into(),
            info: serde_json::json!({}),
            checkpoints: vec![],
        });
        let run = |seed: u64| {
            let mut a = RlAgent::new(Arc::clone(&m), "t");
            a.reset(&Overcooked::new(Arc::new(l.clone()), 400), 0, seed);
            let s = l.start_state();
            (0..50).map(|_| a.choose(&l, &s, 0)).collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
        let mut a = RlAgent::new(Arc::clone(&m), "t");
        let p = a.probabilities(&l, &l.start_state(), 1);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }
}
