//! The runner on the classic game: seeded episodes replay, summaries have their fields.

use super::summary::summary_json;
use super::*;
use crate::games::Playable;
use proagent_overcooked::env::Layout;
use proagent_overcooked::env::trace::{Trajectory, verify};
use proagent_overcooked::game::Overcooked;

fn run(layout: &str, a: &str, b: &str, seed: u64, horizon: u32) -> EpisodeResult<Overcooked> {
    let g = Arc::new(Overcooked::new(Arc::new(Layout::builtin(layout).unwrap()), horizon));
    let factory = SeatFactory::default();
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(play_seated(&g, &factory, &[a, b], seed, None, EpisodeOptions::default())).unwrap()
}

fn trajectory(r: &EpisodeResult<Overcooked>) -> serde_json::Value {
    r.game.trajectory_json(r)
}

#[test]
fn same_seed_same_trajectory_and_it_replays() {
    for (a, b) in [("scripted", "greedy"), ("random", "courier")] {
        let x = run("cramped_room", a, b, 4, 120);
        let y = run("cramped_room", a, b, 4, 120);
        assert_eq!(trajectory(&x), trajectory(&y));
        let traj: Trajectory = serde_json::from_value(trajectory(&x)).unwrap();
        let report = verify(&traj).unwrap();
        assert!(report.passed, "{report:?}");
        assert_eq!(i64::from(report.total_reward), x.score);
    }
    let z = run("cramped_room", "random", "random", 5, 120);
    let w = run("cramped_room", "random", "random", 6, 120);
    assert_ne!(trajectory(&z)["steps"], trajectory(&w)["steps"]);
}

#[test]
fn summary_has_the_fields_and_detects_a_deadlock() {
    let r = run("cramped_room", "stay", "stay", 0, 80);
    let s = summary_json(&r, 0);
    for key in ["layout", "agent", "partner", "seat", "seed", "score", "deliveries", "steps", "stuck_steps"] {
        assert!(s.get(key).is_some(), "{key}");
    }
    assert_eq!(s["steps"], 80);
    assert_eq!(s["deadlock"], true);
    assert_eq!(r.stuck_steps, 80);
    let r = run("cramped_room", "scripted", "greedy", 0, 80);
    assert!(!r.deadlocked());
    let s = summary_json(&r, 1);
    assert_eq!(s["agent"], "greedy");
    assert_eq!(s["partner_metrics"]["skills_started"].as_u64().map(|n| n > 0), Some(true));
}
