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
use proagent_eval::runner::seats::ProAgentSeat;
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

/// The models the Play tab offers a `proagent` seat: the one `--model` names first (the
/// default), then the rule-based stand-in when that is another model (offered once:
/// `scripted` is its old name).
pub fn offered_models(name: &str, seat: &ProAgentSeat) -> Vec<play::GameModel> {
    let mut models = vec![play::GameModel { name: name.to_string(), seat: seat.clone() }];
    if !proagent_llm::is_stand_in(name) {
        let model = proagent_llm::ModelSpec::new(proagent_llm::STAND_IN);
        models.push(play::GameModel {
            name: proagent_llm::STAND_IN.into(),
            seat: ProAgentSeat {
                label: proagent_agent::config::label(&seat.settings, &model),
                settings: seat.settings.clone(),
                model,
            },
        });
    }
    models
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stand_in_is_offered_once_under_its_name() {
        let names =
            |m: &str| -> Vec<String> { offered_models(m, &ProAgentSeat::new(m)).into_iter().map(|g| g.name).collect() };
        assert_eq!(names(proagent_llm::STAND_IN), ["rule-based"]);
        assert_eq!(names("scripted"), ["scripted"], "the old name is the stand-in too");
        assert_eq!(names("gpt-4o"), ["gpt-4o", "rule-based"]);
        let served = offered_models("gpt-4o", &ProAgentSeat::new("gpt-4o"));
        assert!(served[1].seat.label.contains("rule-based"), "{}", served[1].seat.label);
    }
}
