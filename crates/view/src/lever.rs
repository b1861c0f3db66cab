//! The lever game's board ([`Board`] for [`Lever`]): a grid of ten columns, one per lever.
//! The top row shows the levers with what a matched pull pays (the special lever lit, with
//! its 9); below it one row per round played, with a disc in each player's colour on the
//! lever it pulled (Alice left, Bob right) and the cell lit green when they matched.
//! Same state → same picture.

use crate::board::{
    BUTTON_LIT, Board, COUNTER, COUNTER_EDGE, DrawError, Drawn, FLOOR, FLOOR_LINE, Geom, PlayerView, SERVE, chef_color,
    disc, pixel_text, rect,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use proagent_core::Game;
use proagent_lever::{LEVERS, Lever, LeverState, Pull};
use proagent_overcooked::env::Pos;

impl Board for Lever {
    fn grid(&self) -> (u32, u32) {
        (u32::from(LEVERS), 1 + self.rounds())
    }

    fn grid_rows(&self) -> Vec<String> {
        let mut rows = vec!["L".repeat(LEVERS as usize)];
        rows.extend((0..self.rounds()).map(|_| ".".repeat(LEVERS as usize)));
        rows
    }

    fn check(&self, s: &LeverState) -> Result<(), DrawError> {
        let bad = |message: String| Err(DrawError::State { game: self.spec(), message });
        if s.special >= LEVERS {
            return bad(format!("the special lever is {}, but there are {LEVERS} levers", s.special + 1));
        }
        if s.rounds.len() > self.rounds() as usize {
            return bad(format!("{} rounds played, but the game has {}", s.rounds.len(), self.rounds()));
        }
        if s.rounds.iter().flatten().flatten().any(|&l| l >= LEVERS) {
            return bad(format!("a pull of a lever beyond lever {LEVERS}"));
        }
        Ok(())
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &LeverState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let c = g.c;
        let px = (c / 12).max(1);
        for l in 0..LEVERS {
            let (x0, y0) = g.corner(Pos::new(l, 0));
            let fill = if l == s.special { BUTTON_LIT } else { COUNTER };
            rect(area, (x0, y0), (x0 + c - 1, y0 + c - 1), &fill, Some(&COUNTER_EDGE))?;
            let pays = Lever::payoff(l, s.special).to_string();
            let w = pays.len() as i32 * 4 * px - px;
            pixel_text(area, &pays, (x0 + (c - w) / 2, y0 + (c - 5 * px) / 2), px, &BLACK)?;
        }
        for y in 0..self.rounds() {
            let row = s.rounds.get(y as usize);
            let matched = row.and_then(|r| r[0].filter(|a| Some(*a) == r[1]));
            for l in 0..LEVERS {
                let (x0, y0) = g.corner(Pos::new(l, (y + 1) as u8));
                let fill = if matched == Some(l) { SERVE } else { FLOOR };
                rect(area, (x0, y0), (x0 + c - 1, y0 + c - 1), &fill, Some(&FLOOR_LINE))?;
            }
        }
        Ok(())
    }

    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &LeverState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let c = g.c;
        for (y, r) in s.rounds.iter().enumerate() {
            for (p, pull) in r.iter().enumerate() {
                if let Some(l) = pull {
                    let (x0, y0) = g.corner(Pos::new(*l, (y + 1) as u8));
                    let at = (x0 + c * (1 + 2 * p as i32) / 4, y0 + c / 2);
                    disc(area, at, c / 5, &chef_color(p), Some(&WHITE))?;
                }
            }
        }
        Ok(())
    }

    fn caption(&self, s: &LeverState) -> Option<String> {
        Some(format!("special lever: {} (pays 9); score {}", s.special + 1, s.score))
    }

    fn describe_action(&self, _s: &LeverState, action: Pull) -> String {
        format!("pull lever {}", action.number())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Overlay, Status, svg};

    #[test]
    fn the_board_draws_every_round_and_refuses_a_state_of_another_game() {
        let g = Lever::new(3);
        let mut s = LeverState { special: 2, rounds: Vec::new(), score: 0 };
        let empty = svg(&g, &s, &Overlay::default(), 24).unwrap();
        s.rounds.push([Some(2), Some(2)]);
        s.score = 9;
        let overlay = Overlay { status: Some(Status { t: 1, horizon: 3, score: 9 }), ..Overlay::default() };
        let one = svg(&g, &s, &overlay, 24).unwrap();
        assert_ne!(empty, one);
        assert_eq!(one, svg(&g, &s, &overlay, 24).unwrap(), "deterministic");
        assert_eq!(g.grid(), (10, 4));
        assert!(g.check(&s).is_ok());
        s.rounds = vec![[Some(0), None]; 4];
        assert!(g.check(&s).is_err());
        s.rounds = vec![[Some(10), None]];
        assert!(g.check(&s).is_err());
    }
}
