//! What one player may see of a Hanabi state: everybody's cards but their own, everybody's
//! hint knowledge (their own included), the fireworks, tokens, deck size, discards and the
//! last move.
//!
//! Guarantee: a [`HanabiView`] cannot show its observer's cards. It keeps the state
//! private and every accessor that returns cards refuses the observer's hand; the remaining
//! deck's composition (which would reveal the observer's hand by subtraction) is not
//! offered either.

use crate::rules::{Card, CardKnowledge, Hanabi, Move, MoveRecord, NUM_COLORS, State};

/// One player's view of a state. Its `Debug` output shows only what the observer sees.
#[derive(Copy, Clone)]
pub struct HanabiView<'a> {
    game: &'a Hanabi,
    state: &'a State,
    observer: usize,
}

impl std::fmt::Debug for HanabiView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hands: Vec<Option<Vec<String>>> = (0..self.num_players())
            .map(|p| self.cards(p).map(|cs| cs.iter().map(ToString::to_string).collect()))
            .collect();
        f.debug_struct("HanabiView")
            .field("observer", &self.observer)
            .field("hands", &hands)
            .field("fireworks", &self.fireworks())
            .field("info_tokens", &self.info_tokens())
            .field("life_tokens", &self.life_tokens())
            .field("deck_size", &self.deck_size())
            .finish_non_exhaustive()
    }
}

impl<'a> HanabiView<'a> {
    /// The view of `observer`.
    pub fn new(game: &'a Hanabi, state: &'a State, observer: usize) -> HanabiView<'a> {
        HanabiView { game, state, observer }
    }
    /// The game (rules and player count).
    pub fn game(&self) -> &'a Hanabi {
        self.game
    }
    /// The player who sees this.
    pub fn observer(&self) -> usize {
        self.observer
    }
    /// Number of players.
    pub fn num_players(&self) -> usize {
        self.game.players()
    }
    /// The player `offset` seats after the observer.
    pub fn player_at(&self, offset: usize) -> usize {
        (self.observer + offset) % self.num_players()
    }
    /// Seats from the observer to `player` (0 for the observer).
    pub fn offset_of(&self, player: usize) -> usize {
        (player + self.num_players() - self.observer % self.num_players()) % self.num_players()
    }
    /// The player to move.
    pub fn current_player(&self) -> usize {
        self.state.current_player()
    }
    /// Whether it is the observer's turn.
    pub fn my_turn(&self) -> bool {
        !self.state.is_over() && self.state.current_player() == self.observer
    }
    /// Player `player`'s cards, oldest first; `None` for the observer's own hand.
    pub fn cards(&self, player: usize) -> Option<&'a [Card]> {
        (player != self.observer && player < self.num_players()).then(|| self.state.hand(player).cards())
    }
    /// How many cards `player` holds (known for every hand).
    pub fn hand_len(&self, player: usize) -> usize {
        self.state.hand(player).len()
    }
    /// What `player` knows of each of their cards from hints (public to all).
    pub fn knowledge(&self, player: usize) -> &'a [CardKnowledge] {
        self.state.hand(player).knowledge()
    }
    /// The observer's knowledge of their own cards.
    pub fn my_knowledge(&self) -> &'a [CardKnowledge] {
        self.knowledge(self.observer)
    }
    /// Height of each firework.
    pub fn fireworks(&self) -> [u8; NUM_COLORS] {
        self.state.fireworks()
    }
    /// Information tokens available.
    pub fn info_tokens(&self) -> u8 {
        self.state.info_tokens()
    }
    /// Life tokens left.
    pub fn life_tokens(&self) -> u8 {
        self.state.life_tokens()
    }
    /// Cards left in the deck.
    pub fn deck_size(&self) -> usize {
        self.state.deck_size()
    }
    /// The discard pile (misplays included), oldest first.
    pub fn discards(&self) -> &'a [Card] {
        self.state.discards()
    }
    /// The last move and what it did.
    pub fn last_move(&self) -> Option<&'a MoveRecord> {
        self.state.last_move()
    }
    /// HLE's score so far.
    pub fn score(&self) -> u8 {
        self.state.score()
    }
    /// Cards on the fireworks.
    pub fn cards_played(&self) -> u8 {
        self.state.cards_played()
    }
    /// Moves made so far.
    pub fn moves(&self) -> u32 {
        self.state.moves()
    }
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.state.is_over()
    }
    /// Whether `card` is the next card of its firework.
    pub fn playable(&self, card: Card) -> bool {
        self.state.playable(card)
    }
    /// The observer's legal moves in HLE's order (empty when it is not their turn). These
    /// depend only on public information: tokens, hand sizes and the others' cards.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.game.legal_moves(self.state, self.observer)
    }
    /// HLE's legal-move bit mask over uids for the observer (0 when not their turn).
    pub fn legal_mask(&self) -> u64 {
        if self.my_turn() { self.game.legal_mask(self.state) } else { 0 }
    }
    /// Whether `m` is one of the observer's legal moves now.
    pub fn is_legal(&self, m: Move) -> bool {
        self.game.move_uid(m).is_some_and(|uid| self.legal_mask() & (1 << uid) != 0)
    }
    /// Copies of each card kind not visible to the observer: not on the fireworks, not
    /// discarded, not in another player's hand (so in the deck or the observer's hand).
    pub fn unseen_counts(&self) -> [u8; 25] {
        let mut left = [0u8; 25];
        for (i, n) in left.iter_mut().enumerate() {
            *n = crate::rules::COPIES[i % 5];
        }
        let fw = self.fireworks();
        for (c, &h) in fw.iter().enumerate() {
            for r in 0..h as usize {
                left[c * 5 + r] = left[c * 5 + r].saturating_sub(1);
            }
        }
        for d in self.discards() {
            left[d.index()] = left[d.index()].saturating_sub(1);
        }
        for p in 0..self.num_players() {
            if let Some(cards) = self.cards(p) {
                for c in cards {
                    left[c.index()] = left[c.index()].saturating_sub(1);
                }
            }
        }
        left
    }
}
