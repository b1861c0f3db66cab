//! The interdependence analysis of saved episodes (`proagent analyze`), asked of each game
//! ([`Playable::interdependence`](super::playable::Playable::interdependence)): a game that has one turns an episode into one line
//! (text and JSON) and keeps what its summary needs in an [`Interdependence`]; the command
//! prints the lines and [`Interdependence::summary`], and names no game.
//!
//! Guarantees: the lines and summaries are the ones `analyze` has always printed (the
//! classic Overcooked interdependencies of `proagent_analysis`, OvercookedV2's teamwork of
//! `proagent_analysis::v2`); summaries come in catalog order (classic, then OvercookedV2).

use proagent_analysis::v2::TeamworkV2;
use proagent_analysis::{Distribution, Report};
use serde_json::Value;

/// One analysed episode as `analyze` prints it.
#[derive(Clone, Debug)]
pub struct AnalysedEpisode {
    /// The `--json` line.
    pub json: Value,
    /// The text line.
    pub text: String,
}

/// What the summaries of one `analyze` run keep of every analysed episode, per game.
#[derive(Debug, Default)]
pub struct Interdependence {
    /// Classic Overcooked's reports.
    pub(super) classic: Vec<Report>,
    /// OvercookedV2's episodes: layout and teamwork.
    pub(super) v2: Vec<(String, TeamworkV2)>,
}

/// Where an episode comes from, for its line.
#[derive(Clone, Copy, Debug)]
pub struct EpisodeSource<'a> {
    /// The file as the command names it.
    pub file: &'a str,
    /// The file's kind (`trajectory`, `transcript`, ...).
    pub file_kind: &'a str,
    /// With `--json`: list every interdependence.
    pub detail: bool,
}

impl Interdependence {
    /// The per-layout summaries (one JSON object each with `json`, else text), classic
    /// Overcooked's first.
    pub fn summary(&self, json: bool) -> Vec<String> {
        let mut out: Vec<String> = proagent_analysis::summarize(&self.classic)
            .iter()
            .map(|s| if json { serde_json::json!(s).to_string() } else { super::overcooked::summary_text(s) })
            .collect();
        out.extend(proagent_analysis::v2::summarize(&self.v2).iter().map(|s| {
            if json {
                let mut v = serde_json::json!(s);
                v["kind"] = serde_json::json!("overcooked_v2");
                v.to_string()
            } else {
                super::overcooked_v2::summary_text(s)
            }
        }));
        out
    }
}

/// A share in percent, `-` when there is none.
pub(super) fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

/// A distribution in words (`share`: as percentages).
pub(super) fn dist_text(d: &Option<Distribution>, share: bool) -> String {
    match d {
        None => "-".into(),
        Some(d) if share => {
            format!(
                "{:.1}% (median {:.1}%, {:.1}%..{:.1}%)",
                d.mean * 100.0,
                d.median * 100.0,
                d.min * 100.0,
                d.max * 100.0
            )
        }
        Some(d) => format!("{:.2} (median {:.2}, {:.2}..{:.2})", d.mean, d.median, d.min, d.max),
    }
}
