//! The local web app of `proagent serve`: a viewer for episodes (transcripts,
//! trajectories, eval directories) and human play against any seat.
//!
//! - [`board`] draws a state (SVG, PNG, GIF) — the one drawing interface, with classic
//!   Overcooked and OvercookedV2; [`table`] draws Hanabi and [`rooms`] the maze games;
//! - [`view`] turns an episode file into what the viewer shows at each step;
//! - [`api`] is the HTTP server: static assets embedded in the binary, the JSON API;
//! - [`play`] runs human games (one session per browser, several at once).
//!
//! Only `cli` uses this module.

pub mod api;
pub mod board;
pub mod play;
pub mod rooms;
pub mod table;
pub mod view;

pub use api::{ServeConfig, ServeError, router};

/// Serves the app on `listener` until the future `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    cfg: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), WebError> {
    let app = router(cfg)?;
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await.map_err(WebError::Io)
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum WebError {
    /// It could not start.
    #[error(transparent)]
    Start(#[from] ServeError),
    /// The listener failed.
    #[error("serving: {0}")]
    Io(std::io::Error),
}
