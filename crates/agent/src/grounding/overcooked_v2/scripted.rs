//! `scripted` on OvercookedV2: a deterministic stand-in language model that answers from
//! the request text alone. It reads the knowledge library (ingredients, possible recipes,
//! what each player reaches, how pots start) and the current scene back into a
//! [`Knowledge`], applies the rules of the `scripted` V2 partner ([`proagent_overcooked_v2::rules`]), and
//! replies in the format asked for: planner replies (Analysis / Intention / Plan) and the
//! verificator's two rounds. Like the classic scripted model, it relies on the phrases of
//! the built-in templates; rewritten templates change what it understands.

use async_trait::async_trait;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Role};
use proagent_overcooked_v2::env::item::Recipe;
use proagent_overcooked_v2::knowledge::{Knowledge, Reach, TextContext, parse_item, parse_reach};
use proagent_overcooked_v2::rules::choose;
use proagent_overcooked_v2::skills::{self, Skill, Target};

/// The scripted V2 model.
#[derive(Clone, Copy, Debug, Default)]
pub struct ScriptedV2Model;

fn join_role(req: &ChatRequest, role: Role) -> String {
    req.messages.iter().filter(|m| m.role == role).map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n")
}

/// The system message's facts, read back.
fn read_context(system: &str) -> Option<(usize, TextContext)> {
    let me: usize = system.split("You are <Player ").nth(1)?.split('>').next()?.parse().ok()?;
    let names: Vec<String> = system
        .lines()
        .find_map(|l| l.trim().strip_prefix("Ingredients: "))?
        .trim_end_matches('.')
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let mut recipes = Vec::new();
    let mut lines = system.lines().skip_while(|l| !l.starts_with("Possible recipes"));
    lines.next();
    for l in lines {
        let Some(item) = l.trim().strip_prefix("- ").and_then(|r| parse_item(r, &names)) else { break };
        if let Ok(k) = <[u8; 3]>::try_from(item.kinds().as_slice()) {
            recipes.push(Recipe::new(k));
        }
    }
    let reach_line = |prefix: &str| -> Option<Reach> {
        let line = system.lines().find_map(|l| l.trim().strip_prefix(prefix))?;
        parse_reach(line.trim_end_matches('.'), &names)
    };
    let reach = reach_line("You can reach: ")?;
    let mut mate_reach = Vec::new();
    for l in system.lines() {
        let Some(rest) = l.trim().strip_prefix("<Player ") else { continue };
        let Some((idx, text)) = rest.split_once("> can reach: ") else { continue };
        let (Ok(i), Some(r)) = (idx.parse::<usize>(), parse_reach(text.trim_end_matches('.'), &names)) else {
            continue;
        };
        if mate_reach.len() <= i {
            mate_reach.resize(i + 1, Reach::default());
        }
        mate_reach[i] = r;
    }
    if mate_reach.len() <= me {
        mate_reach.resize(me + 1, Reach::default());
    }
    let start_on_interact = system.contains("start cooking only when a player with empty hands starts them");
    let negative_rewards = system.contains("points for every wrong dish");
    let view_radius =
        system.split("You see only ").nth(1).and_then(|r| r.split(' ').next()).and_then(|n| n.parse().ok());
    let buttons = system
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- recipe button at "))
        .filter_map(|p| {
            let (x, y) = p.trim_matches(['(', ')', ' ']).split_once(',')?;
            Some(proagent_overcooked::env::Pos::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
        })
        .collect();
    let ctx =
        TextContext { names, recipes, reach, mate_reach, start_on_interact, negative_rewards, view_radius, buttons };
    Some((me, ctx))
}

/// The current scene: the last line that starts with "Scene " (memory entries are indented).
fn current_scene(user: &str) -> Option<&str> {
    let start = user.match_indices("Scene ").filter(|(i, _)| *i == 0 || user.as_bytes()[i - 1] == b'\n').last()?.0;
    let rest = &user[start..];
    let end = rest.find("\n\nAnswer in").or_else(|| rest.find("\n\nPlanned skill")).unwrap_or(rest.len());
    Some(&rest[..end])
}

/// What the teammate seems to be about, from what this agent sees of it.
fn guess_mate(k: &Knowledge) -> Skill {
    let Some(m) = k.mates.first() else { return Skill::Wait(1) };
    let h = m.held;
    if h.is_dish() {
        Skill::Deliver
    } else if h.is_plate() {
        Skill::PlateSoup
    } else if let Some(kind) = h.is_raw().then(|| h.first_kind()).flatten() {
        Skill::PutInPot(kind)
    } else if let Some(r) = k.recipe() {
        Skill::Pickup(Target::Ingredient(r.0[0]))
    } else {
        Skill::Wait(1)
    }
}

impl ScriptedV2Model {
    /// Answers a request synchronously.
    pub fn reply(&self, req: &ChatRequest) -> String {
        let system = join_role(req, Role::System);
        let last_user = req.messages.iter().rev().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str());
        let all_user = join_role(req, Role::User);
        let Some((me, ctx)) = read_context(&system) else {
            return "I cannot read the kitchen description, so I cannot answer.".into();
        };
        let Some(k) = current_scene(&all_user).and_then(|s| Knowledge::read(s, &ctx)) else {
            return "I cannot find the scene in your message, so I cannot plan.".into();
        };
        if last_user.contains("Double-check") || last_user.contains("Check each precondition") {
            let skill = all_user
                .split("Planned skill for <Player ")
                .nth(1)
                .and_then(|r| r.split_once(": "))
                .and_then(|(_, r)| skills::find_first(r.lines().next().unwrap_or(""), &ctx.names).ok());
            let Some(skill) = skill else { return "I cannot tell which skill to check.".into() };
            let failed = skills::check(skill, &k);
            if last_user.contains("Double-check") {
                return match failed.first() {
                    Some(f) => format!("Failed condition: {}: {}", f.name, f.reason),
                    None => "Failed condition: none".into(),
                };
            }
            let mut out = String::new();
            for (name, text) in skills::conditions(skill, &ctx.names) {
                let bad = failed.iter().find(|f| f.name == name);
                let verdict = if bad.is_some() { "not satisfied" } else { "satisfied" };
                out.push_str(&format!("Condition {name}: {} -> {verdict}\n", bad.map_or(text, |f| f.reason.clone())));
            }
            return out.trim_end().to_string();
        }
        let rejected: Vec<String> = all_user
            .lines()
            .filter_map(|l| l.strip_prefix("Rejected plan: "))
            .filter_map(|r| r.split(". <Player").next())
            .map(str::to_string)
            .collect();
        let mut plan = choose(&k);
        if rejected.contains(&plan.text(&ctx.names)) {
            plan = Skill::Wait(1);
        }
        let after = current_scene(&all_user).map_or("", |s| {
            let at = all_user.rfind(s).unwrap_or(0) + s.len();
            &all_user[at..]
        });
        let mut out = String::new();
        if after.contains("Analysis:") {
            let recipe = k.recipe().map_or("unknown".to_string(), |r| r.describe(&ctx.names));
            out.push_str(&format!(
                "Analysis: I hold {} and the recipe is {recipe}; the next useful step for me is {}.\n",
                k.held.describe(&ctx.names),
                plan.text(&ctx.names)
            ));
        }
        if let Some(mate) = (0..k.num_agents).find(|&i| i != me)
            && after.contains(&format!("Intention for Player {mate}"))
        {
            out.push_str(&format!("Intention for Player {mate}: \"{}\".\n", guess_mate(&k).text(&ctx.names)));
        }
        out.push_str(&format!("Plan for Player {me}: \"{}\".", plan.text(&ctx.names)));
        out
    }
}

#[async_trait]
impl LanguageModel for ScriptedV2Model {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(crate::grounding::stand_in_response(request, self.reply(request)))
    }
}
