//! One SVG heatmap per layout, as the paper's Figure 5: one panel per seat the
//! agents played (rows agents, columns partners), each cell the mean score with
//! its standard error and episode count, coloured on a viridis-like scale from 0
//! to the layout's best cell, with a labelled colour bar. The canvas is sized to
//! its labels, so there are no wide empty margins.
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

/// The seats a layout's heatmap shows, one panel each: seat 0 (the agent as player 0,
/// Figure 5's orientation) first.
pub fn heatmap_seats(report: &Report, layout: &str) -> Vec<u8> {
    [0u8, 1].into_iter().filter(|&seat| report.cells.iter().any(|c| c.layout == layout && c.seat == seat)).collect()
}

/// Width of one character of a 13-unit plotters label, in pixels (plotters writes
/// `font-size` 10.5 for it; sans-serif glyphs average about half an em).
const CHAR_W: f64 = 5.2;

fn text_w(s: &str) -> i32 {
    (s.chars().count() as f64 * CHAR_W).ceil() as i32
}

/// One seat's panel geometry.
struct Panel<'a> {
    seat: u8,
    agents: Vec<&'a String>,
    partners: Vec<&'a String>,
    label_w: i32,
    cell_w: i32,
}

impl Panel<'_> {
    fn width(&self) -> i32 {
        self.label_w + self.cell_w * self.partners.len() as i32
    }
}

fn panel_title(seat: u8) -> String {
    let (agent, partner) = if seat == 0 { (0, 1) } else { (1, 0) };
    format!("agent as player {agent} × partner as player {partner}")
}

/// The SVG text of one layout's heatmap (one panel per seat played, a shared colour
/// scale from 0 to the layout's best cell), or `None` if the layout has no episodes.
pub fn heatmap_svg(report: &Report, layout: &str) -> Result<Option<String>, HeatmapError> {
    let seats = heatmap_seats(report, layout);
    if seats.is_empty() {
        return Ok(None);
    }
    let err = |e: &dyn std::fmt::Display| HeatmapError { layout: layout.to_string(), message: e.to_string() };
    let in_seat = |seat: u8| report.cells.iter().filter(move |c| c.layout == layout && c.seat == seat);
    let cell_h = 44;
    // The panels share their rows (every agent played in any seat, in report order), so
    // the row labels are written once, left of the first panel.
    let agents: Vec<&String> =
        report.agents.iter().filter(|a| seats.iter().any(|&s| in_seat(s).any(|c| &c.agent == *a))).collect();
    let row_label_w = agents.iter().map(|a| text_w(&super::report::shown(a))).max().unwrap_or(0) + 10;
    let panels: Vec<Panel<'_>> = seats
        .iter()
        .enumerate()
        .map(|(k, &seat)| {
            let agents = agents.clone();
            let partners: Vec<&String> =
                report.partners.iter().filter(|p| in_seat(seat).any(|c| &c.partner == *p)).collect();
            let label_w = if k == 0 { row_label_w } else { 0 };
            let widest_value = in_seat(seat).map(|c| text_w(&c.score.show())).max().unwrap_or(0);
            let mut cell_w = partners.iter().map(|p| text_w(p)).chain([widest_value]).max().unwrap_or(0).max(60) + 12;
            // The panel's title spans its grid.
            let n = partners.len().max(1) as i32;
            cell_w = cell_w.max((text_w(&panel_title(seat)) + 8 + n - 1) / n);
            Panel { seat, agents, partners, label_w, cell_w }
        })
        .collect();
    let max = report.cells.iter().filter(|c| c.layout == layout).map(|c| c.score.mean).fold(0.0f64, f64::max);

    let (pad, gap, axis_w) = (8, 24, 16);
    let title_h = 24;
    let panel_title_h = 20;
    let col_label_h = 18;
    let top = pad + title_h + panel_title_h + col_label_h;
    let rows = panels.iter().map(|p| p.agents.len()).max().unwrap_or(1) as i32;
    let grid_h = cell_h * rows;
    let bar_label = "mean score";
    let tick_w = text_w(&format!("{max:.0}")).max(text_w("0"));
    let bar_w = 14;
    let mut x = pad + axis_w;
    let mut origins = Vec::new();
    for p in &panels {
        origins.push(x);
        x += p.width() + gap;
    }
    let bar_x = x;
    let title = format!("{layout}: mean team score ± SE (n episodes per cell)");
    // Titles are 16-unit labels: about 1.25 times as wide per character.
    let title_w = (text_w(&title) as f64 * 1.25) as i32;
    let width = (bar_x + bar_w + 6 + tick_w + 8 + 14 + pad).max(pad + title_w + pad) as u32;
    let height = (top + grid_h + 16 + pad) as u32;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let font = |size: i32| ("sans-serif", size).into_font();
        let centred = Pos::new(HPos::Center, VPos::Center);
        let left_mid = Pos::new(HPos::Left, VPos::Center);
        root.draw(&Text::new(title, (pad, pad + title_h / 2), font(16).color(&BLACK).pos(left_mid)))
            .map_err(|e| err(&e))?;
        root.draw(&Text::new(
            "agent".to_string(),
            (pad + axis_w / 2, top + grid_h / 2),
            font(13).color(&BLACK).pos(centred).transform(FontTransform::Rotate270),
        ))
        .map_err(|e| err(&e))?;
        for (k, (p, &x0)) in panels.iter().zip(&origins).enumerate() {
            let grid_x = x0 + p.label_w;
            let grid_w = p.cell_w * p.partners.len() as i32;
            root.draw(&Text::new(
                panel_title(p.seat),
                (grid_x + grid_w / 2, pad + title_h + panel_title_h / 2),
                font(13).color(&BLACK).pos(centred),
            ))
            .map_err(|e| err(&e))?;
            for (j, partner) in p.partners.iter().enumerate() {
                let cx = grid_x + p.cell_w * j as i32 + p.cell_w / 2;
                root.draw(&Text::new(
                    partner.to_string(),
                    (cx, top - col_label_h / 2),
                    font(13).color(&BLACK).pos(centred),
                ))
                .map_err(|e| err(&e))?;
            }
            for (i, agent) in p.agents.iter().enumerate() {
                let y0 = top + cell_h * i as i32;
                if k == 0 {
                    root.draw(&Text::new(
                        super::report::shown(agent),
                        (grid_x - 6, y0 + cell_h / 2),
                        font(13).color(&BLACK).pos(Pos::new(HPos::Right, VPos::Center)),
                    ))
                    .map_err(|e| err(&e))?;
                }
                for (j, partner) in p.partners.iter().enumerate() {
                    let cx0 = grid_x + p.cell_w * j as i32;
                    let (fill, lines, dark) = match report.cell(layout, agent, partner, p.seat) {
                        Some(c) => {
                            let t = if max > 0.0 { c.score.mean / max } else { 0.0 };
                            (colour(t), vec![c.score.show(), format!("n={}", c.score.n)], t < 0.6)
                        }
                        None => (RGBColor(220, 220, 220), vec!["–".to_string()], false),
                    };
                    let corners = [(cx0, y0), (cx0 + p.cell_w, y0 + cell_h)];
                    root.draw(&Rectangle::new(corners, fill.filled())).map_err(|e| err(&e))?;
                    root.draw(&Rectangle::new(corners, WHITE.stroke_width(1))).map_err(|e| err(&e))?;
                    let ink = if dark { WHITE } else { BLACK };
                    let step = cell_h / (lines.len() as i32 + 1);
                    for (k, line) in lines.into_iter().enumerate() {
                        let size = if k == 0 { 13 } else { 11 };
                        let y = y0 + step * (k as i32 + 1);
                        root.draw(&Text::new(line, (cx0 + p.cell_w / 2, y), font(size).color(&ink).pos(centred)))
                            .map_err(|e| err(&e))?;
                    }
                }
            }
        }

        // The colour bar, 0 at the bottom to the best cell at the top, with its label.
        let steps = 40;
        for k in 0..steps {
            let t = 1.0 - (k as f64 + 0.5) / steps as f64;
            let y0 = top + grid_h * k / steps;
            let y1 = top + grid_h * (k + 1) / steps;
            root.draw(&Rectangle::new([(bar_x, y0), (bar_x + bar_w, y1)], colour(t).filled())).map_err(|e| err(&e))?;
        }
        let tick = font(11).color(&BLACK).pos(left_mid);
        for (value, y) in [(max, top), (max / 2.0, top + grid_h / 2), (0.0, top + grid_h)] {
            root.draw(&Text::new(format!("{value:.0}"), (bar_x + bar_w + 6, y), tick.clone())).map_err(|e| err(&e))?;
        }
        root.draw(&Text::new(
            bar_label.to_string(),
            (bar_x + bar_w + 6 + tick_w + 8 + 7, top + grid_h / 2),
            font(13).color(&BLACK).pos(centred).transform(FontTransform::Rotate90),
        ))
        .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(Some(svg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::plan::EpisodeSpec;
    use crate::sweep::store::EpisodeRecord;

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
        let outcome = crate::sweep::store::EpisodeOutcome { score, steps: 400, ..Default::default() };
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
            "cramped_room: mean team score ± SE",
            "greedy",
            "stay",
            "scripted",
            "120.0 ± 20.0",
            "0.0 ± –",
            "n=2",
            "n=1",
            "agent as player 0 × partner as player 1",
            "agent as player 1 × partner as player 0",
            "mean score",
            "60.0 ± –",
        ] {
            assert!(svg.contains(label), "missing {label:?} in\n{svg}");
        }
        assert!(svg.contains("proagent&lt;gpt&gt;"), "labels are escaped");
        // one missing cell (scripted × greedy has only seat-1 episodes) is grey
        assert!(svg.contains("#DCDCDC") || svg.contains("rgb(220,220,220)"), "{svg}");
        assert!(heatmap_svg(&r, "counter_circuit").unwrap().is_none());
        // The colour bar is labelled 0, half and the best cell (140 is the best episode,
        // 120 the best cell mean).
        for tick in [">\n120\n<", ">\n60\n<", ">\n0\n<"] {
            assert!(svg.contains(tick), "missing tick {tick:?}");
        }
    }

    #[test]
    fn canvas_fits_its_labels() {
        let r = Report::build(&[rec("scripted", "greedy", 0, 0, 100.0)]);
        let svg = heatmap_svg(&r, "cramped_room").unwrap().unwrap();
        let width: u32 = svg.split("width=\"").nth(1).and_then(|w| w.split('"').next()).unwrap().parse().unwrap();
        // One cell as wide as the panel title, a short row label, the bar: no empty margins.
        assert!(width < 420, "{width}");
        assert_eq!(heatmap_seats(&r, "cramped_room"), vec![0]);
    }

    #[test]
    fn row_labels_are_written_once_for_both_seats() {
        let long = "bc:models/a-rather-long-directory-name/behaviour-cloned-partner.json";
        let recs: Vec<EpisodeRecord> = [0, 1]
            .iter()
            .flat_map(|&seat| [rec(long, "greedy", seat, 0, 100.0), rec("scripted", "greedy", seat, 0, 80.0)])
            .collect();
        let r = Report::build(&recs);
        let svg = heatmap_svg(&r, "cramped_room").unwrap().unwrap();
        assert_eq!(svg.matches(&format!(">\n{long}\n<")).count(), 1, "{svg}");
        assert_eq!(svg.matches(">\nscripted\n<").count(), 1, "{svg}");
        let one = heatmap_svg(&Report::build(&recs[..2]), "cramped_room").unwrap().unwrap();
        let width = |svg: &str| -> i32 {
            svg.split("width=\"").nth(1).and_then(|w| w.split('"').next()).unwrap().parse().unwrap()
        };
        // The second panel adds its grid and a gap, not another column of labels.
        assert!(width(&svg) - width(&one) < text_w(long), "{} vs {}", width(&svg), width(&one));
    }

    #[test]
    fn colour_scale_ends() {
        assert_eq!(colour(0.0), RGBColor(68, 1, 84));
        assert_eq!(colour(1.0), RGBColor(253, 231, 37));
        assert_eq!(colour(f64::NAN), RGBColor(68, 1, 84));
    }
}
