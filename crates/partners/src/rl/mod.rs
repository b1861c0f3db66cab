//! Reinforcement-learned partners: the SP, PBT, FCP and MEP policies of ProAgent's
//! Table 1, trained here with PPO on our simulator.
//!
//! - [`obs`]: observation encoders (the 62 BC features; the lossless grid encoding plugs in);
//! - [`net`]: the policy-value MLP in plain Rust with a hand-written backward pass, Adam;
//! - [`ppo`]: GAE, the clipped loss and its gradient, the update;
//! - [`rollout`]: vectorised, seeded rollouts over many environments;
//! - [`train`]: the algorithms (SP, PBT, FCP, MEP; COLE is not implemented);
//! - [`model`]: safetensors model files and the shipped models;
//! - [`agent`]: the seat policy (`sp`, `pbt`, `fcp`, `mep`, `rl:PATH`).
//!
//! Guarantees: the same configuration and seed give bit-identical weights, whatever the
//! thread count; a policy samples its actions from its softmax with the seat's seeded RNG.

pub mod agent;
pub mod model;
pub mod net;
pub mod obs;
pub mod ppo;
pub mod rollout;
pub mod train;

pub use agent::{RlAgent, RlSpec};
pub use model::RlModel;
pub use train::{Algo, TrainConfig};
