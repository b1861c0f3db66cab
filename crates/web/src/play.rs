//! Human play: a person in the browser against any seats the seat factory builds, on any
//! game of the catalog, with any number of players the game takes (one human seat, the
//! others chosen per seat), one session per game, several games at once.
//!
//! A game is played by the one episode loop ([`proagent_core::episode::play_episode`]):
//! the person's seat is a [`HumanSeat`] fed by key presses, each other seat runs in a
//! task of its own behind a [`BackgroundSeat`] and is asked for a move only in states where
//! it is to move, and the transcript is written by the run's recorder ([`Run::recorder`],
//! whose header is [`Run::header`]): the one seat that asks a model is the run's agent,
//! every other seat is named `human` there and re-played from its recorded moves.
//!
//! - **Real time**: the person's seat answers at every tick of `step_ms` with the last
//!   key pressed since the previous tick (the game's idle action — STAY — without one).
//! - **Turn-based**: the person's seat waits for a key; one step per key.
//! - The other seats are shown each new state as soon as it exists and thinks while the
//!   person does. `llm = wait` makes every step wait for its action (the game pauses while
//!   a language model thinks); `llm = proceed` lets the game go on with the idle action
//!   for it until its reply arrives (that action is then taken at the next step, and the
//!   seat is shown the newest state). Turn-based games always wait.
//!
//! With a view radius (OvercookedV2), the person's board hides what their player cannot
//! see, and the current recipe appears only where an indicator in sight shows it.
//!
//! At the end (horizon, stop, or the page gone quiet for [`PlayLimits::idle`]) the game is
//! saved in `games_dir`: `<stem>.trajectory.jsonl` (the game's trajectory record:
//! `verify-trace`, `analyze`, the viewer), `<stem>.human.jsonl` for games with a
//! human-data schema (classic: the 2019 one, for `bc train` and `analyze`) and, with a
//! seat that asks a model (`proagent`, `llmco`), `<stem>.transcript.jsonl` (re-run by
//! `replay`). A game stopped early keeps the game as it was played (its horizon) in every
//! file; the files record the steps played, and exchanges about a step never played are
//! left out of the transcript, so it re-runs exactly.

use async_trait::async_trait;
use proagent_core::Game;
use proagent_core::episode::{EpisodeFailed, EpisodeOptions, EpisodeResult, StepView, env_chance, play_episode};
use proagent_core::seat::{
    AgentError, BeliefCorrection, EpisodeAbort, LlmUsage, Observation, Seat, SeatStatus, SkillEvent, seat_seed,
};
use proagent_eval::games::{AnyGame, Playable};
use proagent_eval::on_game;
use proagent_eval::run::{Run, TranscriptTarget};
use proagent_eval::runner::record::EpisodeRecorder;
use proagent_eval::runner::seats::{
    LlmcoSeat, ProAgentSeat, SeatFactory, is_llmco, is_proagent, llmco_options, proagent_options,
};
use proagent_eval::runner::summary::summary_json;
use proagent_eval::transcript::{Scrubber, WriterOptions};
use proagent_view::board::{self, Board, Overlay, PlayerView, Status};
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
    /// Every step waits for the other seat's action (the game pauses while it thinks).
    #[default]
    Wait,
    /// The game goes on; the other seat stays put until its reply arrives.
    Proceed,
}

/// A model a `proagent` seat can use in a game: a written-down ProAgent seat, built for
/// each game on the game's own prompts (its `scripted` model is the game's stand-in).
#[derive(Clone)]
pub struct GameModel {
    /// The name the page offers (`scripted`, a served model's name, ...).
    pub name: String,
    /// The seat: switches, model settings as recorded, and how the model is reached.
    pub seat: ProAgentSeat,
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

/// Registers a language agent's spec with options from the page (`proagent[...]`,
/// `llmco[...]`) in `factory`, built on the server's own model settings: the model it names
/// must be one the server offers, and the seat is that model's (its address, key and
/// time-outs: the server's); without a model, ProAgent takes the game's model and LLM-Co
/// the rule-based stand-in, as `proagent` and `llmco` do. Nothing unregistered reaches the
/// factory, whose fallback would build a model from the spec alone. A prompts directory is
/// refused here too (the request check, [`super::access::Access::seat_spec`], refuses it
/// first).
fn with_page_seat(
    factory: SeatFactory,
    spec: &str,
    cfg: &PlayConfig,
    game: &GameModel,
) -> Result<SeatFactory, PageSeatRefused> {
    let s = spec.trim();
    let offered = |name: &str| {
        cfg.models.iter().find(|m| m.name == name).ok_or_else(|| {
            let known: Vec<&str> = cfg.models.iter().map(|m| m.name.as_str()).collect();
            format!("model {name:?} is not one this server offers ({})", known.join(", "))
        })
    };
    let no_files = |options: &[(String, String)]| match options.iter().find(|(k, _)| k == "prompts") {
        Some(_) => Err(format!("{s}: the option \"prompts\" cannot be set from the page")),
        None => Ok(()),
    };
    let model_of = |options: &[(String, String)]| options.iter().find(|(k, _)| k == "model").map(|(_, v)| v.clone());
    if is_llmco(s) && s != "llmco" {
        let options = llmco_options(s).map_err(|e| e.to_string())?;
        no_files(&options)?;
        let base = match model_of(&options) {
            Some(name) => offered(&name)?.seat.model.clone(),
            None => proagent_llm::ModelSpec::new(proagent_llm::STAND_IN),
        };
        let seat = LlmcoSeat::from_spec(s, &base).map_err(|e| e.to_string())?;
        return Ok(factory.with_llmco_seat(s, seat));
    }
    if is_proagent(s) && s != "proagent" {
        let options = proagent_options(s).map_err(|e| e.to_string())?;
        no_files(&options)?;
        let base = match model_of(&options) {
            Some(name) => offered(&name)?.seat.clone(),
            None => game.seat.clone(),
        };
        let (mut settings, mut model) = (base.settings, base.model);
        // A preset replaces the switches: it goes first, the other options over it.
        let preset = options.iter().filter(|(k, _)| k == "preset");
        for (k, v) in preset.chain(options.iter().filter(|(k, _)| k != "preset")) {
            proagent_agent::config::apply_option(&mut settings, &mut model, k, v).map_err(|e| format!("{s}: {e}"))?;
        }
        let label = proagent_agent::config::label(&settings, &model);
        return Ok(factory.with_seat(s, ProAgentSeat { label, settings, model }));
    }
    Ok(factory)
}

/// Why [`with_page_seat`] refused a spec (the message names the spec or the model).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct PageSeatRefused(String);

impl From<String> for PageSeatRefused {
    fn from(message: String) -> Self {
        PageSeatRefused(message)
    }
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
    /// The models a `proagent` seat may use; the first is the default.
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
    /// Built-in layout name (`cramped_room`, `v2:two_rooms`; the server resolves files).
    #[serde(default = "default_layout")]
    pub layout: String,
    /// The other seat's spec (proagent, scripted, greedy, bc, random, ...): every seat
    /// but the human's, unless `partners` names them one by one.
    #[serde(default)]
    pub partner: Option<String>,
    /// Games of three or more players: the specs of the seats other than the
    /// human's, in seat order (one each); `partner` (else the game's default) for the rest.
    #[serde(default)]
    pub partners: Option<Vec<String>>,
    /// For a `proagent` seat: one of the server's models (default: the first).
    #[serde(default)]
    pub model: Option<String>,
    /// The player the human controls.
    #[serde(default)]
    pub human_seat: usize,
    /// Steps in the game.
    #[serde(default = "default_horizon")]
    pub horizon: u32,
    /// The episode seed (the other seat's, and the game's own draws: recipes, random starts).
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
    /// The game's own settings by name, in the request's `v2` field as the page sends it
    /// (OvercookedV2's switches: `view_radius`, `negative_rewards`,
    /// `sample_recipe_on_delivery`, `random_agent_positions`, `start_cooking_interaction`,
    /// `indicate_successful_delivery`; `max_steps` is the horizon): the game the layout
    /// names parses them (an unknown one is refused); other games ignore them.
    #[serde(default, rename = "v2")]
    pub settings: Option<proagent_eval::games::GameSettings>,
}

fn default_layout() -> String {
    "cramped_room".into()
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
    /// The game (`cramped_room`, `v2:two_rooms`).
    pub layout: String,
    /// Steps played.
    pub t: u32,
    /// Steps in the game.
    pub horizon: u32,
    /// Score so far (negative after penalties).
    pub score: i64,
    /// The game is over (played out, stopped, or idle too long).
    pub done: bool,
    /// The game is waiting for the other seat's action.
    pub thinking: bool,
    /// The game's family (`overcooked`, `overcooked_v2`, ...: the catalog's kinds).
    pub game: &'static str,
    /// The board as SVG (with the status line), as the human's player sees it.
    pub svg: String,
    /// The person's legal moves now (token and words; empty when it is not their turn or
    /// the game is over): the page offers them as buttons for games not played with the
    /// arrow keys.
    pub moves: Vec<LegalMove>,
    /// The human's seat.
    pub human_seat: usize,
    /// Players in the game.
    pub players: usize,
    /// The other seat's name (empty in a one-player game).
    pub partner: String,
    /// The last skill events of the other seat (newest last).
    pub events: Vec<SkillEvent>,
    /// The files written at the end (`trajectory`, `human`, `transcript`), once saved.
    pub files: Option<Value>,
    /// Why the game ended early or could not be saved, if it did.
    pub error: Option<String>,
}

/// One move a person may make now.
#[derive(Clone, Debug, Serialize)]
pub struct LegalMove {
    /// The action token the key endpoint takes.
    pub token: String,
    /// The move in words.
    pub label: String,
}

/// A running or finished game, whatever its game: what the server asks of it.
pub trait Session: Send + Sync {
    /// The game's id (in URLs).
    fn id(&self) -> &str;
    /// The game as the page shows it; counts as the page being there.
    fn status(&self) -> GameStatus;
    /// The human's key (an action token: `N`, `S`, `E`, `W`, `I`, `X`, ...): taken at the
    /// next tick (real time) or played at once (turn-based). An unknown action is an error.
    fn key(&self, token: &str) -> Result<(), PlayError>;
    /// Ends the game before its next step; what was played is saved.
    fn stop(&self);
    /// The game is over.
    fn is_done(&self) -> bool;
}

struct Shared<G: Game> {
    state: G::State,
    t: u32,
    score: i64,
    done: bool,
    thinking: bool,
    key: Option<G::Action>,
    last_seen: Instant,
    events: Vec<SkillEvent>,
    files: Option<Value>,
    error: Option<String>,
    partner_name: String,
}

/// One game of `G` played in the browser.
struct Live<G: Playable + Board> {
    id: String,
    game: Arc<G>,
    human_seat: usize,
    turn_based: bool,
    shared: Mutex<Shared<G>>,
    key_pressed: Notify,
    stop: AtomicBool,
}

impl<G: Playable + Board> Live<G> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Shared<G>> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<G: Playable + Board> Session for Live<G> {
    fn id(&self) -> &str {
        &self.id
    }

    fn status(&self) -> GameStatus {
        let mut s = self.lock();
        s.last_seen = Instant::now();
        let horizon = self.game.max_steps();
        let overlay = Overlay {
            status: Some(Status { t: s.t, horizon, score: s.score }),
            highlights: Vec::new(),
            view: Some(PlayerView { player: self.human_seat, hide: true }),
        };
        let svg = board::svg(&*self.game, &s.state, &overlay, board::DEFAULT_CELL)
            .unwrap_or_else(|e| format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>{e}</text></svg>"));
        let from = s.events.len().saturating_sub(8);
        let moves = if s.done {
            Vec::new()
        } else {
            let me = self.human_seat;
            self.game
                .legal_actions(self.game.view(&s.state, me), me)
                .into_iter()
                .map(|a| LegalMove { token: self.game.action_token(a), label: self.game.describe_action(&s.state, a) })
                .collect()
        };
        GameStatus {
            id: self.id.clone(),
            game: self.game.kind(),
            moves,
            layout: self.game.report_name(),
            t: s.t,
            horizon,
            score: s.score,
            done: s.done,
            thinking: s.thinking,
            svg,
            human_seat: self.human_seat,
            players: self.game.num_players(),
            partner: s.partner_name.clone(),
            events: s.events[from..].to_vec(),
            files: s.files.clone(),
            error: s.error.clone(),
        }
    }

    fn key(&self, token: &str) -> Result<(), PlayError> {
        let a = self.game.read_action(token).ok_or_else(|| PlayError::Field {
            field: "action",
            message: format!("unknown action {token:?} (N, S, E, W, I or X for stay)"),
        })?;
        let mut s = self.lock();
        s.last_seen = Instant::now();
        if !s.done {
            s.key = Some(a);
        }
        drop(s);
        self.key_pressed.notify_one();
        Ok(())
    }

    fn stop(&self) {
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
    games: Mutex<HashMap<String, Arc<dyn Session>>>,
    counter: AtomicU64,
}

impl Sessions {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<dyn Session>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The game with this id.
    pub fn get(&self, id: &str) -> Result<Arc<dyn Session>, PlayError> {
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

    /// Checks a request, builds the other seat and starts the game (`game` already built by
    /// the caller from the request's layout; `layout_text` is its file's text when it is not
    /// built in, for the transcript). Must be called inside a tokio runtime.
    pub fn start(
        &self,
        cfg: &PlayConfig,
        req: GameRequest,
        game: AnyGame,
        layout_text: Option<String>,
    ) -> Result<Arc<dyn Session>, PlayError> {
        on_game!(&game, |g| self.start_game(cfg, &req, Arc::clone(g), layout_text))
    }

    fn start_game<G: Playable + Board>(
        &self,
        cfg: &PlayConfig,
        req: &GameRequest,
        game: Arc<G>,
        layout_text: Option<String>,
    ) -> Result<Arc<dyn Session>, PlayError> {
        let field = |field: &'static str, message: String| PlayError::Field { field, message };
        let n = game.num_players();
        if req.human_seat >= n {
            let seats = match n {
                1 => "0".to_string(),
                2 => "0 or 1".to_string(),
                _ => format!("0..={}", n - 1),
            };
            return Err(field("human_seat", format!("must be {seats}, not {}", req.human_seat)));
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
        // The other seats (none in a one-player game), each with its spec.
        let others = seat_specs(req, n, game.default_partner()).map_err(|m| field("partners", m.0))?;
        // A game's model calls may fail without ending it: the person plays on with the
        // seat's fallback, as the seat's metrics then say.
        let mut factory = SeatFactory::new(Some(game_model.seat.clone())).with_max_llm_failures(None);
        for (_, spec) in &others {
            factory = with_page_seat(factory, spec, cfg, &game_model).map_err(|m| field("partner", m.0))?;
        }
        let mut built = Vec::with_capacity(others.len());
        for (player, spec) in &others {
            factory.check(spec, &*game, *player).map_err(|e| field("partner", e.to_string()))?;
            built.push((
                *player,
                spec.clone(),
                factory.build(spec, &*game).map_err(|e| field("partner", e.to_string()))?,
            ));
        }
        // The transcript re-runs one seat that asks a model (`replay`); every other seat is
        // re-played from its recorded moves, so at most one seat may ask a model.
        let asking: Vec<usize> = built.iter().filter(|(_, _, b)| b.exchanges.is_some()).map(|(p, _, _)| *p).collect();
        if asking.len() > 1 {
            return Err(field(
                "partners",
                format!("at most one seat may ask a model in a browser game (players {asking:?} would)"),
            ));
        }

        std::fs::create_dir_all(&cfg.games_dir).map_err(|e| PlayError::Io {
            path: cfg.games_dir.display().to_string(),
            message: format!("cannot create the games directory: {e}"),
        })?;
        let id = self.new_id();
        let unix = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        // Files are named after the seat that asks a model, else the first other seat.
        let named = others.iter().find(|(p, _)| asking.contains(p)).or(others.first());
        let who = named.map_or_else(|| "solo".to_string(), |(_, spec)| file_safe(spec));
        let stem = format!("game-{unix}-{}-{who}-{id}", game.report_name().replace(':', "_"));
        let recorder = match built.iter().find(|(_, _, b)| b.exchanges.is_some()) {
            Some((ai, spec, b)) => {
                // The model's seat is the run's agent; every other seat is named `human` in
                // the header and re-played from its recorded moves (the run builds none).
                let run = Run::new(Arc::clone(&game), spec, HUMAN, *ai, factory.clone())
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
                    let mut sinks = vec![None; n];
                    sinks[*ai] = b.exchanges.clone();
                    r.set_seat_sinks(sinks);
                }
                r
            }
            None => None,
        };
        let partner_name = built.iter().map(|(_, _, b)| b.seat.name()).collect::<Vec<_>>().join(", ");
        // The state the episode starts from, as the episode loop draws it from the seed.
        let start = game.initial_state(&mut env_chance(req.seed));
        let live = Arc::new(Live {
            id: id.clone(),
            game: Arc::clone(&game),
            human_seat: req.human_seat,
            turn_based: req.turn_based || !real_time_game(game.kind()),
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
                partner_name,
            }),
            key_pressed: Notify::new(),
            stop: AtomicBool::new(false),
        });
        let session: Arc<dyn Session> = live.clone();
        self.lock().insert(id, Arc::clone(&session));
        // Proceeding without the other seat's action needs an action that does nothing.
        let timing = if req.turn_based || !real_time_game(game.kind()) || game.idle_action().is_none() {
            LlmTiming::Wait
        } else {
            req.llm
        };
        let played = Played {
            live,
            agent_seat: asking.first().or(others.first().map(|(p, _)| p)).copied().unwrap_or(req.human_seat),
            others: built.into_iter().map(|(p, _, b)| (b.seat, p)).collect(),
            seed: req.seed,
            step: Duration::from_millis(step_ms as u64),
            timing,
            idle: cfg.limits.idle,
            recorder,
            out: cfg.games_dir.join(stem),
            start,
        };
        tokio::spawn(played.run());
        Ok(session)
    }
}

/// Whether a game family is played in real time by a person (the Overcooked games, with
/// the arrow keys); the others (the card and maze games) are always turn-based: the game
/// waits for the person's pick.
fn real_time_game(kind: &str) -> bool {
    matches!(kind, "overcooked" | "overcooked_v2")
}

/// The other seats of a game of `n` players and their specs, in seat order: the request's
/// `partners` one by one when given (one per seat other than the human's), else its
/// `partner`, else the game's `default` partner for each.
fn seat_specs(req: &GameRequest, n: usize, default: &str) -> Result<Vec<(usize, String)>, SeatCount> {
    let seats: Vec<usize> = (0..n).filter(|&i| i != req.human_seat).collect();
    let one = req.partner.clone().unwrap_or_else(|| default.to_string());
    match &req.partners {
        None => Ok(seats.into_iter().map(|p| (p, one.clone())).collect()),
        Some(list) if list.len() == seats.len() => Ok(seats.into_iter().zip(list.iter().cloned()).collect()),
        Some(list) => Err(SeatCount(format!(
            "names {} seat(s); this game has {} besides the human's ({seats:?})",
            list.len(),
            seats.len()
        ))),
    }
}

/// A `partners` list that does not name one spec per seat besides the human's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
struct SeatCount(String);

/// The name of the human seat in files.
pub use proagent_eval::replay::HUMAN;

fn file_safe(s: &str) -> String {
    let t: String = s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    t.chars().take(40).collect()
}

/// The person's seat: answers with their key presses, at the game's pace.
pub struct HumanSeat<G: Playable + Board> {
    live: Arc<Live<G>>,
    ticker: tokio::time::Interval,
    idle: Duration,
}

#[async_trait]
impl<G: Playable + Board> Seat<G> for HumanSeat<G> {
    fn name(&self) -> String {
        HUMAN.to_string()
    }

    fn reset(&mut self, _game: &G, _seat: usize, _seed: u64) {}

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        let live = &self.live;
        // Without an action that does nothing, a real-time game waits for the key too.
        let waits_for_key = live.turn_based || obs.game.idle_action().is_none();
        loop {
            if live.stop.load(Ordering::SeqCst) {
                return Err(AgentError::Withdrew("stopped".into()));
            }
            if live.lock().last_seen.elapsed() > self.idle {
                return Err(AgentError::Withdrew(format!("no word from the page for {} s", self.idle.as_secs())));
            }
            if waits_for_key {
                if let Some(k) = live.lock().key.take() {
                    return Ok(k);
                }
                let _ = tokio::time::timeout(Duration::from_millis(500), live.key_pressed.notified()).await;
            } else {
                self.ticker.tick().await;
                if let Some(a) = live.lock().key.take().or(obs.game.idle_action()) {
                    return Ok(a);
                }
            }
        }
    }
}

/// What the other seat is asked: the state it is shown, with the previous step.
struct Ask<G: Game> {
    state: G::State,
    t: u32,
    last_actions: Vec<Option<G::Action>>,
    last_events: Vec<Option<G::Event>>,
}

/// What the other seat answered, and what it did meanwhile.
struct Answer<G: Game> {
    action: Result<G::Action, AgentError>,
    skills: Vec<SkillEvent>,
    beliefs: Vec<BeliefCorrection>,
    /// The seat's report of itself right after this answer.
    report: Report,
}

/// The other seat's report of itself after each answer (the episode loop asks for these
/// between steps, while the seat itself may be thinking in its task).
#[derive(Clone, Default)]
struct Report {
    name: String,
    metrics: Value,
    llm: LlmUsage,
    last_failure: Option<String>,
    status: SeatStatus,
}

/// The other seat as the episode loop sees it: the seat itself runs in a task of its own,
/// shown each new state as soon as the step that made it is played (see [`Feeder`]), so it
/// thinks while the person does.
struct BackgroundSeat<G: Playable + Board> {
    answers: mpsc::Receiver<Answer<G>>,
    asked: Arc<AtomicBool>,
    report: Arc<Mutex<Report>>,
    /// The report that came with the last answer the game took.
    consumed: Report,
    /// The report after each answer the game took, by the step it was taken at.
    taken: Arc<Mutex<Vec<(u32, Report)>>>,
    timing: LlmTiming,
    live: Arc<Live<G>>,
    skills: Vec<SkillEvent>,
    beliefs: Vec<BeliefCorrection>,
}

/// Shows the other seat a new state when it is not busy with an earlier one.
struct Feeder<G: Game> {
    asks: mpsc::Sender<Ask<G>>,
    asked: Arc<AtomicBool>,
    /// The seat's reports by the step each answer was taken at ([`BackgroundSeat`]'s).
    taken: Arc<Mutex<Vec<(u32, Report)>>>,
}

impl<G: Game> Feeder<G> {
    fn offer(&self, ask: Ask<G>) {
        if !self.asked.load(Ordering::SeqCst) && self.asks.try_send(ask).is_ok() {
            self.asked.store(true, Ordering::SeqCst);
        }
    }
}

impl<G: Playable + Board> BackgroundSeat<G> {
    /// Starts `seat` (player `player`, episode `seed`) in its own task.
    fn spawn(
        mut seat: Box<dyn Seat<G>>,
        game: Arc<G>,
        player: usize,
        seed: u64,
        timing: LlmTiming,
        live: Arc<Live<G>>,
    ) -> (BackgroundSeat<G>, Feeder<G>, tokio::task::JoinHandle<Report>) {
        let (ask_tx, mut ask_rx) = mpsc::channel::<Ask<G>>(1);
        let (ans_tx, ans_rx) = mpsc::channel::<Answer<G>>(1);
        let first = Report { name: seat.name(), ..Report::default() };
        let report = Arc::new(Mutex::new(first.clone()));
        let shared = Arc::clone(&report);
        let task = tokio::spawn(async move {
            seat.reset(&game, player, seat_seed(seed, player));
            let snapshot = |seat: &dyn Seat<G>| Report {
                name: seat.name(),
                metrics: seat.metrics(),
                llm: seat.llm_usage(),
                last_failure: seat.last_llm_failure(),
                status: seat.status(),
            };
            while let Some(ask) = ask_rx.recv().await {
                let obs = Observation {
                    game: &*game,
                    view: game.view(&ask.state, player),
                    seat: player,
                    t: ask.t,
                    last_actions: &ask.last_actions,
                    last_events: &ask.last_events,
                };
                let action = seat.act(&obs).await;
                let report = snapshot(&*seat);
                *shared.lock().unwrap_or_else(|e| e.into_inner()) = report.clone();
                let answer =
                    Answer { action, skills: seat.drain_skill_events(), beliefs: seat.drain_belief_events(), report };
                if ans_tx.send(answer).await.is_err() {
                    break;
                }
            }
            snapshot(&*seat)
        });
        let asked = Arc::new(AtomicBool::new(false));
        let taken = Arc::new(Mutex::new(Vec::new()));
        let feeder = Feeder { asks: ask_tx, asked: Arc::clone(&asked), taken: Arc::clone(&taken) };
        let bg = BackgroundSeat {
            answers: ans_rx,
            asked,
            report,
            consumed: first.clone(),
            taken,
            timing,
            live,
            skills: Vec::new(),
            beliefs: Vec::new(),
        };
        (bg, feeder, task)
    }

    /// The seat's report: as of the last answer the game took when the game waits for
    /// it (an answer about a step never played is not counted), else its newest.
    fn report(&self) -> Report {
        match self.timing {
            LlmTiming::Wait => self.consumed.clone(),
            LlmTiming::Proceed => self.report.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }

    fn thinking(&self, on: bool) {
        self.live.lock().thinking = on;
    }
}

#[async_trait]
impl<G: Playable + Board> Seat<G> for BackgroundSeat<G> {
    fn name(&self) -> String {
        self.report().name
    }

    /// The seat was reset in its task when it started.
    fn reset(&mut self, _game: &G, _seat: usize, _seed: u64) {}

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        let answer = match self.timing {
            LlmTiming::Wait => {
                self.thinking(true);
                let a = self.answers.recv().await;
                self.thinking(false);
                a
            }
            LlmTiming::Proceed => self.answers.try_recv().ok(),
        };
        match answer {
            Some(a) => {
                self.asked.store(false, Ordering::SeqCst);
                self.skills.extend(a.skills);
                self.beliefs.extend(a.beliefs);
                self.taken.lock().unwrap_or_else(|e| e.into_inner()).push((obs.t, a.report.clone()));
                self.consumed = a.report;
                if self.timing == LlmTiming::Proceed {
                    self.thinking(false);
                }
                a.action
            }
            None if self.timing == LlmTiming::Wait => Err(AgentError::Withdrew("the other seat stopped".into())),
            None => {
                self.thinking(true);
                obs.game.idle_action().ok_or(AgentError::NoLegalAction(obs.seat))
            }
        }
    }

    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        std::mem::take(&mut self.skills)
    }

    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        std::mem::take(&mut self.beliefs)
    }

    fn metrics(&self) -> Value {
        self.report().metrics
    }

    fn llm_usage(&self) -> LlmUsage {
        self.report().llm
    }

    fn last_llm_failure(&self) -> Option<String> {
        self.report().last_failure
    }

    fn status(&self) -> SeatStatus {
        self.report().status
    }
}

/// A game being played: everything its task needs.
struct Played<G: Playable + Board> {
    live: Arc<Live<G>>,
    /// The other seats and their players (none in a one-player game).
    others: Vec<(Box<dyn Seat<G>>, usize)>,
    /// The seat the transcript's summary is about: the one that asks a model, else the
    /// first other seat (the human's in a one-player game).
    agent_seat: usize,
    seed: u64,
    step: Duration,
    timing: LlmTiming,
    idle: Duration,
    recorder: Option<EpisodeRecorder>,
    out: PathBuf,
    start: G::State,
}

impl<G: Playable + Board> Played<G> {
    async fn run(self) {
        let Played { live, others, agent_seat, seed, step, timing, idle, mut recorder, out, start } = self;
        let game = Arc::clone(&live.game);
        let n = game.num_players();
        let mut ticker = tokio::time::interval(step);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticker.tick().await;
        let human = HumanSeat { live: Arc::clone(&live), ticker, idle };
        let mut seats: Vec<Option<Box<dyn Seat<G>>>> = (0..n).map(|_| None).collect();
        seats[live.human_seat] = Some(Box::new(human));
        let mut background = Vec::with_capacity(others.len());
        for (seat, player) in others {
            let (bg, feeder, task) =
                BackgroundSeat::spawn(seat, Arc::clone(&game), player, seed, timing, Arc::clone(&live));
            // Its first question: the start state, when it is to move in it.
            if game.turn(&start).includes(player) {
                feeder.offer(Ask { state: start.clone(), t: 0, last_actions: Vec::new(), last_events: vec![None; n] });
            }
            seats[player] = Some(Box::new(bg));
            background.push((player, feeder, task));
        }
        let seats: Vec<Box<dyn Seat<G>>> = seats.into_iter().flatten().collect();
        let feeders: Vec<(usize, &Feeder<G>)> = background.iter().map(|(p, f, _)| (*p, f)).collect();
        let observe = |v: &StepView<'_, G>| {
            if let Some(r) = recorder.as_mut() {
                r.on_step(v);
            }
            // The next step's question to each seat that moves in it, unless there is no
            // next step (a seat is asked only when it is to move: a turn game's other
            // players have nothing to choose).
            if v.t + 1 < v.game.max_steps() && !v.game.is_over(v.state) {
                let turn = v.game.turn(v.state);
                for (_, f) in feeders.iter().filter(|(p, _)| turn.includes(*p)) {
                    let last_events = (0..n).map(|i| v.game.event(v.outcome, i).cloned()).collect();
                    f.offer(Ask { state: v.state.clone(), t: v.t + 1, last_actions: v.actions.to_vec(), last_events });
                }
            }
            let mut s = live.lock();
            s.state = v.state.clone();
            s.t = v.t + 1;
            s.score = v.score;
            if timing == LlmTiming::Wait {
                s.thinking = false;
            }
            s.events.extend(v.skill_events.iter().filter(|e| e.player != live.human_seat).cloned());
            let k = s.events.len();
            if k > 64 {
                s.events.drain(..k - 64);
            }
        };
        let options = EpisodeOptions {
            on_step: Some(Box::new(observe)),
            stop: None,
            max_llm_failures: None,
            max_parse_failure_share: None,
        };
        let played = play_episode(Arc::clone(&game), seats, seed, options).await;
        let (mut result, ended) = match played {
            Ok(r) => (r, None),
            Err(EpisodeFailed { abort, partial }) => {
                let why = match &abort {
                    EpisodeAbort::Agent { error: AgentError::Withdrew(why), .. } if why == "stopped" => None,
                    EpisodeAbort::Agent { error: AgentError::Withdrew(why), .. } => Some(why.clone()),
                    other => Some(other.to_string()),
                };
                (*partial, Some(why))
            }
        };
        // The other seats may be mid-reply (proceed mode, or asked about a step the
        // person then stopped before); their last actions are not played, but what they
        // spent until then is kept.
        let played = result.steps.len() as u32;
        for (player, feeder, task) in background {
            let taken = std::mem::take(&mut *feeder.taken.lock().unwrap_or_else(|e| e.into_inner()));
            drop(feeder);
            let last = task.await;
            // Waiting, the seat's report is the one of the last answer taken for a step
            // that was played (an answer about the step the person stopped before is not
            // counted: a re-run never asks for it); proceeding, a reply the game went on
            // without still counts.
            let report = match timing {
                LlmTiming::Wait => taken.into_iter().rev().find(|(t, _)| *t < played).map(|(_, r)| r),
                LlmTiming::Proceed => last.ok(),
            };
            if let Some(report) = report {
                result.agents[player] = report.name;
                result.metrics[player] = report.metrics;
                result.llm[player] = report.llm;
            }
        }
        // The exchanges of a question about a step that was never played (the person
        // stopped first) are left out of the transcript: a re-run plays only the recorded
        // steps and never asks it. The summary's steps are the steps played; the game (and
        // its horizon, as the header records it) stays the one that was played.
        if let Some(r) = recorder.as_mut() {
            r.discard_after(result.steps.len() as u32);
        }
        let saved = save(&result, &out, recorder, agent_seat, live.human_seat);
        let mut s = live.lock();
        s.done = true;
        s.thinking = false;
        match saved {
            Ok(files) => s.files = Some(files),
            Err(e) => s.error = Some(e.to_string()),
        }
        if let Some(Some(why)) = ended {
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
fn save<G: Playable>(
    r: &EpisodeResult<G>,
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
    let trial = out.file_name().and_then(|n| n.to_str()).unwrap_or("game").to_string();
    let human = match r.game.human_game_lines(r, &trial) {
        Some(lines) => {
            let human_path = with_suffix(out, ".human.jsonl");
            std::fs::write(&human_path, lines).map_err(|e| io(&human_path, e.to_string()))?;
            Some(human_path.display().to_string())
        }
        None => None,
    };
    Ok(json!({
        "trajectory": traj_path.display().to_string(),
        "human": human,
        "transcript": transcript.map(|p| p.display().to_string()),
    }))
}
