//! Reinforcement-learned partners: the SP, PBT, FCP, MEP and COLE policies of ProAgent's
//! Table 1, trained here with PPO on our simulators — classic Overcooked and OvercookedV2,
//! through one trainer generic over the game.
//!
//! - [`game`]: what a game gives the trainer ([`RlGame`]): encodings, shaped rewards, what
//!   a model file records of it;
//! - [`obs`]: the observation-encoding trait and the 62 classic BC features;
//! - [`obs_v2`]: the OvercookedV2 encoding of an agent's own view;
//! - [`net`]: the policy-value MLP in plain Rust with a hand-written backward pass, Adam;
//! - [`ppo`]: GAE, the clipped loss and its gradient, the update;
//! - [`rollout`]: vectorised, seeded rollouts over many environments;
//! - [`train`]: the algorithms (SP, PBT, FCP, MEP, COLE) and the memory budget;
//! - [`cole`]: COLE_SV's graphic-form population, Shapley solver and trainer;
//! - [`model`]: safetensors model files (untrusted input) and the shipped models;
//! - [`agent`]: the seat policy (`sp`, `pbt`, `fcp`, `mep`, `cole`, `rl:PATH`).
//!
//! Guarantees: the same configuration and seed give bit-identical weights, whatever the
//! thread count; a policy samples its actions from its softmax with the seat's seeded RNG;
//! a model file plays only the game (and, unless overridden, the layout) it was trained on.

pub mod agent;
pub mod cole;
pub mod game;
pub mod model;
pub mod net;
pub mod obs;
pub mod obs_v2;
pub mod ppo;
pub mod rollout;
pub mod run;
pub mod train;

pub use agent::{RlAgent, RlSpec};
pub use game::RlGame;
pub use model::RlModel;
pub use train::{Algo, TrainConfig};
