//! One episode as the viewer shows it: the frames (T+1 states), what happened at each
//! step (joint action, reward, model exchanges with the prompt and the parsed analysis,
//! intention and plan, verificator rounds, re-plans, skill events, belief corrections)
//! and the hand-overs the interdependence analysis found, with the cells to mark on the
//! board. Built once per opened file; pure apart from holding the data.

use super::board::{self, DrawError, Highlight, Overlay, Status};
use proagent_agent::planner::parse_reply;
use proagent_analysis::{self as analysis, Report, Trajectory};
use proagent_eval::runner::files::{EpisodeFile, EpisodeKind};
use proagent_eval::runner::record::RunConfig;
use proagent_eval::transcript::Transcript;
use proagent_llm::record::Outcome;
use serde_json::{Value, json};

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

/// A marked hand-over: where, between which frames, and whether it was constructive.
#[derive(Clone, Debug)]
struct HandOver {
    at: proagent_overcooked::env::Pos,
    first_frame: usize,
    last_frame: usize,
    constructive: bool,
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
    /// The episode.
    pub traj: Trajectory,
    transcript: Option<Transcript>,
    report: Result<Report, analysis::AnalysisError>,
    handovers: Vec<HandOver>,
    score: Vec<u64>,
}

impl EpisodeView {
    /// Opens episode `index` of a file read by [`proagent_eval::runner::files`].
    pub fn new(id: String, file: EpisodeFile, index: usize) -> Result<EpisodeView, ViewError> {
        let count = file.trajectories.len();
        let source = file.source.clone();
        let Some(traj) = file.trajectories.into_iter().nth(index) else {
            return Err(ViewError::NoSuchEpisode { file: source, index, count });
        };
        for s in &traj.states {
            board::check(&traj.layout, s).map_err(|err| ViewError::Draw { file: source.clone(), err })?;
        }
        let report = analysis::analyze(&traj);
        let handovers = match &report {
            Ok(r) => r
                .interdependencies
                .iter()
                .filter_map(|l| {
                    let at = r.trace.actions.get(l.give)?.at;
                    Some(HandOver {
                        at,
                        first_frame: l.t_give as usize + 1,
                        last_frame: l.t_receive as usize + 1,
                        constructive: l.constructive(),
                    })
                })
                .collect(),
            Err(_) => Vec::new(),
        };
        let mut score = Vec::with_capacity(traj.states.len());
        let mut sum = 0u64;
        score.push(0);
        for k in 0..traj.joint_actions.len() {
            sum += traj.rewards.get(k).copied().unwrap_or(0) as u64;
            score.push(sum);
        }
        Ok(EpisodeView {
            id,
            source,
            kind: file.kind,
            index,
            count,
            traj,
            transcript: file.transcript,
            report,
            handovers,
            score,
        })
    }

    /// Number of frames: the start state and one per step.
    pub fn frames(&self) -> usize {
        self.traj.states.len()
    }

    /// What is drawn over frame `f`: the hand-overs in progress, and optionally the status line.
    pub fn overlay(&self, f: usize, status: bool) -> Overlay {
        let highlights = self
            .handovers
            .iter()
            .filter(|h| (h.first_frame..=h.last_frame).contains(&f))
            .map(|h| Highlight { at: h.at, constructive: h.constructive })
            .collect();
        let status = status.then(|| Status {
            t: f as u32,
            horizon: self.traj.joint_actions.len() as u32,
            score: self.score.get(f).copied().unwrap_or(0) as u32,
        });
        Overlay { status, highlights }
    }

    /// Frame `f` (clamped to the last) as SVG.
    pub fn svg(&self, f: usize, status: bool, cell: u32) -> Result<String, DrawError> {
        let f = f.min(self.frames().saturating_sub(1));
        board::svg(&self.traj.layout, &self.traj.states[f], &self.overlay(f, status), cell)
    }

    /// Everything the page needs apart from the pictures.
    pub fn json(&self) -> Value {
        let l = &self.traj.layout;
        let cfg =
            self.transcript.as_ref().and_then(|t| RunConfig::from_header(&t.header, &self.source, t.header_line).ok());
        let (agents, model_seat) = match &cfg {
            Some(c) => {
                let seat = c.seat.min(1);
                let mut a = [c.partner.clone(), c.partner.clone()];
                a[seat] = c.agent.clone();
                let model_seat = if proagent_eval::runner::seats::is_proagent(&c.agent) { seat } else { 1 - seat };
                (json!(a), Some(model_seat))
            }
            None => (Value::Null, None),
        };
        let joint: Vec<Value> = self
            .traj
            .joint_actions
            .iter()
            .map(|j| json!([j[0].letter().to_string(), j[1].letter().to_string()]))
            .collect();
        let mut events = Vec::new();
        if let Some(t) = &self.transcript {
            let mut last_t_kind: Option<(u32, String)> = None;
            for ex in &t.exchanges {
                let replan =
                    ex.kind == "planner" && last_t_kind.as_ref().is_some_and(|(t, k)| *t == ex.t && k == "verificator");
                last_t_kind = Some((ex.t, ex.kind.clone()));
                events.push(exchange_json(ex, replan, ex.seat.map_or(model_seat.unwrap_or(0), usize::from)));
            }
            for s in &t.steps {
                for e in s.data.get("skill_events").and_then(Value::as_array).into_iter().flatten() {
                    let mut e = e.clone();
                    e["type"] = json!("skill");
                    e["t"] = json!(s.t);
                    events.push(e);
                }
                for b in s.data.get("belief").and_then(Value::as_array).into_iter().flatten() {
                    let mut b = b.clone();
                    b["type"] = json!("belief");
                    b["t"] = json!(s.t);
                    events.push(b);
                }
            }
        }
        let (teamwork, handovers) = match &self.report {
            Ok(r) => {
                let list: Vec<Value> = r
                    .interdependencies
                    .iter()
                    .map(|i| {
                        let at = r.trace.actions.get(i.give).map(|a| json!([a.at.x, a.at.y]));
                        json!({
                            "giver": i.giver, "receiver": i.receiver, "t_give": i.t_give, "t_receive": i.t_receive,
                            "object": i.obj_kind.name(), "link": i.link.name(), "constructive": i.constructive(),
                            "at": at,
                        })
                    })
                    .collect();
                (analysis::metrics_json(r), list)
            }
            Err(e) => (json!({ "error": e.to_string() }), Vec::new()),
        };
        for h in &handovers {
            let mut give = h.clone();
            give["type"] = json!("handover");
            give["t"] = h["t_give"].clone();
            give["phase"] = json!("give");
            events.push(give);
            let mut take = h.clone();
            take["type"] = json!("handover");
            take["t"] = h["t_receive"].clone();
            take["phase"] = json!("receive");
            events.push(take);
        }
        // Stable order: by step, then exchanges before step events (sort is stable).
        events.sort_by_key(|e| e.get("t").and_then(Value::as_u64).unwrap_or(0));
        let summary = self.transcript.as_ref().and_then(|t| t.footer.as_ref()).map(|f| f.data.clone());
        json!({
            "id": self.id,
            "source": self.source,
            "kind": self.kind.name(),
            "index": self.index,
            "count": self.count,
            "name": self.traj.name,
            "layout": {"name": l.name, "width": l.width, "height": l.height, "grid": l.grid},
            "agents": agents,
            "model_seat": model_seat,
            "config": self.transcript.as_ref().map(|t| t.header.config.clone()),
            "frames": self.frames(),
            "steps": self.traj.joint_actions.len(),
            "joint": joint,
            "rewards": self.traj.rewards,
            "score": self.score,
            "events": events,
            "handovers": handovers,
            "teamwork": teamwork,
            "summary": summary,
        })
    }
}

fn exchange_json(ex: &proagent_llm::record::Exchange, replan: bool, seat: usize) -> Value {
    let prompt: Vec<Value> =
        ex.request.messages.iter().map(|m| json!({"role": m.role, "content": m.content})).collect();
    let (reply, error, tokens) = match &ex.outcome {
        Outcome::Reply(r) => (Some(r.text.clone()), None, json!(r.usage)),
        Outcome::Error(e) => (e.raw.clone(), Some(format!("{}: {}", e.error, e.message)), Value::Null),
    };
    let mut v = json!({
        "type": "exchange",
        "t": ex.t,
        "seq": ex.seq,
        "kind": ex.kind,
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
        match parse_reply(text, seat) {
            Ok(p) => {
                v["analysis"] = json!(p.analysis);
                v["intention"] = json!(p.intention.map(|s| s.to_string()));
                v["plan"] = json!(p.plan.to_string());
            }
            Err(e) => v["reply_error"] = json!(e.reason),
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
            v2: None,
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
    }
}
