//! What one agent knows in OvercookedV2: the static kitchen (what it and each teammate
//! can reach), what it sees now within its view radius (pots, counters, teammates, the
//! recipe when an indicator or a lit button is in sight), the recipe it saw last, and the
//! last thing it saw a teammate do. Nothing outside the view radius gets in.
//!
//! [`Knowledge::observe`] builds it from a state (for the scripted partner and the agent's
//! validator and controller); [`scene_text`] and [`reach_text`] write it for prompts, and
//! [`Knowledge::read`] reads those texts back (for the built-in scripted model, which sees
//! only the prompt).

use crate::env::item::{Item, Recipe, kind_name};
use crate::env::{Event, Layout, PotPhase, Settings, State, Tile, obs};
use proagent_overcooked::env::{Dir, Pos};

/// What an agent can reach from its room (static for an episode).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    /// Ingredient kinds whose pile it can reach.
    pub piles: Vec<u8>,
    /// A plate pile.
    pub plate_pile: bool,
    /// A delivery window.
    pub goal: bool,
    /// A recipe button.
    pub button: bool,
    /// Counters it can reach.
    pub counters: usize,
    /// Of those, the counters that also touch another room (where hand-overs happen).
    pub shared: Vec<Pos>,
    /// Pots it can reach.
    pub pots: Vec<Pos>,
    /// Some cell of its room sees a recipe indicator.
    pub indicator_visible_from_room: bool,
    /// Some cell of its room sees a recipe button (lit by whoever can reach it).
    pub button_visible_from_room: bool,
}

/// What a pot looked like when seen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PotSeen {
    /// Not cooking; what it holds (maybe nothing).
    Idle(Item),
    /// Cooking, with steps left.
    Cooking(Item, u8),
    /// Cooked.
    Ready(Item),
}

/// A pot as the agent knows it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PotView {
    /// The pot's cell.
    pub pos: Pos,
    /// This agent can reach it.
    pub mine: bool,
    /// Some teammate can reach it.
    pub mates: bool,
    /// Its state if in sight now.
    pub seen: Option<PotSeen>,
}

/// A non-empty counter in sight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CounterView {
    /// The counter's cell.
    pub pos: Pos,
    /// What lies on it.
    pub item: Item,
    /// This agent can reach it.
    pub mine: bool,
    /// Some teammate can reach it.
    pub mates: bool,
}

/// A teammate in sight.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MateView {
    /// Its player index.
    pub index: usize,
    /// Where it stands.
    pub pos: Pos,
    /// The way it faces.
    pub dir: Dir,
    /// What it holds.
    pub held: Item,
}

/// How the agent knows the recipe.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecipeKnown {
    /// The layout has one possible recipe.
    Only(Recipe),
    /// An indicator or a lit button is in sight.
    InSight(Recipe),
    /// Seen at this step, not in sight now.
    Remembered(Recipe, u32),
    /// Never seen (or forgotten after a delivery drew a new one).
    Unknown,
}

/// What the agent remembers between steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recall {
    /// The last recipe it saw, and when.
    pub recipe: Option<(Recipe, u32)>,
    /// The last thing it saw a teammate do: (teammate, step, what).
    pub mate_seen: Option<(usize, u32, String)>,
    /// When it last pressed a recipe button, and the recipe it knew then.
    pub last_press: Option<(u32, Option<Recipe>)>,
    /// Recipes a wrong delivery it made or saw has ruled out (until a new recipe is drawn).
    pub ruled_out: Vec<Recipe>,
    /// Ingredient kinds it put on hand-over counters since the last dish came back (what
    /// it has supplied a teammate in another room for the soup being made).
    pub supplied: Vec<u8>,
}

/// The recipe a dish is, if it has exactly three ingredients.
pub fn recipe_of_dish(dish: Item) -> Option<Recipe> {
    <[u8; 3]>::try_from(dish.kinds().as_slice()).ok().map(Recipe::new)
}

impl Recall {
    /// Takes in what the previous step's interactions showed agent `me` (in `state`, after
    /// that step): a teammate it can see did something; a correct delivery it saw (or made)
    /// drew a new recipe when recipes are redrawn, so the remembered one is dropped.
    pub fn update(&mut self, layout: &Layout, settings: &Settings, state: &State, me: usize, events: &[Option<Event>]) {
        let Some(agent) = state.agents.get(me) else { return };
        for (i, e) in events.iter().enumerate() {
            let Some(e) = e else { continue };
            let seen = i == me || state.agents.get(i).is_some_and(|a| obs::visible(settings, agent.pos, a.pos));
            if !seen {
                continue;
            }
            if i != me {
                self.mate_seen = Some((i, state.step.saturating_sub(1), event_phrase(e, &layout.ingredient_names)));
            } else {
                match *e {
                    Event::PressButton { .. } => {
                        self.last_press = Some((state.step.saturating_sub(1), self.recipe.map(|(r, _)| r)));
                    }
                    Event::Place { item, at } if item.is_raw() && hand_over(layout, at, state.agents[me].pos) => {
                        self.supplied.extend(item.first_kind());
                    }
                    Event::PickUp { item, .. } if item.is_dish() => self.supplied.clear(),
                    _ => {}
                }
            }
            // The team reward tells every player how a delivery went.
            if let Event::Deliver { dish, correct, .. } = *e {
                let r = recipe_of_dish(dish);
                self.supplied.clear();
                if correct && settings.sample_recipe_on_delivery {
                    self.recipe = None;
                    self.ruled_out.clear();
                } else if correct {
                    self.recipe = r.map(|r| (r, state.step.saturating_sub(1)));
                } else if let Some(r) = r
                    && !self.ruled_out.contains(&r)
                {
                    self.ruled_out.push(r);
                }
            }
        }
    }
}

/// Whether counter `at` touches a room other than the one of `from` (a hand-over counter).
fn hand_over(layout: &Layout, at: Pos, from: Pos) -> bool {
    let mine = layout.room_of(from);
    Dir::ALL.iter().any(|&d| at.step(d).is_some_and(|q| layout.room_of(q).is_some_and(|r| Some(r) != mine)))
}

/// Everything one agent knows at a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Knowledge {
    /// Its player index.
    pub me: usize,
    /// Players in the game.
    pub num_agents: usize,
    /// Ingredient names by kind.
    pub names: Vec<String>,
    /// The step.
    pub step: u32,
    /// Steps left.
    pub steps_left: u32,
    /// Where it stands.
    pub pos: Pos,
    /// The way it faces.
    pub dir: Dir,
    /// What it holds.
    pub held: Item,
    /// The recipe, as far as it knows.
    pub recipe: RecipeKnown,
    /// Every pot (state only when in sight).
    pub pots: Vec<PotView>,
    /// Non-empty counters in sight.
    pub counters: Vec<CounterView>,
    /// Teammates in sight.
    pub mates: Vec<MateView>,
    /// Teammates out of sight.
    pub mates_unseen: Vec<usize>,
    /// Buttons in sight that are lit.
    pub lit_buttons: Vec<Pos>,
    /// Every recipe button of the kitchen (static).
    pub buttons: Vec<Pos>,
    /// What it can reach.
    pub reach: Reach,
    /// What each teammate can reach, by player index (its own entry is empty).
    pub mate_reach: Vec<Reach>,
    /// Pots start on interaction.
    pub start_on_interact: bool,
    /// A wrong dish delivered costs points.
    pub negative_rewards: bool,
    /// How far it sees (`None`: everything).
    pub view_radius: Option<u8>,
    /// The last thing it saw a teammate do.
    pub mate_seen: Option<(usize, u32, String)>,
    /// The recipes the layout may order.
    pub possible: Vec<Recipe>,
    /// Recipes wrong deliveries have ruled out.
    pub ruled_out: Vec<Recipe>,
    /// What it has handed over since the last dish came back.
    pub supplied: Vec<u8>,
    /// When it last pressed a recipe button, and the recipe it knew then.
    pub last_press: Option<(u32, Option<Recipe>)>,
}

/// Whether a tile touches a floor cell of room `room`.
fn touches(layout: &Layout, p: Pos, room: Option<u16>) -> bool {
    Dir::ALL.iter().any(|&d| p.step(d).is_some_and(|q| room.is_some() && layout.room_of(q) == room))
}

/// What an agent standing in `room` can reach.
pub fn reach_of(layout: &Layout, settings: &Settings, room: Option<u16>) -> Reach {
    let mut r = Reach::default();
    for i in 0..layout.cells() {
        let p = layout.pos_of(i);
        let tile = layout.tiles[i];
        if tile.is_floor() || !touches(layout, p, room) {
            continue;
        }
        match tile {
            Tile::Pile(k) if !r.piles.contains(&k) => r.piles.push(k),
            Tile::PlatePile => r.plate_pile = true,
            Tile::Goal => r.goal = true,
            Tile::Button => r.button = true,
            Tile::Counter => {
                r.counters += 1;
                let other_room = Dir::ALL
                    .iter()
                    .any(|&d| p.step(d).is_some_and(|q| layout.room_of(q).is_some_and(|x| Some(x) != room)));
                if other_room {
                    r.shared.push(p);
                }
            }
            Tile::Pot => r.pots.push(p),
            _ => {}
        }
    }
    r.piles.sort_unstable();
    let indicators: Vec<Pos> = layout.cells_of(Tile::RecipeIndicator).collect();
    let seen_from_room = |targets: &[Pos]| {
        (0..layout.cells()).map(|i| layout.pos_of(i)).any(|c| {
            room.is_some() && layout.room_of(c) == room && targets.iter().any(|&t| obs::visible(settings, c, t))
        })
    };
    r.indicator_visible_from_room = seen_from_room(&indicators);
    r.button_visible_from_room = seen_from_room(&layout.cells_of(Tile::Button).collect::<Vec<_>>());
    r
}

/// A phrase for what an event did, e.g. "put a tomato into the pot at (2, 0)".
pub fn event_phrase(e: &Event, names: &[String]) -> String {
    let at = |p: Pos| format!("({}, {})", p.x, p.y);
    match *e {
        Event::TakeFromPile { item, at: p } => format!("take {} from the pile at {}", item.describe(names), at(p)),
        Event::PickUp { item, at: p } => format!("pick up {} from the counter at {}", item.describe(names), at(p)),
        Event::Place { item, at: p } => format!("put {} on the counter at {}", item.describe(names), at(p)),
        Event::AddToPot { kind, at: p, .. } => {
            format!("put a {} into the pot at {}", kind_name(names, kind), at(p))
        }
        Event::StartCooking { at: p } => format!("start the pot at {}", at(p)),
        Event::PlateSoup { dish, at: p } => format!("plate {} from the pot at {}", dish.describe(names), at(p)),
        Event::Deliver { dish, correct, .. } => {
            format!("deliver {} ({})", dish.describe(names), if correct { "correct" } else { "wrong" })
        }
        Event::PressButton { at: p } => format!("press the recipe button at {}", at(p)),
    }
}

impl Knowledge {
    /// What agent `me` knows in `state` with its `recall` (updated here: a recipe in sight is
    /// remembered). Only cells within the view radius are looked at.
    pub fn observe(layout: &Layout, settings: &Settings, state: &State, me: usize, recall: &mut Recall) -> Knowledge {
        let agent = state.agents[me];
        let see = |p: Pos| obs::visible(settings, agent.pos, p);
        let room_of_agent = |i: usize| layout.room_of(state.agents[i].pos);
        let reach = reach_of(layout, settings, room_of_agent(me));
        let mate_reach: Vec<Reach> = (0..state.agents.len())
            .map(|i| if i == me { Reach::default() } else { reach_of(layout, settings, room_of_agent(i)) })
            .collect();
        let mates_reach = |p: Pos| (0..state.agents.len()).any(|i| i != me && touches(layout, p, room_of_agent(i)));
        let mut shown = None;
        let mut lit_buttons = Vec::new();
        for i in 0..layout.cells() {
            let p = layout.pos_of(i);
            if see(p) && state.shows_recipe_at(layout, p) {
                shown = Some(state.recipe);
                if layout.tiles[i] == Tile::Button {
                    lit_buttons.push(p);
                }
            }
        }
        let recipe = if layout.recipes.len() == 1 {
            RecipeKnown::Only(layout.recipes[0])
        } else if let Some(r) = shown {
            recall.recipe = Some((r, state.step));
            RecipeKnown::InSight(r)
        } else if let Some((r, t)) = recall.recipe {
            RecipeKnown::Remembered(r, t)
        } else {
            RecipeKnown::Unknown
        };
        let pots = layout
            .pots()
            .into_iter()
            .map(|p| PotView {
                pos: p,
                mine: touches(layout, p, room_of_agent(me)),
                mates: mates_reach(p),
                seen: see(p).then(|| match state.pot(layout, p) {
                    PotPhase::Idle(c) => PotSeen::Idle(c),
                    PotPhase::Cooking { contents, left } => PotSeen::Cooking(contents, left),
                    PotPhase::Ready(c) => PotSeen::Ready(c),
                }),
            })
            .collect();
        let counters = (0..layout.cells())
            .filter(|&i| layout.tiles[i] == Tile::Counter && !state.items[i].is_empty())
            .map(|i| layout.pos_of(i))
            .filter(|&p| see(p))
            .map(|p| CounterView {
                pos: p,
                item: state.item_at(layout, p),
                mine: touches(layout, p, room_of_agent(me)),
                mates: mates_reach(p),
            })
            .collect();
        let mut mates = Vec::new();
        let mut mates_unseen = Vec::new();
        for (i, a) in state.agents.iter().enumerate() {
            if i == me {
                continue;
            }
            if see(a.pos) {
                mates.push(MateView { index: i, pos: a.pos, dir: a.dir, held: a.held });
            } else {
                mates_unseen.push(i);
            }
        }
        Knowledge {
            me,
            num_agents: state.agents.len(),
            names: layout.ingredient_names.clone(),
            step: state.step,
            steps_left: settings.max_steps.saturating_sub(state.step),
            pos: agent.pos,
            dir: agent.dir,
            held: agent.held,
            recipe,
            pots,
            counters,
            mates,
            mates_unseen,
            lit_buttons,
            buttons: layout.cells_of(Tile::Button).collect(),
            reach,
            mate_reach,
            start_on_interact: settings.start_cooking_interaction,
            negative_rewards: settings.negative_rewards,
            view_radius: settings.view_radius,
            mate_seen: recall.mate_seen.clone(),
            possible: layout.recipes.clone(),
            ruled_out: recall.ruled_out.clone(),
            supplied: recall.supplied.clone(),
            last_press: recall.last_press,
        }
    }

    /// Whether it sees cell `p` now.
    pub fn sees(&self, p: Pos) -> bool {
        obs::visible(&Settings { view_radius: self.view_radius, ..Settings::default() }, self.pos, p)
    }

    /// Whether a recipe button (lit or not) is in sight.
    pub fn sees_any_button(&self) -> bool {
        self.buttons.iter().any(|&b| self.sees(b))
    }

    /// The recipe if known in any way.
    pub fn recipe(&self) -> Option<Recipe> {
        match self.recipe {
            RecipeKnown::Only(r) | RecipeKnown::InSight(r) | RecipeKnown::Remembered(r, _) => Some(r),
            RecipeKnown::Unknown => None,
        }
    }

    /// Some teammate can reach a pot this agent cannot see the inside of… or any pot at all.
    pub fn mate_reaches_pot(&self) -> bool {
        self.mate_reach.iter().any(|r| !r.pots.is_empty())
    }
}

/// Reads back the phrases of [`Item::describe`].
pub fn parse_item(text: &str, names: &[String]) -> Option<Item> {
    let t = text.trim().trim_end_matches('.');
    let list = |s: &str| -> Option<Item> {
        let mut item = Item::EMPTY;
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let k = names.iter().position(|n| n == w)?;
            item = item.plus(Item::ingredient(k as u8));
        }
        (!item.is_empty()).then_some(item)
    };
    match t {
        "nothing" => Some(Item::EMPTY),
        "an empty plate" => Some(Item::PLATE),
        _ => {
            if let Some(rest) = t.strip_prefix("a dish of ") {
                list(rest).map(|i| i.cooked().plated())
            } else if let Some(rest) = t.strip_prefix("a cooked soup of ") {
                list(rest).map(|i| i.cooked())
            } else if let Some(rest) = t.strip_prefix("a ").or_else(|| t.strip_prefix("an ")) {
                list(rest)
            } else {
                list(t)
            }
        }
    }
}

fn xy(p: Pos) -> String {
    format!("({}, {})", p.x, p.y)
}

fn parse_xy(s: &str) -> Option<(Pos, &str)> {
    let s = s.trim_start();
    let inner = s.strip_prefix('(')?;
    let close = inner.find(')')?;
    let (a, b) = inner[..close].split_once(',')?;
    let p = Pos::new(a.trim().parse().ok()?, b.trim().parse().ok()?);
    Some((p, &inner[close + 1..]))
}

/// One line saying what an agent can reach, e.g.
/// `piles: onion, tomato; plate pile: yes; delivery: yes; button: no; counters: 4; pots: (2, 0); sees an indicator: yes`.
pub fn reach_text(r: &Reach, names: &[String]) -> String {
    let yn = |b: bool| if b { "yes" } else { "no" };
    let piles: Vec<String> = r.piles.iter().map(|&k| kind_name(names, k)).collect();
    let pots: Vec<String> = r.pots.iter().map(|&p| xy(p)).collect();
    format!(
        "piles: {}; plate pile: {}; delivery: {}; button: {}; counters: {}; shared counters: {}; pots: {}; sees an indicator: {}; sees a button: {}",
        if piles.is_empty() { "none".into() } else { piles.join(", ") },
        yn(r.plate_pile),
        yn(r.goal),
        yn(r.button),
        r.counters,
        if r.shared.is_empty() { "none".into() } else { r.shared.iter().map(|&p| xy(p)).collect::<Vec<_>>().join(" ") },
        if pots.is_empty() { "none".into() } else { pots.join(" ") },
        yn(r.indicator_visible_from_room),
        yn(r.button_visible_from_room)
    )
}

/// Reads [`reach_text`] back.
pub fn parse_reach(text: &str, names: &[String]) -> Option<Reach> {
    let mut r = Reach::default();
    for part in text.split(';') {
        let (key, value) = part.split_once(':')?;
        let value = value.trim();
        let yes = value.starts_with("yes");
        match key.trim() {
            "piles" => {
                if value != "none" {
                    for w in value.split(',') {
                        r.piles.push(names.iter().position(|n| n == w.trim())? as u8);
                    }
                }
            }
            "plate pile" => r.plate_pile = yes,
            "delivery" => r.goal = yes,
            "button" => r.button = yes,
            "counters" => r.counters = value.parse().ok()?,
            "shared counters" => {
                let mut rest = value;
                while let Some((p, after)) = parse_xy(rest) {
                    r.shared.push(p);
                    rest = after;
                }
            }
            "pots" => {
                let mut rest = value;
                while let Some((p, after)) = parse_xy(rest) {
                    r.pots.push(p);
                    rest = after;
                }
            }
            "sees an indicator" => r.indicator_visible_from_room = yes,
            "sees a button" => r.button_visible_from_room = yes,
            _ => {}
        }
    }
    Some(r)
}

fn who_reaches(mine: bool, mates: bool) -> &'static str {
    match (mine, mates) {
        (true, true) => "you and a teammate can reach it",
        (true, false) => "only you can reach it",
        (false, true) => "only a teammate can reach it",
        (false, false) => "nobody can reach it",
    }
}

fn pot_phrase(seen: Option<PotSeen>, names: &[String]) -> String {
    match seen {
        None => "out of sight".into(),
        Some(PotSeen::Idle(c)) if c.is_empty() => "empty".into(),
        Some(PotSeen::Idle(c)) => format!("holds {}, not cooking", c.ingredient_list(names)),
        Some(PotSeen::Cooking(c, left)) => format!("cooking {}, {left} steps left", c.ingredient_list(names)),
        Some(PotSeen::Ready(c)) => format!("cooked {}, ready to plate", c.ingredient_list(names)),
    }
}

/// The scene as the planner reads it: only what the agent sees now, the recipe (in sight,
/// the only one possible, or the one it last saw), and what it last saw a teammate do.
pub fn scene_text(k: &Knowledge) -> String {
    let names = &k.names;
    let mut s = format!(
        "Scene {}: {} steps left. You, <Player {}>, stand at {} facing {} and hold {}.\n",
        k.step,
        k.steps_left,
        k.me,
        xy(k.pos),
        k.dir.name(),
        k.held.describe(names)
    );
    match &k.recipe {
        RecipeKnown::Only(r) => s.push_str(&format!("Recipe: {} (the only possible recipe).\n", r.describe(names))),
        RecipeKnown::InSight(r) => s.push_str(&format!("Recipe: {} (in sight).\n", r.describe(names))),
        RecipeKnown::Remembered(r, t) => {
            s.push_str(&format!("Recipe: not in sight; you last saw {} at step {t}.\n", r.describe(names)));
        }
        RecipeKnown::Unknown => s.push_str("Recipe: unknown (not in sight).\n"),
    }
    for m in &k.mates {
        s.push_str(&format!(
            "<Player {}> stands at {} facing {} and holds {}.\n",
            m.index,
            xy(m.pos),
            m.dir.name(),
            m.held.describe(names)
        ));
    }
    for i in &k.mates_unseen {
        s.push_str(&format!("<Player {i}> is out of sight.\n"));
    }
    if let Some((i, t, what)) = &k.mate_seen {
        s.push_str(&format!("You saw <Player {i}> {what} at step {t}.\n"));
    }
    if !k.supplied.is_empty() {
        let list: Vec<String> = k.supplied.iter().map(|&kind| kind_name(names, kind)).collect();
        s.push_str(&format!("You have handed over since the last dish: {}.\n", list.join(", ")));
    }
    if !k.ruled_out.is_empty() {
        let list: Vec<String> = k.ruled_out.iter().map(|r| r.describe(names)).collect();
        s.push_str(&format!("Ruled out by a wrong delivery: {}.\n", list.join("; ")));
    }
    match k.last_press {
        Some((t, Some(r))) => s.push_str(&format!(
            "You last pressed a recipe button at step {t}, when the recipe was {}.\n",
            r.describe(names)
        )),
        Some((t, None)) => s.push_str(&format!("You last pressed a recipe button at step {t}.\n")),
        None => {}
    }
    for p in &k.pots {
        s.push_str(&format!("Pot {} ({}): {}.\n", xy(p.pos), who_reaches(p.mine, p.mates), pot_phrase(p.seen, names)));
    }
    for c in &k.counters {
        s.push_str(&format!("Counter {} ({}): {}.\n", xy(c.pos), who_reaches(c.mine, c.mates), c.item.describe(names)));
    }
    for b in &k.lit_buttons {
        s.push_str(&format!("Button {} is lit.\n", xy(*b)));
    }
    s.truncate(s.trim_end().len());
    s
}

/// What a scene and knowledge texts say, read back into [`Knowledge`] (the scripted
/// model's reading). `names`, reaches and `start_on_interact` come from the system message.
pub struct TextContext {
    /// Ingredient names by kind.
    pub names: Vec<String>,
    /// The possible recipes.
    pub recipes: Vec<Recipe>,
    /// This agent's reach.
    pub reach: Reach,
    /// Teammates' reaches by index.
    pub mate_reach: Vec<Reach>,
    /// Pots start on interaction.
    pub start_on_interact: bool,
    /// A wrong dish delivered costs points.
    pub negative_rewards: bool,
    /// How far the agent sees.
    pub view_radius: Option<u8>,
    /// Every recipe button of the kitchen.
    pub buttons: Vec<Pos>,
}

impl Knowledge {
    /// Reads a [`scene_text`] back with the facts of the system message.
    pub fn read(scene: &str, ctx: &TextContext) -> Option<Knowledge> {
        let names = &ctx.names;
        let mut lines = scene.lines().map(str::trim).skip_while(|l| !l.starts_with("Scene "));
        let first = lines.next()?;
        let rest = first.strip_prefix("Scene ")?;
        let (step, rest) = rest.split_once(':')?;
        let step: u32 = step.trim().parse().ok()?;
        let steps_left: u32 = rest.trim().split(' ').next()?.parse().ok()?;
        let me_at = rest.find("<Player ")? + 8;
        let me: usize = rest[me_at..].split('>').next()?.parse().ok()?;
        let (pos, after) = parse_xy(rest.split(" stand at ").nth(1)?)?;
        let dir_word = after.trim().strip_prefix("facing ")?.split(' ').next()?;
        let dir = Dir::ALL.into_iter().find(|d| d.name() == dir_word)?;
        let held = parse_item(after.split(" and hold ").nth(1)?, names)?;
        let mut k = Knowledge {
            me,
            num_agents: ctx.mate_reach.len().max(me + 1),
            names: names.clone(),
            step,
            steps_left,
            pos,
            dir,
            held,
            recipe: RecipeKnown::Unknown,
            pots: Vec::new(),
            counters: Vec::new(),
            mates: Vec::new(),
            mates_unseen: Vec::new(),
            lit_buttons: Vec::new(),
            buttons: ctx.buttons.clone(),
            reach: ctx.reach.clone(),
            mate_reach: ctx.mate_reach.clone(),
            start_on_interact: ctx.start_on_interact,
            negative_rewards: ctx.negative_rewards,
            view_radius: ctx.view_radius,
            mate_seen: None,
            possible: ctx.recipes.clone(),
            ruled_out: Vec::new(),
            supplied: Vec::new(),
            last_press: None,
        };
        let recipe_of = |s: &str| -> Option<Recipe> {
            let item = parse_item(s, names)?;
            let kinds = item.kinds();
            let r = Recipe::new(<[u8; 3]>::try_from(kinds.as_slice()).ok()?);
            Some(r)
        };
        let reach_tag = |tag: &str| -> (bool, bool) {
            match tag {
                "you and a teammate can reach it" => (true, true),
                "only you can reach it" => (true, false),
                "only a teammate can reach it" => (false, true),
                _ => (false, false),
            }
        };
        for line in lines {
            let line = line.trim_end_matches('.');
            if let Some(r) = line.strip_prefix("Recipe: ") {
                k.recipe = if let Some(list) = r.strip_suffix(" (the only possible recipe)") {
                    recipe_of(list).map_or(RecipeKnown::Unknown, RecipeKnown::Only)
                } else if let Some(list) = r.strip_suffix(" (in sight)") {
                    recipe_of(list).map_or(RecipeKnown::Unknown, RecipeKnown::InSight)
                } else if let Some(rest) = r.strip_prefix("not in sight; you last saw ") {
                    let (list, t) = rest.rsplit_once(" at step ")?;
                    match (recipe_of(list), t.parse()) {
                        (Some(r), Ok(t)) => RecipeKnown::Remembered(r, t),
                        _ => RecipeKnown::Unknown,
                    }
                } else {
                    RecipeKnown::Unknown
                };
            } else if let Some(rest) = line.strip_prefix("<Player ") {
                let (idx, rest) = rest.split_once('>')?;
                let index: usize = idx.parse().ok()?;
                if rest.trim() == "is out of sight" {
                    k.mates_unseen.push(index);
                } else if let Some(r) = rest.strip_prefix(" stands at ") {
                    let (mpos, after) = parse_xy(r)?;
                    let dword = after.trim().strip_prefix("facing ")?.split(' ').next()?;
                    let mdir = Dir::ALL.into_iter().find(|d| d.name() == dword)?;
                    let mheld = parse_item(after.split(" and holds ").nth(1)?, names)?;
                    k.mates.push(MateView { index, pos: mpos, dir: mdir, held: mheld });
                }
            } else if let Some(rest) = line.strip_prefix("You saw <Player ") {
                let (idx, what) = rest.split_once("> ")?;
                let (what, t) = what.rsplit_once(" at step ")?;
                k.mate_seen = Some((idx.parse().ok()?, t.parse().ok()?, what.to_string()));
            } else if let Some(rest) = line.strip_prefix("Pot ") {
                let (p, after) = parse_xy(rest)?;
                let after = after.trim().strip_prefix('(')?;
                let (tag, phrase) = after.split_once("): ")?;
                let (mine, mates) = reach_tag(tag);
                let seen = if phrase == "out of sight" {
                    None
                } else if phrase == "empty" {
                    Some(PotSeen::Idle(Item::EMPTY))
                } else if let Some(x) = phrase.strip_prefix("holds ") {
                    Some(PotSeen::Idle(parse_item(x.trim_end_matches(", not cooking"), names)?))
                } else if let Some(x) = phrase.strip_prefix("cooking ") {
                    let (list, left) = x.rsplit_once(", ")?;
                    let left: u8 = left.split(' ').next()?.parse().ok()?;
                    Some(PotSeen::Cooking(parse_item(list, names)?, left))
                } else if let Some(x) = phrase.strip_prefix("cooked ") {
                    Some(PotSeen::Ready(parse_item(x.trim_end_matches(", ready to plate"), names)?))
                } else {
                    return None;
                };
                k.pots.push(PotView { pos: p, mine, mates, seen });
            } else if let Some(rest) = line.strip_prefix("Counter ") {
                let (p, after) = parse_xy(rest)?;
                let after = after.trim().strip_prefix('(')?;
                let (tag, item) = after.split_once("): ")?;
                let (mine, mates) = reach_tag(tag);
                k.counters.push(CounterView { pos: p, item: parse_item(item, names)?, mine, mates });
            } else if let Some(rest) = line.strip_prefix("You have handed over since the last dish: ") {
                for w in rest.split(", ") {
                    k.supplied.push(names.iter().position(|n| n == w)? as u8);
                }
            } else if let Some(rest) = line.strip_prefix("Ruled out by a wrong delivery: ") {
                for r in rest.split("; ") {
                    k.ruled_out.push(recipe_of(r)?);
                }
            } else if let Some(rest) = line.strip_prefix("You last pressed a recipe button at step ") {
                let (t, recipe) = match rest.split_once(", when the recipe was ") {
                    Some((t, r)) => (t, recipe_of(r)),
                    None => (rest, None),
                };
                k.last_press = Some((t.parse().ok()?, recipe));
            } else if let Some(rest) = line.strip_prefix("Button ") {
                let (p, _) = parse_xy(rest)?;
                k.lit_buttons.push(p);
            }
        }
        if ctx.recipes.len() == 1 && k.recipe == RecipeKnown::Unknown {
            k.recipe = RecipeKnown::Only(ctx.recipes[0]);
        }
        Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Chance, Layout};

    struct First;
    impl Chance for First {
        fn pick(&mut self, _n: usize) -> usize {
            0
        }
    }

    #[test]
    fn scene_reads_back_and_hides_what_is_out_of_view() {
        let layout = Layout::builtin("grounded_coord_ring").unwrap();
        let settings = Settings { view_radius: Some(2), ..Settings::default() };
        let mut state = layout.start_state(&settings, &mut First);
        // A tomato on a counter far from agent 0, a plate on one next to it.
        let far = layout.cells_of(Tile::Counter).find(|&p| !obs::visible(&settings, state.agents[0].pos, p)).unwrap();
        let near = layout.cells_of(Tile::Counter).find(|&p| obs::visible(&settings, state.agents[0].pos, p)).unwrap();
        let fi = layout.index(far).unwrap();
        let ni = layout.index(near).unwrap();
        state.items[fi] = Item::ingredient(1);
        state.items[ni] = Item::PLATE;
        let mut recall = Recall::default();
        let k = Knowledge::observe(&layout, &settings, &state, 0, &mut recall);
        let text = scene_text(&k);
        assert!(!text.contains(&format!("Counter ({}, {})", far.x, far.y)), "{text}");
        assert!(!text.contains("tomato"), "{text}");
        assert!(text.contains(&format!("Counter ({}, {})", near.x, near.y)), "{text}");
        let ctx = TextContext {
            names: layout.ingredient_names.clone(),
            recipes: layout.recipes.clone(),
            reach: k.reach.clone(),
            mate_reach: k.mate_reach.clone(),
            start_on_interact: false,
            negative_rewards: false,
            view_radius: Some(2),
            buttons: k.buttons.clone(),
        };
        let back = Knowledge::read(&text, &ctx).unwrap();
        assert_eq!(back, k, "{text}");
        let line = reach_text(&k.reach, &k.names);
        assert_eq!(parse_reach(&line, &k.names), Some(k.reach.clone()), "{line}");
    }

    #[test]
    fn items_read_back() {
        let names: Vec<String> = ["onion", "tomato"].iter().map(|s| s.to_string()).collect();
        for item in [
            Item::EMPTY,
            Item::PLATE,
            Item::ingredient(1),
            Recipe::new([0, 1, 1]).dish(),
            Recipe::new([0, 0, 0]).contents().cooked(),
        ] {
            assert_eq!(parse_item(&item.describe(&names), &names), Some(item));
        }
    }
}
