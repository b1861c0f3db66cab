//! One SVG heatmap per layout, as the paper's Figure 5: rows are agents as
//! player 0, columns partners as player 1, each cell the mean score with its
//! standard error, coloured on a viridis-like scale from 0 to the layout's best cell.
//!
//! Drawn with plotters' SVG backend. Without its font features plotters cannot
//! measure glyphs, but the SVG backend does not need to: it writes every label
//! as an SVG `<text>` element (escaped) and the viewer lays it out, so only the
//! label box sizes below are estimates.

use super::report::Report;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// plotters failed to draw one layout's heatmap.
#[derive(Debug, thiserror::Error)]
#[error("drawing the heatmap for {layout}: {message}")]
pub struct HeatmapError {
    /// The layout whose heatmap failed.
    pub layout: String,
    /// plotters' error, as text.
    pub message: String,
}

/// Viridis at five stops; values in between are linear blends.
const STOPS: [(f64, (u8, u8, u8)); 5] =
    [(0.0, (68, 1, 84)), (0.25, (59, 82, 139)), (0.5, (33, 145, 140)), (0.75, (94, 201, 98)), (1.0, (253, 231, 37))];

fn colour(t: f64) -> RGBColor {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    for w in STOPS.windows(2) {
        let (t0, a) = w[0];
        let (t1, b) = w[1];
        if t <= t1 {
            let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
            let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * f).round() as u8;
            return RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2));
        }
    }
    let (_, c) = STOPS[STOPS.len() - 1];
    RGBColor(c.0, c.1, c.2)
}

/// Which seat a layout's heatmap shows: the agent as player 0 when there is any such
/// episode (Figure 5's orientation), otherwise the agent as player 1.
pub fn heatmap_seat(report: &Report, layout: &str) -> Option<u8> {
    let has = |seat: u8| report.cells.iter().any(|c| c.layout == layout && c.seat == seat);
    if has(0) {
        Some(0)
    } else if has(1) {
        Some(1)
    } else {
        None
    }
}

/// The SVG text of one layout's heatmap, or `None` if the layout has no episodes.
pub fn heatmap_svg(report: &Report, layout: &str) -> Result<Option<String>, HeatmapError> {
    let Some(seat) = heatmap_seat(report, layout) else { return Ok(None) };
    let err = |e: &dyn std::fmt::Display| HeatmapError { layout: layout.to_string(), message: e.to_string() };
    let agents: Vec<&String> = report
        .agents
        .iter()
        .filter(|a| report.cells.iter().any(|c| c.layout == layout && c.seat == seat && &c.agent == *a))
        .collect();
    let partners: Vec<&String> = report
        .partners
        .iter()
        .filter(|p| report.cells.iter().any(|c| c.layout == layout && c.seat == seat && &c.partner == *p))
        .collect();
    let max = report
        .cells
        .iter()
        .filter(|c| c.layout == layout && c.seat == seat)
        .map(|c| c.score.mean)
        .fold(0.0f64, f64::max);

    // Geometry from label lengths (about 7.5 px per character at 13 px).
    let char_w = 7.5;
    let longest = |v: &[&String]| v.iter().map(|s| s.chars().count()).max().unwrap_or(1) as f64;
    let left = (longest(&agents) * char_w + 30.0).max(90.0) as i32;
    let cell_w = (longest(&partners) * char_w + 16.0).max(120.0) as i32;
    let cell_h = 48;
    let top = 70;
    let bottom = 50;
    let bar_w = 90;
    let grid_w = cell_w * partners.len() as i32;
    let grid_h = cell_h * agents.len() as i32;
    let width = (left + grid_w + bar_w + 20) as u32;
    let height = (top + grid_h + bottom) as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let font = |size: i32| ("sans-serif", size).into_font();
        let centred = Pos::new(HPos::Center, VPos::Center);
        let (p_agent, p_partner) = if seat == 0 { (0, 1) } else { (1, 0) };
        let title = format!("{layout}: mean score ± SE");
        root.draw(&Text::new(title, (left + grid_w / 2, 18), font(16).color(&BLACK).pos(centred)))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(
            format!("partner (player {p_partner})"),
            (left + grid_w / 2, top - 34),
            font(13).color(&BLACK).pos(centred),
        ))
        .map_err(|e| err(&e))?;
        root.draw(&Text::new(
            format!("agent (player {p_agent})"),
            (12, top + grid_h / 2),
            font(13).color(&BLACK).pos(centred).transform(FontTransform::Rotate270),
        ))
        .map_err(|e| err(&e))?;

        for (j, p) in partners.iter().enumerate() {
            let x = left + cell_w * j as i32 + cell_w / 2;
            root.draw(&Text::new(p.to_string(), (x, top - 12), font(13).color(&BLACK).pos(centred)))
                .map_err(|e| err(&e))?;
        }
        for (i, a) in agents.iter().enumerate() {
            let y0 = top + cell_h * i as i32;
            root.draw(&Text::new(
                a.to_string(),
                (left - 8, y0 + cell_h / 2),
                font(13).color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(|e| err(&e))?;
            for (j, p) in partners.iter().enumerate() {
                let x0 = left + cell_w * j as i32;
                let cell = report.cell(layout, a, p, seat);
                let (fill, label, dark) = match cell {
                    Some(c) => {
                        let t = if max > 0.0 { c.score.mean / max } else { 0.0 };
                        (colour(t), c.score.show(), t < 0.6)
                    }
                    None => (RGBColor(220, 220, 220), "–".to_string(), false),
                };
                root.draw(&Rectangle::new([(x0, y0), (x0 + cell_w, y0 + cell_h)], fill.filled()))
                    .map_err(|e| err(&e))?;
                root.draw(&Rectangle::new([(x0, y0), (x0 + cell_w, y0 + cell_h)], WHITE.stroke_width(1)))
                    .map_err(|e| err(&e))?;
                let ink = if dark { WHITE } else { BLACK };
                root.draw(&Text::new(label, (x0 + cell_w / 2, y0 + cell_h / 2), font(13).color(&ink).pos(centred)))
                    .map_err(|e| err(&e))?;
            }
        }

        // Colour bar from 0 to the best cell.
        let bx = left + grid_w + 24;
        let steps = 40;
        for k in 0..steps {
            let t = 1.0 - (k as f64 + 0.5) / steps as f64;
            let y0 = top + grid_h * k / steps;
            let y1 = top + grid_h * (k + 1) / steps;
            root.draw(&Rectangle::new([(bx, y0), (bx + 16, y1)], colour(t).filled())).map_err(|e| err(&e))?;
        }
        let tick = font(11).color(&BLACK).pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(format!("{max:.0}"), (bx + 22, top), tick.clone())).map_err(|e| err(&e))?;
        root.draw(&Text::new("0".to_string(), (bx + 22, top + grid_h), tick)).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(Some(svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::plan::EpisodeSpec;
    use crate::eval::store::EpisodeRecord;

    fn rec(agent: &str, partner: &str, seat: u8, seed: u64, score: f64) -> EpisodeRecord {
        let spec = EpisodeSpec {
            runner: "t".into(),
            runner_config: String::new(),
            layout: "cramped_room".into(),
            layout_sha256: "x".into(),
            agent: agent.into(),
            partner: partner.into(),
            seat,
            seed,
            horizon: 400,
        };
        let outcome = crate::eval::store::EpisodeOutcome { score, steps: 400, ..Default::default() };
        EpisodeRecord::new(&spec, spec.config_hash(), outcome, 0.0, None)
    }

    #[test]
    fn svg_has_cells_and_text_labels() {
        let r = Report::build(&[
            rec("proagent<gpt>", "greedy", 0, 0, 100.0),
            rec("proagent<gpt>", "greedy", 0, 1, 140.0),
            rec("scripted", "stay", 0, 0, 0.0),
            rec("scripted", "greedy", 1, 0, 60.0),
        ]);
        let svg = heatmap_svg(&r, "cramped_room").unwrap().unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for label in [
            "cramped_room: mean score ± SE",
            "greedy",
            "stay",
            "scripted",
            "120.0 ± 20.0",
            "0.0 ± –",
            "partner (player 1)",
            "agent (player 0)",
        ] {
            assert!(svg.contains(label), "missing {label:?} in\n{svg}");
        }
        assert!(svg.contains("proagent&lt;gpt&gt;"), "labels are escaped");
        // one missing cell (scripted × greedy has only seat-1 episodes) is grey
        assert!(svg.contains("#DCDCDC") || svg.contains("rgb(220,220,220)"), "{svg}");
        assert!(heatmap_svg(&r, "counter_circuit").unwrap().is_none());
    }

    #[test]
    fn colour_scale_ends() {
        assert_eq!(colour(0.0), RGBColor(68, 1, 84));
        assert_eq!(colour(1.0), RGBColor(253, 231, 37));
        assert_eq!(colour(f64::NAN), RGBColor(68, 1, 84));
    }
}
