//! The episode runner: two seats, any agent in either, one seeded episode.
//!
//! It records the start state, every joint action, reward and resulting state,
//! and each player's skill events, and turns them into the reference
//! trajectory schema (so `verify-trace` and the analysis readers can replay
//! them) and into a one-line summary. [`seats`] turns specs into agents,
//! [`models`] turns `--model` into a backend, and [`record`] writes the
//! transcript of an episode as it is played.

pub mod episode;
pub mod models;
pub mod record;
pub mod seats;

pub use crate::policy::seat_seed;
pub use episode::{DEADLOCK_TAIL, EpisodeOptions, EpisodeResult, StepObserver, StepRecord, StepView, play_episode};

use crate::controller::Kitchen;
use record::EpisodeRecorder;
use seats::{SeatError, SeatFactory};
use std::sync::Arc;

/// The version of the code that plays episodes: the package version and a hash of the
/// source of the simulator, skills, controller, partners (with the shipped BC weights),
/// agent and runner, comment lines left out (see `build.rs`). Eval keys include it.
pub const CODE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("PROAGENT_CODE_HASH"));

/// Why a seated episode could not be played or recorded.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A seat could not be built.
    #[error("{0}")]
    Seat(#[from] SeatError),
    /// The transcript could not be written.
    #[error("writing the transcript: {0}")]
    Transcript(#[from] crate::transcript::TranscriptError),
}

/// Builds both seats from their specs (`specs[i]` plays player `i`) and plays one
/// episode; with a recorder, the seats' exchanges and every step are written as they
/// happen (the caller writes the footer with [`EpisodeRecorder::finish`]). `observer`
/// also sees every step (e.g. `--render`).
pub async fn play_seated(
    kitchen: &Arc<Kitchen>,
    factory: &SeatFactory,
    specs: [&str; 2],
    seed: u64,
    horizon: u32,
    mut recorder: Option<&mut EpisodeRecorder>,
    mut observer: Option<StepObserver<'_>>,
) -> Result<EpisodeResult, RunError> {
    let s0 = factory.build(specs[0], kitchen)?;
    let s1 = factory.build(specs[1], kitchen)?;
    if let Some(r) = recorder.as_deref_mut() {
        r.set_sinks(s0.exchanges.iter().chain(s1.exchanges.iter()).cloned().collect());
    }
    let mut options = EpisodeOptions::default();
    if recorder.is_some() || observer.is_some() {
        options.on_step = Some(Box::new(move |v: &StepView<'_>| {
            if let Some(r) = recorder.as_deref_mut() {
                r.on_step(v);
            }
            if let Some(o) = observer.as_mut() {
                o(v);
            }
        }));
    }
    Ok(play_episode(Arc::clone(&kitchen.layout), [s0.agent, s1.agent], seed, horizon, options).await)
}
