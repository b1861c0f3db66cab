//! The episode runner: two seats, any agent in either, one seeded episode.
//!
//! It records the start state, every joint action, reward and resulting state,
//! and each player's skill events, and turns them into the reference
//! trajectory schema (so `verify-trace` and the analysis readers can replay
//! them) and into a one-line summary. [`seats`] turns specs into agents,
//! [`models`] turns `--model` into a backend, and [`record`] writes the
//! transcript of an episode as it is played, and [`files`] reads any episode file
//! (transcript, trajectory, human games) back into states and joint actions.

pub mod episode;
pub mod files;
pub mod models;
pub mod record;
pub mod seats;
pub mod v2;
pub mod v2_episode;

#[cfg(test)]
mod v2_tests;

pub use episode::{
    DEADLOCK_TAIL, DEFAULT_MAX_LLM_FAILURES, EpisodeAbort, EpisodeFailed, EpisodeOptions, EpisodeResult, StepObserver,
    StepRecord, StepView, StopCheck, play_episode,
};
pub use proagent_overcooked::policy::seat_seed;

use proagent_overcooked::controller::Kitchen;
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
    /// The episode stopped before its horizon (its model failed); nothing of it is a result.
    #[error(transparent)]
    Failed(#[from] EpisodeFailed),
}

/// Builds both seats from their specs (`specs[i]` plays player `i`) and plays one
/// episode; with a recorder, the seats' exchanges and every step are written as they
/// happen (the caller writes the footer with [`EpisodeRecorder::finish`], or for a
/// [`RunError::Failed`] episode with [`EpisodeRecorder::finish_failed`]). `observer`
/// also sees every step (e.g. `--render`). The factory's
/// [`SeatFactory::max_llm_failures`] bounds the model calls that may fail.
pub async fn play_seated(
    kitchen: &Arc<Kitchen>,
    factory: &SeatFactory,
    specs: [&str; 2],
    seed: u64,
    horizon: u32,
    recorder: Option<&mut EpisodeRecorder>,
    observer: Option<StepObserver<'_>>,
) -> Result<EpisodeResult, RunError> {
    let options = EpisodeOptions { on_step: observer, ..EpisodeOptions::default() };
    play_seated_with(kitchen, factory, specs, seed, horizon, recorder, options).await
}

/// [`play_seated`] with every episode option: `options.on_step` sees every step after
/// the recorder, and `options.stop` can end the episode early. The failure limit is
/// always the factory's [`SeatFactory::max_llm_failures`], whatever `options` says.
pub async fn play_seated_with(
    kitchen: &Arc<Kitchen>,
    factory: &SeatFactory,
    specs: [&str; 2],
    seed: u64,
    horizon: u32,
    mut recorder: Option<&mut EpisodeRecorder>,
    options: EpisodeOptions<'_>,
) -> Result<EpisodeResult, RunError> {
    let s0 = factory.build(specs[0], kitchen)?;
    let s1 = factory.build(specs[1], kitchen)?;
    if let Some(r) = recorder.as_deref_mut() {
        r.set_seat_sinks([s0.exchanges.clone(), s1.exchanges.clone()]);
    }
    let EpisodeOptions { on_step: mut observer, stop, max_llm_failures: _ } = options;
    let mut options = EpisodeOptions { on_step: None, stop, max_llm_failures: factory.max_llm_failures() };
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
    Ok(play_episode(Arc::clone(&kitchen.layout), [s0.agent, s1.agent], seed, horizon, options).await?)
}
