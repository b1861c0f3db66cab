//! The Hanabi table as the viewer, `render` and human play draw it ([`Board`] for
//! [`Hanabi`]): the fireworks, the information and life tokens, the deck, every hand with
//! what its holder knows of each card (the hinted colour and rank, and the colours and
//! ranks still possible), the discards by colour, and the last move (the cards a hint
//! touched are outlined in the target's hand).
//!
//! Guarantees: drawn from a player's view (`Overlay::view`: the viewer's "view of",
//! `render --view`, a person playing), that player's own cards are never drawn face up —
//! only what the player knows of them — as the game's own view hides them. Same state and
//! view → same picture.
//!
//! The table is laid out on a grid of cells (one card is one cell wide): a top band of two
//! rows (fireworks, tokens, deck), two rows per hand, and one row for the last move; the
//! discards sit right of the hands.

use super::board::{
    BAR_BG, Board, DrawError, Drawn, FLOOR, FLOOR_LINE, Geom, PlayerView, chef_color, disc, pixel_text, rect,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use proagent_hanabi::rules::{
    COLOR_NAMES, Card, CardKnowledge, MAX_INFO_TOKENS, MAX_LIFE_TOKENS, NUM_COLORS, NUM_RANKS,
};
use proagent_hanabi::{Hanabi, Move, State};

/// The five colours' fills (red, yellow, green, white, blue), as HLE orders them.
const CARD_FILL: [RGBColor; NUM_COLORS] = [
    RGBColor(0xd9, 0x3b, 0x2b),
    RGBColor(0xf2, 0xc1, 0x2e),
    RGBColor(0x2e, 0xa0, 0x43),
    RGBColor(0xf4, 0xf4, 0xf4),
    RGBColor(0x2f, 0x6b, 0xd8),
];
/// The digit colour on each fill.
const CARD_INK: [RGBColor; NUM_COLORS] = [WHITE, RGBColor(0x3a, 0x2c, 0x00), WHITE, RGBColor(0x30, 0x30, 0x30), WHITE];
const CARD_EDGE: RGBColor = RGBColor(0x2b, 0x2b, 0x2b);
/// The back of a card whose face is hidden.
const CARD_BACK: RGBColor = RGBColor(0x3d, 0x45, 0x57);
const INFO: RGBColor = RGBColor(0x2f, 0x9f, 0xd8);
const LIFE: RGBColor = RGBColor(0xb0, 0x1e, 0x4f);
const SPENT: RGBColor = RGBColor(0xc8, 0xc2, 0xb4);
const HINTED: RGBColor = RGBColor(0xff, 0xd4, 0x3b);
const TURN: RGBColor = RGBColor(0xfb, 0xe9, 0xb0);

/// Cells left of the hands (the player labels).
const LABEL_COLS: u32 = 1;
/// Cells of the right-hand column (tokens, deck, discards).
const SIDE_COLS: u32 = 6;

fn side_x(game: &Hanabi) -> u32 {
    LABEL_COLS + game.hand_size() as u32 + 1
}

/// The short words of a move for the table's last line (`P1 PLAY 2: R3`, `P0 HINT P1 RED`).
pub fn move_words(game: &Hanabi, s: &State) -> Option<String> {
    let r = s.last_move()?;
    let who = format!("P{}", r.player);
    let card = r.card.map(|c| c.to_string()).unwrap_or_default();
    Some(match r.mv {
        Move::Play(i) if r.scored => format!("{who} PLAY {i}: {card}"),
        Move::Play(i) => format!("{who} PLAY {i}: {card} MISS"),
        Move::Discard(i) => format!("{who} DISCARD {i}: {card}"),
        Move::RevealColor { color, .. } => {
            let to = r.target(game.players()).unwrap_or(0);
            format!("{who} HINT P{to} {}", COLOR_NAMES[color as usize % NUM_COLORS].to_ascii_uppercase())
        }
        Move::RevealRank { rank, .. } => {
            let to = r.target(game.players()).unwrap_or(0);
            format!("{who} HINT P{to} {}S", rank + 1)
        }
    })
}

/// A card drawn in the box `(x0, y0)`–`(x1, y1)`: face up, or its back with what its
/// holder knows (the hinted colour as the back's inner colour, the hinted rank as its digit).
fn card<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
    face: Option<Card>,
    known: Option<&CardKnowledge>,
    px: i32,
) -> Drawn<DB> {
    let digit_at = ((x0 + x1 - 3 * px) / 2, (y0 + y1 - 5 * px) / 2);
    #[cfg(test)]
    super::board::bounds::solid((x0, y0, x1, y1));
    match face {
        Some(c) => {
            let k = c.color as usize % NUM_COLORS;
            rect(area, (x0, y0), (x1, y1), &CARD_FILL[k], Some(&CARD_EDGE))?;
            let d = (c.rank + 1).to_string();
            pixel_text(area, &d, digit_at, px, &CARD_INK[k])
        }
        None => {
            rect(area, (x0, y0), (x1, y1), &CARD_BACK, Some(&CARD_EDGE))?;
            let m = ((x1 - x0) / 7).max(1);
            let color = known.and_then(CardKnowledge::color).map(|c| c as usize % NUM_COLORS);
            if let Some(k) = color {
                rect(area, (x0 + m, y0 + m), (x1 - m, y1 - m), &CARD_FILL[k], None)?;
            }
            let ink = color.map_or(WHITE, |k| CARD_INK[k]);
            let d = known.and_then(CardKnowledge::rank).map_or("?".to_string(), |r| (r + 1).to_string());
            pixel_text(area, &d, digit_at, px, &ink)
        }
    }
}

/// What a holder knows of a card, under it: a dot per colour still possible, and the
/// ranks still possible.
fn knowledge<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    x0: i32,
    y0: i32,
    k: &CardKnowledge,
) -> Drawn<DB> {
    let c = g.c;
    let step = (c * 3 / 20).max(4);
    let left = x0 + c / 2 - 2 * step;
    let r = (c / 16).max(1);
    for col in 0..NUM_COLORS as u8 {
        let at = (left + col as i32 * step, y0);
        if k.color_plausible(col) {
            disc(area, at, r, &CARD_FILL[col as usize], Some(&CARD_EDGE))?;
        } else {
            disc(area, at, (r / 2).max(1), &SPENT, None)?;
        }
    }
    let px = (c / 40).max(1);
    for rank in 0..NUM_RANKS as u8 {
        if k.rank_plausible(rank) {
            let x = left + rank as i32 * step - px * 3 / 2;
            pixel_text(area, &(rank + 1).to_string(), (x, y0 + r + px * 2), px, &CARD_EDGE)?;
        }
    }
    Ok(())
}

impl Board for Hanabi {
    fn grid(&self) -> (u32, u32) {
        (side_x(self) + SIDE_COLS, 2 + 2 * self.players() as u32 + 1)
    }

    fn grid_rows(&self) -> Vec<String> {
        vec![self.spec()]
    }

    fn check(&self, state: &State) -> Result<(), DrawError> {
        let bad = |message: String| DrawError::State { game: self.spec(), message };
        if state.num_players() != self.players() {
            return Err(bad(format!("a state of {} players", state.num_players())));
        }
        if let Some(p) = (0..self.players()).find(|&p| state.hand(p).len() > self.hand_size()) {
            return Err(bad(format!("player {p} holds {} cards", state.hand(p).len())));
        }
        Ok(())
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let c = g.c;
        let (w, h) = self.grid();
        let (w, h) = (w as i32, h as i32);
        let top = g.top;
        rect(area, (0, top), (w * c - 1, top + h * c - 1), &FLOOR, None)?;
        let px_small = (c / 16).max(1);
        let px_card = (c / 10).max(1);
        // Fireworks: the top card of each colour's pile (an empty outline before its 1).
        let label = |t: &str, x: i32, y: i32| pixel_text(area, t, (x, y), px_small, &CARD_EDGE);
        label("FIREWORKS", LABEL_COLS as i32 * c + c / 10, top + c / 10)?;
        // The top band's cards start below its labels (on small cells the labels take more
        // of the cell than 2/5).
        let card_top = (top + c * 2 / 5).max(top + c / 10 + 5 * px_small + 1);
        for (k, &height) in s.fireworks().iter().enumerate() {
            let x0 = (LABEL_COLS as i32 + k as i32) * c;
            let (a, b) = ((x0 + c / 10, card_top), (x0 + c - c / 10, top + 2 * c - c / 8));
            if height == 0 {
                // White's empty pile would vanish on the table: its outline is grey.
                let edge = if k == 3 { SPENT } else { CARD_FILL[k] };
                area.draw(&Rectangle::new([a, b], edge.stroke_width(2)))?;
            } else {
                card(area, a, b, Some(Card::new(k as u8, height - 1)), None, px_card)?;
            }
        }
        // Tokens and the deck.
        let sx = side_x(self) as i32 * c;
        let r = (c / 6).max(2);
        label("INFO", sx + c / 10, top + c / 10)?;
        for i in 0..MAX_INFO_TOKENS {
            let at = (sx + c / 4 + i as i32 * (c * 9 / 20), top + c * 3 / 5);
            let fill = if i < s.info_tokens() { INFO } else { SPENT };
            disc(area, at, r, &fill, Some(&CARD_EDGE))?;
        }
        label("LIFE", sx + c / 10, top + c + c / 10)?;
        for i in 0..MAX_LIFE_TOKENS {
            let at = (sx + c / 4 + i as i32 * (c * 9 / 20), top + c + c * 3 / 5);
            let fill = if i < s.life_tokens() { LIFE } else { SPENT };
            disc(area, at, r, &fill, Some(&CARD_EDGE))?;
        }
        let dx = sx + (SIDE_COLS as i32 - 1) * c;
        // Right-aligned in the table's last cell (it may reach left, over the token row's
        // empty end, where the cell is narrower than the word).
        label("DECK", dx + c - 1 - (4 * 4 - 1) * px_small, top + c / 10)?;
        rect(area, (dx + c / 10, card_top), (dx + c - c / 10, top + 2 * c - c / 8), &CARD_BACK, Some(&CARD_EDGE))?;
        let n = s.deck_size().to_string();
        let pn = (c / 16).max(1);
        pixel_text(area, &n, (dx + c / 2 - pn * (4 * n.len() as i32 - 1) / 2, top + c + c / 6), pn, &WHITE)?;
        // Discards, one row per colour, by rank.
        let dy = top + 2 * c;
        label("DISCARDS", sx + c / 10, dy + c / 10)?;
        let mini = c / 2;
        for k in 0..NUM_COLORS as u8 {
            let mut ranks: Vec<u8> = s.discards().iter().filter(|d| d.color == k).map(|d| d.rank).collect();
            ranks.sort_unstable();
            for (j, rank) in ranks.iter().enumerate() {
                let x0 = sx + c / 10 + j as i32 * mini;
                let y0 = dy + c * 2 / 5 + k as i32 * mini;
                card(area, (x0, y0), (x0 + mini - 2, y0 + mini - 2), Some(Card::new(k, *rank)), None, (c / 24).max(1))?;
            }
        }
        // The last move.
        let ly = top + (h - 1) * c;
        let mut line = move_words(self, s).map_or_else(|| "NO MOVE YET".to_string(), |m| format!("LAST {m}"));
        if s.is_over() {
            line.push_str("  GAME OVER");
        }
        crate::status_line::status_line(area, ly, w * c, c, &line)?;
        // Lines between the bands.
        for y in [top + 2 * c, ly] {
            area.draw(&PathElement::new(vec![(0, y), (w * c - 1, y)], FLOOR_LINE.stroke_width(1)))?;
        }
        Ok(())
    }

    /// The hands: one row each, the player to move marked; a player's own cards are hidden
    /// when the picture is that player's view.
    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &State,
        view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let c = g.c;
        let px_card = (c / 10).max(1);
        let hinted = s.last_move().filter(|r| r.mv.is_hint()).map(|r| (r.target(self.players()), r.reveal_mask));
        for p in 0..self.players() {
            let y0 = g.top + (2 + 2 * p as i32) * c;
            let to_move = !s.is_over() && s.current_player() == p;
            if to_move {
                rect(area, (0, y0 + 1), (side_x(self) as i32 * c - c / 2, y0 + 2 * c - 2), &TURN, None)?;
            }
            // ">P4" (11 letter pixels wide) ends before the first card.
            let pl = (c / 10).min((c - 1) / 11).max(1);
            let mark = if to_move { ">" } else { "" };
            pixel_text(area, &format!("{mark}P{p}"), (c / 10, y0 + c / 2), pl, &chef_color(p))?;
            if view.is_some_and(|v| v.player == p) {
                pixel_text(area, "YOU", (c / 10, y0 + c), (c / 16).max(1), &BAR_BG)?;
            }
            let hand = s.hand(p);
            let hidden = view.is_some_and(|v| v.player == p);
            for (i, (cd, k)) in hand.cards().iter().zip(hand.knowledge()).enumerate() {
                let x0 = (LABEL_COLS as i32 + i as i32) * c;
                let (a, b) = ((x0 + c / 10, y0 + c / 10), (x0 + c - c / 10, y0 + c * 13 / 10));
                card(area, a, b, (!hidden).then_some(*cd), Some(k), px_card)?;
                if hinted.is_some_and(|(to, mask)| to == Some(p) && mask & (1 << i) != 0) {
                    let wpx = (c / 16).max(2);
                    for d in 1..=wpx {
                        area.draw(&Rectangle::new([(a.0 - d, a.1 - d), (b.0 + d, b.1 + d)], HINTED.stroke_width(1)))?;
                    }
                }
                knowledge(area, g, x0, y0 + c * 3 / 2, k)?;
            }
        }
        Ok(())
    }

    fn partial_view(&self) -> bool {
        // Every player sees the table but their own cards.
        true
    }

    fn describe_action(&self, s: &State, m: Move) -> String {
        let to = |offset: u8| (s.current_player() + offset as usize) % self.players().max(1);
        match m {
            Move::Play(i) => format!("play card {i}"),
            Move::Discard(i) => format!("discard card {i}"),
            Move::RevealColor { offset, color } => {
                format!("tell P{} their {} cards", to(offset), COLOR_NAMES[color as usize % NUM_COLORS])
            }
            Move::RevealRank { offset, rank } => format!("tell P{} their {}s", to(offset), rank + 1),
        }
    }

    fn caption(&self, s: &State) -> Option<String> {
        let fw: Vec<String> = s
            .fireworks()
            .iter()
            .enumerate()
            .map(|(k, h)| format!("{}{h}", COLOR_NAMES[k].chars().next().unwrap_or('?')))
            .collect();
        let mut text = format!(
            "fireworks {} · info {}/{MAX_INFO_TOKENS} · lives {}/{MAX_LIFE_TOKENS} · deck {} · score {}",
            fw.join(" ").to_uppercase(),
            s.info_tokens(),
            s.life_tokens(),
            s.deck_size(),
            s.score()
        );
        if let Some(m) = move_words(self, s) {
            text.push_str(&format!(" · last: {}", m.to_lowercase()));
        }
        if s.is_over() {
            text.push_str(" · game over");
        } else {
            text.push_str(&format!(" · player {} to move", s.current_player()));
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Overlay, Status, svg, write_gif, write_png};
    use proagent_core::Game;
    use proagent_core::episode::env_chance;

    fn count(svg: &str, color: RGBColor) -> usize {
        let hex = format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2);
        svg.matches(&format!("fill=\"{hex}\"")).count()
    }

    fn view(player: usize) -> Overlay {
        Overlay { view: Some(PlayerView { player, hide: true }), ..Overlay::default() }
    }

    #[test]
    fn the_table_shows_hands_tokens_and_hides_the_viewers_own_cards() {
        let game = Hanabi::new(2).unwrap();
        let mut chance = env_chance(7);
        let s = game.initial_state(&mut chance);
        let (w, h) = game.grid();
        assert_eq!((w, h), (13, 7), "label + 5 cards + gap + 6 side cells; 2 + 2 × 2 + 1 rows");
        let all = svg(&game, &s, &Overlay::default(), 40).unwrap();
        assert_eq!(all, svg(&game, &s, &Overlay::default(), 40).unwrap(), "deterministic");
        assert!(all.contains("width=\"520\"") && all.contains("height=\"280\""), "{}", &all[..120]);
        // Only the deck shows its back; every card of both hands is face up.
        assert_eq!(count(&all, CARD_BACK), 1);
        // Player 0's view: their five cards are backs (nothing hinted yet: no colour inside).
        let mine = svg(&game, &s, &view(0), 40).unwrap();
        assert_eq!(count(&mine, CARD_BACK), 6);
        assert_ne!(mine, svg(&game, &s, &view(1), 40).unwrap());
        // Eight information tokens, three lives, nothing spent yet.
        assert_eq!(count(&all, INFO), 8);
        assert_eq!(count(&all, LIFE), 3);
        // The status row sits above the table.
        let with = Overlay { status: Some(Status { t: 0, horizon: 10, score: 0 }), ..Overlay::default() };
        assert!(svg(&game, &s, &with, 40).unwrap().contains("height=\"300\""));
    }

    #[test]
    fn a_hint_is_outlined_spends_a_token_and_shows_in_the_holders_knowledge() {
        let game = Hanabi::new(2).unwrap();
        let mut chance = env_chance(3);
        let mut s = game.initial_state(&mut chance);
        let before = svg(&game, &s, &view(1), 40).unwrap();
        assert_eq!(count(&before, HINTED), 0);
        // Player 0 tells player 1 about the colour of player 1's first card.
        let target = s.hand(1).cards()[0];
        let hint = Move::RevealColor { offset: 1, color: target.color };
        game.step(&mut s, &[Some(hint), None], &mut chance);
        let after = svg(&game, &s, &view(1), 40).unwrap();
        assert!(after.contains("stroke=\"#FFD43B\""), "the touched cards are outlined");
        assert_eq!(count(&after, INFO), 7, "one information token spent");
        // Player 1's own first card is hidden but its hinted colour shows inside the back.
        let fill = CARD_FILL[target.color as usize];
        assert!(count(&after, fill) > count(&svg(&game, &s, &view(0), 40).unwrap(), fill) - 1);
        let cap = game.caption(&s).unwrap();
        assert!(cap.contains("info 7/8") && cap.contains("last: p0 hint p1"), "{cap}");
        // The moves a person picks from, in words.
        assert_eq!(game.describe_action(&s, Move::RevealRank { offset: 1, rank: 2 }), "tell P0 their 3s");
        assert_eq!(game.describe_action(&s, Move::Play(4)), "play card 4");
        // A discard goes to the discard rows; the move line names it.
        game.step(&mut s, &[None, Some(Move::Discard(0))], &mut chance);
        assert_eq!(s.discards().len(), 1);
        assert!(move_words(&game, &s).unwrap().starts_with("P1 DISCARD 0: "));
    }

    #[test]
    fn png_gif_and_other_player_counts() {
        let dir = tempfile::tempdir().unwrap();
        for players in 2..=5 {
            let game = Hanabi::new(players).unwrap();
            let mut chance = env_chance(1);
            let s0 = game.initial_state(&mut chance);
            let mut s1 = s0.clone();
            let first = game.legal_actions(game.view(&s1, 0), 0)[0];
            let mut joint = vec![None; players];
            joint[0] = Some(first);
            game.step(&mut s1, &joint, &mut chance);
            let gif = dir.path().join(format!("h{players}.gif"));
            let n = write_gif(&gif, &game, [(&s0, Overlay::default()), (&s1, Overlay::default())], 16, 100).unwrap();
            assert_eq!(n, 2);
            assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
            let png = dir.path().join(format!("h{players}.png"));
            write_png(&png, &game, &s1, &view(1), 16).unwrap();
            assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
        }
        // A state of another game is refused, and drawn as nothing.
        let two = Hanabi::new(2).unwrap();
        let three = Hanabi::new(3).unwrap();
        let s3 = three.initial_state(&mut env_chance(0));
        assert!(two.check(&s3).unwrap_err().to_string().contains("3 players"));
    }
}
