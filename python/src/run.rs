//! Episodes, analysis and CoordinationQA scoring from Python: `play` (the `play --json`
//! summary as a dict, with the same transcripts), `analyze` and the `qa` functions.

use crate::convert::{from_json, json_to_py, to_json};
use crate::driving::runtime;
use crate::env::{check_horizon, check_seat, kitchen_of};
use crate::guard::guarded_fns;
use crate::options::AgentOptions;
use crate::policy::{Lent, Policy, PyCallableAgent, build_seat};
use proagent_agent::ExchangeSink;
use proagent_analysis::{self as analysis, readers};
use proagent_core::seat::Seat;
use proagent_eval::games::Playable;
use proagent_eval::run::{Run, TranscriptTarget};
use proagent_eval::runner::seats::is_proagent;
use proagent_eval::runner::summary::summary_json;
use proagent_eval::runner::{EpisodeOptions, StepView, play_episode};
use proagent_eval::transcript::WriterOptions;
use proagent_llm::{ChatResponse, LlmError, Usage};
use proagent_overcooked::env::trace;
use proagent_overcooked::game::Overcooked;
use proagent_qa::data::{self, Filter};
use proagent_qa::prompt::Prompts;
use proagent_qa::score::build_report;
use proagent_qa::{Mode, default_sampling, requests, score_exchange};
use pyo3::exceptions::{PyIOError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One seat of `play` as given from Python.
enum SeatArg {
    Spec(String),
    Policy(Py<Policy>),
    Callable(Py<PyAny>),
}

fn seat_arg(v: &Bound<'_, PyAny>, what: &str) -> PyResult<SeatArg> {
    if let Ok(s) = v.cast::<PyString>() {
        crate::guard::check_spec_path(s.to_str()?, what)?;
        return Ok(SeatArg::Spec(s.to_str()?.trim().to_string()));
    }
    if let Ok(p) = v.cast::<Policy>() {
        return Ok(SeatArg::Policy(p.clone().unbind()));
    }
    if v.is_callable() || v.hasattr("act")? {
        return Ok(SeatArg::Callable(v.clone().unbind()));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be a spec string, a proagent Policy, or a callable f(state, seat) -> action"
    )))
}

fn label_of(py: Python<'_>, a: &SeatArg) -> String {
    match a {
        SeatArg::Spec(s) => s.clone(),
        SeatArg::Policy(p) => p.borrow(py).spec().to_string(),
        SeatArg::Callable(f) => {
            let f = f.bind(py);
            let name = f
                .getattr("__name__")
                .or_else(|_| f.get_type().getattr("__name__"))
                .and_then(|n| n.extract::<String>())
                .unwrap_or_else(|_| "callable".into());
            format!("python:{name}")
        }
    }
}

/// The arguments of `play` for [`play_run`].
struct SeatSpecs<'a, 'py> {
    agent: Option<&'a Bound<'py, PyAny>>,
    partner: Option<&'a Bound<'py, PyAny>>,
    seat: usize,
    seed: u64,
    options: Option<&'a Bound<'py, PyAny>>,
    transcript: Option<PathBuf>,
    no_wall_clock: bool,
    trajectory: bool,
}

/// `play` on any game through [`Run`] (the CLI's path): seats given as specs only.
fn play_run<'py, G: Playable>(
    py: Python<'py>,
    game: Arc<G>,
    layout_spec: &str,
    file: Option<String>,
    a: SeatSpecs<'_, 'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let spec_of = |v: Option<&Bound<'py, PyAny>>, what: &str, default: &str| -> PyResult<String> {
        match v {
            None => Ok(default.to_string()),
            Some(v) => v.extract::<String>().map(|s| s.trim().to_string()).map_err(|_| {
                PyTypeError::new_err(format!(
                    "{what}: on {} a seat is a spec string (Python policies and callables play classic \
                     Overcooked only)",
                    game.report_name()
                ))
            }),
        }
    };
    let agent = spec_of(a.agent, "agent", "proagent")?;
    let partner = spec_of(a.partner, "partner", game.default_partner())?;
    crate::guard::check_spec_path(&agent, "agent")?;
    crate::guard::check_spec_path(&partner, "partner")?;
    let n = game.num_players();
    if a.seat >= n {
        return Err(PyValueError::new_err(format!("seat must be in 0..{n}, got {}", a.seat)));
    }
    let opts = match a.options {
        Some(o) if !o.is_none() => AgentOptions::from_json(&to_json(o)?)?,
        _ => AgentOptions::from_json(&serde_json::Value::Null)?,
    };
    let run = Run::new(Arc::clone(&game), &agent, &partner, a.seat, crate::driving::factory_of(Some(&opts), a.seed))
        .with_layout(layout_spec, file);
    run.check().map_err(|(player, e)| {
        PyValueError::new_err(format!("{}: {e}", if player == a.seat { "agent" } else { "partner" }))
    })?;
    if a.transcript.is_some() && !run.has_proagent() {
        return Err(PyValueError::new_err("transcript needs a proagent seat (only ProAgent runs talk to a model)"));
    }
    let target = a.transcript.as_ref().map(|path| TranscriptTarget {
        path: path.clone(),
        options: WriterOptions { scrubber: opts.scrubber(), wall_clock: !a.no_wall_clock },
        partial_until_done: false,
    });
    let rt = runtime()?;
    let played =
        crate::driving::block_interruptible(py, &rt, run.play(a.seed, target.as_ref(), EpisodeOptions::default()))?;
    let played = played.map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let mut summary = played.summary;
    if a.trajectory {
        summary["trajectory"] = game.trajectory_json(&played.result);
    }
    if let Some(p) = &played.transcript {
        summary["transcript"] = serde_json::json!(p.display().to_string());
    }
    from_json(py, &summary)
}

guarded_fns! {
/// `proagent.play(...)`: one seeded episode; returns the summary `play --json` prints,
/// as a dict (with `trajectory` added when asked for).
#[pyfunction]
#[pyo3(signature = (layout = None, agent = None, partner = None, seat = 0, seed = 0,
    horizon = proagent_overcooked::env::DEFAULT_HORIZON, options = None, transcript = None,
    no_wall_clock = false, trajectory = false))]
#[allow(clippy::too_many_arguments)]
pub fn play<'py>(
    py: Python<'py>,
    layout: Option<&Bound<'py, PyAny>>,
    agent: Option<&Bound<'py, PyAny>>,
    partner: Option<&Bound<'py, PyAny>>,
    seat: usize,
    seed: u64,
    horizon: u32,
    options: Option<&Bound<'py, PyAny>>,
    transcript: Option<PathBuf>,
    no_wall_clock: bool,
    trajectory: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let seat = check_seat(seat)?;
    let horizon = check_horizon(horizon)?;
    let layout_default = PyString::new(py, "cramped_room");
    let layout = layout.unwrap_or(layout_default.as_any());
    // A game other than classic Overcooked (`v2:NAME`, ...) is played by the library's
    // entry point for every game, `Run`, exactly as `proagent play` plays it.
    if let Ok(spec) = layout.extract::<String>()
        && proagent_overcooked::env::Layout::builtin(&spec).is_none()
    {
        let game_options = crate::vec_env::V2Switches::default().options(horizon);
        let (game, file) = crate::vec_env::load_game(&spec, None, &game_options)?;
        if !matches!(crate::env::layout::family(&game), crate::env::layout::Family::Classic(_)) {
            let seats = SeatSpecs { agent, partner, seat, seed, options, transcript, no_wall_clock, trajectory };
            return proagent_eval::on_game!(game, |g| play_run(py, g, &spec, file, seats));
        }
    }
    let kitchen = kitchen_of(layout)?;
    let layout_spec: String = layout.extract().unwrap_or_else(|_| kitchen.layout.name.clone());
    let layout_file = if proagent_overcooked::env::Layout::builtin(&layout_spec).is_none() {
        crate::guard::read_regular(std::path::Path::new(&layout_spec), proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
    } else {
        None
    };
    let agent = match agent {
        Some(a) => seat_arg(a, "agent")?,
        None => SeatArg::Spec("proagent".into()),
    };
    let partner = match partner {
        Some(p) => seat_arg(p, "partner")?,
        None => SeatArg::Spec("greedy".into()),
    };
    let opts = match options {
        Some(o) if !o.is_none() => AgentOptions::from_json(&to_json(o)?)?,
        _ => AgentOptions::from_json(&serde_json::Value::Null)?,
    };
    let labels = [label_of(py, &agent), label_of(py, &partner)];
    let game = Arc::new(Overcooked::with_kitchen(Arc::clone(&kitchen), horizon));
    let mut by_player = if seat == 0 { [agent, partner] } else { [partner, agent] };
    let mut agents: Vec<Box<dyn Seat<Overcooked>>> = Vec::new();
    let mut sinks: Vec<Option<ExchangeSink>> = Vec::new();
    let mut errors: Vec<Arc<Mutex<Option<PyErr>>>> = Vec::new();
    let mut has_proagent = false;
    for (player, a) in by_player.iter_mut().enumerate() {
        match a {
            SeatArg::Spec(spec) => {
                let pa = is_proagent(spec);
                has_proagent |= pa;
                let (agent, sink) = build_seat(spec, &game, pa.then_some(&opts), seed, player).map_err(|e| {
                    let flag = if player == seat { "agent" } else { "partner" };
                    PyValueError::new_err(format!("{flag}: {e}"))
                })?;
                sinks.push(sink);
                agents.push(agent);
            }
            SeatArg::Policy(p) => {
                let p = p.borrow(py);
                let p = p.overcooked()?;
                if p.game().layout.grid != kitchen.layout.grid {
                    return Err(PyValueError::new_err(format!(
                        "a policy built for {} cannot play {}",
                        p.game().layout.name,
                        kitchen.layout.name
                    )));
                }
                let sink = p.sink();
                has_proagent |= sink.is_some();
                sinks.push(sink);
                agents.push(Box::new(Lent(p.shared())));
            }
            SeatArg::Callable(f) => {
                let label = label_of(py, &SeatArg::Callable(f.clone_ref(py)));
                let c = PyCallableAgent::new(f.clone_ref(py), label);
                errors.push(Arc::clone(&c.error));
                sinks.push(None);
                agents.push(Box::new(c));
            }
        }
    }
    if transcript.is_some() && !has_proagent {
        return Err(PyValueError::new_err("transcript needs a proagent seat (only ProAgent runs talk to a model)"));
    }
    let mut recorder = match &transcript {
        Some(path) => {
            // The header names each seat as given from Python; ProAgent seats built from
            // specs are recorded with their options.
            let mut run = Run::new(
                Arc::clone(&game),
                &labels[0],
                &labels[1],
                seat,
                crate::driving::factory_of(Some(&opts), seed),
            )
            .with_layout(&layout_spec, layout_file);
            run.specs = if seat == 0 { labels.to_vec() } else { vec![labels[1].clone(), labels[0].clone()] };
            let target = TranscriptTarget {
                path: path.clone(),
                options: WriterOptions { scrubber: opts.scrubber(), wall_clock: !no_wall_clock },
                partial_until_done: false,
            };
            let mut r = run
                .recorder(seed, &target)
                .map_err(|e| PyIOError::new_err(e.to_string()))?
                .ok_or_else(|| PyValueError::new_err("transcript needs a proagent seat"))?;
            r.set_seat_sinks(sinks.clone());
            Some(r)
        }
        None => None,
    };
    let rt = runtime()?;
    let played = Arc::clone(&game);
    let mut options = EpisodeOptions::default();
    if let Some(r) = recorder.as_mut() {
        options.on_step = Some(Box::new(move |v: &StepView<'_, Overcooked>| r.on_step(v)));
    }
    // Ctrl-C stops the episode (and any model wait or retry backoff) within 100 ms.
    let result = crate::driving::block_interruptible(py, &rt, play_episode(played, agents, seed, options))?;
    for e in &errors {
        if let Some(err) = e.lock().ok().and_then(|mut s| s.take()) {
            return Err(err);
        }
    }
    let result = result.map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    let mut summary = summary_json(&result, seat);
    if let Some(r) = recorder {
        r.finish(summary.clone()).map_err(|e| PyIOError::new_err(e.to_string()))?;
    }
    if trajectory {
        summary["trajectory"] = game.trajectory_json(&result);
    }
    if let Some(p) = &transcript {
        summary["transcript"] = serde_json::json!(p.display().to_string());
    }
    from_json(py, &summary)
}
}

guarded_fns! {
/// `proagent.analyze(trajectory)`: the interdependence report of a trajectory. Takes a
/// trajectory dict (reference trace schema, as `play(..., trajectory=True)["trajectory"]`)
/// and returns one report dict, or a file path (traces, our episodes, human games; gzip
/// or not) and returns a list of reports.
#[pyfunction]
#[pyo3(signature = (trajectory, detail = false))]
pub fn analyze<'py>(py: Python<'py>, trajectory: &Bound<'py, PyAny>, detail: bool) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(d) = trajectory.cast::<PyDict>() {
        let v = to_json(d.as_any())?;
        let t: trace::Trajectory =
            serde_json::from_value(v).map_err(|e| PyValueError::new_err(format!("not a trajectory: {e}")))?;
        let name = t.layout.clone();
        let a = readers::from_reference(&name, &t).map_err(|e| PyValueError::new_err(format!("trajectory: {e}")))?;
        let r = analysis::analyze(&a).map_err(|e| PyValueError::new_err(e.to_string()))?;
        return from_json(py, &analysis::report_json(&r, detail));
    }
    let path: PathBuf = trajectory
        .extract()
        .map_err(|_| PyTypeError::new_err("analyze takes a trajectory dict or the path of a trajectory file"))?;
    let limit = proagent_core::limits::MAX_TRAJECTORY_BYTES;
    let bytes = crate::guard::read_regular(&path, limit, "trajectory files")?;
    let bytes = if proagent_core::limits::is_gzip(&bytes) {
        proagent_core::limits::gunzip(&bytes, limit, "decompressed trajectory files")
            .map_err(|e| PyValueError::new_err(format!("{}: reading the gzip data: {e}", path.display())))?
    } else {
        bytes
    };
    let text = {
        String::from_utf8(bytes).map_err(|_| PyValueError::new_err(format!("{}: not UTF-8 text", path.display())))?
    };
    let source = path.display().to_string();
    let (_, trajs) = readers::read(&source, &text).map_err(|e| PyValueError::new_err(format!("{source}: {e}")))?;
    let out = PyList::empty(py);
    for t in &trajs {
        let r = analysis::analyze(t).map_err(|e| PyValueError::new_err(format!("{source}: {e}")))?;
        out.append(from_json(py, &analysis::report_json(&r, detail))?)?;
    }
    Ok(out.into_any())
}
}

fn load_questions(data_path: Option<PathBuf>, filter: Option<&str>) -> PyResult<Vec<data::Question>> {
    let ds = match data_path {
        Some(p) => {
            let bytes =
                crate::guard::read_regular(&p, proagent_core::limits::MAX_QA_DATA_BYTES, "CoordinationQA data")?;
            let text = String::from_utf8(bytes)
                .map_err(|_| PyValueError::new_err(format!("{}: not UTF-8 text", p.display())))?;
            data::parse(&text, &p.display().to_string())
        }
        None => data::embedded(),
    }
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let f = match filter {
        Some(s) => Some(Filter::parse(s).map_err(|e| PyValueError::new_err(format!("filter: {e}")))?),
        None => None,
    };
    Ok(ds.questions.into_iter().filter(|q| f.as_ref().is_none_or(|f| f.matches(q))).collect())
}

guarded_fns! {
/// `proagent.qa.questions(filter=None, data=None)`: the CoordinationQA questions, each
/// with the chat `messages` the evaluator sends (so any model can be asked from Python).
#[pyfunction]
#[pyo3(signature = (filter = None, data = None))]
pub fn qa_questions<'py>(py: Python<'py>, filter: Option<&str>, data: Option<PathBuf>) -> PyResult<Bound<'py, PyAny>> {
    let qs = load_questions(data, filter)?;
    let prompts = Prompts::embedded().map_err(|e| PyValueError::new_err(e.to_string()))?;
    let reqs = requests(&qs, &prompts, &default_sampling()).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let out = PyList::empty(py);
    for (q, r) in qs.iter().zip(&reqs) {
        let d = json_to_py(py, q)?;
        let d = d.bind(py).cast::<PyDict>()?.clone();
        d.set_item("messages", json_to_py(py, &r.messages)?)?;
        out.append(d)?;
    }
    Ok(out.into_any())
}
}

guarded_fns! {
/// `proagent.qa.score(replies, ...)`: scores replies to CoordinationQA questions with the
/// benchmark's scorer and returns the report (`qa --json`'s). `replies` maps a question
/// id to its reply text, or to a list of replies (one per trial; None = a failed request).
#[pyfunction]
#[pyo3(signature = (replies, model = "python", compat = false, filter = None, data = None))]
pub fn qa_score<'py>(
    py: Python<'py>,
    replies: &Bound<'py, PyDict>,
    model: &str,
    compat: bool,
    filter: Option<&str>,
    data: Option<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let mode = if compat { Mode::Compat } else { Mode::Default };
    let qs = load_questions(data, filter)?;
    let prompts = Prompts::embedded().map_err(|e| PyValueError::new_err(e.to_string()))?;
    let reqs = requests(&qs, &prompts, &default_sampling()).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut records = Vec::new();
    let mut trials = 0u32;
    let mut asked = Vec::new();
    for (k, v) in replies.iter() {
        let id: String = k.extract().map_err(|_| PyTypeError::new_err("reply keys are question ids (str)"))?;
        let i = qs
            .iter()
            .position(|q| q.id == id)
            .ok_or_else(|| PyValueError::new_err(format!("replies: no question {id:?} (after the filter)")))?;
        let list: Vec<Option<String>> = if let Ok(s) = v.extract::<String>() {
            vec![Some(s)]
        } else {
            v.extract()
                .map_err(|_| PyTypeError::new_err(format!("replies[{id:?}]: a reply string or a list of them")))?
        };
        trials = trials.max(list.len() as u32);
        for (t, r) in list.into_iter().enumerate() {
            let outcome = match r {
                Some(text) => Ok(ChatResponse::simple(text, Usage::default())),
                None => Err(LlmError::Config("no reply given".into())),
            };
            records.push(score_exchange(&qs[i], t as u32, &reqs[i], &outcome, 0.0, mode));
        }
        asked.push(qs[i].clone());
    }
    if asked.is_empty() {
        return Err(PyValueError::new_err("replies is empty"));
    }
    asked.sort_by_key(|q| q.row);
    let report = build_report(model, &asked, &records, trials.max(1), mode, None);
    let out = json_to_py(py, &report)?;
    let d = out.bind(py).cast::<PyDict>()?.clone();
    d.set_item("exchanges", json_to_py(py, &records)?)?;
    Ok(d.into_any())
}
}
