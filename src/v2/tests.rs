use super::agent::ProAgentV2;
use super::episode::{V2Agent, V2EpisodeResult, play_episode};
use super::model::ScriptedV2Model;
use super::partner::ScriptedV2;
use crate::agent::ProAgentConfig;
use crate::agent::prompts::{Family, PromptLibrary};
use crate::env_v2::{Layout, Settings};
use std::sync::Arc;

pub(crate) fn proagent() -> Box<dyn V2Agent> {
    let mut cfg = ProAgentConfig::new(Arc::new(ScriptedV2Model));
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::V2));
    Box::new(ProAgentV2::new(cfg))
}

pub(crate) fn run(layout: &str, seats: Vec<Box<dyn V2Agent>>, seed: u64, settings: Settings) -> V2EpisodeResult {
    let l = Arc::new(Layout::builtin(layout).unwrap());
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    rt.block_on(play_episode(l, settings, seats, seed, None))
}

#[test]
#[ignore]
fn scores_table() {
    let flag = |n: &str| std::env::var(n).is_ok();
    let settings = Settings {
        view_radius: std::env::var("VR").ok().and_then(|v| v.parse().ok()),
        start_cooking_interaction: flag("SI"),
        sample_recipe_on_delivery: flag("RS"),
        random_agent_positions: flag("RP"),
        negative_rewards: flag("NEG"),
        ..Settings::default()
    };
    for name in Layout::builtin_names() {
        let l = Layout::builtin(name).unwrap();
        let n = l.num_agents();
        let s: Vec<Box<dyn V2Agent>> = (0..n).map(|_| Box::new(ScriptedV2::new()) as Box<dyn V2Agent>).collect();
        let r = run(name, s, 1, settings.clone());
        let mut p: Vec<Box<dyn V2Agent>> = vec![proagent()];
        for _ in 1..n {
            p.push(Box::new(ScriptedV2::new()));
        }
        let q = run(name, p, 1, settings.clone());
        println!(
            "{name:34} scripted {:4} ({} ok, {} wrong)  proagent0 {:4} ({} ok, {} wrong)",
            r.score, r.correct, r.wrong, q.score, q.correct, q.wrong
        );
    }
}

#[test]
#[ignore]
fn debug_episode() {
    let name = std::env::var("L").unwrap_or("cramped_room".into());
    let settings = Settings {
        max_steps: std::env::var("H").ok().and_then(|v| v.parse().ok()).unwrap_or(120),
        negative_rewards: std::env::var("NEG").is_ok(),
        view_radius: std::env::var("VR").ok().and_then(|v| v.parse().ok()),
        start_cooking_interaction: std::env::var("SI").is_ok(),
        sample_recipe_on_delivery: std::env::var("RS").is_ok(),
        ..Settings::default()
    };
    let l = Layout::builtin(&name).unwrap();
    let s: Vec<Box<dyn V2Agent>> =
        (0..l.num_agents()).map(|_| Box::new(ScriptedV2::new()) as Box<dyn V2Agent>).collect();
    let r = run(&name, s, 1, settings);
    let mut ev = r.skill_events.iter().peekable();
    for (t, st) in r.steps.iter().enumerate() {
        let mut line = format!("t={t} {:?} r={}", st.actions.iter().map(|a| a.letter()).collect::<String>(), st.reward);
        while let Some(e) = ev.peek() {
            if e.t as usize > t {
                break;
            }
            line.push_str(&format!(" | p{} {} {:?}", e.player, e.skill, e.outcome));
            ev.next();
        }
        if std::env::var("T").ok().and_then(|v| v.parse::<usize>().ok()) == Some(t) {
            println!("{}", crate::env_v2::render::render(&r.layout, &st.state));
            for me in 0..st.state.agents.len() {
                let mut recall = super::knowledge::Recall::default();
                let k = super::knowledge::Knowledge::observe(&r.layout, &r.settings, &st.state, me, &mut recall);
                println!("{}\n-> {:?}", super::knowledge::scene_text(&k), super::rules::choose(&k));
            }
        }
        let ag: Vec<String> = st
            .state
            .agents
            .iter()
            .map(|a| format!("({},{}){}:{}", a.pos.x, a.pos.y, a.dir.arrow(), a.held.code()))
            .collect();
        println!("{line}  {}", ag.join(" "));
    }
}
