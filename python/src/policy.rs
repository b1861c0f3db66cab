//! Seats from Python: the built-in partners and the ProAgent agent as `Policy` objects
//! with `.act(state)`, and Python callables as seats inside the Rust episode runner.
//!
//! GIL handling: a `Policy` releases the interpreter while its agent thinks (a ProAgent
//! may wait seconds for a model); a Python callable seat re-attaches only for its own
//! call. An exception raised by a callable is kept and re-raised once the episode ends;
//! from then on the seat stays put (action "stay") so the episode can finish cleanly.

use crate::convert::{action_from_py, json_to_py, state_from_dict, state_to_dict};
use crate::driving::{block_interruptible, checked_action, factory_of, runtime};
use crate::env::{ClassicEnv, Env, check_horizon, check_seat, kitchen_of};
use crate::guard::{guarded_fns, guarded_methods};
use crate::options::AgentOptions;
use crate::vec_env::VecEnv;
use async_trait::async_trait;
use proagent_agent::ExchangeSink;
use proagent_core::seat::{AgentError, BeliefCorrection, LlmUsage, Observation, Seat, SkillEvent, seat_seed};
use proagent_eval::games::Playable;
use proagent_eval::run::{Run, TranscriptTarget};
use proagent_eval::runner::StepView;
use proagent_eval::runner::record::EpisodeRecorder;
use proagent_eval::transcript::WriterOptions;
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::env::{Action, Event, Layout, State};
use proagent_overcooked::game::Overcooked;
use pyo3::exceptions::{PyIOError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// A seat's agent shared between a `Policy` object and the episodes it is lent to.
pub type SharedAgent = Arc<tokio::sync::Mutex<Box<dyn Seat<Overcooked>>>>;

/// Lends a `Policy`'s agent to an episode: every call goes to the shared agent.
pub struct Lent(pub SharedAgent);

#[async_trait]
impl Seat<Overcooked> for Lent {
    fn name(&self) -> String {
        self.0.try_lock().map(|a| a.name()).unwrap_or_else(|_| "policy".into())
    }
    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        if let Ok(mut a) = self.0.try_lock() {
            a.reset(game, seat, seed);
        }
    }
    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        self.0.lock().await.act(obs).await
    }
    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        self.0.try_lock().map(|mut a| a.drain_skill_events()).unwrap_or_default()
    }
    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        self.0.try_lock().map(|mut a| a.drain_belief_events()).unwrap_or_default()
    }
    fn metrics(&self) -> serde_json::Value {
        self.0.try_lock().map(|a| a.metrics()).unwrap_or_default()
    }
    fn llm_usage(&self) -> LlmUsage {
        self.0.try_lock().map(|a| a.llm_usage()).unwrap_or_default()
    }
}

/// A Python callable (or an object with an `act` method) in a seat of a Rust episode.
/// It is called as `f(state, seat)` with the state dict and returns an action.
pub struct PyCallableAgent {
    func: Py<PyAny>,
    label: String,
    seat: usize,
    /// The first exception the callable raised (or a bad action it returned).
    pub error: Arc<Mutex<Option<PyErr>>>,
}

impl PyCallableAgent {
    /// Wraps `func`; `label` names the seat in summaries.
    pub fn new(func: Py<PyAny>, label: String) -> PyCallableAgent {
        PyCallableAgent { func, label, seat: 0, error: Arc::default() }
    }

    fn call(&self, layout: &Layout, state: &State) -> PyResult<Action> {
        Python::attach(|py| {
            let f = self.func.bind(py);
            let d = state_to_dict(py, layout, state)?;
            let target = if f.hasattr("act")? && !f.is_callable() { f.getattr("act")? } else { f.clone() };
            let a = target.call1((d, self.seat))?;
            action_from_py(&a)
        })
    }
}

#[async_trait]
impl Seat<Overcooked> for PyCallableAgent {
    fn name(&self) -> String {
        self.label.clone()
    }
    fn reset(&mut self, _game: &Overcooked, seat: usize, _seed: u64) {
        self.seat = seat;
    }
    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        let failed = self.error.lock().map(|e| e.is_some()).unwrap_or(true);
        if failed {
            return Ok(Action::Stay);
        }
        // A Python exception is kept and re-raised after the episode; the seat stays put.
        Ok(match self.call(&obs.game.layout, obs.view) {
            Ok(a) => a,
            Err(e) => {
                if let Ok(mut slot) = self.error.lock() {
                    *slot = Some(e);
                }
                Action::Stay
            }
        })
    }
}

/// A built-in partner or the ProAgent agent, playing one seat of one classic layout (the
/// classic half of [`Policy`]: it also writes transcripts from a Python loop and pickles).
pub struct OvercookedPolicy {
    agent: SharedAgent,
    game: Arc<Overcooked>,
    seat: usize,
    seed: u64,
    spec: String,
    /// A ProAgent's finished model exchanges (None for the partners).
    sink: Option<ExchangeSink>,
    rt: tokio::runtime::Runtime,
    name: String,
    /// The transcript being written, for a ProAgent made with `transcript=`.
    recorder: Mutex<Option<Recording>>,
    /// How many model calls may fail after every retry before `act` raises (as `play`'s
    /// `max_llm_failures`; None: no limit).
    max_llm_failures: Option<u64>,
    /// What the policy was built from, for pickling: the layout spec and file text, the
    /// horizon and the ProAgent options (as given).
    built_from: (String, Option<String>, u32, Option<serde_json::Value>),
    /// Every `act` input since the last reset: a copy asks its fresh agent the same
    /// questions in order, so it ends in the same internal state.
    log: Mutex<Vec<ActInput>>,
}

/// One `act` call's input: the state, the last joint action and the last events.
type ActInput = (State, Option<[Action; 2]>, [Option<Event>; 2]);

/// A transcript written from a Python loop: steps are recorded as `act` sees them.
struct Recording {
    recorder: EpisodeRecorder,
    /// The last step written (`None` before the first).
    last_t: Option<u32>,
    path: PathBuf,
}

impl OvercookedPolicy {
    fn act_inner(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<usize> {
        let (st, last_joint, last_events) = if let Ok(env) = state.cast::<Env>() {
            let e = env.borrow();
            let e = e.classic()?;
            if e.kitchen().layout.grid != self.game.layout.grid {
                return Err(PyValueError::new_err(format!(
                    "this policy plays {}, the Env is {}",
                    self.game.layout.name,
                    e.kitchen().layout.name
                )));
            }
            self.record_previous_step(py, e)?;
            (e.state.clone(), e.last_joint, e.last_outcome.events)
        } else if let Ok(vec) = state.cast::<VecEnv>() {
            if self.recording() {
                return Err(PyValueError::new_err(
                    "a policy writing a transcript must be given the Env (act(env)), which it records",
                ));
            }
            let v = vec.borrow();
            let (game, st, joint, events) = v.classic_lane(0).ok_or_else(|| {
                PyValueError::new_err("this policy plays classic Overcooked; the VecEnv plays another game")
            })?;
            if game.layout.grid != self.game.layout.grid {
                return Err(PyValueError::new_err(format!(
                    "this policy plays {}, the VecEnv is {}",
                    self.game.layout.name, game.layout.name
                )));
            }
            (st, joint, events)
        } else {
            if self.recording() {
                return Err(PyValueError::new_err(
                    "a policy writing a transcript must be given the Env (act(env)), which knows the last step",
                ));
            }
            (state_from_dict(&self.game.layout, state)?, None, [None; 2])
        };
        if let Ok(mut log) = self.log.lock() {
            log.push((st.clone(), last_joint, last_events));
        }
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let last_actions: Vec<Option<Action>> =
            last_joint.map(|j: [Action; 2]| j.map(Some).to_vec()).unwrap_or_default();
        let last_events: [Option<Event>; 2] = last_events;
        let fut = async {
            let obs = Observation {
                last_actions: &last_actions,
                last_events: &last_events,
                ..Observation::new(game, &st, seat, st.timestep)
            };
            let mut a = agent.lock().await;
            let action = a.act(&obs).await;
            (action, a.llm_usage().failures, a.last_llm_failure())
        };
        let (a, failures, last) = block_interruptible(py, &self.rt, fut)?;
        let a = checked_action(a, failures, last, self.max_llm_failures)?;
        Ok(a.index())
    }

    fn recording(&self) -> bool {
        self.recorder.lock().map(|r| r.is_some()).unwrap_or(false)
    }

    /// Writes the step that led to `env`'s current state, once, with the agent's skill
    /// events and belief corrections since the previous call (as the runner does after
    /// each step).
    fn record_previous_step(&self, py: Python<'_>, env: &ClassicEnv) -> PyResult<()> {
        let mut guard = self.recorder.lock().map_err(|_| PyRuntimeError::new_err("transcript lock poisoned"))?;
        let Some(rec) = guard.as_mut() else { return Ok(()) };
        let (Some(joint), Some(t)) = (env.last_joint, env.state.timestep.checked_sub(1)) else { return Ok(()) };
        if rec.last_t.is_some_and(|last| t <= last) {
            return Ok(());
        }
        let (skills, beliefs) = py.detach(|| {
            self.rt.block_on(async {
                let mut a = self.agent.lock().await;
                (a.drain_skill_events(), a.drain_belief_events())
            })
        });
        let view = StepView {
            t,
            game: &*self.game,
            state: &env.state,
            actions: &joint.map(Some),
            outcome: &env.last_outcome,
            skill_events: &skills,
            beliefs: &beliefs,
            score: i64::from(env.score),
            seats: &[],
        };
        rec.recorder.on_step(&view);
        rec.last_t = Some(t);
        Ok(())
    }

    /// The agent, to lend to an episode.
    pub fn shared(&self) -> SharedAgent {
        Arc::clone(&self.agent)
    }
    /// The spec it was built from (`greedy`, `proagent`, …).
    pub fn spec(&self) -> &str {
        &self.spec
    }
    /// Where a ProAgent's exchanges go (for transcripts).
    pub fn sink(&self) -> Option<ExchangeSink> {
        self.sink.clone()
    }
    /// The game this policy plays.
    pub fn game(&self) -> &Arc<Overcooked> {
        &self.game
    }
}

/// A ProAgent's model exchanges drained from `sink` (prompt, reply, parse), as dicts.
fn exchanges_to_py(py: Python<'_>, sink: Option<&ExchangeSink>) -> PyResult<Py<PyAny>> {
    let ex = match sink {
        Some(s) => proagent_agent::log::drain_sink(s),
        None => Vec::new(),
    };
    let rows: Vec<serde_json::Value> = ex
        .iter()
        .map(|x| {
            serde_json::json!({
                "t": x.t,
                "kind": x.kind,
                "request": x.request,
                "outcome": x.outcome,
                "parsed": x.parsed,
                "parse_error": x.parse_error,
            })
        })
        .collect();
    json_to_py(py, &rows)
}

/// Builds a seat from a spec; a `proagent` seat gets `options`.
pub fn build_seat(
    spec: &str,
    game: &Arc<Overcooked>,
    options: Option<&AgentOptions>,
    seed: u64,
    seat: usize,
) -> PyResult<(Box<dyn Seat<Overcooked>>, Option<ExchangeSink>)> {
    let factory = factory_of(options, seed);
    factory.check(spec, &**game, seat).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let s = factory.build(spec, &**game).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((s.seat, s.exchanges))
}

impl OvercookedPolicy {
    /// The action for the current state of `state`: an `Env` (its state and last step are
    /// used, as inside the runner) or a state dict (then the previous step's events are
    /// unknown to the agent).
    pub(crate) fn act(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<usize> {
        self.act_inner(py, state)
    }

    /// Starts a new episode for the agent (same seat; `seed`, the episode seed, defaults to
    /// the one given at construction).
    pub(crate) fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        if let Some(s) = seed {
            self.seed = s;
        }
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let seed = seat_seed(self.seed, seat);
        py.detach(|| self.rt.block_on(async { agent.lock().await.reset(game, seat, seed) }));
        if let Ok(mut log) = self.log.lock() {
            log.clear();
        }
        Ok(())
    }

    /// Pickling: the policy is rebuilt from what it was made of and asked the same
    /// questions again (its answers, and so its internal state, follow). A ProAgent that
    /// talks to a served model or writes a transcript cannot be copied.
    pub(crate) fn reduce<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        if self.recording() {
            return Err(PyTypeError::new_err("a policy writing a transcript cannot be pickled"));
        }
        if let Some(o) = &self.built_from.3
            && o.get("model").and_then(serde_json::Value::as_str).is_some_and(|m| !proagent_llm::is_stand_in(m))
        {
            return Err(PyTypeError::new_err(
                "a ProAgent policy talking to a served model cannot be pickled (a copy would ask the model again)",
            ));
        }
        let log = self.log.lock().map_err(|_| PyRuntimeError::new_err("policy log poisoned"))?;
        let inputs: Vec<serde_json::Value> = log
            .iter()
            .map(|(st, joint, ev)| {
                serde_json::json!({
                    "state": proagent_overcooked::env::trace::state_json(&self.game.layout, st),
                    "joint": joint.map(|j| [j[0].index(), j[1].index()]),
                    "events": ev,
                })
            })
            .collect();
        let v = serde_json::json!({
            "kind": self.spec, "seat": self.seat, "seed": self.seed,
            "layout": self.built_from.0, "text": self.built_from.1, "horizon": self.built_from.2,
            "options": self.built_from.3, "max_llm_failures": self.max_llm_failures, "inputs": inputs,
        });
        let f = py.import("proagent._native")?.getattr("_restore_policy")?;
        Ok((f, (v.to_string(),)))
    }

    /// The agent's name for reports (e.g. `greedy`, `proagent[scripted]`).
    pub(crate) fn name(&self) -> PyResult<String> {
        Ok(self.name.clone())
    }

    /// The seat (player index) this policy plays.
    pub(crate) fn seat(&self) -> PyResult<usize> {
        Ok(self.seat)
    }

    /// Agent-specific metrics so far (replans, skills, belief accuracy, …) as a dict.
    pub(crate) fn metrics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let m = py.detach(|| self.rt.block_on(async { self.agent.lock().await.metrics() }));
        json_to_py(py, &m)
    }

    /// Language-model use so far: calls, failures, tokens, wait time.
    pub(crate) fn llm_usage(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let u = py.detach(|| self.rt.block_on(async { self.agent.lock().await.llm_usage() }));
        json_to_py(py, &u)
    }

    /// Skill events since the last call (empty for agents without skills).
    pub(crate) fn skill_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let ev = py.detach(|| self.rt.block_on(async { self.agent.lock().await.drain_skill_events() }));
        json_to_py(py, &ev)
    }

    /// A ProAgent's model exchanges since the last call (prompt, reply, parse), as dicts.
    pub(crate) fn exchanges(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        exchanges_to_py(py, self.sink.as_ref())
    }

    /// Ends the transcript of a ProAgent made with `transcript=`: writes the last step of
    /// `env` (if not written yet) and the footer (score, steps, the agent's metrics and
    /// model use), renames `PATH.partial` to `PATH` and returns the path.
    pub(crate) fn finish(&self, py: Python<'_>, env: Option<PyRef<'_, Env>>) -> PyResult<PathBuf> {
        let env = match &env {
            Some(e) => Some(e.classic()?),
            None => None,
        };
        if let Some(e) = env {
            self.record_previous_step(py, e)?;
        }
        let rec = self
            .recorder
            .lock()
            .map_err(|_| PyRuntimeError::new_err("transcript lock poisoned"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this policy writes no transcript (or it was finished)"))?;
        let (metrics, usage) = py.detach(|| {
            self.rt.block_on(async {
                let a = self.agent.lock().await;
                (a.metrics(), a.llm_usage())
            })
        });
        let mut summary = serde_json::json!({
            "layout": self.game.layout.name,
            "agent": self.name,
            "partner": "python",
            "seat": self.seat,
            "seed": self.seed,
            "steps": rec.last_t.map_or(0, |t| t + 1),
            "llm": usage,
        });
        if let Some(e) = &env {
            summary["score"] = serde_json::json!(e.score);
        }
        if let (Some(obj), serde_json::Value::Object(m)) = (summary.as_object_mut(), metrics) {
            for (k, v) in m {
                obj.entry(k).or_insert(v);
            }
        }
        rec.recorder.finish(summary).map_err(|e| PyIOError::new_err(e.to_string()))?;
        Ok(rec.path)
    }

    pub(crate) fn repr(&self) -> PyResult<String> {
        Ok(format!("Policy({:?}, layout={:?}, seat={})", self.spec, self.game.layout.name, self.seat))
    }
}

/// A built-in partner or the ProAgent agent playing one seat of any game of the catalog:
/// the one policy class of the package.
///
/// Made by `proagent.partner(...)` / `proagent.agent(...)`; `act(env)` returns the action
/// index for the seat (the game's codec's, as `Env.act` takes it; on the Overcookeds
/// 0..6: N, S, E, W, stay, interact).
#[pyclass(module = "proagent._native")]
pub struct Policy(PolicyKind);

/// What a [`Policy`] plays.
enum PolicyKind {
    /// Classic Overcooked (transcripts from a Python loop, pickling).
    Overcooked(Box<OvercookedPolicy>),
    /// Any other game (OvercookedV2, the card and maze games, ...): a seat of the library's seat
    /// factory.
    Seat(Box<dyn crate::seat_policy::AnySeatPolicy>),
}

impl Policy {
    /// The classic policy, for seating it in an episode of the runner.
    pub fn overcooked(&self) -> PyResult<&OvercookedPolicy> {
        match &self.0 {
            PolicyKind::Overcooked(p) => Ok(p),
            PolicyKind::Seat(p) => Err(PyValueError::new_err(format!(
                "a policy of {} cannot seat in play(); name its spec (e.g. {:?}) instead",
                p.repr(),
                p.spec()
            ))),
        }
    }
    /// The spec it was built from (`greedy`, `proagent`, …).
    pub fn spec(&self) -> &str {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.spec(),
            PolicyKind::Seat(p) => p.spec(),
        }
    }
}

guarded_methods! {
#[pymethods]
impl Policy {
    /// The action for the seat in the current state of `state`: an `Env` (its
    /// state and last step are used, as inside the runner), or on classic layouts a
    /// `VecEnv` or a state dict (then the previous step's events are unknown).
    fn act(&self, py: Python<'_>, state: &Bound<'_, PyAny>) -> PyResult<usize> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.act(py, state),
            PolicyKind::Seat(p) => p.act(py, state),
        }
    }

    /// Starts a new episode for the agent (same seat; `seed`, the episode seed, defaults to
    /// the one given at construction).
    #[pyo3(signature = (seed = None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        match &mut self.0 {
            PolicyKind::Overcooked(p) => p.reset(py, seed),
            PolicyKind::Seat(p) => p.reset(py, seed),
        }
    }

    /// Pickling (classic layouts): the policy is rebuilt from what it was made of and asked
    /// the same questions again. A ProAgent that talks to a served model or writes a
    /// transcript cannot be copied, nor can an OvercookedV2 policy.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.reduce(py),
            PolicyKind::Seat(_) => Err(PyTypeError::new_err("only a policy of classic Overcooked can be pickled")),
        }
    }

    /// The agent's name for reports (e.g. `greedy`, `proagent[scripted]`).
    #[getter]
    fn name(&self) -> PyResult<String> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.name(),
            PolicyKind::Seat(p) => Ok(p.name().to_string()),
        }
    }

    /// The seat (player index) this policy plays.
    #[getter]
    fn seat(&self) -> PyResult<usize> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.seat(),
            PolicyKind::Seat(p) => Ok(p.seat()),
        }
    }

    /// Agent-specific metrics so far (replans, skills, belief accuracy, …) as a dict.
    fn metrics(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.metrics(py),
            PolicyKind::Seat(p) => json_to_py(py, &p.metrics(py)),
        }
    }

    /// Language-model use so far: calls, failures, tokens, wait time.
    fn llm_usage(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.llm_usage(py),
            PolicyKind::Seat(p) => json_to_py(py, &p.llm_usage(py)),
        }
    }

    /// Skill events since the last call (empty for agents without skills).
    fn skill_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.skill_events(py),
            PolicyKind::Seat(p) => json_to_py(py, &p.skill_events(py)),
        }
    }

    /// A ProAgent's model exchanges since the last call (prompt, reply, parse), as dicts.
    fn exchanges(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.exchanges(py),
            PolicyKind::Seat(p) => exchanges_to_py(py, p.sink()),
        }
    }

    /// Ends the transcript of a ProAgent made with `transcript=` (classic layouts): writes
    /// the last step of `env` (if not written yet) and the footer (score, steps, the
    /// agent's metrics and model use), renames `PATH.partial` to `PATH` and returns the path.
    #[pyo3(signature = (env = None))]
    fn finish(&self, py: Python<'_>, env: Option<PyRef<'_, Env>>) -> PyResult<PathBuf> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.finish(py, env),
            PolicyKind::Seat(_) => Err(PyValueError::new_err("this policy writes no transcript")),
        }
    }

    fn __repr__(&self) -> PyResult<String> {
        match &self.0 {
            PolicyKind::Overcooked(p) => p.repr(),
            PolicyKind::Seat(p) => Ok(p.repr()),
        }
    }
}
}

guarded_fns! {
/// `proagent.partner(kind, seat, seed, layout, horizon, options)`: a built-in partner or
/// (kind "proagent") the ProAgent agent with `options` (the CLI's flags as a dict), on a
/// classic layout or an OvercookedV2 one (`layout`: a spec or an `Env`).
#[pyfunction]
#[pyo3(signature = (kind, seat = 1, seed = 0, layout = None, horizon = proagent_overcooked::env::DEFAULT_HORIZON,
    options = None, transcript = None, no_wall_clock = false, max_llm_failures = 0))]
#[allow(clippy::too_many_arguments)]
pub fn partner(
    kind: &str,
    seat: usize,
    seed: u64,
    layout: Option<&Bound<'_, PyAny>>,
    horizon: u32,
    options: Option<&Bound<'_, PyAny>>,
    transcript: Option<PathBuf>,
    no_wall_clock: bool,
    max_llm_failures: i64,
) -> PyResult<Policy> {
    if let Some(game) = crate::seat_policy::game_of(layout, horizon)? {
        if transcript.is_some() {
            return Err(PyValueError::new_err(format!(
                "transcript= from a Python loop is for classic layouts; on {} use play(..., transcript=)",
                game.kind()
            )));
        }
        let p = crate::seat_policy::build_any(kind, seat, seed, game, options, max_llm_failures)?;
        return Ok(Policy(PolicyKind::Seat(p)));
    }
    let p = build_overcooked_policy(kind, seat, seed, layout, horizon, options, transcript, no_wall_clock, max_llm_failures)?;
    Ok(Policy(PolicyKind::Overcooked(Box::new(p))))
}
}

/// The classic half of [`partner`].
#[allow(clippy::too_many_arguments)]
fn build_overcooked_policy(
    kind: &str,
    seat: usize,
    seed: u64,
    layout: Option<&Bound<'_, PyAny>>,
    horizon: u32,
    options: Option<&Bound<'_, PyAny>>,
    transcript: Option<PathBuf>,
    no_wall_clock: bool,
    max_llm_failures: i64,
) -> PyResult<OvercookedPolicy> {
    let seat = check_seat(seat)?;
    crate::guard::check_spec_path(kind, "partner")?;
    let horizon = check_horizon(horizon)?;
    let (kitchen, layout_from) = match layout {
        Some(l) => {
            let from = match l.cast::<Env>() {
                Ok(e) => e.borrow().classic()?.spec.clone(),
                Err(_) => {
                    let spec: String = l.extract().unwrap_or_default();
                    let text = crate::env::load_layout_text(&spec, None).map(|(_, t)| t).unwrap_or(None);
                    (spec, text)
                }
            };
            (kitchen_of(l)?, from)
        }
        None => (
            Arc::new(Kitchen::new(Arc::new(crate::env::load_layout("cramped_room")?))),
            ("cramped_room".to_string(), None),
        ),
    };
    let options_json = match options {
        Some(o) if !o.is_none() => Some(crate::convert::to_json(o)?),
        _ => None,
    };
    let built_from = (layout_from.0, layout_from.1, horizon, options_json);
    let game = Arc::new(Overcooked::with_kitchen(Arc::clone(&kitchen), horizon));
    let opts = match options {
        Some(o) if !o.is_none() => Some(AgentOptions::from_json(&crate::convert::to_json(o)?)?),
        _ => None,
    };
    let is_pa = proagent_eval::runner::seats::is_proagent(kind);
    if opts.is_some() && !is_pa {
        return Err(PyValueError::new_err(format!("options are for the \"proagent\" agent, not {kind:?}")));
    }
    let opts = if is_pa { Some(opts.unwrap_or(AgentOptions::from_json(&serde_json::Value::Null)?)) } else { None };
    let (mut agent, sink) = if is_pa {
        build_seat(kind, &game, opts.as_ref(), seed, seat)?
    } else {
        (game.partner(kind).map_err(|e| PyValueError::new_err(e.to_string()))?, None)
    };
    // The same derived seed the runner gives this seat for episode `seed`, so a Python
    // loop and `play` with the same seed play the same episode.
    agent.reset(&game, seat, seat_seed(seed, seat));
    let name = agent.name();
    let recorder = match (transcript, &opts) {
        (None, _) => None,
        (Some(_), None) => {
            return Err(PyValueError::new_err("transcript is for the \"proagent\" agent (only it talks to a model)"));
        }
        (Some(path), Some(o)) => {
            let layout_spec: String =
                layout.and_then(|l| l.extract().ok()).unwrap_or_else(|| kitchen.layout.name.clone());
            let layout_file = if proagent_overcooked::env::Layout::builtin(&layout_spec).is_none() {
                crate::guard::read_regular(
                    std::path::Path::new(&layout_spec),
                    proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES as u64,
                    "layout files",
                )
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
            } else {
                None
            };
            // The Python loop's own seat is named `python` in the header; the run never builds it.
            let run = Run::new(Arc::clone(&game), kind, "python", seat, factory_of(Some(o), seed))
                .with_layout(&layout_spec, layout_file);
            let target = TranscriptTarget {
                path: path.clone(),
                options: WriterOptions { scrubber: o.scrubber(), wall_clock: !no_wall_clock },
                partial_until_done: true,
            };
            let mut r = run
                .recorder(seed, &target)
                .map_err(|e| PyIOError::new_err(e.to_string()))?
                .ok_or_else(|| PyValueError::new_err("transcript is for the \"proagent\" agent"))?;
            let mut sinks = vec![None, None];
            sinks[seat.min(1)] = sink.clone();
            r.set_seat_sinks(sinks);
            Some(Recording { recorder: r, last_t: None, path })
        }
    };
    Ok(OvercookedPolicy {
        agent: Arc::new(tokio::sync::Mutex::new(agent)),
        game,
        seat,
        seed,
        spec: kind.trim().to_string(),
        sink,
        rt: runtime()?,
        name,
        recorder: Mutex::new(recorder),
        max_llm_failures: if max_llm_failures < 0 { None } else { Some(max_llm_failures as u64) },
        built_from,
        log: Mutex::new(Vec::new()),
    })
}

guarded_fns! {
/// Rebuilds a pickled `Policy` (the target of `Policy.__reduce__`).
#[pyfunction]
pub fn _restore_policy(py: Python<'_>, text: &str) -> PyResult<Policy> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("not a pickled Policy: {e}")))?;
    let bad = || PyValueError::new_err("not a pickled Policy");
    let layout = v["layout"].as_str().ok_or_else(bad)?;
    let env = ClassicEnv::build(layout, v["text"].as_str(), v["horizon"].as_u64().ok_or_else(bad)? as u32)?;
    let env = Bound::new(py, Env::from(env))?;
    let options = match &v["options"] {
        serde_json::Value::Null => None,
        o => Some(crate::convert::from_json(py, o)?),
    };
    let max_failures = v["max_llm_failures"].as_i64().unwrap_or(-1);
    let p = build_overcooked_policy(
        v["kind"].as_str().ok_or_else(bad)?,
        v["seat"].as_u64().ok_or_else(bad)? as usize,
        v["seed"].as_u64().ok_or_else(bad)?,
        Some(env.as_any()),
        v["horizon"].as_u64().ok_or_else(bad)? as u32,
        options.as_ref(),
        None,
        false,
        max_failures,
    )?;
    for input in v["inputs"].as_array().ok_or_else(bad)? {
        let st = proagent_overcooked::env::trace::state_from_json(&p.game.layout, &input["state"])
            .map_err(|e| PyValueError::new_err(format!("a pickled Policy's state: {e}")))?;
        let joint = match &input["joint"] {
            serde_json::Value::Array(a) if a.len() == 2 => {
                let get =
                    |x: &serde_json::Value| x.as_u64().and_then(|i| Action::from_index(i as usize)).ok_or_else(bad);
                Some([get(&a[0])?, get(&a[1])?])
            }
            _ => None,
        };
        let events: [Option<Event>; 2] = serde_json::from_value(input["events"].clone()).map_err(|_| bad())?;
        if let Ok(mut log) = p.log.lock() {
            log.push((st.clone(), joint, events));
        }
        let last_actions: Vec<Option<Action>> = joint.map(|j| j.map(Some).to_vec()).unwrap_or_default();
        let (agent, game, seat) = (&p.agent, &*p.game, p.seat);
        let fut = async {
            let obs = Observation {
                last_actions: &last_actions,
                last_events: &events,
                ..Observation::new(game, &st, seat, st.timestep)
            };
            let _ = agent.lock().await.act(&obs).await;
        };
        block_interruptible(py, &p.rt, fut)?;
    }
    Ok(Policy(PolicyKind::Overcooked(Box::new(p))))
}
}
