//! `proagent bench controller`: the per-layout precompute (motion states and
//! moves, floor regions) and the mean cost of one controller decision, measured on
//! seeded scripted self-play (two controllers driven by the scripted skill choice).
//! Motion costs are computed per target the first time a decision asks for them,
//! so that work counts in the decision times.

use anyhow::{Result, bail};
use proagent::controller::{Controller, Kitchen};
use proagent::env::{Action, DEFAULT_HORIZON, Layout, layout::BUILTIN};
use proagent::partners::scripted::facts_from_state;
use proagent::seat::derive_seed;
use proagent::skills::rules::choose_skill;
use serde_json::{Map, Value, json};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

pub fn run(episodes: u32, repeats: u32, seed: u64, as_json: bool) -> Result<ExitCode> {
    if repeats == 0 {
        bail!("--repeats must be at least 1");
    }
    let mut pre = Map::new();
    let mut pre_total = 0.0;
    let mut per_layout_us = Map::new();
    let (mut decisions, mut decision_ns) = (0u64, 0u128);
    let mut all: Vec<u32> = Vec::new();
    for (name, _) in BUILTIN {
        let Some(layout) = Layout::builtin(name) else { bail!("built-in layout {name} does not parse") };
        let layout = Arc::new(layout);
        let t0 = Instant::now();
        let mut kitchen = None;
        for _ in 0..repeats {
            kitchen = Some(Kitchen::new(Arc::clone(&layout)));
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / repeats as f64;
        pre.insert(name.to_string(), json!(ms));
        pre_total += ms;
        let Some(kitchen) = kitchen.map(Arc::new) else { bail!("no precompute") };
        let (mut n, mut ns) = (0u64, 0u128);
        for e in 0..episodes {
            let ep_seed = seed.wrapping_add(e as u64);
            let mut ctrl = [0, 1].map(|i| Controller::new(Arc::clone(&kitchen), i, derive_seed(ep_seed, i as u64)));
            let mut state = layout.start_state();
            for _ in 0..DEFAULT_HORIZON {
                let mut joint = [Action::Stay; 2];
                for i in 0..2 {
                    for _ in 0..4 {
                        if ctrl[i].skill().is_none() {
                            let facts = facts_from_state(&kitchen, &state, i, None, DEFAULT_HORIZON);
                            ctrl[i].set_skill(choose_skill(&facts), &state);
                        }
                        let t = Instant::now();
                        let step = ctrl[i].step(&state);
                        let dt = t.elapsed().as_nanos();
                        ns += dt;
                        n += 1;
                        all.push(dt.min(u32::MAX as u128) as u32);
                        if !step.status.is_done() {
                            joint[i] = step.action;
                            break;
                        }
                    }
                }
                layout.step(&mut state, joint);
            }
        }
        per_layout_us.insert(name.to_string(), json!(if n == 0 { 0.0 } else { ns as f64 / n as f64 / 1e3 }));
        decisions += n;
        decision_ns += ns;
    }
    all.sort_unstable();
    let p99 = all.get(all.len().saturating_sub(1) * 99 / 100).copied().unwrap_or(0) as f64 / 1e3;
    let mean_us = if decisions == 0 { 0.0 } else { decision_ns as f64 / decisions as f64 / 1e3 };
    let report = json!({
        "precompute_ms": Value::Object(pre),
        "precompute_ms_total": pre_total,
        "decision_us": mean_us,
        "decision_us_p99": p99,
        "decision_us_by_layout": Value::Object(per_layout_us),
        "decisions": decisions,
        "episodes_per_layout": episodes,
        "seed": seed,
    });
    if as_json {
        println!("{report}");
    } else {
        println!(
            "precompute: {:.3} ms for the five layouts; controller decision: {:.2} µs mean, {:.2} µs p99 ({} decisions)",
            pre_total, mean_us, p99, decisions
        );
    }
    Ok(ExitCode::SUCCESS)
}
