//! `proagent analyze`: interdependence analysis of recorded trajectories.

use anyhow::{Context, Result};
use proagent::analysis::{self, Distribution, LayoutSummary, Report};
use proagent::runner::files::read_episode_file;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Episode files: reference traces and our episodes (JSON Lines, one trajectory per
    /// line), human-game files (JSON Lines, one timestep per line) or `play`/`eval`
    /// transcripts (the states are rebuilt from the recorded joint actions); gzipped or not.
    /// The kind is detected from the content.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per trajectory (JSON Lines) instead of text.
    #[arg(long)]
    json: bool,
    /// Per-layout distributions over the trajectories (constructive interdependencies per
    /// soup, accepted share) instead of one line per trajectory.
    #[arg(long)]
    summary: bool,
    /// With --json: list every interdependence (giver, receiver, times, object, kind).
    #[arg(long, requires = "json")]
    detail: bool,
}

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn text_line(r: &Report) -> String {
    let links: Vec<String> =
        r.links.iter().map(|(k, c)| format!("{k} {}/{}", c.constructive, c.non_constructive)).collect();
    let players: Vec<String> = r
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| format!("p{i} triggered {} accepted {} ({})", p.triggered, p.accepted, pct(p.accepted_share())))
        .collect();
    format!(
        "{}: {} steps, {} soups, constructive {}, non-constructive {} [{}]; {}; shared-pot links {}/{}",
        r.trajectory,
        r.steps,
        r.deliveries,
        r.constructive,
        r.non_constructive,
        links.join(", "),
        players.join("; "),
        r.pot_links.constructive,
        r.pot_links.non_constructive
    )
}

fn dist_text(d: &Option<Distribution>, share: bool) -> String {
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

fn summary_text(s: &LayoutSummary) -> String {
    format!(
        "{}: {} trajectories ({} without a soup), {} soups, {} constructive, {} non-constructive\n  \
         constructive per soup: mean {}\n  non-constructive per soup: mean {}\n  accepted share of triggers: mean {}\n  \
         shared-pot links per soup (indirect): mean {}",
        s.layout,
        s.trajectories,
        s.without_delivery,
        s.deliveries,
        s.constructive,
        s.non_constructive,
        dist_text(&s.constructive_per_soup, false),
        dist_text(&s.non_constructive_per_soup, false),
        dist_text(&s.accepted_share, true),
        dist_text(&s.pot_links_per_soup, false),
    )
}

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let mut reports = Vec::new();
    for path in &a.files {
        let source = path.display().to_string();
        let file = read_episode_file(path)?;
        let (kind, trajs) = (file.kind, file.trajectories);
        tracing::info!(file = %source, kind = kind.name(), trajectories = trajs.len(), "read");
        for t in &trajs {
            let r = analysis::analyze(t).with_context(|| source.clone())?;
            if r.trace.repairs > 0 {
                tracing::warn!(trajectory = %r.trajectory, repairs = r.trace.repairs, "objects appeared or vanished without an explaining action");
            }
            if !a.summary {
                if a.json {
                    let mut v = analysis::report_json(&r, a.detail);
                    v["file"] = json!(source);
                    v["kind"] = json!(kind.name());
                    println!("{v}");
                } else {
                    println!("{}", text_line(&r));
                }
            }
            reports.push(r);
        }
    }
    if a.summary {
        for s in analysis::summarize(&reports) {
            if a.json {
                println!("{}", json!(s));
            } else {
                println!("{}", summary_text(&s));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
