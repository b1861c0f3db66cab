//! Playing seated episodes of any game: [`seats`] turns specs into seats, [`models`]
//! turns `--model` into a backend, [`play_seated`] plays one episode with them (the loop
//! itself is [`proagent_core::episode`]), [`summary`] is its one-object summary,
//! [`record`] writes its transcript as it is played, and [`files`] reads any episode file
//! (transcript, trajectory, human games) back.

pub mod files;
pub mod models;
pub mod record;
pub mod seats;
pub mod summary;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod v2_tests;

pub use proagent_core::episode::{
    DEADLOCK_TAIL, DEFAULT_MAX_LLM_FAILURES, DEFAULT_MAX_PARSE_FAILURE_SHARE, EpisodeFailed, EpisodeOptions,
    EpisodeResult, StepObserver, StepRecord, StepView, StopCheck, env_chance, play_episode, unread_decisions,
};
pub use proagent_core::{EpisodeAbort, seat_seed};

use crate::games::Playable;
use record::EpisodeRecorder;
use seats::{SeatError, SeatFactory};
use std::sync::Arc;

/// The version of the code that plays episodes: the package version and a hash of the
/// source of the games, partners (with the shipped BC weights), agents and the runner,
/// comment lines left out (see `build.rs`). Eval keys include it.
pub const CODE_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("PROAGENT_CODE_HASH"));

/// Why a seated episode could not be played or recorded.
#[derive(Debug, thiserror::Error)]
pub enum RunError<G: Playable> {
    /// A seat could not be built.
    #[error("{0}")]
    Seat(#[from] SeatError),
    /// The transcript could not be written.
    #[error("writing the transcript: {0}")]
    Transcript(#[from] crate::transcript::TranscriptError),
    /// The episode stopped before its horizon (its model failed); nothing of it is a result.
    #[error(transparent)]
    Failed(Box<EpisodeFailed<G>>),
}

/// Builds every seat from its spec (`specs[i]` plays player `i`) and plays one episode of
/// `game`; with a recorder, the seats' exchanges and every step are written as they
/// happen (the caller writes the footer with [`EpisodeRecorder::finish`], or for a
/// [`RunError::Failed`] episode with [`EpisodeRecorder::finish_failed`]).
/// `options.on_step` also sees every step, after the recorder, and `options.stop` can end
/// the episode early. The failure limits are always the factory's
/// ([`SeatFactory::max_llm_failures`], [`SeatFactory::max_parse_failure_share`]),
/// whatever `options` says, except that an episode with a `llmco[preset=paper]` seat is
/// scored however many replies went unread, as the paper scored every game
/// ([`SeatFactory::scores_every_episode`]).
pub async fn play_seated<G: Playable>(
    game: &Arc<G>,
    factory: &SeatFactory,
    specs: &[&str],
    seed: u64,
    mut recorder: Option<&mut EpisodeRecorder>,
    options: EpisodeOptions<'_, G>,
) -> Result<EpisodeResult<G>, RunError<G>> {
    let mut seats = Vec::with_capacity(specs.len());
    let mut sinks = Vec::with_capacity(specs.len());
    for spec in specs {
        let built = factory.build(spec, &**game)?;
        seats.push(built.seat);
        sinks.push(built.exchanges);
    }
    if let Some(r) = recorder.as_deref_mut() {
        r.set_seat_sinks(sinks);
    }
    let EpisodeOptions { on_step: mut observer, stop, .. } = options;
    let mut options = EpisodeOptions {
        on_step: None,
        stop,
        max_llm_failures: factory.max_llm_failures(),
        max_parse_failure_share: if specs.iter().any(|s| factory.scores_every_episode(s)) {
            None
        } else {
            factory.max_parse_failure_share()
        },
    };
    if recorder.is_some() || observer.is_some() {
        options.on_step = Some(Box::new(move |v: &StepView<'_, G>| {
            if let Some(r) = recorder.as_deref_mut() {
                r.on_step(v);
            }
            if let Some(o) = observer.as_mut() {
                o(v);
            }
        }));
    }
    play_episode(Arc::clone(game), seats, seed, options).await.map_err(|e| RunError::Failed(Box::new(e)))
}
