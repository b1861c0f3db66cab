//! The local web app of `proagent serve`: a viewer for episodes (transcripts,
//! trajectories, eval directories) and human play against any seat.
//!
//! - [`board`] draws a state (SVG, PNG, GIF) — the one drawing interface, with classic
//!   Overcooked and OvercookedV2; [`table`] draws Hanabi and [`rooms`] the maze games;
//! - [`view`] turns an episode file into what the viewer shows at each step;
//! - [`api`] is the HTTP server: static assets embedded in the binary, the JSON API;
//!   [`guard`] checks every request (Host, Origin, token, content types), [`access`]
//!   every path in one, and [`listen`] runs the connections with their limits;
//! - [`play`] runs human games (one session per browser, several at once);
//! - [`memory`] measures what an opened episode holds in memory (the keep budget).
//!
//! Only `cli` uses this module.

pub mod access;
pub mod api;
pub mod board;
pub mod guard;
pub mod lever_board;
pub mod listen;
pub mod memory;
pub mod play;
pub mod rooms;
pub mod table;
pub mod view;

pub use api::{ServeConfig, ServeError, ServeLimits, router};

/// Serves the app on `listener` until the future `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    cfg: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), WebError> {
    let port = listener.local_addr().map_err(WebError::Io)?.port();
    let conn = cfg.limits.conn;
    let app = router(cfg, port)?;
    listen::run(listener, app, conn, shutdown).await.map_err(WebError::Io)
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
