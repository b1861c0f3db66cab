//! CoordinationQA (LLM-Coordination, Agashe et al.): 66 coordination-game scenarios × 3
//! multiple-choice questions (Environment Comprehension, Theory of Mind, Joint Planning).
//!
//! `data` parses the benchmark file, `lint` lists its defects, `prompt` builds the chat
//! the original evaluator sends, [`run`] asks any [`LanguageModel`] with bounded
//! concurrency, `extract` reads the chosen letter (default or `compat` rules), `score`
//! turns exchanges into the report, `baseline` gives the random-choice expectation, and
//! `transcript` records every exchange for offline replay.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod baseline;
pub mod data;
pub mod extract;
pub mod fuzzy;
pub mod lint;
pub mod models;
pub mod prompt;
pub mod score;
pub mod transcript;

use data::Question;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Sampling};
use prompt::{PromptError, Prompts};
use std::sync::Arc;
use std::time::Instant;
use transcript::{Exchange, Failure};

pub use extract::Mode;

/// The original evaluator's sampling: temperature 0.6, top_p 0.9; 1000 new tokens is its
/// limit for locally served models (it sets none for the OpenAI API).
pub fn default_sampling() -> Sampling {
    Sampling { temperature: 0.6, top_p: 0.9, max_tokens: 1000, ..Sampling::default() }
}

/// How [`run`] asks the questions and scores the replies.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Times each question is asked (`--trials`); accuracy is averaged over trials.
    pub trials: u32,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Sampling sent with every request (see [`default_sampling`]); it is part of each request's hash.
    pub sampling: Sampling,
    /// Which scorer reads the replies (default, or `--compat` for the original's rules).
    pub mode: Mode,
    /// Stop the run once this many requests in a row have failed after their retries
    /// (`None`: never). A server that is down fails every request the same way, so
    /// asking the remaining hundreds of questions would only add minutes of backoff.
    pub max_failures_in_a_row: Option<u32>,
}

/// Why a QA run stopped before every question was answered.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// A prompt template failed to render, before any request was sent.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// A fault that makes the rest of the run meaningless (a replay miss, a misconfigured
    /// model, a server that refuses the configuration: see [`stops_run`]).
    #[error("question {id}, trial {trial}: {error}")]
    Fatal {
        /// The question's id, e.g. `50-EC`.
        id: String,
        /// The 0-based trial.
        trial: u32,
        /// The backend's error.
        error: LlmError,
    },
    /// `max_failures_in_a_row` requests in a row failed: the model is unreachable.
    #[error("{count} requests in a row failed (the last: question {id}, trial {trial}: {error}); stopping the run")]
    FailuresInARow {
        /// How many failed in a row.
        count: u32,
        /// The last failed question's id.
        id: String,
        /// Its trial.
        trial: u32,
        /// Its error.
        error: LlmError,
    },
    /// `on_exchange` refused an exchange: the transcript could not be written.
    #[error("writing the exchange: {0}")]
    Sink(#[source] transcript::TranscriptError),
    /// A request task panicked or was cancelled, or exchanges went missing.
    #[error("a request task stopped unexpectedly: {0}")]
    Task(String),
}

/// Whether a request's error ends the QA run: a replay miss (the recording does not
/// match the run) or an error that condemns every request ([`LlmError::is_fatal`]: the
/// server refused the configuration, or the backend is misconfigured).
pub fn stops_run(e: &LlmError) -> bool {
    e.is_fatal() || matches!(e, LlmError::ReplayMiss(_))
}

/// The chat request for each question.
pub fn requests(
    questions: &[Question],
    prompts: &Prompts,
    sampling: &Sampling,
) -> Result<Vec<ChatRequest>, PromptError> {
    questions
        .iter()
        .map(|q| Ok(ChatRequest::new(prompts.messages(q)?, sampling.clone()).with_schema(|| extract::answer_schema(q))))
        .collect()
}

/// Turns one model outcome into a scored exchange.
pub fn score_exchange(
    q: &Question,
    trial: u32,
    request: &ChatRequest,
    outcome: &Result<ChatResponse, LlmError>,
    latency_ms: f64,
    mode: Mode,
) -> Exchange {
    let mut x = Exchange {
        id: q.id.clone(),
        row: q.row,
        category: q.category,
        game: q.game,
        trial,
        request_hash: request.canonical_hash(),
        request: request.clone(),
        reply: None,
        finish_reason: None,
        reasoning: None,
        usage: Default::default(),
        attempts: 0,
        faults: Vec::new(),
        text_fallback: false,
        failure: None,
        extracted: None,
        method: extract::Method::Unmatched,
        fuzzy_score: None,
        correct: false,
        latency_ms,
    };
    match outcome {
        Ok(r) => {
            let (ex, ok) = if r.is_structured(request) {
                score::judge_structured(q, &r.text, mode)
            } else {
                score::judge(q, &r.text, mode)
            };
            x.text_fallback = r.text_fallback;
            x.reply = Some(r.text.clone());
            x.finish_reason = r.finish_reason.clone();
            x.reasoning = r.reasoning.clone();
            x.usage = r.usage;
            x.attempts = r.attempts;
            x.faults = r.faults.clone();
            x.extracted = ex.letter;
            x.method = ex.method;
            x.fuzzy_score = ex.score;
            x.correct = ok;
        }
        Err(e) => {
            x.failure = Some(Failure::from_error(e));
            x.attempts = e.faults().len() as u32;
            x.faults = e.faults().to_vec();
        }
    }
    x
}

/// Asks every question `trials` times with at most `concurrency` requests in flight and
/// scores each reply. A question's trials are asked one after another (so a replay or a
/// seeded model sees them in order); different questions run in parallel. `on_exchange`
/// sees each exchange as it completes (transcript, progress); the result is in question
/// then trial order.
pub async fn run(
    questions: &[Question],
    prompts: &Prompts,
    model: Arc<dyn LanguageModel>,
    cfg: &RunConfig,
    on_exchange: &mut (dyn FnMut(&Exchange) -> Result<(), transcript::TranscriptError> + Send),
) -> Result<Vec<Exchange>, RunError> {
    let reqs = requests(questions, prompts, &cfg.sampling)?;
    let sem = Arc::new(tokio::sync::Semaphore::new(cfg.concurrency.max(1)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut tasks = tokio::task::JoinSet::new();
    for (i, req) in reqs.iter().cloned().enumerate() {
        let (sem, tx, model, trials) = (sem.clone(), tx.clone(), model.clone(), cfg.trials);
        tasks.spawn(async move {
            for t in 0..trials {
                let Ok(permit) = sem.acquire().await else { return };
                let start = Instant::now();
                let res = model.chat(&req).await;
                drop(permit);
                let ms = start.elapsed().as_secs_f64() * 1000.0;
                let fatal = res.as_ref().is_err_and(stops_run);
                if fatal {
                    // No request that has not started yet will start: every one would
                    // fail the same way.
                    sem.close();
                }
                if tx.send((i, t, res, ms)).is_err() || fatal {
                    return;
                }
            }
        });
    }
    drop(tx);
    let mut out = Vec::with_capacity(reqs.len() * cfg.trials as usize);
    let mut in_a_row = 0u32;
    while let Some((i, t, res, ms)) = rx.recv().await {
        let q = &questions[i];
        let res = match res {
            Err(e) if stops_run(&e) => {
                tasks.abort_all();
                return Err(RunError::Fatal { id: q.id.clone(), trial: t, error: e });
            }
            other => other,
        };
        let x = score_exchange(q, t, &reqs[i], &res, ms, cfg.mode);
        if let Err(e) = on_exchange(&x) {
            tasks.abort_all();
            return Err(RunError::Sink(e));
        }
        out.push(x);
        match res {
            Ok(_) => in_a_row = 0,
            Err(error) => {
                in_a_row += 1;
                if cfg.max_failures_in_a_row.is_some_and(|max| in_a_row >= max) {
                    tasks.abort_all();
                    return Err(RunError::FailuresInARow { count: in_a_row, id: q.id.clone(), trial: t, error });
                }
            }
        }
    }
    while let Some(j) = tasks.join_next().await {
        if let Err(e) = j {
            return Err(RunError::Task(e.to_string()));
        }
    }
    let expected = reqs.len() * cfg.trials as usize;
    if out.len() != expected {
        return Err(RunError::Task(format!("{} of {expected} exchanges completed", out.len())));
    }
    out.sort_by_key(|x| (x.row, x.category, x.trial));
    Ok(out)
}

/// What [`bench`] measured: `requests` answers of a built-in model behind a fixed latency.
pub struct Throughput {
    /// Questions asked.
    pub questions: usize,
    /// Requests made (questions × trials).
    pub requests: usize,
    /// Wall time of the run.
    pub seconds: f64,
    /// Answers scored correct.
    pub correct: usize,
}

/// Why [`bench`] could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The model is not a built-in one.
    #[error("bench qa takes a built-in model (oracle, random, random-original), not {0:?}")]
    NotBuiltIn(String),
    /// The built-in model could not be made.
    #[error("--model {0}: {1}")]
    Model(String, models::ModelError),
    /// The embedded data did not load.
    #[error(transparent)]
    Data(#[from] data::DataError),
    /// The embedded prompts did not load.
    #[error(transparent)]
    Prompt(#[from] PromptError),
    /// The run failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

/// `bench qa`: the runner's throughput on the embedded questions, each asked `trials` times
/// with `concurrency` requests in flight, against the built-in `model` behind `latency`.
pub async fn bench(
    model: &str,
    latency: std::time::Duration,
    concurrency: usize,
    trials: u32,
) -> Result<Throughput, BenchError> {
    let ds = data::embedded()?;
    let prompts = Prompts::embedded()?;
    let inner = match models::builtin_model(model, &ds.questions, &prompts, 0) {
        Some(m) if !model.starts_with("replay:") => m.map_err(|e| BenchError::Model(model.to_string(), e))?,
        _ => return Err(BenchError::NotBuiltIn(model.to_string())),
    };
    let delayed: Arc<dyn LanguageModel> = Arc::new(models::Delayed { inner, delay: latency });
    let cfg = RunConfig {
        trials,
        concurrency,
        sampling: default_sampling(),
        mode: Mode::Default,
        max_failures_in_a_row: None,
    };
    let t0 = Instant::now();
    let records = run(&ds.questions, &prompts, delayed, &cfg, &mut |_| Ok(())).await?;
    let seconds = t0.elapsed().as_secs_f64();
    let report = score::build_report(model, &ds.questions, &records, trials, Mode::Default, None);
    Ok(Throughput { questions: ds.questions.len(), requests: records.len(), seconds, correct: report.correct })
}
