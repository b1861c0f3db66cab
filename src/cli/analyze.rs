//! `proagent analyze`: interdependence analysis of recorded trajectories.

use anyhow::{Context, Result, bail};
use proagent::analysis::v2::{Handovers, TeamworkV2, V2LayoutSummary, events_of_trajectory};
use proagent::analysis::{self, Distribution, LayoutSummary, Report};
use proagent::runner::files::{looks_like_transcript, looks_like_v2_trajectory, read_episode_text, read_text_maybe_gz};
use proagent::runner::record::RunConfig;
use proagent::transcript::Transcript;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Episode files: reference traces and our episodes (JSON Lines, one trajectory per
    /// line), human-game files (JSON Lines, one timestep per line), `play`/`eval`
    /// transcripts (the states are rebuilt from the recorded joint actions) or
    /// OvercookedV2 episodes (`play --layout v2:... --trajectory`); gzipped or not.
    /// The kind is detected from the content.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per trajectory (JSON Lines) instead of text.
    #[arg(long)]
    json: bool,
    /// Per-layout distributions over the trajectories (constructive interdependencies per
    /// soup, accepted share; for OvercookedV2: constructive hand-overs per correct dish,
    /// shared-pot share, constructive button signals) instead of one line per trajectory.
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

/// One analysed OvercookedV2 episode.
struct V2Episode {
    /// Where it was read: `FILE:LINE` for a trajectory, the file for a transcript.
    at: String,
    layout: String,
    seed: serde_json::Value,
    steps: usize,
    teamwork: TeamworkV2,
}

/// The OvercookedV2 trajectories of a file (`play --layout v2:... --trajectory`), one per line.
fn v2_trajectories(source: &str, text: &str) -> Result<Vec<V2Episode>> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = format!("{source}:{}", i + 1);
        let v: serde_json::Value = serde_json::from_str(line).with_context(|| format!("{at}: not JSON"))?;
        let layout_text = v.get("layout_text").and_then(|t| t.as_str()).unwrap_or("");
        let layout = proagent::env_v2::Layout::parse(layout_text, &format!("{at} layout_text"))?;
        let events = events_of_trajectory(&v).with_context(|| at.clone())?;
        let teamwork = proagent::analysis::v2::teamwork(&layout, &events);
        let seed = v.get("seed").cloned().unwrap_or_default();
        out.push(V2Episode { at, layout: format!("v2:{}", layout.name), seed, steps: events.len(), teamwork });
    }
    Ok(out)
}

/// An OvercookedV2 `play`/`eval` transcript: the interact events its steps record. The
/// steps must run 0, 1, 2, ... and the events must add up to the deliveries its footer
/// records.
fn v2_transcript(source: &str, t: &Transcript, cfg: &RunConfig) -> Result<V2Episode> {
    let layout = match &cfg.layout_file {
        Some(text) => proagent::env_v2::Layout::parse(text, &format!("{source} (recorded layout)"))?,
        None => {
            let spec = proagent::env_v2::layout::strip_v2_prefix(&cfg.layout_spec).unwrap_or(&cfg.layout_spec);
            super::common::load_v2_layout(spec).with_context(|| source.to_string())?.0
        }
    };
    let mut events = Vec::with_capacity(t.steps.len());
    for (k, step) in t.steps.iter().enumerate() {
        if step.t as usize != k {
            bail!("{source}: step record {k} has t = {} (the steps must be 0, 1, 2, ...)", step.t);
        }
        let e: Vec<Option<proagent::env_v2::Event>> =
            serde_json::from_value(step.data.get("events").cloned().unwrap_or_default())
                .with_context(|| format!("{source}: step t = {k}: `data.events`"))?;
        events.push(e);
    }
    let teamwork = proagent::analysis::v2::teamwork(&layout, &events);
    if let Some(f) = &t.footer {
        let recorded = |k: &str| f.data.get(k).and_then(serde_json::Value::as_u64);
        let (c, w) = (recorded("deliveries"), recorded("wrong_deliveries"));
        if c.is_some_and(|c| c != u64::from(teamwork.correct_dishes))
            || w.is_some_and(|w| w != u64::from(teamwork.wrong_dishes))
        {
            bail!(
                "{source}: the steps' events give {} correct and {} wrong deliveries, the footer records {c:?} and {w:?}",
                teamwork.correct_dishes,
                teamwork.wrong_dishes
            );
        }
    }
    Ok(V2Episode {
        at: source.to_string(),
        layout: format!("v2:{}", layout.name),
        seed: json!(cfg.seed),
        steps: events.len(),
        teamwork,
    })
}

fn handovers_text(h: &Handovers) -> String {
    format!("{}/{}", h.constructive, h.total)
}

fn v2_line(e: &V2Episode) -> String {
    let t = &e.teamwork;
    let kinds: Vec<String> = t.ingredient_kinds.iter().map(|(k, h)| format!("{k} {}", handovers_text(h))).collect();
    let dishes: Vec<String> = t
        .dishes_by_recipe
        .iter()
        .map(|(k, d)| format!("[{k}] {} correct, {} wrong, {} handed over", d.correct, d.wrong, d.handed_over))
        .collect();
    format!(
        "{} {} seed {}: {} steps, {} correct / {} wrong dishes, hand-overs {} ({} constructive; ingredients {} [{}], plates {}, dishes {}), shared-pot soups {}, button presses {} ({} constructive signals); dishes: {}",
        e.at,
        e.layout,
        e.seed,
        e.steps,
        t.correct_dishes,
        t.wrong_dishes,
        t.handovers,
        t.constructive,
        handovers_text(&t.ingredients),
        kinds.join(", "),
        handovers_text(&t.plates),
        handovers_text(&t.dishes),
        t.shared_pot_soups,
        t.button_presses,
        t.signals.constructive,
        if dishes.is_empty() { "none".to_string() } else { dishes.join("; ") }
    )
}

fn v2_summary_text(s: &V2LayoutSummary) -> String {
    let t = &s.totals;
    format!(
        "{}: {} episodes ({} without a correct dish), {} correct / {} wrong dishes, {} hand-overs ({} constructive), {} button presses ({} constructive signals)\n  \
         constructive hand-overs per correct dish: mean {}\n  shared-pot share of correct dishes: mean {}\n  \
         constructive share of button presses: mean {}",
        s.layout,
        s.episodes,
        s.without_correct_dish,
        t.correct_dishes,
        t.wrong_dishes,
        t.handovers,
        t.constructive,
        t.button_presses,
        t.signals.constructive,
        dist_text(&s.constructive_per_dish, false),
        dist_text(&s.shared_pot_share, true),
        dist_text(&s.constructive_signal_share, true),
    )
}

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let mut reports = Vec::new();
    let mut v2_episodes: Vec<V2Episode> = Vec::new();
    for path in &a.files {
        let source = path.display().to_string();
        let text = read_text_maybe_gz(path)?;
        let mut v2 = Vec::new();
        if looks_like_v2_trajectory(&text) {
            v2 = v2_trajectories(&source, &text)?;
        } else if looks_like_transcript(&text) {
            let t = Transcript::parse(&text, &source)?;
            let cfg = RunConfig::from_header(&t.header, &source, t.header_line)?;
            if cfg.v2.is_some() {
                v2.push(v2_transcript(&source, &t, &cfg)?);
            }
        }
        if !v2.is_empty() {
            for e in &v2 {
                if a.summary {
                    continue;
                }
                if a.json {
                    println!(
                        "{}",
                        json!({"file": source, "at": e.at, "kind": "overcooked_v2", "layout": e.layout, "seed": e.seed, "steps": e.steps, "teamwork": e.teamwork})
                    );
                } else {
                    println!("{}", v2_line(e));
                }
            }
            v2_episodes.extend(v2);
            continue;
        }
        let file = read_episode_text(&source, &text)?;
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
        let v2: Vec<(String, TeamworkV2)> = v2_episodes.into_iter().map(|e| (e.layout, e.teamwork)).collect();
        for s in proagent::analysis::v2::summarize(&v2) {
            if a.json {
                let mut v = json!(s);
                v["kind"] = json!("overcooked_v2");
                println!("{v}");
            } else {
                println!("{}", v2_summary_text(&s));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
