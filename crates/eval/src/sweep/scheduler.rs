//! The sweep scheduler: keeps `concurrency` episodes in flight, hands every
//! finished one to the results writer, and shows progress.
//!
//! Each in-flight episode is driven on its own thread of tokio's blocking pool
//! (`spawn_blocking` + `Handle::block_on`). Its awaits (LLM replies, timers)
//! still use the runtime's IO and timer drivers, so C slow LLM episodes wait
//! concurrently; its CPU work (simulator, planners, prompt building) runs on
//! that thread and can never stall the runtime's workers or starve the other
//! episodes' wake-ups. The runtime must allow at least `concurrency` blocking
//! threads (tokio's default is 512).

use super::plan::{EpisodeSpec, PlannedEpisode};
use super::store::{EpisodeOutcome, EpisodeRecord, StoreError, WriteStats, WriterHandle};
use async_trait::async_trait;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::collections::HashMap;
use std::future::Future;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::watch;
use tokio::task::JoinSet;

/// Where a runner may put the episode's files.
#[derive(Clone, Debug)]
pub struct EpisodeContext {
    /// The sweep's output directory.
    pub out_dir: PathBuf,
    /// The transcript file this episode should write, if its agents talk to an LLM.
    pub transcript_path: PathBuf,
    /// Where its trajectory goes when the runner keeps trajectories.
    pub trajectory_path: PathBuf,
}

/// An episode that could not be played (bad spec, LLM server gone, ...). It is not
/// recorded, so the next run of the same command tries it again.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EpisodeError {
    /// This episode failed (e.g. its model calls failed after every retry); the sweep
    /// goes on with the others.
    #[error("{0}")]
    Failed(String),
    /// A failure every other episode would repeat (the model server refused the
    /// configuration: wrong key, unknown model, ...): the sweep stops at once.
    #[error("{0}")]
    Fatal(String),
}

impl EpisodeError {
    /// The error's text.
    pub fn message(&self) -> &str {
        match self {
            EpisodeError::Failed(m) | EpisodeError::Fatal(m) => m,
        }
    }

    /// Whether the sweep must stop.
    pub fn is_fatal(&self) -> bool {
        matches!(self, EpisodeError::Fatal(_))
    }
}

/// Plays one episode. Async because LLM-backed agents await their replies.
#[async_trait]
pub trait EpisodeRunner: Send + Sync + 'static {
    /// The runner's name; part of every episode key (see [`EpisodeSpec::runner`]).
    fn name(&self) -> &str;
    /// A fingerprint of the runner-wide settings that change how the agent or partner
    /// `spec` plays but are not in the spec itself (e.g. a sha256 of the model and switch
    /// flags of `proagent` seats); part of the key of every episode with that seat, so
    /// changing them never reuses old results. Empty (the default) when there are none.
    fn config_fingerprint(&self, _spec: &str) -> String {
        String::new()
    }
    /// The full settings of an agent or partner `spec` as results records keep them
    /// (model, switches, prompt hashes, server, file hashes, code version); `Null` (the
    /// default) when there is nothing beyond the spec.
    fn seat_settings(&self, _spec: &str) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// Rejects an agent or partner spec before the sweep starts (default: accept).
    fn check_spec(&self, _agent_or_partner: &str) -> Result<(), EpisodeError> {
        Ok(())
    }
    /// Plays the episode `spec` describes; an `Err` leaves it unrecorded, to be retried by the next run.
    async fn run(&self, spec: &EpisodeSpec, ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError>;
}

/// A runner for tests and scheduler benchmarks: it waits `episode_ms` (like an
/// LLM-bound episode) and derives a deterministic outcome from the episode key.
#[derive(Clone, Debug)]
pub struct FakeRunner {
    /// How long each fake episode sleeps, in milliseconds (0 for none).
    pub episode_ms: u64,
}

impl FakeRunner {
    /// The fake runner's name in episode keys.
    pub const NAME: &'static str = "fake";

    /// The outcome for a key: a pure function of the hash, so any two runs agree.
    pub fn outcome_for(config_hash: &str, horizon: u32, episode_ms: u64) -> EpisodeOutcome {
        let h = u64::from_str_radix(config_hash.get(..16).unwrap_or("0"), 16).unwrap_or(0);
        let deliveries = (h % 11) as u32;
        let llm_calls = 1 + (h >> 8) % 7;
        EpisodeOutcome {
            score: 20.0 * deliveries as f64,
            deliveries,
            steps: horizon,
            llm_calls,
            parse_failures: 0,
            prompt_tokens: llm_calls * 900,
            completion_tokens: llm_calls * 40,
            reasoning_tokens: 0,
            cached_tokens: 0,
            llm_wall_s: episode_ms as f64 / 1000.0,
            metrics: serde_json::json!({"fake": true}),
            teamwork: None,
            transcript: None,
            held_wait_max: None,
        }
    }
}

#[async_trait]
impl EpisodeRunner for FakeRunner {
    fn name(&self) -> &str {
        Self::NAME
    }
    async fn run(&self, spec: &EpisodeSpec, _ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
        if self.episode_ms > 0 {
            tokio::time::sleep(Duration::from_millis(self.episode_ms)).await;
        }
        Ok(Self::outcome_for(&spec.config_hash(), spec.horizon, self.episode_ms))
    }
}

/// A stand-in for an LLM-bound episode: `calls` chat requests to a model, one after
/// the other (as a planner's are), with an outcome derived from the episode key. It
/// measures what the sweep machinery and the HTTP client do with many concurrent
/// LLM episodes, before real agents are involved.
pub struct ChatRunner {
    /// The model the probe episodes send their requests to.
    pub model: Arc<dyn proagent_llm::LanguageModel>,
    /// Chat requests per episode, sent one after the other.
    pub calls: u32,
}

impl ChatRunner {
    /// The probe runner's name in episode keys.
    pub const NAME: &'static str = "chat-probe";
}

#[async_trait]
impl EpisodeRunner for ChatRunner {
    fn name(&self) -> &str {
        Self::NAME
    }
    async fn run(&self, spec: &EpisodeSpec, _ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
        use proagent_llm::{ChatRequest, Message, Sampling};
        let mut outcome = FakeRunner::outcome_for(&spec.config_hash(), spec.horizon, 0);
        outcome.llm_calls = 0;
        outcome.prompt_tokens = 0;
        outcome.completion_tokens = 0;
        for t in 0..self.calls {
            let req = ChatRequest::new(
                vec![
                    Message::system("You are a cooperative chef in Overcooked."),
                    Message::user(format!(
                        "Layout {}, seed {}, step {t}: the pot is empty. Plan for Player {}:",
                        spec.layout, spec.seed, spec.seat
                    )),
                ],
                Sampling::default(),
            );
            let t0 = Instant::now();
            let reply = self.model.chat(&req).await.map_err(|e| {
                let message = format!("LLM call {t}: {e}");
                if e.is_fatal() { EpisodeError::Fatal(message) } else { EpisodeError::Failed(message) }
            })?;
            outcome.llm_wall_s += t0.elapsed().as_secs_f64();
            outcome.llm_calls = outcome.llm_calls.saturating_add(1);
            outcome.prompt_tokens = outcome.prompt_tokens.saturating_add(reply.usage.prompt_tokens);
            outcome.completion_tokens = outcome.completion_tokens.saturating_add(reply.usage.completion_tokens);
            outcome.reasoning_tokens = outcome.reasoning_tokens.saturating_add(reply.usage.reasoning_tokens);
            outcome.cached_tokens = outcome.cached_tokens.saturating_add(reply.usage.cached_tokens);
        }
        outcome.metrics = serde_json::json!({"model": self.model.name(), "calls": self.calls});
        Ok(outcome)
    }
}

/// How the scheduler runs a plan.
#[derive(Clone, Debug)]
pub struct SchedulerOptions {
    /// Episodes in flight at once (0 is read as 1).
    pub concurrency: usize,
    /// The sweep's output directory; transcripts go under `transcripts/` in it.
    pub out_dir: PathBuf,
    /// Show progress on stderr: a bar when stderr is a terminal, otherwise a plain line
    /// every `progress_every` (batch logs such as Slurm's).
    pub progress: bool,
    /// The interval of plain progress lines.
    pub progress_every: Duration,
}

impl SchedulerOptions {
    /// No progress at all, `concurrency` episodes at once, files under `out_dir`.
    pub fn quiet(concurrency: usize, out_dir: PathBuf) -> Self {
        SchedulerOptions { concurrency, out_dir, progress: false, progress_every: Duration::from_secs(60) }
    }
}

/// An episode that failed in this run.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The episode.
    pub spec: EpisodeSpec,
    /// Its key.
    pub config_hash: String,
    /// What went wrong, as text.
    pub error: String,
}

/// What one run of the scheduler did.
#[derive(Debug, Default)]
pub struct SweepSummary {
    /// Episodes given to the scheduler.
    pub scheduled: usize,
    /// Episodes finished and handed to the writer in this run.
    pub completed: usize,
    /// Episodes that failed in this run; they are not recorded and will be retried.
    pub failures: Vec<Failure>,
    /// True when the stop signal arrived before the plan was done.
    pub interrupted: bool,
    /// Set when an episode failed in a way every other episode would repeat (see
    /// [`EpisodeError::Fatal`]): the sweep stopped at once, with this message.
    pub stopped: Option<String>,
    /// Wall time of the whole run, in seconds.
    pub wall_s: f64,
    /// Sum of the scores of the episodes completed in this run.
    pub score_sum: f64,
    /// LLM requests of the episodes completed in this run.
    pub llm_calls: u64,
    /// What the results writer did.
    pub write: WriteStats,
}

/// The transcript file of an episode: one per key, so a re-played episode overwrites
/// the partial transcript of its interrupted attempt.
pub fn transcript_path(out_dir: &Path, config_hash: &str) -> PathBuf {
    out_dir.join("transcripts").join(format!("{config_hash}.jsonl"))
}

/// Where `eval --keep-trajectories` keeps an episode's trajectory (reference-trace
/// schema, one line): next to the transcripts, one file per key.
pub fn trajectory_path(out_dir: &Path, config_hash: &str) -> PathBuf {
    out_dir.join("trajectories").join(format!("{config_hash}.jsonl"))
}

fn progress_bar(len: usize, show: bool) -> ProgressBar {
    let target = if show && std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(len as u64), target);
    if let Ok(style) = ProgressStyle::with_template("{elapsed_precise} [{wide_bar}] {pos}/{len} eta {eta} · {msg}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

fn relative_to(path: &Path, base: &Path) -> String {
    path.strip_prefix(base).unwrap_or(path).display().to_string()
}

/// Plays `todo` with at most `opts.concurrency` episodes in flight, sending each finished
/// episode to `writer`. When `stop` completes (Ctrl-C), no new episode starts, episodes in
/// flight are dropped at their next await, and the summary says `interrupted`; whatever
/// was finished is already on its way to disk. A fatal episode error stops the sweep the
/// same way and is reported in `stopped`. Errors only when the writer fails.
pub async fn run_episodes(
    todo: Vec<PlannedEpisode>,
    runner: Arc<dyn EpisodeRunner>,
    writer: WriterHandle,
    opts: &SchedulerOptions,
    stop: impl Future<Output = ()>,
) -> Result<SweepSummary, StoreError> {
    let started = Instant::now();
    let concurrency = opts.concurrency.max(1);
    let bar = progress_bar(todo.len(), opts.progress);
    let plain = opts.progress && !std::io::stderr().is_terminal();
    let every = opts.progress_every.max(Duration::from_millis(10));
    let mut ticker = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let handle = tokio::runtime::Handle::current();
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let mut summary = SweepSummary { scheduled: todo.len(), ..Default::default() };
    let mut pending = todo.into_iter();
    let mut set: JoinSet<Option<Result<EpisodeRecord, EpisodeError>>> = JoinSet::new();
    // The episode of each task, kept outside the task so a panic still names its episode.
    let mut in_flight: HashMap<tokio::task::Id, PlannedEpisode> = HashMap::new();
    let mut writer_alive = true;
    tokio::pin!(stop);

    loop {
        if !summary.interrupted && summary.stopped.is_none() && writer_alive {
            while set.len() < concurrency {
                let Some(ep) = pending.next() else { break };
                let runner = Arc::clone(&runner);
                let handle = handle.clone();
                let mut cancel = cancel_rx.clone();
                let out_dir = opts.out_dir.clone();
                let task_ep = ep.clone();
                let abort = set.spawn_blocking(move || {
                    let ep = task_ep;
                    let ctx = EpisodeContext {
                        transcript_path: transcript_path(&out_dir, &ep.config_hash),
                        trajectory_path: trajectory_path(&out_dir, &ep.config_hash),
                        out_dir: out_dir.clone(),
                    };
                    handle.block_on(async {
                        let t0 = Instant::now();
                        tokio::select! {
                            r = runner.run(&ep.spec, &ctx) => Some(r.map(|o| {
                                let mut rec = make_record(&ep, o, t0.elapsed(), &out_dir);
                                rec.agent_settings = runner.seat_settings(&ep.spec.agent);
                                rec.partner_settings = runner.seat_settings(&ep.spec.partner);
                                rec
                            })),
                            _ = cancel.wait_for(|c| *c) => None,
                        }
                    })
                });
                in_flight.insert(abort.id(), ep);
            }
        }
        if set.is_empty() {
            break;
        }
        let joined = tokio::select! {
            j = set.join_next_with_id() => j,
            _ = ticker.tick(), if plain => {
                eprintln!("{}", progress_line(&summary, started.elapsed(), set.len()));
                continue;
            }
            _ = &mut stop, if !summary.interrupted => {
                summary.interrupted = true;
                let _ = cancel_tx.send(true);
                bar.suspend(|| eprintln!("interrupted: no new episodes; episodes in flight are dropped and will be replayed next time"));
                continue;
            }
        };
        let Some(joined) = joined else { break };
        let (id, result) = match joined {
            Ok((id, r)) => (id, Ok(r)),
            Err(e) => (e.id(), Err(e)),
        };
        let Some(ep) = in_flight.remove(&id) else { continue };
        match result {
            Ok(Some(Ok(rec))) => {
                summary.completed += 1;
                summary.score_sum += rec.score;
                summary.llm_calls = summary.llm_calls.saturating_add(rec.llm_calls);
                tracing::info!(layout = %rec.layout, agent = %rec.agent, partner = %rec.partner, seat = rec.seat, seed = rec.seed, score = rec.score, "episode finished");
                if !writer.send(rec) {
                    writer_alive = false;
                    summary.failures.push(Failure {
                        spec: ep.spec,
                        config_hash: ep.config_hash,
                        error: "the results writer stopped".into(),
                    });
                }
            }
            Ok(Some(Err(e))) => {
                if e.is_fatal() && summary.stopped.is_none() {
                    summary.stopped = Some(e.message().to_string());
                    let _ = cancel_tx.send(true);
                    bar.suspend(|| {
                        eprintln!("stopping the sweep: this failure would repeat in every episode; episodes in flight are dropped")
                    });
                }
                fail(&bar, &mut summary, ep, e.message().to_string())
            }
            Ok(None) => {} // cancelled by the stop signal
            Err(join_error) => {
                // A panicking episode must not take the sweep down; its key is not recorded.
                let what = if join_error.is_panic() { "episode panicked" } else { "episode task was cancelled" };
                fail(&bar, &mut summary, ep, format!("{what}: {join_error}"));
            }
        }
        bar.inc(1);
        let mean = if summary.completed > 0 { summary.score_sum / summary.completed as f64 } else { 0.0 };
        bar.set_message(format!(
            "mean score {mean:.1} · LLM calls {} · failed {}",
            summary.llm_calls,
            summary.failures.len()
        ));
    }
    bar.finish_and_clear();
    summary.write = writer.finish()?;
    summary.wall_s = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// One plain progress line: episodes done of those scheduled, failures, in flight, mean
/// score, LLM calls, elapsed time and a naive estimate of the time left.
fn progress_line(s: &SweepSummary, elapsed: Duration, in_flight: usize) -> String {
    let done = s.completed + s.failures.len();
    let mean = if s.completed > 0 { format!("{:.1}", s.score_sum / s.completed as f64) } else { "–".into() };
    let eta = if done > 0 && done < s.scheduled {
        let left = elapsed.as_secs_f64() / done as f64 * (s.scheduled - done) as f64;
        format!(", about {} left", clock(left))
    } else {
        String::new()
    };
    format!(
        "progress: {done}/{} episodes ({} failed, {in_flight} in flight) · mean score {mean} · LLM calls {} · {} elapsed{eta}",
        s.scheduled,
        s.failures.len(),
        s.llm_calls,
        clock(elapsed.as_secs_f64())
    )
}

/// Seconds as `1h02m03s`, `2m03s` or `3s`.
fn clock(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match (s / 3600, s / 60 % 60, s % 60) {
        (0, 0, sec) => format!("{sec}s"),
        (0, m, sec) => format!("{m}m{sec:02}s"),
        (h, m, sec) => format!("{h}h{m:02}m{sec:02}s"),
    }
}

fn fail(bar: &ProgressBar, summary: &mut SweepSummary, ep: PlannedEpisode, error: String) {
    tracing::warn!(key = %ep.config_hash, "episode failed: {error}");
    bar.suspend(|| {
        eprintln!(
            "episode failed ({} {} vs {} seat {} seed {}): {error}",
            ep.spec.layout, ep.spec.agent, ep.spec.partner, ep.spec.seat, ep.spec.seed
        )
    });
    summary.failures.push(Failure { spec: ep.spec, config_hash: ep.config_hash, error });
}

fn make_record(ep: &PlannedEpisode, o: EpisodeOutcome, wall: Duration, out_dir: &Path) -> EpisodeRecord {
    let transcript = o.transcript.as_deref().map(|p| relative_to(p, out_dir));
    EpisodeRecord::new(&ep.spec, ep.config_hash.clone(), o, wall.as_secs_f64(), transcript)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::plan::{LayoutRef, SweepSpec, cross_product};
    use crate::sweep::store::{RESULTS_FILE, ResultSet, ResultWriter};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn plan(episodes: u32, runner: &str) -> Vec<PlannedEpisode> {
        cross_product(&SweepSpec {
            layouts: vec![LayoutRef { name: "cramped_room".into(), sha256: "x".into() }],
            agents: vec!["a".into(), "b".into()],
            partners: vec!["p".into(), "q".into()],
            seats: vec![0, 1],
            episodes,
            seed: 0,
            horizon: 400,
            runner: runner.into(),
            spec_configs: Default::default(),
        })
    }

    /// Counts how many episodes are in flight; some fail, one panics.
    struct Probe {
        now: AtomicUsize,
        peak: AtomicUsize,
        seen: Mutex<Vec<String>>,
    }

    #[async_trait]
    impl EpisodeRunner for Probe {
        fn name(&self) -> &str {
            "probe"
        }
        async fn run(&self, spec: &EpisodeSpec, _ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
            let n = self.now.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(n, Ordering::SeqCst);
            self.seen.lock().unwrap().push(spec.config_hash());
            tokio::time::sleep(Duration::from_millis(30)).await;
            self.now.fetch_sub(1, Ordering::SeqCst);
            match (spec.agent.as_str(), spec.partner.as_str(), spec.seat, spec.seed) {
                ("b", "q", 1, 0) => panic!("boom"),
                ("b", "q", _, _) => Err(EpisodeError::Failed("partner q is broken".into())),
                _ => Ok(FakeRunner::outcome_for(&spec.config_hash(), spec.horizon, 30)),
            }
        }
    }

    fn opts(dir: &Path, concurrency: usize) -> SchedulerOptions {
        SchedulerOptions::quiet(concurrency, dir.to_path_buf())
    }

    #[test]
    fn progress_lines_count_and_estimate() {
        let mut s = SweepSummary { scheduled: 10, completed: 3, score_sum: 90.0, llm_calls: 12, ..Default::default() };
        s.failures.push(Failure {
            spec: plan(1, "x")[0].spec.clone(),
            config_hash: String::new(),
            error: String::new(),
        });
        let line = progress_line(&s, Duration::from_secs(80), 2);
        assert_eq!(
            line,
            "progress: 4/10 episodes (1 failed, 2 in flight) · mean score 30.0 · LLM calls 12 · 1m20s elapsed, about 2m00s left"
        );
        assert_eq!(clock(3725.0), "1h02m05s");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn respects_concurrency_records_successes_and_survives_failures_and_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (w, _) = ResultWriter::open(&path).unwrap();
        let todo = plan(3, "probe");
        let probe = Arc::new(Probe { now: AtomicUsize::new(0), peak: AtomicUsize::new(0), seen: Mutex::new(vec![]) });
        let s = run_episodes(todo.clone(), probe.clone(), w.spawn(), &opts(dir.path(), 5), std::future::pending())
            .await
            .unwrap();
        assert_eq!(probe.peak.load(Ordering::SeqCst), 5, "exactly C episodes in flight at the peak");
        assert_eq!(probe.seen.lock().unwrap().len(), 24, "every episode ran once");
        // b×q: 2 seats × 3 seeds = 6 failures, one of them a panic
        assert_eq!(s.failures.len(), 6);
        assert!(s.failures.iter().any(|f| f.error.contains("panicked") && f.spec.seat == 1 && f.spec.seed == 0));
        assert!(s.failures.iter().all(|f| f.spec.agent == "b" && f.spec.partner == "q"));
        assert_eq!(s.completed, 18);
        assert_eq!(s.write.records, 18);
        let mut set = ResultSet::new();
        assert!(set.load_file(&path).unwrap().is_none());
        assert_eq!(set.len(), 18);
        for r in set.records() {
            assert_eq!(r.score, FakeRunner::outcome_for(&r.config_hash, 400, 30).score);
            assert!(r.episode_wall_s >= 0.03);
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fatal_episode_error_stops_the_sweep() {
        struct Refused(AtomicUsize);
        #[async_trait]
        impl EpisodeRunner for Refused {
            fn name(&self) -> &str {
                "refused"
            }
            async fn run(&self, _: &EpisodeSpec, _: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
                self.0.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                Err(EpisodeError::Fatal("HTTP 401 Unauthorized".into()))
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (w, _) = ResultWriter::open(&path).unwrap();
        let runner = Arc::new(Refused(AtomicUsize::new(0)));
        let s =
            run_episodes(plan(3, "refused"), runner.clone(), w.spawn(), &opts(dir.path(), 2), std::future::pending())
                .await
                .unwrap();
        assert_eq!(runner.0.load(Ordering::SeqCst), 2, "no episode starts after the refusal");
        assert_eq!(s.stopped.as_deref(), Some("HTTP 401 Unauthorized"));
        assert!((1..=2).contains(&s.failures.len()), "{:?}", s.failures);
        assert_eq!((s.completed, s.write.records), (0, 0));
        assert!(!s.interrupted);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn cpu_bound_episodes_do_not_hold_runtime_workers() {
        // Two worker threads, four episodes that never await and spin: if episodes ran on
        // the workers, the timer below could not fire until they finished.
        struct Spin;
        #[async_trait]
        impl EpisodeRunner for Spin {
            fn name(&self) -> &str {
                "spin"
            }
            async fn run(&self, spec: &EpisodeSpec, _: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
                let t0 = std::time::Instant::now();
                while t0.elapsed() < Duration::from_millis(400) {
                    std::hint::spin_loop();
                }
                Ok(FakeRunner::outcome_for(&spec.config_hash(), spec.horizon, 0))
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = ResultWriter::open(&dir.path().join(RESULTS_FILE)).unwrap();
        let todo: Vec<_> = plan(1, "spin").into_iter().take(4).collect();
        let sweep = tokio::spawn({
            let o = opts(dir.path(), 4);
            async move { run_episodes(todo, Arc::new(Spin), w.spawn(), &o, std::future::pending()).await }
        });
        let t0 = std::time::Instant::now();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let woke = t0.elapsed();
        let s = sweep.await.unwrap().unwrap();
        assert_eq!(s.completed, 4);
        assert!(woke < Duration::from_millis(300), "a timer on the runtime waited {woke:?} behind CPU-bound episodes");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn stop_signal_interrupts_and_keeps_what_finished() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (w, _) = ResultWriter::open(&path).unwrap();
        let todo = plan(4, "fake"); // 32 episodes of 100 ms, 4 at a time: 800 ms
        let stop = tokio::time::sleep(Duration::from_millis(250));
        let s = run_episodes(todo, Arc::new(FakeRunner { episode_ms: 100 }), w.spawn(), &opts(dir.path(), 4), stop)
            .await
            .unwrap();
        assert!(s.interrupted);
        assert!(s.completed >= 4 && s.completed < 32, "{}", s.completed);
        let mut set = ResultSet::new();
        set.load_file(&path).unwrap();
        assert_eq!(set.len(), s.completed);
    }
}
