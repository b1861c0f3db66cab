//! The rules of Hanabi exactly as DeepMind's Hanabi Learning Environment (HLE, 0.0.4)
//! applies them with its default parameters: cards, card knowledge, moves and their HLE
//! indices, legality, dealing, scoring and the end of the game.
//!
//! Guarantees:
//! - **HLE's moves and order.** [`Move`]s map to and from HLE's move uids
//!   ([`Hanabi::move_uid`], [`Hanabi::move_from_uid`]): discards `0..h`, plays `h..2h`, colour
//!   reveals by target offset then colour, rank reveals by target offset then rank.
//!   [`Hanabi::legal_moves`] lists the legal moves in uid order, as HLE does.
//! - **HLE's legality.** No discard at the maximum of information tokens, no hint at zero,
//!   a hint must touch at least one card of the target, card indices must exist.
//! - **HLE's deal.** No shuffle up front: every draw takes one card of the remaining deck
//!   at random, each remaining card equally likely (HLE weights card kinds by their counts).
//!   The draw is one [`Chance::pick`] over the remaining cards ordered by kind
//!   (`colour * 5 + rank`), so a recorded deal replays ([`deal_picks`]). Hands are dealt
//!   player 0 first, then 1, ...; a replacement goes to the end of the hand.
//! - **HLE's end.** The game ends when the last life token is lost, when all five
//!   fireworks are complete, or when every player (including the one who drew the last
//!   card) has had one more turn after the deck ran out.
//! - **Both scores.** [`State::score`] is HLE's (0 once all lives are lost);
//!   [`State::cards_played`] is the LLM-Coordination paper's (cards on the fireworks).
//! - **Total.** Nothing here panics on any move, state or chance value; an illegal move is
//!   refused ([`HanabiError::Illegal`]) and leaves the state unchanged.

use proagent_core::Chance;
use std::fmt;

/// Number of colours.
pub const NUM_COLORS: usize = 5;
/// Number of ranks.
pub const NUM_RANKS: usize = 5;
/// HLE's colour letters, in colour-index order.
pub const COLOR_CHARS: [char; NUM_COLORS] = ['R', 'Y', 'G', 'W', 'B'];
/// Colour names for text meant for people, in colour-index order.
pub const COLOR_NAMES: [&str; NUM_COLORS] = ["red", "yellow", "green", "white", "blue"];
/// Copies of each rank in each colour (ranks 1 to 5).
pub const COPIES: [u8; NUM_RANKS] = [3, 2, 2, 2, 1];
/// Cards in a full deck.
pub const DECK_CARDS: usize = 50;
/// Most players a game may have.
pub const MAX_PLAYERS: usize = 5;
/// Largest hand (2 or 3 players).
pub const MAX_HAND: usize = 5;
/// Information tokens at the start (and the most there can be).
pub const MAX_INFO_TOKENS: u8 = 8;
/// Life tokens at the start.
pub const MAX_LIFE_TOKENS: u8 = 3;
/// The best score.
pub const MAX_SCORE: u8 = 25;

/// One card. `rank` is 0-based (0 is a "1"), as in HLE.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Card {
    /// Colour index into [`COLOR_CHARS`].
    pub color: u8,
    /// Rank, 0-based.
    pub rank: u8,
}

impl Card {
    /// A card from its colour and 0-based rank.
    pub const fn new(color: u8, rank: u8) -> Card {
        Card { color, rank }
    }

    /// HLE's card index `colour * 5 + rank`.
    pub fn index(self) -> usize {
        self.color as usize * NUM_RANKS + self.rank as usize
    }

    /// The card of an index `0..25` (wraps larger indices).
    pub fn from_index(i: usize) -> Card {
        let i = i % (NUM_COLORS * NUM_RANKS);
        Card { color: (i / NUM_RANKS) as u8, rank: (i % NUM_RANKS) as u8 }
    }

    /// Reads HLE's two-character form (`R1` .. `B5`).
    pub fn parse(s: &str) -> Option<Card> {
        let mut it = s.chars();
        let (c, r) = (it.next()?, it.next()?);
        if it.next().is_some() {
            return None;
        }
        let color = COLOR_CHARS.iter().position(|&x| x == c)? as u8;
        let rank = r.to_digit(10)?.checked_sub(1)? as u8;
        (rank < NUM_RANKS as u8).then_some(Card { color, rank })
    }

    /// The colour letter.
    pub fn color_char(self) -> char {
        COLOR_CHARS[self.color as usize % NUM_COLORS]
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.color_char(), self.rank + 1)
    }
}

/// What a card's holder knows of it from hints, as HLE tracks it: the colour and rank
/// directly hinted (if any) and which colours and ranks are still plausible after every
/// positive and negative hint. Counting cards seen elsewhere is not part of it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CardKnowledge {
    color: Option<u8>,
    rank: Option<u8>,
    colors: u8,
    ranks: u8,
}

impl Default for CardKnowledge {
    fn default() -> Self {
        CardKnowledge { color: None, rank: None, colors: (1 << NUM_COLORS) - 1, ranks: (1 << NUM_RANKS) - 1 }
    }
}

impl CardKnowledge {
    /// The colour a hint named for this card, if any (HLE's `ColorHinted`/`Color`).
    pub fn color(&self) -> Option<u8> {
        self.color
    }
    /// The rank a hint named for this card, if any.
    pub fn rank(&self) -> Option<u8> {
        self.rank
    }
    /// Whether colour `c` is still possible.
    pub fn color_plausible(&self, c: u8) -> bool {
        c < NUM_COLORS as u8 && self.colors & (1 << c) != 0
    }
    /// Whether rank `r` is still possible.
    pub fn rank_plausible(&self, r: u8) -> bool {
        r < NUM_RANKS as u8 && self.ranks & (1 << r) != 0
    }
    /// The plausible colours as a bit mask (bit `c`).
    pub fn color_mask(&self) -> u8 {
        self.colors
    }
    /// The plausible ranks as a bit mask (bit `r`).
    pub fn rank_mask(&self) -> u8 {
        self.ranks
    }
    /// Whether `card` is consistent with this knowledge.
    pub fn allows(&self, card: Card) -> bool {
        self.color_plausible(card.color) && self.rank_plausible(card.rank)
    }
    /// Knowledge with the given hinted values and plausible masks (for traces and tests).
    pub fn from_parts(color: Option<u8>, rank: Option<u8>, colors: u8, ranks: u8) -> CardKnowledge {
        CardKnowledge { color, rank, colors: colors & 0x1f, ranks: ranks & 0x1f }
    }
    fn hint_color(&mut self, c: u8, matches: bool) {
        if matches {
            self.color = Some(c);
            self.colors = 1 << c;
        } else {
            self.colors &= !(1 << c);
        }
    }
    fn hint_rank(&mut self, r: u8, matches: bool) {
        if matches {
            self.rank = Some(r);
            self.ranks = 1 << r;
        } else {
            self.ranks &= !(1 << r);
        }
    }

    /// HLE's text form: hinted colour and rank (`X` if none), then the plausible values,
    /// e.g. `RX|R12345`.
    pub fn hle_string(&self) -> String {
        let mut s = String::with_capacity(13);
        s.push(self.color.map_or('X', |c| COLOR_CHARS[c as usize % NUM_COLORS]));
        s.push(self.rank.map_or('X', |r| char::from(b'1' + r)));
        s.push('|');
        for c in 0..NUM_COLORS as u8 {
            if self.color_plausible(c) {
                s.push(COLOR_CHARS[c as usize]);
            }
        }
        for r in 0..NUM_RANKS as u8 {
            if self.rank_plausible(r) {
                s.push(char::from(b'1' + r));
            }
        }
        s
    }
}

/// One player's move, as HLE names them. Hint targets are offsets from the mover
/// (1 = the next player).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Move {
    /// Discard the card at this index of one's own hand.
    Discard(u8),
    /// Play the card at this index of one's own hand.
    Play(u8),
    /// Tell the player `offset` seats on which of their cards have `color`.
    RevealColor {
        /// Seats after the mover (1 ..= players-1).
        offset: u8,
        /// Colour index.
        color: u8,
    },
    /// Tell the player `offset` seats on which of their cards have `rank` (0-based).
    RevealRank {
        /// Seats after the mover (1 ..= players-1).
        offset: u8,
        /// Rank, 0-based.
        rank: u8,
    },
}

impl Move {
    /// HLE's text form: `(Discard 0)`, `(Play 2)`, `(Reveal player +1 color R)`,
    /// `(Reveal player +1 rank 3)`.
    pub fn hle_string(self) -> String {
        match self {
            Move::Discard(i) => format!("(Discard {i})"),
            Move::Play(i) => format!("(Play {i})"),
            Move::RevealColor { offset, color } => {
                format!("(Reveal player +{offset} color {})", COLOR_CHARS[color as usize % NUM_COLORS])
            }
            Move::RevealRank { offset, rank } => format!("(Reveal player +{offset} rank {})", rank + 1),
        }
    }

    /// The short token of transcripts: `D0`, `P2`, `H1R` (colour hint to the next
    /// player), `H13` (rank-3 hint to the next player).
    pub fn token(self) -> String {
        match self {
            Move::Discard(i) => format!("D{i}"),
            Move::Play(i) => format!("P{i}"),
            Move::RevealColor { offset, color } => format!("H{offset}{}", COLOR_CHARS[color as usize % NUM_COLORS]),
            Move::RevealRank { offset, rank } => format!("H{offset}{}", rank + 1),
        }
    }

    /// Reads a token written by [`Move::token`] (no range checks against a game).
    pub fn parse_token(s: &str) -> Option<Move> {
        let b = s.as_bytes();
        match b {
            [b'D', d] if d.is_ascii_digit() => Some(Move::Discard(d - b'0')),
            [b'P', d] if d.is_ascii_digit() => Some(Move::Play(d - b'0')),
            [b'H', o, x] if o.is_ascii_digit() => {
                let offset = o - b'0';
                if let Some(color) = COLOR_CHARS.iter().position(|&c| c as u8 == *x) {
                    Some(Move::RevealColor { offset, color: color as u8 })
                } else if (b'1'..=b'5').contains(x) {
                    Some(Move::RevealRank { offset, rank: x - b'1' })
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Whether this is a hint.
    pub fn is_hint(self) -> bool {
        matches!(self, Move::RevealColor { .. } | Move::RevealRank { .. })
    }
}

/// One hand: cards in order (index 0 is the oldest) with their holder's knowledge.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct Hand {
    cards: [Card; MAX_HAND],
    know: [CardKnowledge; MAX_HAND],
    len: u8,
}

impl Hand {
    /// The cards, oldest first.
    pub fn cards(&self) -> &[Card] {
        &self.cards[..self.len as usize]
    }
    /// The holder's knowledge of each card, in the same order.
    pub fn knowledge(&self) -> &[CardKnowledge] {
        &self.know[..self.len as usize]
    }
    /// Number of cards.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the hand has no cards.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn push(&mut self, card: Card) {
        if (self.len as usize) < MAX_HAND {
            self.cards[self.len as usize] = card;
            self.know[self.len as usize] = CardKnowledge::default();
            self.len += 1;
        }
    }
    fn remove(&mut self, i: usize) -> Card {
        let n = self.len as usize;
        let card = self.cards[i];
        self.cards.copy_within(i + 1..n, i);
        self.know.copy_within(i + 1..n, i);
        self.len -= 1;
        card
    }
    /// Bit mask of the cards of colour `c`.
    pub fn color_mask(&self, c: u8) -> u8 {
        self.cards().iter().enumerate().filter(|(_, k)| k.color == c).fold(0, |m, (i, _)| m | 1 << i)
    }
    /// Bit mask of the cards of rank `r`.
    pub fn rank_mask(&self, r: u8) -> u8 {
        self.cards().iter().enumerate().filter(|(_, k)| k.rank == r).fold(0, |m, (i, _)| m | 1 << i)
    }
}

/// What one move did, as HLE's history item records it (the card dealt after it is not
/// part of it: that card is hidden from its holder).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MoveRecord {
    /// The player who moved.
    pub player: u8,
    /// The move.
    pub mv: Move,
    /// The card played or discarded.
    pub card: Option<Card>,
    /// A play that went onto the fireworks.
    pub scored: bool,
    /// The move gained an information token (a discard below the maximum, or a completed 5).
    pub info_gained: bool,
    /// Hints: which cards of the target matched (bit `i` = card `i`).
    pub reveal_mask: u8,
    /// Hints: which matching cards had not had that kind of value hinted before.
    pub newly_revealed: u8,
}

impl MoveRecord {
    /// The absolute player a hint went to.
    pub fn target(&self, players: usize) -> Option<usize> {
        match self.mv {
            Move::RevealColor { offset, .. } | Move::RevealRank { offset, .. } => {
                Some((self.player as usize + offset as usize) % players.max(1))
            }
            _ => None,
        }
    }
}

/// How a game ended (HLE's `EndOfGameType`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// All life tokens lost (HLE score 0).
    OutOfLifeTokens,
    /// All fireworks complete (25).
    CompletedFireworks,
    /// The final round after the deck ran out is over.
    OutOfCards,
}

/// Everything about one game in progress, hidden cards included.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct State {
    players: u8,
    hands: [Hand; MAX_PLAYERS],
    deck: [u8; NUM_COLORS * NUM_RANKS],
    deck_size: u8,
    fireworks: [u8; NUM_COLORS],
    info: u8,
    life: u8,
    discards: [Card; DECK_CARDS],
    n_discards: u8,
    cur: u8,
    turns_to_play: u8,
    moves: u32,
    last: Option<MoveRecord>,
}

impl State {
    /// Number of players.
    pub fn num_players(&self) -> usize {
        self.players as usize
    }
    /// Player `p`'s hand (an empty hand for a player who does not exist).
    pub fn hand(&self, p: usize) -> &Hand {
        &self.hands[p % MAX_PLAYERS]
    }
    /// Cards left in the deck.
    pub fn deck_size(&self) -> usize {
        self.deck_size as usize
    }
    /// Remaining copies of each card kind in the deck, by card index (hidden information).
    pub fn deck_counts(&self) -> &[u8; NUM_COLORS * NUM_RANKS] {
        &self.deck
    }
    /// Height of each firework (0 = nothing played).
    pub fn fireworks(&self) -> [u8; NUM_COLORS] {
        self.fireworks
    }
    /// Information tokens available.
    pub fn info_tokens(&self) -> u8 {
        self.info
    }
    /// Life tokens left.
    pub fn life_tokens(&self) -> u8 {
        self.life
    }
    /// The discard pile in the order cards arrived (misplayed cards included).
    pub fn discards(&self) -> &[Card] {
        &self.discards[..self.n_discards as usize]
    }
    /// The player to move (meaningless once the game is over).
    pub fn current_player(&self) -> usize {
        self.cur as usize
    }
    /// Moves made by players so far (deals are not counted).
    pub fn moves(&self) -> u32 {
        self.moves
    }
    /// The last move and what it did.
    pub fn last_move(&self) -> Option<&MoveRecord> {
        self.last.as_ref()
    }
    /// Turns left after the deck ran out (HLE's `turns_to_play`; equal to the number of
    /// players while the deck lasts).
    pub fn turns_to_play(&self) -> u8 {
        self.turns_to_play
    }
    /// Cards on the fireworks: the LLM-Coordination paper's score.
    pub fn cards_played(&self) -> u8 {
        self.fireworks.iter().sum()
    }
    /// HLE's score: cards on the fireworks, or 0 once all life tokens are lost.
    pub fn score(&self) -> u8 {
        if self.life == 0 { 0 } else { self.cards_played() }
    }
    /// Whether `card` is the next card of its firework.
    pub fn playable(&self, card: Card) -> bool {
        self.fireworks.get(card.color as usize).is_some_and(|&h| h == card.rank)
    }
    /// Why the game is over, if it is (HLE's order of checks).
    pub fn end_reason(&self) -> Option<EndReason> {
        if self.life == 0 {
            Some(EndReason::OutOfLifeTokens)
        } else if self.cards_played() >= MAX_SCORE {
            Some(EndReason::CompletedFireworks)
        } else if self.turns_to_play == 0 {
            Some(EndReason::OutOfCards)
        } else {
            None
        }
    }
    /// Whether the game is over.
    pub fn is_over(&self) -> bool {
        self.end_reason().is_some()
    }

    fn draw(&mut self, chance: &mut dyn Chance) -> Option<Card> {
        if self.deck_size == 0 {
            return None;
        }
        let mut k = chance.pick(self.deck_size as usize) % self.deck_size as usize;
        for (i, n) in self.deck.iter_mut().enumerate() {
            if k < *n as usize {
                *n -= 1;
                self.deck_size -= 1;
                return Some(Card::from_index(i));
            }
            k -= *n as usize;
        }
        None
    }
}

/// Why a move or configuration was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HanabiError {
    /// The move is not legal in this state (or the game is over).
    #[error("illegal move {0} for player {1}")]
    Illegal(String, usize),
    /// A spec or player count that is not a Hanabi game.
    #[error("unknown Hanabi game '{0}': use hanabi (2 players) or hanabi:3p, hanabi:4p, hanabi:5p")]
    Spec(String),
}

/// How rewards and reports count points.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// HLE's score: cards played, 0 once all lives are lost (rewards are its changes,
    /// as in HLE's `rl_env`).
    #[default]
    Hle,
    /// The LLM-Coordination paper's score: cards played, kept when the lives run out.
    CardsPlayed,
}

/// One configured game of Hanabi: player count and HLE's default parameters.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Hanabi {
    players: u8,
    hand_size: u8,
    scoring: Scoring,
}

impl Hanabi {
    /// A game for 2 to 5 players (hand of 5 for 2–3 players, 4 for 4–5).
    pub fn new(players: usize) -> Result<Hanabi, HanabiError> {
        if !(2..=MAX_PLAYERS).contains(&players) {
            return Err(HanabiError::Spec(format!("{players} players")));
        }
        let hand_size = if players <= 3 { 5 } else { 4 };
        Ok(Hanabi { players: players as u8, hand_size, scoring: Scoring::Hle })
    }

    /// The game named on the command line: `hanabi` (2 players), `hanabi:2p` … `hanabi:5p`.
    pub fn from_spec(spec: &str) -> Result<Hanabi, HanabiError> {
        let players = match spec.trim() {
            "hanabi" => 2,
            s => s
                .strip_prefix("hanabi:")
                .and_then(|p| p.strip_suffix('p'))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| HanabiError::Spec(spec.to_string()))?,
        };
        Hanabi::new(players).map_err(|_| HanabiError::Spec(spec.to_string()))
    }

    /// The same game counting points the other way.
    pub fn with_scoring(mut self, scoring: Scoring) -> Hanabi {
        self.scoring = scoring;
        self
    }
    /// How this game counts points.
    pub fn scoring(&self) -> Scoring {
        self.scoring
    }
    /// Number of players.
    pub fn players(&self) -> usize {
        self.players as usize
    }
    /// Cards in a full hand.
    pub fn hand_size(&self) -> usize {
        self.hand_size as usize
    }
    /// The spec naming this game.
    pub fn spec(&self) -> String {
        if self.players == 2 { "hanabi".to_string() } else { format!("hanabi:{}p", self.players) }
    }

    /// The number of move uids (HLE's `MaxMoves`).
    pub fn max_moves(&self) -> usize {
        2 * self.hand_size() + (self.players() - 1) * (NUM_COLORS + NUM_RANKS)
    }

    /// HLE's uid of a move, or `None` for a move outside this game's ranges.
    pub fn move_uid(&self, m: Move) -> Option<usize> {
        let (h, n) = (self.hand_size(), self.players());
        let hints = 2 * h;
        let ranks = hints + (n - 1) * NUM_COLORS;
        match m {
            Move::Discard(i) if (i as usize) < h => Some(i as usize),
            Move::Play(i) if (i as usize) < h => Some(h + i as usize),
            Move::RevealColor { offset, color }
                if (1..n).contains(&(offset as usize)) && (color as usize) < NUM_COLORS =>
            {
                Some(hints + (offset as usize - 1) * NUM_COLORS + color as usize)
            }
            Move::RevealRank { offset, rank } if (1..n).contains(&(offset as usize)) && (rank as usize) < NUM_RANKS => {
                Some(ranks + (offset as usize - 1) * NUM_RANKS + rank as usize)
            }
            _ => None,
        }
    }

    /// The move of an HLE uid.
    pub fn move_from_uid(&self, uid: usize) -> Option<Move> {
        let (h, n) = (self.hand_size(), self.players());
        let hints = 2 * h;
        let ranks = hints + (n - 1) * NUM_COLORS;
        if uid < h {
            Some(Move::Discard(uid as u8))
        } else if uid < hints {
            Some(Move::Play((uid - h) as u8))
        } else if uid < ranks {
            let k = uid - hints;
            Some(Move::RevealColor { offset: (k / NUM_COLORS + 1) as u8, color: (k % NUM_COLORS) as u8 })
        } else if uid < self.max_moves() {
            let k = uid - ranks;
            Some(Move::RevealRank { offset: (k / NUM_RANKS + 1) as u8, rank: (k % NUM_RANKS) as u8 })
        } else {
            None
        }
    }

    /// A new game: full tokens, hands dealt player 0 first, player 0 to move.
    pub fn new_game(&self, chance: &mut dyn Chance) -> State {
        let mut deck = [0u8; NUM_COLORS * NUM_RANKS];
        for (i, n) in deck.iter_mut().enumerate() {
            *n = COPIES[i % NUM_RANKS];
        }
        let mut s = State {
            players: self.players,
            hands: [Hand::default(); MAX_PLAYERS],
            deck,
            deck_size: DECK_CARDS as u8,
            fireworks: [0; NUM_COLORS],
            info: MAX_INFO_TOKENS,
            life: MAX_LIFE_TOKENS,
            discards: [Card::default(); DECK_CARDS],
            n_discards: 0,
            cur: 0,
            turns_to_play: self.players,
            moves: 0,
            last: None,
        };
        for p in 0..self.players() {
            for _ in 0..self.hand_size() {
                if let Some(c) = s.draw(chance) {
                    s.hands[p].push(c);
                }
            }
        }
        s
    }

    /// The legal moves of the player to move as a bit mask over uids (bit `uid`); 0 when
    /// the game is over.
    pub fn legal_mask(&self, s: &State) -> u64 {
        if s.is_over() {
            return 0;
        }
        let (h, n) = (self.hand_size(), self.players());
        let me = s.cur as usize % MAX_PLAYERS;
        let held = s.hands[me].len as u64;
        let full = (1u64 << held) - 1;
        let mut mask = full << h;
        if s.info < MAX_INFO_TOKENS {
            mask |= full;
        }
        if s.info > 0 {
            let hints = 2 * h;
            let ranks = hints + (n - 1) * NUM_COLORS;
            for off in 1..n {
                let hand = &s.hands[(me + off) % n];
                let (mut cm, mut rm) = (0u64, 0u64);
                for c in hand.cards() {
                    cm |= 1 << c.color;
                    rm |= 1 << c.rank;
                }
                mask |= cm << (hints + (off - 1) * NUM_COLORS);
                mask |= rm << (ranks + (off - 1) * NUM_RANKS);
            }
        }
        mask
    }

    /// The legal moves of `player` in uid order (empty when it is not their turn).
    pub fn legal_moves(&self, s: &State, player: usize) -> Vec<Move> {
        if player != s.cur as usize {
            return Vec::new();
        }
        let mut mask = self.legal_mask(s);
        let mut out = Vec::with_capacity(mask.count_ones() as usize);
        while mask != 0 {
            let uid = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if let Some(m) = self.move_from_uid(uid) {
                out.push(m);
            }
        }
        out
    }

    /// Whether the player to move may make `m`.
    pub fn is_legal(&self, s: &State, m: Move) -> bool {
        self.move_uid(m).is_some_and(|uid| self.legal_mask(s) & (1 << uid) != 0)
    }

    /// Applies the current player's move, then deals them a replacement card if the deck
    /// has one, then passes the turn. Returns what the move did and the card dealt.
    pub fn apply(
        &self,
        s: &mut State,
        m: Move,
        chance: &mut dyn Chance,
    ) -> Result<(MoveRecord, Option<Card>), HanabiError> {
        if !self.is_legal(s, m) {
            return Err(HanabiError::Illegal(m.hle_string(), s.cur as usize));
        }
        let n = self.players();
        let me = s.cur as usize;
        if s.deck_size == 0 {
            s.turns_to_play = s.turns_to_play.saturating_sub(1);
        }
        let mut rec = MoveRecord {
            player: s.cur,
            mv: m,
            card: None,
            scored: false,
            info_gained: false,
            reveal_mask: 0,
            newly_revealed: 0,
        };
        match m {
            Move::Discard(i) => {
                let card = s.hands[me].remove(i as usize);
                rec.card = Some(card);
                if s.info < MAX_INFO_TOKENS {
                    s.info += 1;
                    rec.info_gained = true;
                }
                s.discards[s.n_discards as usize] = card;
                s.n_discards += 1;
            }
            Move::Play(i) => {
                let card = s.hands[me].remove(i as usize);
                rec.card = Some(card);
                if s.playable(card) {
                    s.fireworks[card.color as usize] += 1;
                    rec.scored = true;
                    if s.fireworks[card.color as usize] == NUM_RANKS as u8 && s.info < MAX_INFO_TOKENS {
                        s.info += 1;
                        rec.info_gained = true;
                    }
                } else {
                    s.life = s.life.saturating_sub(1);
                    s.discards[s.n_discards as usize] = card;
                    s.n_discards += 1;
                }
            }
            Move::RevealColor { offset, color } => {
                s.info -= 1;
                let hand = &mut s.hands[(me + offset as usize) % n];
                for i in 0..hand.len as usize {
                    let hit = hand.cards[i].color == color;
                    if hit {
                        rec.reveal_mask |= 1 << i;
                        if hand.know[i].color.is_none() {
                            rec.newly_revealed |= 1 << i;
                        }
                    }
                    hand.know[i].hint_color(color, hit);
                }
            }
            Move::RevealRank { offset, rank } => {
                s.info -= 1;
                let hand = &mut s.hands[(me + offset as usize) % n];
                for i in 0..hand.len as usize {
                    let hit = hand.cards[i].rank == rank;
                    if hit {
                        rec.reveal_mask |= 1 << i;
                        if hand.know[i].rank.is_none() {
                            rec.newly_revealed |= 1 << i;
                        }
                    }
                    hand.know[i].hint_rank(rank, hit);
                }
            }
        }
        let mut dealt = None;
        if (s.hands[me].len as usize) < self.hand_size() {
            dealt = s.draw(chance);
            if let Some(c) = dealt {
                s.hands[me].push(c);
            }
        }
        s.last = Some(rec);
        s.moves += 1;
        s.cur = ((me + 1) % n) as u8;
        Ok((rec, dealt))
    }
}

/// The chance picks that make [`Hanabi::new_game`] and [`Hanabi::apply`] deal exactly
/// `cards` in this order (a recorded deal), or the index of the first card that a full deck
/// no longer holds at that point.
pub fn deal_picks(cards: &[Card]) -> Result<Vec<usize>, usize> {
    let mut deck = [0u8; NUM_COLORS * NUM_RANKS];
    for (i, n) in deck.iter_mut().enumerate() {
        *n = COPIES[i % NUM_RANKS];
    }
    let mut out = Vec::with_capacity(cards.len());
    for (k, c) in cards.iter().enumerate() {
        let i = c.index();
        if c.color as usize >= NUM_COLORS || c.rank as usize >= NUM_RANKS || deck[i] == 0 {
            return Err(k);
        }
        out.push(deck[..i].iter().map(|&n| n as usize).sum());
        deck[i] -= 1;
    }
    Ok(out)
}

/// A [`Chance`] that answers from a list of picks (a recorded deal), then 0.
#[derive(Clone, Debug, Default)]
pub struct RecordedChance {
    picks: Vec<usize>,
    next: usize,
}

impl RecordedChance {
    /// Replays `picks` in order.
    pub fn new(picks: Vec<usize>) -> RecordedChance {
        RecordedChance { picks, next: 0 }
    }
    /// How many picks were used.
    pub fn used(&self) -> usize {
        self.next
    }
}

impl Chance for RecordedChance {
    fn pick(&mut self, n: usize) -> usize {
        let v = self.picks.get(self.next).copied().unwrap_or(0);
        self.next += 1;
        v.min(n.max(1) - 1)
    }
}
