//! Evaluation sweeps: the cross product of layouts × agents × partners × seats ×
//! episodes, played concurrently, recorded crash-safely, resumed without
//! repeating work, and summarised as the paper's Table 1 and Figure 5.
//!
//! - [`plan`]: the episode list, keys (`config_hash`) and `--shard i/n`.
//! - [`store`]: `results.jsonl` — append, group-commit fsync, torn-line recovery, merging.
//! - [`scheduler`]: the [`scheduler::EpisodeRunner`] trait and the concurrent loop.
//! - [`play_runner`]: the runner that plays real episodes (and records transcripts).
//! - [`report`] and [`heatmap`]: tables, CSV/JSON and SVG heatmaps; [`llmco_report`]: the
//!   LLM-Coordination games beside the published rows; [`llmco_protocol`]: the paper's
//!   three tables as protocols (`--protocol llmco-table1|2|3`).

pub mod cost;
pub mod figure;
pub mod heatmap;
pub mod llmco_protocol;
pub mod llmco_report;
pub mod plan;
pub mod play_runner;
pub mod report;
pub mod scheduler;
pub mod store;

pub use plan::{EpisodeSpec, LayoutRef, PlannedEpisode, Shard, SweepSpec, cross_product};
pub use play_runner::{PlayRunner, SweepGame, SweepSeat};
pub use report::Report;
pub use scheduler::{ChatRunner, EpisodeContext, EpisodeError, EpisodeRunner, FakeRunner, SchedulerOptions};
pub use store::{EpisodeOutcome, EpisodeRecord, ResultSet, ResultWriter, StoreError, UncheckedCount};

use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through a temporary file and a rename, so a reader
/// (or a crash) never sees half a report.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension(format!("{}.tmp", path.extension().and_then(|e| e.to_str()).unwrap_or("out")));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// A layout name made safe for a file name.
fn file_stem(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// Why [`write_report_files`] could not write the report.
#[derive(Debug, thiserror::Error)]
pub enum ReportFilesError {
    /// Creating the directory or writing one of the files failed.
    #[error("writing {path}: {source}")]
    Io {
        /// The directory or file being written.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Serialising a CSV table failed.
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
    /// Drawing a heatmap failed.
    #[error(transparent)]
    Heatmap(#[from] heatmap::HeatmapError),
    /// Converting a heatmap to PNG or PDF failed.
    #[error(transparent)]
    Figure(#[from] figure::FigureError),
}

/// Writes each layout's heatmap as `heatmap-<layout>.<png|pdf>` into `dir`, converted
/// from the same SVG drawing [`write_report_files`] writes; returns the files written.
pub fn write_heatmap_figures(
    report: &Report,
    dir: &Path,
    format: figure::FigureFormat,
) -> Result<Vec<PathBuf>, ReportFilesError> {
    let mut written = Vec::new();
    let fonts = figure::Fonts::system();
    for layout in &report.layouts {
        if let Some(svg) = heatmap::heatmap_svg(report, layout)? {
            let bytes = figure::convert(&svg, format, &fonts)?;
            let path = dir.join(format!("heatmap-{}.{}", file_stem(layout), format.extension()));
            write_atomic(&path, &bytes)
                .map_err(|e| ReportFilesError::Io { path: path.display().to_string(), source: e })?;
            written.push(path);
        }
    }
    Ok(written)
}

/// Writes `report.md`, `report.csv` (cells), `table1.csv`, `report.json` and one
/// `heatmap-<layout>.svg` per layout into `dir`; returns the files written.
pub fn write_report_files(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, ReportFilesError> {
    std::fs::create_dir_all(dir).map_err(|e| ReportFilesError::Io { path: dir.display().to_string(), source: e })?;
    let mut files: Vec<(PathBuf, Vec<u8>)> = vec![
        (dir.join("report.md"), report.markdown().into_bytes()),
        (dir.join("report.csv"), report.cells_csv()?.into_bytes()),
        (dir.join("table1.csv"), report.table1_csv()?.into_bytes()),
        (dir.join("report.json"), (report.json() + "\n").into_bytes()),
    ];
    for layout in &report.layouts {
        if let Some(svg) = heatmap::heatmap_svg(report, layout)? {
            files.push((dir.join(format!("heatmap-{}.svg", file_stem(layout))), svg.into_bytes()));
        }
    }
    let mut written = Vec::new();
    for (path, bytes) in files {
        write_atomic(&path, &bytes)
            .map_err(|e| ReportFilesError::Io { path: path.display().to_string(), source: e })?;
        written.push(path);
    }
    Ok(written)
}
