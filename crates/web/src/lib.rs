//! The local web app of `proagent serve`: a viewer for episodes (transcripts,
//! trajectories, eval directories) and human play against any seat.
//!
//! - the boards (SVG, PNG, GIF) come from `proagent-view`;
//! - [`view`] turns an episode file into what the viewer shows at each step;
//! - [`api`] is the HTTP server: static assets embedded in the binary, the JSON API;
//!   [`guard`] checks every request (Host, Origin, token, content types), [`access`]
//!   every path in one, and `proagent-listen`'s loop runs the connections with their limits;
//! - [`play`] runs human games (one session per browser, several at once);
//! - [`memory`] measures what an opened episode holds in memory (the keep budget).
//!
//! The binary's `serve` (and `render`, for [`view`]) use this crate.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod access;
pub mod api;
pub mod guard;
pub mod memory;
pub mod play;
pub mod view;

pub use api::{ServeConfig, ServeError, ServeLimits, router};
pub use proagent_listen::ConnLimits;

/// Serves the app on `listener` until the future `shutdown` completes.
pub async fn serve(
    listener: tokio::net::TcpListener,
    cfg: ServeConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<(), WebError> {
    let port = listener.local_addr().map_err(WebError::Io)?.port();
    let conn = cfg.limits.conn;
    let app = router(cfg, port)?;
    proagent_listen::run(listener, app, conn, "serve", shutdown).await.map_err(WebError::Io)
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
