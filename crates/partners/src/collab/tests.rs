//! The collab seats against the published implementation's recorded decisions.

use proagent_collab::capture::Capture;
use proagent_collab::maze::CatchRule;
use proagent_collab::trace::{capture_action_of, parse};
use proagent_core::Game;
use std::path::PathBuf;

fn fixtures() -> Vec<(PathBuf, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/collab_traces");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
}

#[test]
fn greedy_baseline_decides_as_the_published_greedy_agent() {
    use super::capture::GreedyBaseline;
    use proagent_core::NoChance;
    let mut checked = 0;
    for (path, text) in fixtures() {
        for r in parse(&text, &path.display().to_string()).unwrap() {
            if r.header.policy["kind"] != "greedy" {
                continue;
            }
            let catch = if r.header.catch.as_deref() == Some("same_room") {
                CatchRule::SameRoom
            } else {
                CatchRule::SameRoomOrSwap
            };
            let game = Capture::builtin(&r.header.scenario).unwrap().with_catch(catch);
            let mut state = game.initial_state(&mut NoChance);
            for (line, step) in &r.steps {
                let recorded = [capture_action_of(&step.actions[0]), capture_action_of(&step.actions[1])];
                let ours = [0, 1].map(|p| GreedyBaseline::decide(&game, &state, p));
                assert_eq!(ours, recorded, "{}:{line}", path.display());
                game.step(&mut state, &[Some(ours[0]), Some(ours[1])], &mut NoChance);
                checked += 1;
            }
        }
    }
    assert!(checked >= 100, "{checked} greedy decisions checked");
}
