//! One episode of any drawable game as the viewer shows it: the frames (T+1 states), what
//! happened at each step (every player's action, reward, model exchanges with the prompt
//! and the parsed analysis, intention and plan, verificator rounds, re-plans, skill
//! events, belief corrections) and the hand-overs the game's teamwork analysis found, with
//! the cells to mark on the board. Built once per opened file from the generic episode
//! reader ([`proagent_eval::runner::files`]); pure apart from holding the data.

use proagent_agent::grounding::overcooked::parse_reply;
use proagent_agent::planner::reply_fields;
use proagent_eval::games::{Playable, SavedTeamwork};
use proagent_eval::runner::files::{EpisodeFile, EpisodeKind, SavedEpisode};
use proagent_eval::runner::record::RunConfig;
use proagent_eval::transcript::Transcript;
use proagent_llm::record::Outcome;
use proagent_view::board::{self, Board, DrawError, Highlight, Overlay, PlayerView, Status};
use serde_json::{Value, json};
use std::path::Path;

/// Why an episode could not be opened for viewing.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The file holds fewer episodes than the index asked for.
    #[error("{file}: episode {index} does not exist (the file holds {count})")]
    NoSuchEpisode {
        /// The file.
        file: String,
        /// The index asked for.
        index: usize,
        /// How many episodes it holds.
        count: usize,
    },
    /// A recorded state that the board cannot draw.
    #[error("{file}: {err}")]
    Draw {
        /// The file.
        file: String,
        /// The problem.
        err: DrawError,
    },
}

/// What the viewer needs of one typed episode; implemented once, for every game that
/// can be drawn ([`Board`]) and played ([`Playable`]).
trait Shown: Send + Sync {
    fn frames(&self) -> usize;
    fn players(&self) -> usize;
    /// The players' names as the file records them (empty when it names none).
    fn agents(&self) -> &[String];
    fn overlay(&self, f: usize, status: bool, view: Option<usize>) -> Overlay;
    fn svg(&self, f: usize, overlay: &Overlay, cell: u32) -> Result<String, DrawError>;
    fn png(&self, path: &Path, f: usize, overlay: &Overlay, cell: u32) -> Result<(), DrawError>;
    fn gif(
        &self,
        path: &Path,
        frames: &mut dyn Iterator<Item = (usize, Overlay)>,
        cell: u32,
        delay_ms: u32,
    ) -> Result<usize, DrawError>;
    /// The episode's own part of the page's JSON (everything but the transcript's exchanges).
    fn json(&self) -> Value;
    /// The events of its steps (skills, beliefs, hand-overs) for the page's timeline.
    fn events(&self) -> Vec<Value>;
}

/// A typed episode with what the viewer computed of it once.
struct Viewed<G: Playable + Board> {
    ep: SavedEpisode<G>,
    teamwork: SavedTeamwork,
    score: Vec<i64>,
}

impl<G: Playable + Board> Viewed<G> {
    fn new(file: &str, ep: SavedEpisode<G>) -> Result<Self, ViewError> {
        for f in 0..ep.frames() {
            ep.game.check(ep.state(f)).map_err(|err| ViewError::Draw { file: file.to_string(), err })?;
        }
        let teamwork = ep.game.saved_teamwork(&ep);
        let score = ep.scores();
        Ok(Viewed { ep, teamwork, score })
    }
}

impl<G: Playable + Board> Shown for Viewed<G> {
    fn frames(&self) -> usize {
        self.ep.frames()
    }

    fn players(&self) -> usize {
        self.ep.game.num_players()
    }

    fn agents(&self) -> &[String] {
        &self.ep.agents
    }

    fn overlay(&self, f: usize, status: bool, view: Option<usize>) -> Overlay {
        let highlights = self
            .teamwork
            .handovers
            .iter()
            .filter(|h| {
                let first = h.t_give.map_or(0, |t| t as usize + 1);
                (first..=h.t_receive as usize + 1).contains(&f)
            })
            .map(|h| Highlight { at: h.at, constructive: h.constructive })
            .collect();
        let status = status.then(|| Status {
            t: f as u32,
            horizon: self.ep.steps.len() as u32,
            score: self.score.get(f).copied().unwrap_or(0),
        });
        Overlay { status, highlights, view: view.map(|player| PlayerView { player, hide: false }) }
    }

    fn svg(&self, f: usize, overlay: &Overlay, cell: u32) -> Result<String, DrawError> {
        board::svg(&*self.ep.game, self.ep.state(f), overlay, cell)
    }

    fn png(&self, path: &Path, f: usize, overlay: &Overlay, cell: u32) -> Result<(), DrawError> {
        board::write_png(path, &*self.ep.game, self.ep.state(f), overlay, cell)
    }

    fn gif(
        &self,
        path: &Path,
        frames: &mut dyn Iterator<Item = (usize, Overlay)>,
        cell: u32,
        delay_ms: u32,
    ) -> Result<usize, DrawError> {
        let frames = frames.map(|(f, o)| (self.ep.state(f), o));
        board::write_gif(path, &*self.ep.game, frames, cell, delay_ms)
    }

    fn json(&self) -> Value {
        let game = &*self.ep.game;
        let (w, h) = game.grid();
        let joint: Vec<Value> =
            self.ep.steps.iter().map(|s| json!(proagent_core::game::action_tokens(game, &s.actions))).collect();
        let captions: Vec<Option<String>> = (0..self.frames()).map(|f| game.caption(self.ep.state(f))).collect();
        let handovers: Vec<&Value> = self.teamwork.handovers.iter().map(|h| &h.json).collect();
        json!({
            "name": self.ep.name,
            "game": game.kind(),
            "layout": {"name": game.report_name(), "width": w, "height": h, "grid": game.grid_rows()},
            "players": game.num_players(),
            "partial_view": game.partial_view(),
            "frames": self.frames(),
            "steps": self.ep.steps.len(),
            "joint": joint,
            "rewards": self.ep.steps.iter().map(|s| s.reward).collect::<Vec<_>>(),
            "score": self.score,
            "captions": if captions.iter().any(Option::is_some) { json!(captions) } else { Value::Null },
            "handovers": handovers,
            "teamwork": self.teamwork.json,
            "teamwork_line": self.teamwork.line,
        })
    }

    fn events(&self) -> Vec<Value> {
        let mut events = Vec::new();
        for (k, s) in self.ep.steps.iter().enumerate() {
            for e in &s.skill_events {
                let mut e = json!(e);
                e["type"] = json!("skill");
                e["t"] = json!(k);
                events.push(e);
            }
            for b in &s.beliefs {
                let mut b = json!(b);
                b["type"] = json!("belief");
                b["t"] = json!(k);
                events.push(b);
            }
        }
        for h in &self.teamwork.handovers {
            if h.t_give.is_some() {
                let mut give = h.json.clone();
                give["type"] = json!("handover");
                give["t"] = json!(h.t_give);
                give["phase"] = json!("give");
                events.push(give);
            }
            let mut take = h.json.clone();
            take["type"] = json!("handover");
            take["t"] = json!(h.t_receive);
            take["phase"] = json!("receive");
            events.push(take);
        }
        events
    }
}

/// An opened episode.
pub struct EpisodeView {
    /// The viewer's handle for it (unique within a server).
    pub id: String,
    /// The file it came from.
    pub source: String,
    /// What kind of file that was.
    pub kind: EpisodeKind,
    /// Which episode of the file (0-based).
    pub index: usize,
    /// How many episodes the file holds.
    pub count: usize,
    shown: Box<dyn Shown>,
    transcript: Option<Transcript>,
}

impl EpisodeView {
    /// Opens episode `index` of a file read by [`proagent_eval::runner::files`].
    pub fn new(id: String, file: EpisodeFile, index: usize) -> Result<EpisodeView, ViewError> {
        let count = file.episodes.len();
        let source = file.source.clone();
        let Some(ep) = file.episodes.into_iter().nth(index) else {
            return Err(ViewError::NoSuchEpisode { file: source, index, count });
        };
        let shown: Box<dyn Shown> = proagent_eval::on_episode!(ep, |e| Box::new(Viewed::new(&source, e)?));
        Ok(EpisodeView { id, source, kind: file.kind, index, count, shown, transcript: file.transcript })
    }

    /// Number of frames: the start state and one per step.
    pub fn frames(&self) -> usize {
        self.shown.frames()
    }

    /// Number of players.
    pub fn players(&self) -> usize {
        self.shown.players()
    }

    /// What is drawn over frame `f`: the hand-overs in progress, optionally the status
    /// line, and the view of player `view` shaded (games with partial views).
    pub fn overlay(&self, f: usize, status: bool, view: Option<usize>) -> Overlay {
        self.shown.overlay(f, status, view)
    }

    /// Frame `f` (clamped to the last) as SVG.
    pub fn svg(&self, f: usize, status: bool, view: Option<usize>, cell: u32) -> Result<String, DrawError> {
        let f = f.min(self.frames().saturating_sub(1));
        self.shown.svg(f, &self.overlay(f, status, view), cell)
    }

    /// Writes frame `f` (clamped to the last) as a PNG file.
    pub fn write_png(
        &self,
        path: &Path,
        f: usize,
        status: bool,
        view: Option<usize>,
        cell: u32,
    ) -> Result<(), DrawError> {
        let f = f.min(self.frames().saturating_sub(1));
        self.shown.png(path, f, &self.overlay(f, status, view), cell)
    }

    /// Writes frames `from..=to` as an animated GIF; returns how many were written.
    #[allow(clippy::too_many_arguments)]
    pub fn write_gif(
        &self,
        path: &Path,
        from: usize,
        to: usize,
        status: bool,
        view: Option<usize>,
        cell: u32,
        delay_ms: u32,
    ) -> Result<usize, DrawError> {
        let last = self.frames().saturating_sub(1);
        let mut frames = (from.min(last)..=to.min(last)).map(|f| (f, self.overlay(f, status, view)));
        self.shown.gif(path, &mut frames, cell, delay_ms)
    }

    /// Everything the page needs apart from the pictures.
    pub fn json(&self) -> Value {
        let cfg =
            self.transcript.as_ref().and_then(|t| RunConfig::from_header(&t.header, &self.source, t.header_line).ok());
        let mut v = self.shown.json();
        let n = self.players();
        let model_seat = cfg.as_ref().map(|c| {
            let seat = c.seat.min(n.saturating_sub(1));
            // The run's agent asks the model when it is a language agent; else its partner does.
            if proagent_eval::runner::seats::is_proagent(&c.agent) || proagent_eval::runner::seats::is_llmco(&c.agent) {
                seat
            } else {
                (0..n).find(|&i| i != seat).unwrap_or(seat)
            }
        });
        let mut events = self.shown.events();
        if let Some(t) = &self.transcript {
            let mut last_t_kind: Option<(u32, String)> = None;
            let mut exchanges = Vec::new();
            for ex in &t.exchanges {
                let replan =
                    ex.kind == "planner" && last_t_kind.as_ref().is_some_and(|(t, k)| *t == ex.t && k == "verificator");
                last_t_kind = Some((ex.t, ex.kind.clone()));
                exchanges.push(exchange_json(ex, replan, ex.seat.map_or(model_seat.unwrap_or(0), usize::from)));
            }
            // Exchanges come first within a step (the sort below is stable).
            exchanges.append(&mut events);
            events = exchanges;
        }
        events.sort_by_key(|e| e.get("t").and_then(Value::as_u64).unwrap_or(0));
        let summary = self.transcript.as_ref().and_then(|t| t.footer.as_ref()).map(|f| f.data.clone());
        // The players' names: a transcript's by seat; a trajectory's as recorded.
        let agents = match &cfg {
            Some(c) => json!((0..n).map(|i| if i == c.seat { &c.agent } else { &c.partner }).collect::<Vec<_>>()),
            None if self.shown.agents().is_empty() => Value::Null,
            None => json!(self.shown.agents()),
        };
        if let Some(obj) = v.as_object_mut() {
            obj.insert("id".into(), json!(self.id));
            obj.insert("source".into(), json!(self.source));
            obj.insert("kind".into(), json!(self.kind.name()));
            obj.insert("index".into(), json!(self.index));
            obj.insert("count".into(), json!(self.count));
            obj.insert("agents".into(), agents);
            obj.insert("model_seat".into(), json!(model_seat));
            obj.insert("config".into(), json!(self.transcript.as_ref().map(|t| t.header.config.clone())));
            obj.insert("events".into(), json!(events));
            obj.insert("summary".into(), json!(summary));
        }
        v
    }
}

/// The recorded parse of a planner reply (`plan=X, intention=Y`), as both games' agents
/// write it into the exchange record.
fn recorded_parse(parsed: &str) -> Option<(String, Option<String>)> {
    let rest = parsed.strip_prefix("plan=")?;
    Some(match rest.split_once(", intention=") {
        Some((plan, intention)) => (plan.to_string(), Some(intention.to_string())),
        None => (rest.to_string(), None),
    })
}

fn exchange_json(ex: &proagent_llm::record::Exchange, replan: bool, seat: usize) -> Value {
    let prompt: Vec<Value> =
        ex.request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
    // A reasoning model's thinking, when the recorded reply carries it (the `reasoning`
    // field of the reply record), kept apart from the reply; untrusted text like the reply.
    let (reply, error, tokens, reasoning) = match &ex.outcome {
        Outcome::Reply(r) => (Some(r.text.clone()), None, json!(r.usage), r.reasoning.clone()),
        Outcome::Error(e) => (e.raw.clone(), Some(format!("{}: {}", e.error, e.message)), Value::Null, None),
    };
    let mut v = json!({
        "type": "exchange",
        "t": ex.t,
        "seq": ex.seq,
        "kind": ex.kind,
        "player": seat,
        "reasoning": reasoning,
        "replan": replan,
        "prompt": prompt,
        "reply": reply,
        "error": error,
        "tokens": tokens,
        "parsed": ex.parsed,
        "parse_error": ex.parse_error,
    });
    if ex.kind == "planner"
        && let Some(text) = &reply
    {
        // The classic reply parser reads the fields of any game's planner reply; the plan
        // and intention are the agent's own reading when the exchange records it (other
        // games name other skills).
        let recorded = ex.parsed.as_ref().and_then(Value::as_str).and_then(recorded_parse);
        match (parse_reply(text, seat), recorded) {
            (Ok(p), None) => {
                v["analysis"] = json!(p.analysis);
                v["intention"] = json!(p.intention.map(|s| s.to_string()));
                v["plan"] = json!(p.plan.to_string());
            }
            (parsed, Some((plan, intention))) => {
                let analysis = match parsed {
                    Ok(p) => p.analysis,
                    Err(_) => reply_fields(text, seat, None)
                        .analysis
                        .map(|a| a.split_whitespace().collect::<Vec<_>>().join(" ")),
                };
                v["analysis"] = json!(analysis);
                v["intention"] = json!(intention);
                v["plan"] = json!(plan);
            }
            (Err(e), None) => v["reply_error"] = json!(e.reason),
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_agent::{AgentSettings, ModelSpec};
    use proagent_eval::runner::files::read_episode_text;
    use proagent_eval::runner::record::{PLAY_COMMAND, RunConfig};
    use proagent_eval::transcript::{Scrubber, TranscriptWriter, WriterOptions};
    use proagent_llm::record::Exchange;
    use proagent_llm::{ChatRequest, ChatResponse, Message, Sampling, Usage};
    use std::collections::BTreeMap;
    use std::time::Duration;

    /// A transcript with a rejected plan: planner, verificator, re-plan at t = 1, and a failed skill.
    fn transcript() -> String {
        let run = RunConfig {
            command: PLAY_COMMAND.into(),
            layout: "cramped_room".into(),
            layout_spec: "cramped_room".into(),
            layout_file: None,
            agent: "proagent".into(),
            partner: "greedy".into(),
            seat: 1,
            seed: 0,
            horizon: 3,
            proagent: AgentSettings::default(),
            model: ModelSpec::new("scripted"),
            game_settings: Default::default(),
            seats: Default::default(),
        };
        let (mut w, buf) =
            TranscriptWriter::in_memory("mem", WriterOptions { scrubber: Scrubber::new(), wall_clock: false });
        w.write_header(&run.header(BTreeMap::new()).unwrap()).unwrap();
        let req = |u: &str| ChatRequest::new(vec![Message::system("SYS"), Message::user(u)], Sampling::default());
        let reply = |t: &str| Ok(ChatResponse::simple(t, Usage::default()));
        let plan = "Analysis: the pot needs onions.\nIntention for Player 0: \"pickup(onion)\".\nPlan for Player 1: \"deliver_soup()\".";
        let replan = "Analysis: nothing to deliver yet.\nIntention for Player 0: \"pickup(onion)\".\nPlan for Player 1: \"pickup(onion)\".";
        for (t, kind, u, text) in [
            (1, "planner", "scene", plan),
            (1, "verificator", "why can deliver_soup() not run?", "Because I hold no soup."),
            (1, "planner", "scene, again", replan),
        ] {
            w.write_exchange(&Exchange::new(t, kind, req(u), &reply(text), Duration::ZERO)).unwrap();
        }
        for t in 0..3u32 {
            let events = if t == 2 {
                json!([{"t": 2, "player": 1, "skill": "pickup(onion)", "outcome": "failed", "reason": "blocked"}])
            } else {
                json!([])
            };
            w.write_step(t, json!({"joint": ["X", "N"], "reward": 0, "skill_events": events, "belief": []})).unwrap();
        }
        w.write_footer(json!({"score": 0})).unwrap();
        buf.text()
    }

    #[test]
    fn exchanges_are_read_for_the_model_seat_and_re_plans_are_marked() {
        let f = read_episode_text("mem.jsonl", &transcript()).unwrap();
        let v = EpisodeView::new("e1".into(), f, 0).unwrap().json();
        assert_eq!(v["agents"], json!(["greedy", "proagent"]));
        assert_eq!(v["model_seat"], 1);
        let ex: Vec<&Value> = v["events"].as_array().unwrap().iter().filter(|e| e["type"] == "exchange").collect();
        assert_eq!(ex.len(), 3);
        assert_eq!((ex[0]["plan"].as_str(), ex[0]["replan"].as_bool()), (Some("deliver_soup()"), Some(false)));
        assert_eq!(ex[0]["analysis"], "the pot needs onions.");
        assert_eq!(ex[0]["intention"], "pickup(onion)");
        assert_eq!(ex[1]["kind"], "verificator");
        assert_eq!(ex[1]["reply"], "Because I hold no soup.");
        assert_eq!((ex[2]["plan"].as_str(), ex[2]["replan"].as_bool()), (Some("pickup(onion)"), Some(true)));
        let failed = v["events"].as_array().unwrap().iter().find(|e| e["outcome"] == "failed").unwrap();
        assert_eq!((failed["t"].as_u64(), failed["reason"].as_str()), (Some(2), Some("blocked")));
        assert_eq!(v["frames"], 4);
        assert_eq!(
            (v["game"].as_str(), v["players"].as_u64(), v["partial_view"].as_bool()),
            (Some("overcooked"), Some(2), Some(false))
        );
    }

    #[test]
    fn the_recorded_parse_of_a_reply_names_plan_and_intention() {
        assert_eq!(
            recorded_parse("plan=put_ingredient_in_pot(tomato), intention=pickup(plate)"),
            Some(("put_ingredient_in_pot(tomato)".into(), Some("pickup(plate)".into())))
        );
        assert_eq!(recorded_parse("plan=wait(3)"), Some(("wait(3)".into(), None)));
        assert_eq!(recorded_parse("something else"), None);
    }
}
