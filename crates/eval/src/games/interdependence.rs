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
            .map(|s| if json { serde_json::json!(s).to_string() } else { classic_summary_text(s) })
            .collect();
        out.extend(proagent_analysis::v2::summarize(&self.v2).iter().map(|s| {
            if json {
                let mut v = serde_json::json!(s);
                v["kind"] = serde_json::json!("overcooked_v2");
                v.to_string()
            } else {
                v2_summary_text(s)
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

/// A classic layout's summary as `analyze --summary` prints it.
fn classic_summary_text(s: &proagent_analysis::LayoutSummary) -> String {
    format!(
        "{}: {} ({} without a soup), {}, {} constructive, {} non-constructive\n  \
         constructive per soup: mean {}\n  non-constructive per soup: mean {}\n  accepted share of triggers: mean {}\n  \
         shared-pot links per soup (indirect): mean {}",
        s.layout,
        super::plural::counted(s.trajectories as u64, "trajectory", "trajectories"),
        s.without_delivery,
        super::plural::counted(s.deliveries as u64, "soup", "soups"),
        s.constructive,
        s.non_constructive,
        dist_text(&s.constructive_per_soup, false),
        dist_text(&s.non_constructive_per_soup, false),
        dist_text(&s.accepted_share, true),
        dist_text(&s.pot_links_per_soup, false),
    )
}

/// An OvercookedV2 layout's summary as `analyze --summary` prints it.
fn v2_summary_text(s: &proagent_analysis::v2::V2LayoutSummary) -> String {
    let t = &s.totals;
    format!(
        "{}: {} ({} without a correct dish), {} correct / {} wrong {}, {} ({} constructive), {} ({})\n  \
         constructive hand-overs per correct dish: mean {}\n  shared-pot share of correct dishes: mean {}\n  \
         constructive share of button presses: mean {}",
        s.layout,
        super::plural::counted(s.episodes as u64, "episode", "episodes"),
        s.without_correct_dish,
        t.correct_dishes,
        t.wrong_dishes,
        if t.correct_dishes + t.wrong_dishes == 1 { "dish" } else { "dishes" },
        super::plural::counted(t.handovers as u64, "hand-over", "hand-overs"),
        t.constructive,
        super::plural::counted(t.button_presses as u64, "button press", "button presses"),
        super::plural::counted(t.signals.constructive as u64, "constructive signal", "constructive signals"),
        dist_text(&s.constructive_per_dish, false),
        dist_text(&s.shared_pot_share, true),
        dist_text(&s.constructive_signal_share, true),
    )
}
