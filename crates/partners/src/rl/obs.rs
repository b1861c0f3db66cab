//! Observation encodings: what one player sees of a state → the network's input vector.
//!
//! An encoding is named in every model file, so a policy is always fed the encoding it
//! was trained on (a model whose encoding this build does not compute, or that belongs to
//! another game, is refused when it is loaded or seated). Each game says which encodings
//! it has ([`super::game::RlGame`]); today:
//!
//! - classic Overcooked: [`FEATURES62`], the 62 hand-made features of Carroll et al.
//!   (2019) that the BC models use ([`crate::bc::features`]);
//! - OvercookedV2: [`V2_VIEW`], compact features of the player's own view
//!   (nothing outside its view radius is encoded), documented in [`super::obs_v2`].
//!
//! The 2019 lossless per-cell grid (`env::encoding`) and JaxMARL's per-cell V2 tensor
//! (`env_v2::obs`) are in the library too; either plugs in as another [`Encode`]
//! implementation (the MLP takes any input width).
//!
//! Guarantees: encoding is a pure function of (game, view, seat); the output length is
//! [`Encode::dim`] for every state of the game.

use crate::bc::features::{self, FEATURE_SET, NUM_FEATURES};
use proagent_core::Game;
use proagent_overcooked::env::motion::MotionTable;
use proagent_overcooked::env::{Layout, State};
use proagent_overcooked::game::Overcooked;
use std::sync::Arc;

/// The name of the classic 62-feature encoding in model files (`carroll2019-62`).
pub const FEATURES62: &str = FEATURE_SET;

/// The name of the OvercookedV2 own-view encoding in model files (`v2-view/1`; the
/// encoder is [`super::obs_v2`]'s).
pub const V2_VIEW: &str = "v2-view/1";

/// Every encoding this build computes, by model-file name, with its game's kind.
pub const KNOWN: [(&str, &str); 2] = [(FEATURES62, "overcooked"), (V2_VIEW, "overcooked_v2")];

/// The game kind an encoding belongs to (`None`: this build does not compute it).
pub fn game_of(encoder: &str) -> Option<&'static str> {
    KNOWN.iter().find(|(n, _)| *n == encoder).map(|(_, g)| *g)
}

/// An encoding bound to one game (with whatever it precomputed for its layout).
pub trait Encode<G: Game>: Send + Sync {
    /// The name stored in model files.
    fn name(&self) -> &'static str;
    /// Length of the encoded vector (the same for every state of the game).
    fn dim(&self) -> usize;
    /// Writes what player `seat` sees (`view`) into `out`, whose length is [`Encode::dim`].
    fn encode(&self, view: G::View<'_>, seat: usize, out: &mut [f32]);
}

/// The 62 BC features on one classic layout (they need its motion table).
#[derive(Clone, Debug)]
pub struct Features62 {
    layout: Arc<Layout>,
    motion: Arc<MotionTable>,
}

impl Features62 {
    /// The encoder of `layout`.
    pub fn new(layout: Arc<Layout>) -> Features62 {
        let motion = Arc::new(MotionTable::new(&layout));
        Features62 { layout, motion }
    }

    /// The features of `state` for player `seat` (the classic seats call this directly).
    pub fn features(&self, state: &State, seat: usize, out: &mut [f32]) {
        out.copy_from_slice(&features::featurize(&self.layout, &self.motion, state, seat));
    }

    /// The layout it encodes.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl Encode<Overcooked> for Features62 {
    fn name(&self) -> &'static str {
        FEATURES62
    }

    fn dim(&self) -> usize {
        NUM_FEATURES
    }

    fn encode(&self, view: &State, seat: usize, out: &mut [f32]) {
        self.features(view, seat.min(1), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Action, Object, Pos};

    #[test]
    fn features_on_hand_checked_cells() {
        // cramped_room: XXPXX / O  2O / X1  X / XDXSX; player 0 at (1,2), player 1 at (3,1).
        let l = Arc::new(Layout::builtin("cramped_room").unwrap());
        let enc = Features62::new(Arc::clone(&l));
        assert_eq!(game_of(FEATURES62), Some("overcooked"));
        assert_eq!(game_of("lossless"), None);
        let mut s = l.start_state();
        let mut x = vec![0f32; Encode::<Overcooked>::dim(&enc)];
        enc.encode(&s, 0, &mut x);
        // Own position, partner offset, the pot at (2,0) as the closest empty pot.
        assert_eq!(&x[60..62], &[1.0, 2.0]);
        assert_eq!(&x[58..60], &[2.0, -1.0]);
        assert_eq!((x[9], x[10]), (1.0, -2.0));
        // Player 0 walks north to (1,1) and faces west to the onion dispenser, takes an onion.
        l.step(&mut s, [Action::North, Action::Stay]);
        l.step(&mut s, [Action::West, Action::Stay]);
        l.step(&mut s, [Action::Interact, Action::Stay]);
        assert_eq!(s.players[0].pos, Pos::new(1, 1));
        assert_eq!(s.players[0].held, Some(Object::ONION));
        enc.encode(&s, 0, &mut x);
        assert_eq!(&x[0..4], &[0.0, 0.0, 0.0, 1.0], "facing west");
        assert_eq!(&x[4..7], &[1.0, 0.0, 0.0], "holding an onion");
        assert_eq!((x[7], x[8]), (0.0, 0.0), "the onion target is hidden while holding one");
        assert_eq!(&x[60..62], &[1.0, 1.0]);
        // Seat 1 sees the same state with the blocks swapped.
        let mut y = vec![0f32; 62];
        enc.encode(&s, 1, &mut y);
        assert_eq!(&y[29..58], &x[0..29]);
        assert_eq!(&y[60..62], &[3.0, 1.0]);
    }
}
