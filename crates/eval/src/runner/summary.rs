//! The one-object summary of an episode of any game: `play --json` prints it, the
//! transcript footer stores it, sweeps keep it as the record's metrics. The common fields
//! (agent, partner, seat, seed, horizon, score, steps, deadlock, partner metrics, teamwork)
//! are written here once; each game adds its own ([`Playable::summary_fields`]).

use crate::games::{Playable, Teamwork};
use proagent_core::episode::{EpisodeFailed, EpisodeResult};
use serde_json::{Value, json};

/// The summary from the point of view of the seat in `seat`; see [`summary_with`].
pub fn summary_json<G: Playable>(r: &EpisodeResult<G>, seat: usize) -> Value {
    summary_with(r, seat, &r.game.teamwork(r))
}

/// The summary from the point of view of the seat in `seat`, with the episode's teamwork
/// already computed. That seat's metrics are merged in (without overriding the fields
/// here); the others' go under `partner_metrics` (one object with one partner, else a list).
pub fn summary_with<G: Playable>(r: &EpisodeResult<G>, seat: usize, teamwork: &Teamwork) -> Value {
    let seat = seat.min(r.agents.len().saturating_sub(1));
    let others = |i: &usize| *i != seat;
    let partners: Vec<&str> = r.agents.iter().enumerate().filter(|(i, _)| others(i)).map(|(_, a)| a.as_str()).collect();
    let partner_metrics: Vec<&Value> =
        r.metrics.iter().enumerate().filter(|(i, _)| others(i)).map(|(_, m)| m).collect();
    let mut v = json!({
        "agent": r.agents.get(seat),
        "partner": partners.join(","),
        "seat": seat,
        "seed": r.seed,
        "horizon": r.game.max_steps(),
        "score": r.score,
        "steps": r.steps.len(),
        "stuck_steps": r.stuck_steps,
        "idle_tail": r.idle_tail,
        "deadlock": r.deadlocked(),
        "partner_metrics": if partner_metrics.len() == 1 { partner_metrics[0].clone() } else { json!(partner_metrics) },
        "teamwork": teamwork.json,
    });
    if let Some(obj) = v.as_object_mut() {
        for (key, val) in r.game.summary_fields(r) {
            obj.insert(key, val);
        }
        if let Some(Value::Object(m)) = r.metrics.get(seat) {
            for (key, val) in m {
                obj.entry(key.clone()).or_insert_with(|| val.clone());
            }
        }
    }
    v
}

/// The summary of a failed episode's partial play, marked `"failed": true` with the
/// `error`, the timestep it `failed_at` and whether it `stops_run` (the footer of a
/// failed transcript).
pub fn failed_summary<G: Playable>(f: &EpisodeFailed<G>, seat: usize) -> Value {
    let mut v = summary_json(&f.partial, seat);
    if let Some(obj) = v.as_object_mut() {
        obj.insert("failed".into(), json!(true));
        obj.insert("error".into(), json!(f.abort.to_string()));
        obj.insert("failed_at".into(), json!(f.abort.t()));
        obj.insert("stops_run".into(), json!(f.abort.stops_run()));
    }
    v
}
