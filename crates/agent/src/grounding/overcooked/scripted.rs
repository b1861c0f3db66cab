//! `scripted`: a deterministic stand-in language model.
//!
//! It answers from the request's text alone, as a real model would see it:
//! it reads the scene (holdings, pot states with remaining time, objects on
//! counters, time left), the knowledge block's statement of what each player
//! can reach, the teammate's last observed skill and any rejected plans, turns
//! them into [`SkillFacts`] and applies the skill-choice rules of the `scripted`
//! planner. It replies in the format the prompt asks for: planner replies
//! (Analysis / Intention / Plan, only the fields requested) and the two
//! verificator rounds (step-by-step checks, then the failed condition).
//!
//! It relies on the phrases of the built-in templates (`<Player k> holds ...`,
//! `<Pot k> ...`, "can reach:", "Plan for Player k", "Check each precondition",
//! "Double-check", "Rejected plan:", and for the paper preset "Failed skill for",
//! "Preconditions of <skill>:" and "cannot do <skill> now" in an explanation); a user
//! who rewrites those phrases in `prompts/` changes what it understands, exactly as
//! with a real model. The answer format is read from the user message when it states
//! one, else from the system message (the paper preset states it there). Stop
//! sequences are honoured as a served model honours them.

use async_trait::async_trait;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Role};
use proagent_overcooked::env::ObjKind;
use proagent_overcooked::skills::facts::{Access, PotFact, PotStatus, SkillFacts, Steps};
use proagent_overcooked::skills::{MAX_WAIT, Skill};
use std::borrow::Cow;
use std::fmt::Write;

/// A skill-choice rule set: facts in, one skill out.
pub type Chooser = fn(&SkillFacts) -> Skill;

/// The scripted model.
#[derive(Clone)]
pub struct ScriptedModel {
    choose: Chooser,
}

impl Default for ScriptedModel {
    fn default() -> Self {
        ScriptedModel::new()
    }
}

impl ScriptedModel {
    /// The model with the `scripted` partner's skill-choice rules.
    pub fn new() -> ScriptedModel {
        ScriptedModel { choose: proagent_overcooked::skills::rules::choose_skill }
    }

    /// The model with other skill-choice rules (same reply format, different decisions).
    pub fn with_chooser(choose: Chooser) -> ScriptedModel {
        ScriptedModel { choose }
    }

    /// Answers a request synchronously (the async trait method wraps this).
    pub fn reply(&self, req: &ChatRequest) -> String {
        let system = join_role(req, Role::System);
        let all_user = join_role(req, Role::User);
        let last_user = req.messages.iter().rev().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str());
        if last_user.contains("Double-check") {
            let previous = req.messages.iter().rev().find(|m| m.role == Role::Assistant).map(|m| m.content.as_str());
            return self.double_check(&system, &all_user, previous.unwrap_or(""));
        }
        if last_user.contains("Check each precondition") {
            return self.check(&system, &all_user);
        }
        if last_user.contains("Failed skill for ") {
            return self.explain(&system, &all_user);
        }
        let mut rejected = rejected_plans(&all_user);
        rejected.extend(explained_failures(req));
        self.plan(&system, &all_user, &rejected)
    }

    fn plan(&self, system: &str, user: &str, rejected: &[Skill]) -> String {
        let Some(view) = TextView::read(system, user) else {
            return "I cannot find the scene in your message, so I cannot plan.".into();
        };
        let after_scene = &user[view.scene_at..];
        let format = if after_scene.contains("Plan for Player") { after_scene } else { system };
        let want_analysis = format.contains("Analysis:");
        let want_intention = format.contains("Intention for Player");
        let mut mine = view.facts(view.me);
        let predicted = (self.choose)(&view.facts(view.mate));
        mine.partner_skill = if want_intention { Some(predicted) } else { view.last_mate_skill };
        let mut plan = (self.choose)(&mine);
        if rejected.contains(&plan) {
            plan = fallback_choice(&mine, view.num_items, rejected);
        }
        // "Nothing to do yet": when the rules say a wait ends as soon as the kitchen changes, a
        // long wait loses nothing, as long as the choice depends on nothing but the kitchen
        // (no distances in the scene, which change as players move).
        if plan == Skill::Wait(1) && system.contains("until something in the kitchen changes") {
            let has_distances = after_scene.contains("Distances for <Player");
            plan = Skill::Wait(if has_distances { 3 } else { MAX_WAIT });
        }
        let mut out = String::new();
        if want_analysis {
            let _ = writeln!(out, "Analysis: {}", analysis(&view, &mine, plan));
        }
        if want_intention {
            let _ = writeln!(out, "Intention for Player {}: \"{predicted}\".", view.mate);
        }
        let _ = write!(out, "Plan for Player {}: \"{plan}\".", view.me);
        out
    }

    fn check(&self, system: &str, user: &str) -> String {
        let Some(view) = TextView::read(system, user) else {
            return "I cannot find the scene in your message.".into();
        };
        let facts = view.facts(view.me);
        let mut out = String::new();
        let at = user.rfind("Planned skill for ").unwrap_or(0);
        for (id, evidence, ok) in checked_conditions(&user[at..], planned_skill(user), &facts, view.num_items) {
            let verdict = if ok { "satisfied" } else { "not satisfied" };
            let _ = writeln!(out, "Condition {id}: {evidence} -> {verdict}");
        }
        if out.is_empty() {
            out.push_str("I found no preconditions to check.");
        }
        out.truncate(out.trim_end().len());
        out
    }

    fn double_check(&self, system: &str, user: &str, previous: &str) -> String {
        let Some(view) = TextView::read(system, user) else {
            return "Failed condition: none".into();
        };
        let facts = view.facts(view.me);
        let skill = planned_skill(user).map(|s| s.to_string()).unwrap_or_else(|| "the skill".into());
        let at = user.rfind("Planned skill for ").unwrap_or(0);
        let now = checked_conditions(&user[at..], planned_skill(user), &facts, view.num_items);
        let mut out = String::from("Double-check:");
        for (id, _, ok) in &now {
            let before = previous.lines().find(|l| l.contains(&format!("Condition {id}:")));
            let agreed = before.is_none_or(|l| l.trim_end().ends_with("not satisfied") != *ok);
            let verdict = if *ok { "satisfied" } else { "not satisfied" };
            let _ = write!(out, " {id} is {verdict}{};", if agreed { "" } else { " (corrected)" });
        }
        out.pop();
        out.push_str(".\n");
        match now.iter().find(|(_, _, ok)| !ok) {
            Some((id, evidence, _)) => {
                let _ = write!(
                    out,
                    "Failed condition: {id}: <Player {}> cannot do {skill} now, as {}.",
                    view.me,
                    lower_first(evidence)
                );
            }
            None => out.push_str("Failed condition: none that I can see in the scene."),
        }
        out
    }

    /// The paper preset's explainer: one answer that checks the failed skill's
    /// preconditions (listed in the system message) and names the one that fails.
    fn explain(&self, system: &str, user: &str) -> String {
        let Some(view) = TextView::read(system, user) else {
            return "I cannot find the scene in your message.".into();
        };
        let facts = view.facts(view.me);
        let skill = failed_skill(user);
        let key = match skill {
            Some(Skill::Wait(_)) => "wait(n)".to_string(),
            Some(s) => s.to_string(),
            None => return "I cannot tell which skill failed.".into(),
        };
        let block = precondition_block(system, &key);
        let checked = checked_conditions(block, skill, &facts, view.num_items);
        let mut out = String::new();
        for (id, evidence, ok) in &checked {
            let verdict = if *ok { "satisfied" } else { "not satisfied" };
            let _ = writeln!(out, "Condition {id}: {evidence} -> {verdict}");
        }
        let skill = skill.map(|s| s.to_string()).unwrap_or_default();
        match checked.iter().find(|(_, _, ok)| !ok) {
            Some((id, evidence, _)) => {
                let _ = write!(
                    out,
                    "In all, the failed condition is {id}: <Player {}> cannot do {skill} now, as {}.",
                    view.me,
                    lower_first(evidence)
                );
            }
            None => out.push_str("In all, I find no failed condition in the scene."),
        }
        out
    }
}

#[async_trait]
impl LanguageModel for ScriptedModel {
    fn name(&self) -> String {
        "scripted".into()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(crate::grounding::stand_in_response(request, self.reply(request)))
    }
}

/// The messages of one role, joined by newlines (borrowed when there is only one).
fn join_role(req: &ChatRequest, role: Role) -> Cow<'_, str> {
    let mut it = req.messages.iter().filter(|m| m.role == role);
    match (it.next(), it.next()) {
        (None, _) => Cow::Borrowed(""),
        (Some(m), None) => Cow::Borrowed(m.content.as_str()),
        _ => Cow::Owned(
            req.messages.iter().filter(|m| m.role == role).map(|m| m.content.as_str()).collect::<Vec<_>>().join("\n"),
        ),
    }
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// What the text says about one player.
#[derive(Clone, Debug, Default, PartialEq)]
struct PlayerText {
    held: Option<ObjKind>,
    access: Access,
    /// Per pot: reachable?
    pots: Vec<bool>,
    counter_onions: u8,
    counter_dishes: u8,
    counter_soups: u8,
    /// Distances, when the scene gives them (the coordination style).
    steps: Option<Steps>,
    /// Empty counters within reach (`None` when the scene does not say).
    empty_counters: Option<u8>,
}

/// Everything the scripted model read from a request.
#[derive(Clone, Debug)]
struct TextView {
    me: usize,
    mate: usize,
    players: [PlayerText; 2],
    pots: Vec<PotStatus>,
    time_left: u32,
    num_items: u8,
    last_mate_skill: Option<Skill>,
    /// "Empty counters both players can reach: N."
    empty_shared: u8,
    /// The previous skill failed because the way was blocked (from the memory block).
    blocked: bool,
    /// Byte offset of the current scene in the joined user text.
    scene_at: usize,
}

/// The player index after `prefix` (e.g. "Plan for Player "), last occurrence.
fn index_after_last(text: &str, prefix: &str) -> Option<usize> {
    let at = text.rfind(prefix)?;
    let rest = &text[at + prefix.len()..];
    let rest = rest.trim_start_matches('<').trim_start_matches("Player ");
    rest.chars().next()?.to_digit(10).map(|d| d as usize)
}

/// Start of the last "Scene <n>:" in the text.
fn last_scene(text: &str) -> Option<usize> {
    let mut found = None;
    let mut from = 0;
    while let Some(i) = text[from..].find("Scene ") {
        let at = from + i;
        let rest = &text[at + 6..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && rest[digits..].starts_with(':') {
            found = Some(at);
        }
        from = at + 6;
    }
    found
}

fn held_of(phrase: &str) -> Option<ObjKind> {
    let p = phrase.trim().to_ascii_lowercase();
    if p.contains("soup") {
        Some(ObjKind::Soup)
    } else if p.contains("dish") {
        Some(ObjKind::Dish)
    } else if p.contains("onion") {
        Some(ObjKind::Onion)
    } else if p.contains("tomato") {
        Some(ObjKind::Tomato)
    } else {
        None
    }
}

fn first_number(s: &str) -> Option<u32> {
    let start = s.find(|c: char| c.is_ascii_digit())?;
    s[start..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// One pot clause (the text after "<Pot k>" up to ';').
fn pot_status(clause: &str, num_items: u8) -> PotStatus {
    let c = clause.to_ascii_lowercase();
    if c.contains("is empty") {
        return PotStatus::Filling(0);
    }
    if c.contains("is ready") || c.contains("already cooked") || c.contains("soup ready") {
        return PotStatus::Ready;
    }
    if c.contains("cooking") {
        let after = c.find("ready after").map(|i| &c[i..]).unwrap_or("");
        return PotStatus::Cooking(first_number(after).unwrap_or(0).min(u16::MAX as u32) as u16);
    }
    let n = c.find("has").and_then(|i| first_number(&c[i..])).unwrap_or(0);
    PotStatus::Filling((n as u8).min(num_items))
}

fn counters_of(list: &str) -> (u8, u8, u8) {
    let (mut o, mut d, mut s) = (0u8, 0u8, 0u8);
    for item in list.split(',') {
        let n = first_number(item).unwrap_or(1).min(u8::MAX as u32) as u8;
        let item = item.to_ascii_lowercase();
        if item.contains("soup") {
            s = s.saturating_add(n);
        } else if item.contains("dish") {
            d = d.saturating_add(n);
        } else if item.contains("onion") {
            o = o.saturating_add(n);
        }
    }
    (o, d, s)
}

/// The text after `key` up to the end of its sentence ('.' followed by space/end, or newline).
fn sentence_after<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(key)? + key.len();
    let rest = &text[at..];
    let end = rest
        .char_indices()
        .find(|&(i, c)| c == '\n' || (c == '.' && rest[i + 1..].chars().next().is_none_or(char::is_whitespace)))
        .map_or(rest.len(), |(i, _)| i);
    Some(&rest[..end])
}

impl TextView {
    fn read(system: &str, user: &str) -> Option<TextView> {
        let scene_at = last_scene(user)?;
        let me = index_after_last(user, "Plan for Player ")
            .or_else(|| index_after_last(user, "Planned skill for "))
            .or_else(|| index_after_last(user, "Failed skill for "))
            .or_else(|| index_after_last(system, "plan for "))
            .or_else(|| index_after_last(system, "Plan for Player "))
            .filter(|&p| p < 2)?;
        let mate = 1 - me;
        let num_items = sentence_after(system, "A soup needs ").and_then(first_number).unwrap_or(3).clamp(1, 3) as u8;
        let scene = &user[scene_at..];
        let mut players: [PlayerText; 2] = Default::default();
        for (p, pt) in players.iter_mut().enumerate() {
            pt.held = sentence_after(scene, &format!("<Player {p}> holds ")).and_then(held_of);
            if let Some(list) = sentence_after(scene, &format!("On counters <Player {p}> can reach: ")) {
                (pt.counter_onions, pt.counter_dishes, pt.counter_soups) = counters_of(list);
            }
            pt.empty_counters = sentence_after(scene, &format!("Empty counters <Player {p}> can reach: "))
                .and_then(first_number)
                .map(|n| n.min(u8::MAX as u32) as u8);
        }
        let kitchen_end = ["On counters", "Time left", "\n"].iter().filter_map(|k| scene.find(k)).min();
        let kitchen =
            scene.find("Kitchen states:").map(|a| &scene[a..kitchen_end.filter(|&e| e > a).unwrap_or(scene.len())]);
        let mut pots: Vec<PotStatus> = Vec::new();
        if let Some(k) = kitchen {
            for part in k.split("<Pot ").skip(1) {
                let idx = first_number(part).unwrap_or(0) as usize;
                let clause = part.split(';').next().unwrap_or("");
                if idx < 16 {
                    if pots.len() <= idx {
                        pots.resize(idx + 1, PotStatus::Filling(0));
                    }
                    pots[idx] = pot_status(clause, num_items);
                }
            }
        }
        for (p, pt) in players.iter_mut().enumerate() {
            let can = sentence_after(system, &format!("<Player {p}> can reach: "));
            let cannot = sentence_after(system, &format!("<Player {p}> cannot reach: ")).unwrap_or("");
            match can {
                // No reach statement: assume the whole kitchen is reachable.
                None => {
                    pt.access = Access { onion_source: true, dish_source: true, serving: true, shared_counter: true };
                    pt.pots = vec![true; pots.len()];
                }
                Some(can) => {
                    let has = |w: &str| can.contains(w) && !cannot.contains(w);
                    pt.access = Access {
                        onion_source: has("onion dispenser"),
                        dish_source: has("dish dispenser"),
                        serving: has("serving location"),
                        shared_counter: has("shared counter"),
                    };
                    pt.pots = (0..pots.len()).map(|k| has(&format!("<Pot {k}>"))).collect();
                }
            }
        }
        for (p, pt) in players.iter_mut().enumerate() {
            pt.steps = distances(scene, p, &pots, num_items);
        }
        let empty_shared = sentence_after(scene, "Empty counters both players can reach: ")
            .and_then(first_number)
            .map_or(0, |n| n.min(u8::MAX as u32) as u8);
        let blocked = user[..scene_at]
            .rfind(&format!("<Player {me}> did "))
            .and_then(|at| user[at..scene_at].lines().next())
            .is_some_and(|l| l.contains("failed") && (l.contains("no progress") || l.contains("blocked")));
        let time_left = sentence_after(scene, "Time left: ").and_then(first_number).unwrap_or(0);
        let last_mate_skill = sentence_after(user, &format!("Last observed skill of <Player {mate}>: "))
            .and_then(|s| Skill::find_first(s).ok());
        Some(TextView {
            me,
            mate,
            players,
            pots,
            time_left,
            num_items,
            last_mate_skill,
            empty_shared,
            blocked,
            scene_at,
        })
    }

    /// The facts from player `p`'s point of view.
    fn facts(&self, p: usize) -> SkillFacts {
        let (a, b) = (&self.players[p], &self.players[1 - p]);
        let pots: Vec<PotFact> = self
            .pots
            .iter()
            .enumerate()
            .map(|(k, &status)| PotFact {
                status,
                reachable_by_me: a.pots.get(k).copied().unwrap_or(true),
                reachable_by_partner: b.pots.get(k).copied().unwrap_or(true),
            })
            .collect();
        let my_steps = a.steps.unwrap_or_else(|| self.estimated_steps(a, &pots, true));
        let partner_steps = b.steps.unwrap_or_else(|| self.estimated_steps(b, &pots, false));
        SkillFacts {
            me: p,
            my_held: a.held,
            partner_held: b.held,
            pots,
            my_access: a.access,
            partner_access: b.access,
            counter_onions_for_me: a.counter_onions,
            counter_dishes_for_me: a.counter_dishes,
            counter_soups_for_me: a.counter_soups,
            partner_skill: None,
            time_left: self.time_left,
            soup_size: self.num_items,
            counter_onions_for_partner: b.counter_onions,
            counter_dishes_for_partner: b.counter_dishes,
            counter_soups_for_partner: b.counter_soups,
            empty_shared_counters: self.empty_shared,
            // Unknown means "assume there is room": the validator has the last word.
            empty_counters_for_me: a.empty_counters.unwrap_or(1),
            my_steps,
            partner_steps,
            blocked: p == self.me && self.blocked,
        }
    }

    /// Without distances in the text, every reachable kind of place is a typical few steps away.
    fn estimated_steps(&self, pt: &PlayerText, pots: &[PotFact], mine: bool) -> Steps {
        let est = |ok: bool| ok.then_some(TYPICAL_STEPS);
        let reach = |f: &PotFact| if mine { f.reachable_by_me } else { f.reachable_by_partner };
        Steps {
            onion: est(pt.access.onion_source || pt.counter_onions > 0),
            dish: est(pt.access.dish_source || pt.counter_dishes > 0),
            pot: est(pots.iter().any(|f| reach(f) && matches!(f.status, PotStatus::Filling(n) if n < self.num_items))),
            soup_pot: est(pots
                .iter()
                .any(|f| reach(f) && matches!(f.status, PotStatus::Cooking(_) | PotStatus::Ready))),
            serving: est(pt.access.serving),
        }
    }
}

/// The distance assumed for a reachable place when the scene gives no distances.
const TYPICAL_STEPS: u16 = 4;

/// Reads "Distances for <Player p> (...): <Name>: N; <Name>: inaccessible; ..." into steps.
fn distances(scene: &str, p: usize, pots: &[PotStatus], num_items: u8) -> Option<Steps> {
    let key = format!("Distances for <Player {p}>");
    let at = scene.find(&key)? + key.len();
    let rest = &scene[at..];
    let rest = &rest[rest.find("):").map_or(0, |i| i + 2)..];
    let line = rest.lines().next()?;
    let line = line.trim().trim_end_matches('.');
    let mut st = Steps::default();
    let better = |slot: &mut Option<u16>, v: Option<u16>| {
        if let Some(v) = v {
            *slot = Some(slot.map_or(v, |s| s.min(v)));
        }
    };
    for item in line.split(';') {
        let Some((name, value)) = item.rsplit_once(">:") else { continue };
        let name = name.trim();
        let value = value.trim();
        let v = if value.starts_with("inaccessible") {
            None
        } else {
            first_number(value).map(|n| n.min(u16::MAX as u32) as u16)
        };
        if name.starts_with("<Onion Dispenser") || (name.starts_with("<Counter") && name.contains("onion")) {
            better(&mut st.onion, v);
        } else if name.starts_with("<Dish Dispenser") || (name.starts_with("<Counter") && name.ends_with("one dish")) {
            better(&mut st.dish, v);
        } else if name.starts_with("<Serving") {
            better(&mut st.serving, v);
        } else if let Some(k) = name.strip_prefix("<Pot ").and_then(first_number) {
            match pots.get(k as usize) {
                Some(PotStatus::Filling(n)) if *n < num_items => better(&mut st.pot, v),
                Some(PotStatus::Cooking(_) | PotStatus::Ready) => better(&mut st.soup_pot, v),
                _ => {}
            }
        }
    }
    Some(st)
}

/// Skills named on "Rejected plan:" lines.
fn rejected_plans(user: &str) -> Vec<Skill> {
    user.lines()
        .filter_map(|l| l.split_once("Rejected plan:").map(|(_, r)| r))
        .filter_map(|r| Skill::find_first(r).ok())
        .collect()
}

/// Skills an explanation given since the model's last answer says cannot be done now
/// ("... cannot do <skill> now ..."): the user messages after the last assistant message,
/// the final one (the current request) excepted.
fn explained_failures(req: &ChatRequest) -> Vec<Skill> {
    let from = req.messages.iter().rposition(|m| m.role == Role::Assistant).map_or(0, |i| i + 1);
    let upto = req.messages.len().saturating_sub(1);
    req.messages[from.min(upto)..upto]
        .iter()
        .filter(|m| m.role == Role::User)
        .flat_map(|m| {
            m.content.match_indices("cannot do ").filter_map(|(i, k)| {
                let rest = &m.content[i + k.len()..];
                let phrase = rest.split(" now").next().unwrap_or(rest);
                Skill::find_first(phrase).ok()
            })
        })
        .collect()
}

/// The skill the explainer is asked about ("Failed skill for <Player k>: <skill>.").
fn failed_skill(user: &str) -> Option<Skill> {
    let at = user.rfind("Failed skill for ")?;
    let line = user[at..].lines().next()?;
    let (_, rest) = line.split_once(": ")?;
    Skill::find_first(rest).ok()
}

/// The precondition list of `key` in a system message ("Preconditions of <key>:" and
/// the lines up to the next blank line); empty when it is not there.
fn precondition_block<'a>(system: &'a str, key: &str) -> &'a str {
    let head = format!("Preconditions of {key}:");
    let Some(at) = system.find(&head) else { return "" };
    let rest = &system[at + head.len()..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// The skill under verification ("Planned skill for <Player k>: <skill>.").
fn planned_skill(user: &str) -> Option<Skill> {
    let at = user.rfind("Planned skill for ")?;
    let line = user[at..].lines().next()?;
    let (_, rest) = line.split_once(": ")?;
    Skill::find_first(rest).ok()
}

fn held_words(h: Option<ObjKind>) -> &'static str {
    match h {
        None => "nothing",
        Some(ObjKind::Onion) => "one onion",
        Some(ObjKind::Tomato) => "one tomato",
        Some(ObjKind::Dish) => "one dish",
        Some(ObjKind::Soup) => "a dish with soup",
    }
}

/// Each precondition a prompt lists ("- <id>: ..." lines of `block`) for `skill`, judged from the facts.
fn checked_conditions(block: &str, skill: Option<Skill>, f: &SkillFacts, num_items: u8) -> Vec<(String, String, bool)> {
    let me = f.me;
    let held = held_words(f.my_held);
    let reach_pots: Vec<&PotFact> = f.pots.iter().filter(|p| p.reachable_by_me).collect();
    let mut out = Vec::new();
    for line in block.lines() {
        let Some(rest) = line.trim().strip_prefix("- ") else { continue };
        let Some((id, _)) = rest.split_once(':') else { continue };
        let id = id.trim();
        let (evidence, ok) = match id {
            "hand_empty" => (format!("<Player {me}> holds {held}"), f.my_held.is_none()),
            "onion_reachable" => (
                format!(
                    "<Player {me}> {} an onion dispenser and sees {} onion(s) on counters it can reach",
                    if f.my_access.onion_source { "can reach" } else { "cannot reach" },
                    f.counter_onions_for_me
                ),
                f.my_access.onion_source || f.counter_onions_for_me > 0,
            ),
            "dish_reachable" => (
                format!(
                    "<Player {me}> {} a dish dispenser and sees {} dish(es) on counters it can reach",
                    if f.my_access.dish_source { "can reach" } else { "cannot reach" },
                    f.counter_dishes_for_me
                ),
                f.my_access.dish_source || f.counter_dishes_for_me > 0,
            ),
            "holding_onion" => (format!("<Player {me}> holds {held}"), f.my_held == Some(ObjKind::Onion)),
            "holding_dish" => (format!("<Player {me}> holds {held}"), f.my_held == Some(ObjKind::Dish)),
            "holding_soup" => (format!("<Player {me}> holds {held}"), f.my_held == Some(ObjKind::Soup)),
            "holding_object" => (format!("<Player {me}> holds {held}"), f.my_held.is_some()),
            "pot_reachable" => (format!("<Player {me}> can reach {} pot(s)", reach_pots.len()), !reach_pots.is_empty()),
            "pot_not_full" => {
                let open = reach_pots.iter().any(|p| matches!(p.status, PotStatus::Filling(n) if n < num_items));
                (
                    if open {
                        "a pot it can reach still takes onions".to_string()
                    } else {
                        "every pot it can reach is full, cooking or ready".to_string()
                    },
                    open,
                )
            }
            "soup_cooking_or_ready" => {
                let any = reach_pots.iter().any(|p| matches!(p.status, PotStatus::Cooking(_) | PotStatus::Ready));
                (
                    if any {
                        "a pot it can reach is cooking or ready".to_string()
                    } else {
                        "no pot it can reach is cooking or has a ready soup".to_string()
                    },
                    any,
                )
            }
            "serving_reachable" => (
                format!(
                    "<Player {me}> {} the serving location",
                    if f.my_access.serving { "can reach" } else { "cannot reach" }
                ),
                f.my_access.serving,
            ),
            "empty_counter" => match f.empty_counters_for_me {
                0 => (format!("<Player {me}> can reach no empty counter"), false),
                n => (format!("<Player {me}> can reach {n} empty counter(s)"), true),
            },
            "wait_range" => {
                let ok = matches!(skill, Some(Skill::Wait(n)) if (1..=MAX_WAIT).contains(&n));
                (format!("the plan is {}", skill.map(|s| s.to_string()).unwrap_or_default()), ok)
            }
            _ => continue,
        };
        out.push((id.to_string(), evidence, ok));
    }
    out
}

/// A skill whose text-level preconditions hold and that was not rejected; else `wait(1)`.
fn fallback_choice(f: &SkillFacts, num_items: u8, rejected: &[Skill]) -> Skill {
    let reach_pots = || f.pots.iter().filter(|p| p.reachable_by_me);
    let ok = |s: Skill| match s {
        Skill::DeliverSoup => f.my_held == Some(ObjKind::Soup) && f.my_access.serving,
        Skill::FillDishWithSoup => {
            f.my_held == Some(ObjKind::Dish)
                && reach_pots().any(|p| matches!(p.status, PotStatus::Cooking(_) | PotStatus::Ready))
        }
        Skill::PutOnionInPot => {
            f.my_held == Some(ObjKind::Onion)
                && reach_pots().any(|p| matches!(p.status, PotStatus::Filling(n) if n < num_items))
        }
        Skill::PickupOnion => f.my_held.is_none() && (f.my_access.onion_source || f.counter_onions_for_me > 0),
        Skill::PickupDish => f.my_held.is_none() && (f.my_access.dish_source || f.counter_dishes_for_me > 0),
        Skill::PlaceObjOnCounter => f.my_held.is_some() && f.empty_counters_for_me > 0,
        Skill::Wait(_) => true,
    };
    [
        Skill::DeliverSoup,
        Skill::FillDishWithSoup,
        Skill::PutOnionInPot,
        Skill::PickupOnion,
        Skill::PickupDish,
        Skill::PlaceObjOnCounter,
    ]
    .into_iter()
    .find(|&s| ok(s) && !rejected.contains(&s))
    .unwrap_or(Skill::Wait(1))
}

fn pot_words(k: usize, p: &PotFact) -> String {
    match p.status {
        PotStatus::Filling(0) => format!("<Pot {k}> is empty"),
        PotStatus::Filling(n) => format!("<Pot {k}> has {n} onion{}", if n == 1 { "" } else { "s" }),
        PotStatus::Cooking(t) => format!("<Pot {k}> is cooking ({t} timesteps left)"),
        PotStatus::Ready => format!("<Pot {k}> has a ready soup"),
    }
}

fn analysis(view: &TextView, f: &SkillFacts, plan: Skill) -> String {
    let mut s = format!(
        "<Player {}> holds {} and <Player {}> holds {}.",
        view.me,
        held_words(f.my_held),
        view.mate,
        held_words(f.partner_held)
    );
    let pots: Vec<String> = f.pots.iter().enumerate().map(|(k, p)| pot_words(k, p)).collect();
    if !pots.is_empty() {
        let _ = write!(s, " {}.", pots.join(", "));
    }
    if let Some(ps) = f.partner_skill {
        let _ = write!(s, " <Player {}> is likely to {ps}.", view.mate);
    }
    let _ = write!(s, " The most useful next step for <Player {}> is {plan}.", view.me);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYSTEM: &str = "You plan for <Player 0> in Overcooked.\n- A soup needs 3 onions in one pot.\n\
        - <Player 0> can reach: serving location, <Pot 0>, <Pot 1>, shared counter.\n\
        - <Player 0> cannot reach: onion dispenser, dish dispenser.\n\
        - <Player 1> can reach: onion dispenser, dish dispenser, shared counter.\n\
        - <Player 1> cannot reach: <Pot 0>, <Pot 1>, serving location.";

    fn user(scene: &str) -> String {
        format!(
            "Your recent decisions (oldest first):\n- Scene 3: <Player 0> holds one dish. <Player 1> holds one dish. Kitchen states: <Pot 0> is empty; <Pot 1> is empty;\n\n\
             Last observed skill of <Player 1>: place_obj_on_counter() (at timestep 9).\n\n{scene}\n\nAnswer in exactly this format:\n\
             Analysis: <...>\nIntention for Player 1: \"<...>\"\nPlan for Player 0: \"<one allowed skill>\""
        )
    }

    #[test]
    fn reads_the_current_scene_not_the_memory() {
        let u = user(
            "Scene 12: <Player 0> holds nothing. <Player 1> holds one onion. Kitchen states: <Pot 0> has 3 onions, start cooking, \
             the soup will be ready after 8 timesteps; <Pot 1> has 2 onions; On counters <Player 0> can reach: 2 onions, 1 dish with soup. \
             On counters <Player 1> can reach: 2 onions, 1 dish with soup. Time left: 388 timesteps.",
        );
        let v = TextView::read(SYSTEM, &u).unwrap();
        assert_eq!((v.me, v.mate, v.num_items, v.time_left), (0, 1, 3, 388));
        assert_eq!(v.pots, vec![PotStatus::Cooking(8), PotStatus::Filling(2)]);
        assert_eq!(v.last_mate_skill, Some(Skill::PlaceObjOnCounter));
        let f = v.facts(0);
        assert_eq!(f.my_held, None);
        assert_eq!(f.partner_held, Some(ObjKind::Onion));
        assert_eq!((f.counter_onions_for_me, f.counter_dishes_for_me, f.counter_soups_for_me), (2, 0, 1));
        assert_eq!(
            f.my_access,
            Access { onion_source: false, dish_source: false, serving: true, shared_counter: true }
        );
        assert!(f.pots.iter().all(|p| p.reachable_by_me && !p.reachable_by_partner));
        let g = v.facts(1);
        assert_eq!(g.me, 1);
        assert!(g.my_access.onion_source && !g.my_access.serving);
        assert_eq!(g.my_held, Some(ObjKind::Onion));
    }

    #[test]
    fn pot_phrases_old_and_new() {
        assert_eq!(pot_status(" is empty", 3), PotStatus::Filling(0));
        assert_eq!(pot_status(" has 1 onion", 3), PotStatus::Filling(1));
        assert_eq!(pot_status(" has 3 onions, soup is ready", 3), PotStatus::Ready);
        assert_eq!(pot_status(" has already cooked the soup", 3), PotStatus::Ready);
        assert_eq!(pot_status(" starts cooking, the soup will be ready after 13 timesteps", 3), PotStatus::Cooking(13));
        assert_eq!(pot_status(" has 3 onions and is full", 3), PotStatus::Filling(3));
    }

    fn first_onion(f: &SkillFacts) -> Skill {
        if f.my_held.is_none() { Skill::PickupOnion } else { Skill::PutOnionInPot }
    }

    #[test]
    fn planner_reply_follows_requested_fields_and_rejections() {
        let m = ScriptedModel::with_chooser(first_onion);
        let scene = "Scene 12: <Player 0> holds nothing. <Player 1> holds nothing. Kitchen states: <Pot 0> is empty; \
                     On counters <Player 0> can reach: 1 onion. On counters <Player 1> can reach: nothing. Time left: 300 timesteps.";
        let req = ChatRequest::new(
            vec![proagent_llm::Message::system(SYSTEM), proagent_llm::Message::user(user(scene))],
            Default::default(),
        );
        let r = m.reply(&req);
        assert!(r.starts_with("Analysis: <Player 0> holds nothing"), "{r}");
        assert!(r.contains("Intention for Player 1: \"pickup(onion)\"."), "{r}");
        assert!(r.ends_with("Plan for Player 0: \"pickup(onion)\"."), "{r}");
        let parsed = crate::grounding::overcooked::parse_reply(&r, 0).unwrap();
        assert_eq!(parsed.plan, Skill::PickupOnion);
        // Told pickup(onion) was rejected, it picks something else whose preconditions hold in the text.
        let mut req2 = req.clone();
        req2.messages.push(proagent_llm::Message::assistant(r));
        req2.messages
            .push(proagent_llm::Message::user("Rejected plan: pickup(onion). Cannot.\nAnswer in the same format."));
        let r2 = m.reply(&req2);
        assert!(r2.ends_with("Plan for Player 0: \"wait(1)\"."), "{r2}");
        // Plan-only prompt: no analysis, no intention.
        let plain = format!("{scene}\nPlan for Player 0: \"<one allowed skill>\"");
        let req3 = ChatRequest::new(
            vec![proagent_llm::Message::system(SYSTEM), proagent_llm::Message::user(plain)],
            Default::default(),
        );
        assert_eq!(m.reply(&req3), "Plan for Player 0: \"pickup(onion)\".");
    }
}
