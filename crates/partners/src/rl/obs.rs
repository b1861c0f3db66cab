//! Observation encoders: a state seen from one seat → the network's input vector.
//!
//! An encoder is named in every model file, so a policy is always fed the encoding it
//! was trained on (loading a model trained on another encoder is an error). Today there
//! is one: the 62 hand-made features of Carroll et al. (2019) that the BC models use
//! ([`crate::bc::features`]). The 2019 lossless per-cell grid encoding is in
//! the library (`env::encoding`) but no policy is trained on it yet; it plugs in here as a second
//! [`ObsEncoder`] variant whose input size is the layout's `width × height × channels`
//! (the MLP takes any input size; a convolutional trunk would be a separate network).
//!
//! Guarantees: encoding is a pure function of (layout, state, seat); the output length is
//! [`ObsEncoder::dim`] for every state of the layout.

use crate::bc::features::{self, FEATURE_SET, NUM_FEATURES};
use proagent_overcooked::env::motion::MotionTable;
use proagent_overcooked::env::{Layout, State};

/// Which encoding a policy reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ObsEncoder {
    /// The 62 BC features (`carroll2019-62`): both players' facings, held objects,
    /// offsets to the closest useful targets, wall flags and positions.
    Features62,
}

impl ObsEncoder {
    /// The name stored in model files.
    pub fn name(self) -> &'static str {
        match self {
            ObsEncoder::Features62 => FEATURE_SET,
        }
    }

    /// Inverse of [`ObsEncoder::name`].
    pub fn parse(name: &str) -> Option<ObsEncoder> {
        (name == FEATURE_SET).then_some(ObsEncoder::Features62)
    }

    /// Length of the encoded vector on `layout` (62 for the features, whatever the layout).
    pub fn dim(self, _layout: &Layout) -> usize {
        match self {
            ObsEncoder::Features62 => NUM_FEATURES,
        }
    }

    /// A per-layout encoder, with whatever precomputation the encoding needs.
    pub fn for_layout(self, layout: &Layout) -> LayoutEncoder {
        match self {
            ObsEncoder::Features62 => LayoutEncoder { kind: self, motion: MotionTable::new(layout) },
        }
    }
}

/// An encoder bound to one layout (the features need its motion table).
#[derive(Clone, Debug)]
pub struct LayoutEncoder {
    kind: ObsEncoder,
    motion: MotionTable,
}

impl LayoutEncoder {
    /// The encoding this encoder computes.
    pub fn kind(&self) -> ObsEncoder {
        self.kind
    }

    /// Writes the encoding of `state` for player `seat` into `out`, whose length must be
    /// [`ObsEncoder::dim`] (the trainer and the agent size their buffers from it).
    pub fn encode(&self, layout: &Layout, state: &State, seat: usize, out: &mut [f32]) {
        match self.kind {
            ObsEncoder::Features62 => {
                out.copy_from_slice(&features::featurize(layout, &self.motion, state, seat));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Action, Object, Pos};

    #[test]
    fn features_on_hand_checked_cells() {
        // cramped_room: XXPXX / O  2O / X1  X / XDXSX; player 0 at (1,2), player 1 at (3,1).
        let l = Layout::builtin("cramped_room").unwrap();
        let enc = ObsEncoder::Features62.for_layout(&l);
        assert_eq!(ObsEncoder::parse(ObsEncoder::Features62.name()), Some(ObsEncoder::Features62));
        assert_eq!(ObsEncoder::parse("lossless"), None);
        let mut s = l.start_state();
        let mut x = vec![0f32; ObsEncoder::Features62.dim(&l)];
        enc.encode(&l, &s, 0, &mut x);
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
        enc.encode(&l, &s, 0, &mut x);
        assert_eq!(&x[0..4], &[0.0, 0.0, 0.0, 1.0], "facing west");
        assert_eq!(&x[4..7], &[1.0, 0.0, 0.0], "holding an onion");
        assert_eq!((x[7], x[8]), (0.0, 0.0), "the onion target is hidden while holding one");
        assert_eq!(&x[60..62], &[1.0, 1.0]);
        // Seat 1 sees the same state with the blocks swapped.
        let mut y = vec![0f32; 62];
        enc.encode(&l, &s, 1, &mut y);
        assert_eq!(&y[29..58], &x[0..29]);
        assert_eq!(&y[60..62], &[3.0, 1.0]);
    }
}
