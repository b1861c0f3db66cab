//! Hanabi behind the runtime's game interface ([`proagent_core::Game`]): turn-based
//! ([`Turn::Player`]), per-player views that hide the viewer's own cards, events for what a
//! play, discard or hint did, a tally of the game's own counters, short action tokens, a
//! text table and the trajectory record.
//!
//! Guarantees: rewards follow the game's [`Scoring`] (HLE's by default: the change of HLE's
//! score, as HLE's `rl_env` rewards it); the tally records both scores whatever the
//! scoring. An illegal or missing action for the player to move is refused: the state does
//! not change and the step counts as idle. Events never carry the card dealt to the mover.

use crate::rules::{
    COLOR_CHARS, Card, EndReason, Hanabi, MAX_INFO_TOKENS, MAX_LIFE_TOKENS, Move, MoveRecord, NUM_COLORS, Scoring,
    State,
};
use crate::view::HanabiView;
use proagent_core::{Chance, Game, Turn};
use serde::Serialize;
use serde_json::{Value, json};

/// The most moves a game can last: every move but a hint takes a card from a hand (at
/// most 50 plus the hands' last cards), and hints are paid for by tokens (8 at the start,
/// one per discard or completed 5).
pub const MAX_MOVES: u32 = 256;

/// What one player's move did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HanabiEvent {
    /// A card was played.
    Play {
        /// Its index in the mover's hand.
        index: u8,
        /// The card (shown once played).
        card: String,
        /// Whether it went onto its firework (otherwise a life was lost).
        success: bool,
        /// Whether completing a firework regained an information token.
        bonus_token: bool,
    },
    /// A card was discarded.
    Discard {
        /// Its index in the mover's hand.
        index: u8,
        /// The card.
        card: String,
        /// Whether an information token was regained.
        token: bool,
    },
    /// A hint was given.
    Hint {
        /// The player told.
        target: usize,
        /// The colour letter or rank digit named.
        value: String,
        /// Indices of the target's cards it touched.
        cards: Vec<u8>,
    },
}

impl HanabiEvent {
    /// The event of a move record.
    pub fn from_record(r: &MoveRecord, players: usize) -> HanabiEvent {
        let card = r.card.map_or(String::new(), |c| c.to_string());
        match r.mv {
            Move::Play(i) => HanabiEvent::Play { index: i, card, success: r.scored, bonus_token: r.info_gained },
            Move::Discard(i) => HanabiEvent::Discard { index: i, card, token: r.info_gained },
            Move::RevealColor { color, .. } | Move::RevealRank { rank: color, .. } => HanabiEvent::Hint {
                target: r.target(players).unwrap_or(0),
                value: match r.mv {
                    Move::RevealColor { .. } => COLOR_CHARS[color as usize % NUM_COLORS].to_string(),
                    _ => (color + 1).to_string(),
                },
                cards: (0..8).filter(|i| r.reveal_mask & (1 << i) != 0).collect(),
            },
        }
    }
}

/// Everything one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HanabiOutcome {
    /// The player who moved (`None` if the step was refused).
    pub mover: Option<usize>,
    /// What the move did.
    pub record: Option<MoveRecord>,
    /// The card dealt to the mover afterwards (hidden from them; not part of the event).
    pub dealt: Option<Card>,
    /// The team reward under the game's scoring.
    pub reward: i32,
    /// The event of the move.
    pub event: Option<HanabiEvent>,
}

/// Per-game counters. Both scores are kept: `score` is HLE's (0 once all lives are lost),
/// `cards_played` the LLM-Coordination paper's.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HanabiTally {
    /// Moves made.
    pub moves: u32,
    /// Plays that went onto the fireworks.
    pub good_plays: u32,
    /// Plays that cost a life.
    pub lives_lost: u32,
    /// Discards.
    pub discards: u32,
    /// Colour hints given.
    pub color_hints: u32,
    /// Rank hints given.
    pub rank_hints: u32,
    /// Information tokens regained by completing a firework.
    pub bonus_tokens: u32,
    /// Refused (illegal or missing) actions.
    pub refused: u32,
    /// HLE's score after the last step.
    pub score: u8,
    /// Cards on the fireworks after the last step.
    pub cards_played: u8,
    /// How the game ended, once it has.
    pub end: Option<EndReason>,
}

impl HanabiTally {
    /// Hints given, both kinds.
    pub fn hints(&self) -> u32 {
        self.color_hints + self.rank_hints
    }
}

impl Hanabi {
    fn points(&self, s: &State) -> i32 {
        match self.scoring() {
            Scoring::Hle => i32::from(s.score()),
            Scoring::CardsPlayed => i32::from(s.cards_played()),
        }
    }
}

impl Game for Hanabi {
    type State = State;
    type Action = Move;
    type Event = HanabiEvent;
    type Outcome = HanabiOutcome;
    type Tally = HanabiTally;
    type View<'a> = HanabiView<'a>;

    fn kind(&self) -> &'static str {
        "hanabi"
    }
    fn spec(&self) -> String {
        Hanabi::spec(self)
    }
    fn num_players(&self) -> usize {
        self.players()
    }
    fn max_steps(&self) -> u32 {
        MAX_MOVES
    }
    fn initial_state(&self, chance: &mut dyn Chance) -> State {
        self.new_game(chance)
    }
    fn turn(&self, state: &State) -> Turn {
        if state.is_over() { Turn::Over } else { Turn::Player(state.current_player()) }
    }
    fn legal_actions(&self, view: HanabiView<'_>, player: usize) -> Vec<Move> {
        if player == view.observer() { view.legal_moves() } else { Vec::new() }
    }
    fn step(&self, state: &mut State, actions: &[Option<Move>], chance: &mut dyn Chance) -> HanabiOutcome {
        let me = state.current_player();
        let before = self.points(state);
        let applied = actions.get(me).copied().flatten().and_then(|m| self.apply(state, m, chance).ok());
        match applied {
            Some((record, dealt)) => HanabiOutcome {
                mover: Some(me),
                record: Some(record),
                dealt,
                reward: self.points(state) - before,
                event: Some(HanabiEvent::from_record(&record, self.players())),
            },
            None => HanabiOutcome { mover: None, record: None, dealt: None, reward: 0, event: None },
        }
    }
    fn reward(&self, outcome: &HanabiOutcome) -> i32 {
        outcome.reward
    }
    fn event<'o>(&self, outcome: &'o HanabiOutcome, player: usize) -> Option<&'o HanabiEvent> {
        (outcome.mover == Some(player)).then_some(outcome.event.as_ref()).flatten()
    }
    fn tally(&self, tally: &mut HanabiTally, _before: &State, after: &State, outcome: &HanabiOutcome) {
        match outcome.record {
            None => tally.refused += 1,
            Some(r) => {
                tally.moves += 1;
                match r.mv {
                    Move::Play(_) if r.scored => {
                        tally.good_plays += 1;
                        tally.bonus_tokens += u32::from(r.info_gained);
                    }
                    Move::Play(_) => tally.lives_lost += 1,
                    Move::Discard(_) => tally.discards += 1,
                    Move::RevealColor { .. } => tally.color_hints += 1,
                    Move::RevealRank { .. } => tally.rank_hints += 1,
                }
            }
        }
        tally.score = after.score();
        tally.cards_played = after.cards_played();
        tally.end = after.end_reason();
    }
    fn idle(&self, _before: &State, _after: &State, outcome: &HanabiOutcome) -> bool {
        outcome.record.is_none()
    }
    fn is_over(&self, state: &State) -> bool {
        state.is_over()
    }
    fn time(&self, state: &State) -> u32 {
        state.moves()
    }
    fn view<'a>(&'a self, state: &'a State, player: usize) -> HanabiView<'a> {
        HanabiView::new(self, state, player)
    }
    fn action_token(&self, action: Move) -> String {
        action.token()
    }
    fn parse_action(&self, token: &str) -> Option<Move> {
        Move::parse_token(token.trim()).filter(|&m| self.move_uid(m).is_some())
    }
    fn render_text(&self, state: &State) -> String {
        render_text(self, state)
    }
    fn state_json(&self, state: &State) -> Value {
        state_json(self, state)
    }
}

/// A card with its holder's knowledge, e.g. `R3 [RX|R12345]`.
fn card_cell(card: Card, k: &crate::rules::CardKnowledge) -> String {
    format!("{card} [{}]", k.hle_string())
}

/// The state as a readable table: header with tokens, fireworks, each hand with its
/// knowledge (HLE's `XX|RYGWB12345` notation), discards and the last move.
pub fn render_text(game: &Hanabi, s: &State) -> String {
    let mut out = String::new();
    let fw: Vec<String> = s.fireworks().iter().enumerate().map(|(c, h)| format!("{}{h}", COLOR_CHARS[c])).collect();
    let status = match s.end_reason() {
        Some(r) => format!(
            "game over ({})",
            serde_json::to_value(r).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
        ),
        None => format!("player {} to move", s.current_player()),
    };
    out.push_str(&format!(
        "{} - move {} - {status}\nfireworks {}  info {}/{MAX_INFO_TOKENS}  lives {}/{MAX_LIFE_TOKENS}  deck {}  score {} (cards played {})\n",
        game.spec(),
        s.moves(),
        fw.join(" "),
        s.info_tokens(),
        s.life_tokens(),
        s.deck_size(),
        s.score(),
        s.cards_played()
    ));
    for p in 0..game.players() {
        let hand = s.hand(p);
        let cells: Vec<String> = hand.cards().iter().zip(hand.knowledge()).map(|(c, k)| card_cell(*c, k)).collect();
        let mark = if !s.is_over() && s.current_player() == p { '>' } else { ' ' };
        out.push_str(&format!("{mark} player {p}: {}\n", cells.join("  ")));
    }
    let d: Vec<String> = s.discards().iter().map(|c| c.to_string()).collect();
    out.push_str(&format!("discards: {}\n", if d.is_empty() { "-".to_string() } else { d.join(" ") }));
    if let Some(r) = s.last_move() {
        out.push_str(&format!("last move: player {} {}", r.player, r.mv.hle_string()));
        if let Some(c) = r.card {
            out.push_str(&format!(
                " -> {c}{}",
                if matches!(r.mv, Move::Play(_)) && !r.scored { " (misplay)" } else { "" }
            ));
        }
        out.push('\n');
    }
    out
}

/// The knowledge of one card as JSON: hinted colour/rank (or null) and plausible values.
pub fn knowledge_json(k: &crate::rules::CardKnowledge) -> Value {
    let colors: String =
        (0..NUM_COLORS as u8).filter(|&c| k.color_plausible(c)).map(|c| COLOR_CHARS[c as usize]).collect();
    let ranks: String = (0..5u8).filter(|&r| k.rank_plausible(r)).map(|r| char::from(b'1' + r)).collect();
    json!({
        "color": k.color().map(|c| COLOR_CHARS[c as usize % NUM_COLORS].to_string()),
        "rank": k.rank().map(|r| r + 1),
        "colors": colors,
        "ranks": ranks,
    })
}

/// The trajectory record of a state (everything, hidden cards included).
pub fn state_json(game: &Hanabi, s: &State) -> Value {
    let hands: Vec<Vec<String>> =
        (0..game.players()).map(|p| s.hand(p).cards().iter().map(|c| c.to_string()).collect()).collect();
    let knowledge: Vec<Vec<Value>> =
        (0..game.players()).map(|p| s.hand(p).knowledge().iter().map(knowledge_json).collect()).collect();
    json!({
        "players": game.players(),
        "current_player": s.current_player(),
        "moves": s.moves(),
        "hands": hands,
        "knowledge": knowledge,
        "fireworks": s.fireworks(),
        "info_tokens": s.info_tokens(),
        "life_tokens": s.life_tokens(),
        "deck_size": s.deck_size(),
        "discards": s.discards().iter().map(|c| c.to_string()).collect::<Vec<_>>(),
        "score": s.score(),
        "cards_played": s.cards_played(),
        "turns_to_play": s.turns_to_play(),
        "end": s.end_reason(),
        "last_move": s.last_move().map(|r| json!({"player": r.player, "move": r.mv.token(), "event": HanabiEvent::from_record(r, game.players())})),
    })
}
