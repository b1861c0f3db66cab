//! Human play: one browser seat (keyboard) against any seat the runner builds, one
//! session per game, several games at once.
//!
//! A game ticks every `step_ms` (real time; the human's last key since the previous
//! tick is their action, STAY without one) or, turn-based, whenever the human presses a
//! key. The other seat runs in its own task and is shown each new state as soon as it
//! exists; `llm = wait` makes every tick wait for its action (the game pauses while a
//! language model thinks), `llm = proceed` lets the game go on with STAY for it until its
//! reply arrives (that action is then taken at the next tick).
//!
//! At the end (horizon, stop, or the page gone quiet for [`PlayLimits::idle`]) the game is
//! saved in `games_dir`: `<stem>.trajectory.jsonl` (reference-trace schema: `verify-trace`,
//! `analyze`, the viewer), `<stem>.human.jsonl` (the 2019 human-data schema: `bc train`,
//! `analyze`) and, with a `proagent` seat, `<stem>.transcript.jsonl`.

use super::board::{self, Overlay, Status};
use proagent_agent::{ModelSpec, ProAgentConfig};
use proagent_core::episode::{EpisodeResult, StepRecord, StepView};
use proagent_core::seat::{BeliefCorrection, LlmUsage, Observation, Seat, SkillEvent, seat_seed};
use proagent_eval::games::Playable;
use proagent_eval::run::{Run, TranscriptTarget};
use proagent_eval::runner::record::EpisodeRecorder;
use proagent_eval::runner::seats::SeatFactory;
use proagent_eval::runner::summary::summary_json;
use proagent_eval::transcript::{Scrubber, WriterOptions};
use proagent_llm::LanguageModel;
use proagent_overcooked::env::{Action, Event, Layout, State};
use proagent_overcooked::game::{Overcooked, Tally};
use proagent_partners::bc::data::step_line;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, mpsc};

/// The 2019 study's pace: its real-time games ran about 180 s for 1,132–1,204 steps
/// (shared/human_data/SOURCE.md), about 154 ms per step (6.5 steps per second).
pub const DEFAULT_STEP_MS: u32 = 154;
/// Fastest and slowest real-time step accepted.
pub const STEP_MS_RANGE: (u32, u32) = (30, 10_000);
/// Longest game accepted.
pub const MAX_HORIZON: u32 = 10_000;

/// Whether the game waits for the other seat's action while it thinks (a language model).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LlmTiming {
    /// Every tick waits for the other seat's action (the game pauses while it thinks).
    #[default]
    Wait,
    /// The game goes on; the other seat stays put until its reply arrives.
    Proceed,
}

/// A model a `proagent` seat can use in a game, prepared by the caller.
#[derive(Clone)]
pub struct GameModel {
    /// The name the page offers (`scripted`, a served model's name, ...).
    pub name: String,
    /// The backend.
    pub model: Arc<dyn LanguageModel>,
    /// How a transcript header records it.
    pub settings: ModelSpec,
}

/// Limits and defaults of the games a server runs.
#[derive(Clone, Debug)]
pub struct PlayLimits {
    /// Games running at once.
    pub max_running: usize,
    /// A running game whose page has not asked for its state this long is ended (and saved).
    pub idle: Duration,
    /// Real-time step unless the page asks for another.
    pub default_step_ms: u32,
}

impl Default for PlayLimits {
    fn default() -> Self {
        PlayLimits { max_running: 16, idle: Duration::from_secs(60), default_step_ms: DEFAULT_STEP_MS }
    }
}

/// What the server needs to start games.
#[derive(Clone)]
pub struct PlayConfig {
    /// Where games are saved.
    pub games_dir: PathBuf,
    /// The configuration of `proagent` seats (its model is replaced by the game's).
    pub proagent: ProAgentConfig,
    /// The models a game may pick; the first is the default.
    pub models: Vec<GameModel>,
    /// Secrets kept out of transcripts.
    pub scrubber: Scrubber,
    /// Limits and defaults.
    pub limits: PlayLimits,
}

/// A game as the page asks for it.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameRequest {
    /// Built-in layout name (the server resolves files).
    #[serde(default = "default_layout")]
    pub layout: String,
    /// The other seat's spec (proagent, scripted, greedy, bc, random, ...).
    #[serde(default = "default_partner")]
    pub partner: String,
    /// For a `proagent` seat: one of the server's models (default: the first).
    #[serde(default)]
    pub model: Option<String>,
    /// The player the human controls.
    #[serde(default)]
    pub human_seat: usize,
    /// Steps in the game.
    #[serde(default = "default_horizon")]
    pub horizon: u32,
    /// The other seat's seed.
    #[serde(default)]
    pub seed: u64,
    /// Milliseconds per real-time step (default: the 2019 study's pace).
    #[serde(default)]
    pub step_ms: Option<u32>,
    /// One step per key press instead of real time.
    #[serde(default)]
    pub turn_based: bool,
    /// Whether the game waits for a thinking model.
    #[serde(default)]
    pub llm: LlmTiming,
}

fn default_layout() -> String {
    "cramped_room".into()
}
fn default_partner() -> String {
    "greedy".into()
}
fn default_horizon() -> u32 {
    proagent_overcooked::env::DEFAULT_HORIZON
}

/// Why a game could not be started or driven.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    /// A field of the request is out of range or unknown; names the field.
    #[error("{field}: {message}")]
    Field {
        /// The request field.
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// Too many games at once.
    #[error("{0} games are running; finish one first")]
    Busy(usize),
    /// No game with this id.
    #[error("no game {0:?} (it may have ended when the server restarted)")]
    NoSuchGame(String),
    /// The games directory cannot be written.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The error.
        message: String,
    },
}

/// What the page shows of a game.
#[derive(Clone, Debug, Serialize)]
pub struct GameStatus {
    /// The game's id.
    pub id: String,
    /// Steps played.
    pub t: u32,
    /// Steps in the game.
    pub horizon: u32,
    /// Score so far.
    pub score: u32,
    /// The game is over (played out, stopped, or idle too long).
    pub done: bool,
    /// The game is waiting for the other seat's action.
    pub thinking: bool,
    /// The board as SVG (with the status line).
    pub svg: String,
    /// The human's seat.
    pub human_seat: usize,
    /// The other seat's name.
    pub partner: String,
    /// The last skill events of the other seat (newest last).
    pub events: Vec<SkillEvent>,
    /// The files written at the end (`trajectory`, `human`, `transcript`), once saved.
    pub files: Option<Value>,
    /// Why the game ended early or could not be saved, if it did.
    pub error: Option<String>,
}

struct Shared {
    state: State,
    t: u32,
    score: u32,
    done: bool,
    thinking: bool,
    key: Option<Action>,
    last_seen: Instant,
    events: Vec<SkillEvent>,
    files: Option<Value>,
    error: Option<String>,
    partner_name: String,
}

/// One running or finished game.
pub struct Session {
    /// The game's id (in URLs).
    pub id: String,
    layout: Arc<Layout>,
    horizon: u32,
    human_seat: usize,
    turn_based: bool,
    shared: Mutex<Shared>,
    key_pressed: Notify,
    stop: AtomicBool,
}

impl Session {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shared> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game as the page shows it; counts as the page being there.
    pub fn status(&self) -> GameStatus {
        let mut s = self.lock();
        s.last_seen = Instant::now();
        let overlay =
            Overlay { status: Some(Status { t: s.t, horizon: self.horizon, score: s.score }), highlights: Vec::new() };
        let svg = board::svg(&self.layout, &s.state, &overlay, board::DEFAULT_CELL)
            .unwrap_or_else(|e| format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>{e}</text></svg>"));
        let from = s.events.len().saturating_sub(8);
        GameStatus {
            id: self.id.clone(),
            t: s.t,
            horizon: self.horizon,
            score: s.score,
            done: s.done,
            thinking: s.thinking,
            svg,
            human_seat: self.human_seat,
            partner: s.partner_name.clone(),
            events: s.events[from..].to_vec(),
            files: s.files.clone(),
            error: s.error.clone(),
        }
    }

    /// The human's key: taken at the next tick (real time) or played at once (turn-based).
    pub fn key(&self, a: Action) {
        let mut s = self.lock();
        s.last_seen = Instant::now();
        if !s.done {
            s.key = Some(a);
        }
        drop(s);
        self.key_pressed.notify_one();
    }

    /// Ends the game at the next tick; what was played is saved.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.key_pressed.notify_one();
    }

    fn is_done(&self) -> bool {
        self.lock().done
    }
}

/// The games of a server.
#[derive(Default)]
pub struct Sessions {
    games: Mutex<HashMap<String, Arc<Session>>>,
    counter: AtomicU64,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Session>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game with this id.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, PlayError> {
        self.lock().get(id).cloned().ok_or_else(|| PlayError::NoSuchGame(id.to_string()))
    }

    /// Games still running.
    pub fn running(&self) -> usize {
        self.lock().values().filter(|s| !s.is_done()).count()
    }

    fn new_id(&self) -> String {
        let n = self.counter.fetch_add(1, Ordering::SeqCst);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let digest = proagent_llm::sha256_hex(format!("{nanos}-{n}-{}", std::process::id()).as_bytes());
        digest[..12].to_string()
    }

    /// Checks a request, builds the other seat and starts the game on `layout` (already
    /// resolved by the caller; `layout_text` is its file's text when it is not built in, for
    /// the transcript). Must be called inside a tokio runtime.
    pub fn start(
        &self,
        cfg: &PlayConfig,
        req: GameRequest,
        layout: Layout,
        layout_text: Option<String>,
    ) -> Result<Arc<Session>, PlayError> {
        let field = |field: &'static str, message: String| PlayError::Field { field, message };
        if req.human_seat > 1 {
            return Err(field("human_seat", format!("must be 0 or 1, not {}", req.human_seat)));
        }
        if req.horizon == 0 || req.horizon > MAX_HORIZON {
            return Err(field("horizon", format!("must be 1..={MAX_HORIZON}, not {}", req.horizon)));
        }
        let step_ms = req.step_ms.unwrap_or(cfg.limits.default_step_ms);
        if !(STEP_MS_RANGE.0..=STEP_MS_RANGE.1).contains(&step_ms) {
            return Err(field("step_ms", format!("must be {}..={}, not {step_ms}", STEP_MS_RANGE.0, STEP_MS_RANGE.1)));
        }
        let running = self.running();
        if running >= cfg.limits.max_running {
            return Err(PlayError::Busy(running));
        }
        let game_model = match &req.model {
            None => cfg.models.first(),
            Some(name) => cfg.models.iter().find(|m| m.name == *name),
        }
        .ok_or_else(|| {
            let known: Vec<&str> = cfg.models.iter().map(|m| m.name.as_str()).collect();
            field("model", format!("unknown model {:?} (this server offers: {})", req.model, known.join(", ")))
        })?
        .clone();
        let ai_seat = 1 - req.human_seat;
        let game = Arc::new(Overcooked::new(Arc::new(layout), req.horizon));
        let mut pa = cfg.proagent.clone();
        pa.model = Arc::clone(&game_model.model);
        pa.horizon = req.horizon;
        let factory = SeatFactory::with_default_config(pa, game_model.settings.clone());
        factory.check(&req.partner, &*game, ai_seat).map_err(|e| field("partner", e.to_string()))?;
        let seat = factory.build(&req.partner, &*game).map_err(|e| field("partner", e.to_string()))?;

        std::fs::create_dir_all(&cfg.games_dir).map_err(|e| PlayError::Io {
            path: cfg.games_dir.display().to_string(),
            message: format!("cannot create the games directory: {e}"),
        })?;
        let id = self.new_id();
        let unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let stem = format!("game-{unix}-{}-{}-{id}", game.layout.name, file_safe(&req.partner));
        let recorder = match seat.exchanges.clone() {
            Some(sink) => {
                // The human's seat is named `human` in the header; the run never builds it.
                let run = Run::new(Arc::clone(&game), &req.partner, HUMAN, ai_seat, factory.clone())
                    .with_layout(&req.layout, layout_text);
                let path = cfg.games_dir.join(format!("{stem}.transcript.jsonl"));
                let target = TranscriptTarget {
                    path: path.clone(),
                    options: WriterOptions { scrubber: cfg.scrubber.clone(), wall_clock: true },
                    partial_until_done: true,
                };
                let io = |e: proagent_eval::transcript::TranscriptError| PlayError::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                };
                let mut r = run.recorder(req.seed, &target).map_err(io)?;
                if let Some(r) = r.as_mut() {
                    let mut sinks = vec![None, None];
                    sinks[ai_seat] = Some(sink);
                    r.set_seat_sinks(sinks);
                }
                r
            }
            None => None,
        };
        let start = game.layout.start_state();
        let session = Arc::new(Session {
            id: id.clone(),
            layout: Arc::clone(&game.layout),
            horizon: req.horizon,
            human_seat: req.human_seat,
            turn_based: req.turn_based,
            shared: Mutex::new(Shared {
                state: start.clone(),
                t: 0,
                score: 0,
                done: false,
                thinking: false,
                key: None,
                last_seen: Instant::now(),
                events: Vec::new(),
                files: None,
                error: None,
                partner_name: seat.seat.name(),
            }),
            key_pressed: Notify::new(),
            stop: AtomicBool::new(false),
        });
        self.lock().insert(id, Arc::clone(&session));
        let game = Game {
            session: Arc::clone(&session),
            agent: seat.seat,
            game,
            ai_seat,
            seed: req.seed,
            step: Duration::from_millis(step_ms as u64),
            timing: if req.turn_based { LlmTiming::Wait } else { req.llm },
            idle: cfg.limits.idle,
            recorder,
            out: cfg.games_dir.join(stem),
            start,
        };
        tokio::spawn(game.run());
        Ok(session)
    }
}

/// The name of the human seat in files.
pub use proagent_eval::replay::HUMAN;

fn file_safe(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    t.chars().take(40).collect()
}

struct AgentRequest {
    state: State,
    last_joint: Option<[Action; 2]>,
    last_events: [Option<Event>; 2],
}

struct AgentReply {
    action: Action,
    skills: Vec<SkillEvent>,
    beliefs: Vec<BeliefCorrection>,
}

struct Game {
    session: Arc<Session>,
    agent: Box<dyn Seat<Overcooked>>,
    game: Arc<Overcooked>,
    ai_seat: usize,
    seed: u64,
    step: Duration,
    timing: LlmTiming,
    idle: Duration,
    recorder: Option<EpisodeRecorder>,
    out: PathBuf,
    start: State,
}

impl Game {
    async fn run(self) {
        let Game { session, mut agent, game, ai_seat, seed, step, timing, idle, mut recorder, out, start } = self;
        let layout = Arc::clone(&session.layout);
        let (req_tx, mut req_rx) = mpsc::channel::<AgentRequest>(1);
        let (rep_tx, mut rep_rx) = mpsc::channel::<AgentReply>(1);
        let agent_game = Arc::clone(&game);
        let agent_task = tokio::spawn(async move {
            agent.reset(&agent_game, ai_seat, seat_seed(seed, ai_seat));
            while let Some(r) = req_rx.recv().await {
                let last_actions: Vec<Option<Action>> = r.last_joint.map(|j| j.map(Some).to_vec()).unwrap_or_default();
                let obs = Observation {
                    last_actions: &last_actions,
                    last_events: &r.last_events,
                    ..Observation::new(&*agent_game, &r.state, ai_seat, r.state.timestep)
                };
                let action = match agent.act(&obs).await {
                    Ok(a) => a,
                    Err(e) => {
                        // The model refused the configuration: the game cannot go on; the
                        // closed channel ends it, and the reason goes to the log.
                        tracing::error!("the AI seat stopped: {e}");
                        break;
                    }
                };
                let reply =
                    AgentReply { action, skills: agent.drain_skill_events(), beliefs: agent.drain_belief_events() };
                if rep_tx.send(reply).await.is_err() {
                    break;
                }
            }
            (agent.name(), agent.metrics(), agent.llm_usage())
        });

        let mut state = start.clone();
        let mut steps: Vec<StepRecord<Overcooked>> = Vec::new();
        let mut skill_events = Vec::new();
        let (mut score, mut deliveries, mut stuck, mut tail) = (0u32, 0u32, 0u32, 0u32);
        let mut last_joint = None;
        let mut last_events: [Option<Event>; 2] = [None, None];
        let mut outstanding = false;
        let mut ended_early: Option<String> = None;
        let mut ticker = tokio::time::interval(step);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        for t in 0..session.horizon {
            if !outstanding {
                let r = AgentRequest { state: state.clone(), last_joint, last_events };
                if req_tx.send(r).await.is_err() {
                    ended_early = Some("the other seat stopped".into());
                    break;
                }
                outstanding = true;
            }
            // Wait for the tick (real time) or the key (turn-based), watching for stop and idleness.
            let human = loop {
                if session.stop.load(Ordering::SeqCst) {
                    break None;
                }
                if session.lock().last_seen.elapsed() > idle {
                    ended_early = Some(format!("no word from the page for {} s", idle.as_secs()));
                    break None;
                }
                if session.turn_based {
                    if let Some(k) = session.lock().key.take() {
                        break Some(k);
                    }
                    let _ = tokio::time::timeout(Duration::from_millis(500), session.key_pressed.notified()).await;
                } else {
                    ticker.tick().await;
                    break Some(session.lock().key.take().unwrap_or(Action::Stay));
                }
            };
            let Some(human) = human else { break };
            let reply = match timing {
                LlmTiming::Wait => {
                    session.lock().thinking = true;
                    let r = rep_rx.recv().await;
                    session.lock().thinking = false;
                    r
                }
                LlmTiming::Proceed => rep_rx.try_recv().ok(),
            };
            let (ai_action, skills, beliefs) = match reply {
                Some(r) => {
                    outstanding = false;
                    (r.action, r.skills, r.beliefs)
                }
                None if timing == LlmTiming::Wait => {
                    ended_early = Some("the other seat stopped".into());
                    break;
                }
                None => {
                    session.lock().thinking = true;
                    (Action::Stay, Vec::new(), Vec::new())
                }
            };
            let mut joint = [Action::Stay; 2];
            joint[session.human_seat] = human;
            joint[ai_seat] = ai_action;
            let before = [state.players[0].pos, state.players[1].pos];
            let outcome = layout.step(&mut state, joint);
            score += outcome.reward;
            deliveries += outcome.events.iter().filter(|e| matches!(e, Some(Event::Deliver { .. }))).count() as u32;
            let still =
                before == [state.players[0].pos, state.players[1].pos] && outcome.events.iter().all(Option::is_none);
            if still {
                stuck += 1;
                tail += 1;
            } else {
                tail = 0;
            }
            if let Some(r) = recorder.as_mut() {
                r.on_step(&StepView {
                    t,
                    game: &*game,
                    state: &state,
                    actions: &joint.map(Some),
                    outcome: &outcome,
                    skill_events: &skills,
                    beliefs: &beliefs,
                    score: i64::from(score),
                    seats: &[],
                });
            }
            {
                let mut s = session.lock();
                s.state = state.clone();
                s.t = t + 1;
                s.score = score;
                if !outstanding || timing == LlmTiming::Wait {
                    s.thinking = false;
                }
                s.events.extend(skills.iter().cloned());
                let n = s.events.len();
                if n > 64 {
                    s.events.drain(..n - 64);
                }
            }
            skill_events.extend(skills);
            last_joint = Some(joint);
            last_events = outcome.events;
            steps.push(StepRecord { actions: joint.map(Some).to_vec(), outcome, state: state.clone() });
        }
        drop(req_tx);
        // The other seat may be mid-reply (proceed mode); its last action is not played.
        drop(rep_rx);
        let (name, metrics, llm) = match agent_task.await {
            Ok(x) => x,
            Err(e) => (String::from("?"), json!({"error": e.to_string()}), LlmUsage::default()),
        };
        let mut agents = vec![HUMAN.to_string(), HUMAN.to_string()];
        agents[ai_seat] = name;
        let mut all_metrics = vec![Value::Null, Value::Null];
        all_metrics[ai_seat] = metrics;
        let mut all_llm = vec![LlmUsage::default(), LlmUsage::default()];
        all_llm[ai_seat] = llm;
        // The summary's horizon is the steps actually played (a game can end early).
        let played = Arc::new(Overcooked::with_kitchen(game.kitchen(), steps.len() as u32));
        let result = EpisodeResult {
            game: played,
            agents,
            seed,
            start,
            steps,
            skill_events,
            metrics: all_metrics,
            llm: all_llm,
            score: i64::from(score),
            tally: Tally { deliveries },
            stuck_steps: stuck,
            idle_tail: tail,
        };
        let saved = save(&result, &out, recorder, ai_seat, session.human_seat);
        let mut s = session.lock();
        s.done = true;
        s.thinking = false;
        match saved {
            Ok(files) => s.files = Some(files),
            Err(e) => s.error = Some(e.to_string()),
        }
        if let Some(why) = ended_early {
            s.error = Some(match s.error.take() {
                Some(e) => format!("{why}; {e}"),
                None => format!("ended early: {why}"),
            });
        }
    }
}

fn with_suffix(out: &Path, suffix: &str) -> PathBuf {
    let mut s = out.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Writes the game's files; returns their paths as JSON.
fn save(
    r: &EpisodeResult<Overcooked>,
    out: &Path,
    recorder: Option<EpisodeRecorder>,
    ai_seat: usize,
    human_seat: usize,
) -> Result<Value, PlayError> {
    let io = |path: &Path, e: String| PlayError::Io { path: path.display().to_string(), message: e };
    let transcript = match recorder {
        Some(rec) => rec.finish(summary_json(r, ai_seat)).map_err(|e| io(out, e.to_string()))?,
        None => None,
    };
    if r.steps.is_empty() {
        return Ok(json!({"trajectory": null, "human": null, "transcript": transcript, "note": "no step was played"}));
    }
    let traj_path = with_suffix(out, ".trajectory.jsonl");
    let mut traj = r.game.trajectory_json(r);
    traj["policy"]["human_seat"] = json!(human_seat);
    std::fs::write(&traj_path, format!("{traj}\n")).map_err(|e| io(&traj_path, e.to_string()))?;
    let human_path = with_suffix(out, ".human.jsonl");
    let trial = out.file_name().and_then(|n| n.to_str()).unwrap_or("game").to_string();
    let mut lines = String::new();
    let mut state = r.start.clone();
    let mut score = 0;
    for s in &r.steps {
        score += s.outcome.reward;
        let a = |i: usize| s.actions.get(i).copied().flatten().unwrap_or(Action::Stay);
        lines.push_str(&step_line(&trial, &r.game.layout, &state, [a(0), a(1)], s.outcome.reward, score));
        lines.push('\n');
        state = s.state.clone();
    }
    std::fs::write(&human_path, lines).map_err(|e| io(&human_path, e.to_string()))?;
    Ok(json!({
        "trajectory": traj_path.display().to_string(),
        "human": human_path.display().to_string(),
        "transcript": transcript.map(|p| p.display().to_string()),
    }))
}
