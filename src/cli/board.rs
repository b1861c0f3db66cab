//! The ASCII board of `play --render` and `show`: any game's board with the side panel of
//! `proagent_view::panel` (score, each seat's name, current skill and plan), a legend, and
//! an optional delay between frames.

use proagent::env::render::beside;
pub use proagent_view::panel::{SeatLine, panel};
use std::io::Write;
use std::time::Duration;

/// Longest `--render-delay-ms`.
pub const MAX_DELAY_MS: u64 = 60_000;

/// Prints one frame on stdout: `header` lines, then `board` with the panel beside it;
/// then waits `delay`. A closed pipe (e.g. `| head`) is not an error for a board printout.
pub fn print_frame(board: &str, header: &str, panel: &[String], delay: Option<Duration>) {
    let mut text = String::from(header);
    text.push_str(&beside(board, panel));
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    if let Some(d) = delay {
        std::thread::sleep(d);
    }
}

/// Prints a legend once, before the first frame.
pub fn print_legend(legend: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{legend}\n");
}

/// `--render-delay-ms`, checked.
pub fn delay(ms: Option<u64>) -> anyhow::Result<Option<Duration>> {
    match ms {
        Some(ms) if ms > MAX_DELAY_MS => anyhow::bail!("--render-delay-ms must be at most {MAX_DELAY_MS}, got {ms}"),
        Some(ms) => Ok(Some(Duration::from_millis(ms))),
        None => Ok(None),
    }
}
