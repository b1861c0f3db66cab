//! Progress of a running `play` episode on stderr: a live line (indicatif) when
//! stderr is a terminal, otherwise a plain line every `--progress-every` seconds, so
//! batch logs (Slurm, CI) show that a long LLM episode is alive and where it is.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proagent::game::Game;
use proagent::runner::StepView;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The longest `--progress-every`, in seconds (one day).
pub const MAX_EVERY_S: f64 = 86_400.0;

/// `--progress-every SECS`, checked.
pub fn every(secs: f64) -> anyhow::Result<Duration> {
    if !secs.is_finite() || secs <= 0.0 || secs > MAX_EVERY_S {
        anyhow::bail!("--progress-every must be a number of seconds in (0, {MAX_EVERY_S}], got {secs}");
    }
    Ok(Duration::from_secs_f64(secs))
}

enum Mode {
    Off,
    /// On a terminal: one bar per episode, made by `start`.
    Bar(Option<ProgressBar>),
    Lines {
        every: Duration,
        last: Instant,
    },
}

/// Progress of the episodes of one `play` command.
pub struct EpisodeProgress {
    mode: Mode,
    horizon: u32,
    names: Vec<String>,
    prefix: String,
    /// When the bar's message was last rebuilt (it is throttled: fast episodes take microseconds a step).
    drawn: Option<Instant>,
}

impl EpisodeProgress {
    /// `show`: progress wanted at all; `every`: the interval of plain lines (stderr not a terminal).
    pub fn new(show: bool, every: Duration, horizon: u32, names: Vec<String>) -> EpisodeProgress {
        let mode = if !show {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            Mode::Bar(None)
        } else {
            Mode::Lines { every, last: Instant::now() }
        };
        EpisodeProgress { mode, horizon, names, prefix: String::new(), drawn: None }
    }

    /// A new episode starts; `prefix` names it (e.g. `episode 2/5 seed 6`).
    pub fn start(&mut self, prefix: String) {
        match &mut self.mode {
            Mode::Bar(slot) => {
                let bar = ProgressBar::with_draw_target(Some(u64::from(self.horizon)), ProgressDrawTarget::stderr());
                if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {elapsed} · {msg}") {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_prefix(prefix.clone());
                *slot = Some(bar);
            }
            Mode::Lines { last, .. } => *last = Instant::now(),
            Mode::Off => {}
        }
        self.prefix = prefix;
        self.drawn = None;
    }

    /// The status after one step: step, score, LLM calls, each seat's current skill.
    fn message<G: Game>(&self, v: &StepView<'_, G>) -> String {
        let calls: u64 = v.seats.iter().map(|a| a.llm_usage().calls).sum();
        let mut parts = vec![format!("score {}", v.score), format!("LLM calls {calls}")];
        for (i, a) in v.seats.iter().enumerate() {
            if let Some(skill) = a.status().skill {
                let name = self.names.get(i).map_or("?", String::as_str);
                parts.push(format!("P{i} {name}: {skill}"));
            }
        }
        parts.join(" · ")
    }

    /// Called after every step.
    pub fn on_step<G: Game>(&mut self, v: &StepView<'_, G>) {
        match &self.mode {
            Mode::Off | Mode::Bar(None) => {}
            Mode::Bar(Some(bar)) => {
                bar.set_position(u64::from(v.t) + 1);
                if self.drawn.is_none_or(|d| d.elapsed() >= Duration::from_millis(100)) {
                    bar.set_message(self.message(v));
                    self.drawn = Some(Instant::now());
                }
            }
            Mode::Lines { every, last } => {
                if last.elapsed() >= *every {
                    let line =
                        format!("progress: {} · step {}/{} · {}", self.prefix, v.t + 1, self.horizon, self.message(v));
                    eprintln!("{line}");
                    self.mode = Mode::Lines { every: *every, last: Instant::now() };
                }
            }
        }
    }

    /// The episode is over: clear the bar.
    pub fn finish(&mut self) {
        if let Mode::Bar(Some(bar)) = &self.mode {
            bar.finish_and_clear();
        }
    }
}
