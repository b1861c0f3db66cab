//! The two Overcookeds as the game catalog loads them: the one place of the package that
//! tells a loaded game apart by its catalog variant, because `proagent.Env` keeps
//! overcooked_ai's and JaxMARL's conventions for them (their own episodes, [`super::classic`]
//! and [`super::v2`]) beside the one convention of every game.

use proagent_eval::games::{AnyGame, GameOptions};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::sync::Arc;

/// A loaded game, as far as the Overcookeds' own conventions go.
pub enum Family<'a> {
    /// Classic Overcooked: overcooked_ai's conventions.
    Classic(&'a Arc<Overcooked>),
    /// OvercookedV2: JaxMARL's conventions.
    V2(&'a Arc<OvercookedV2>),
    /// Any other game: the one convention only.
    Other,
}

/// Which conventions `game` has.
pub fn family(game: &AnyGame) -> Family<'_> {
    match game {
        AnyGame::Overcooked(g) => Family::Classic(g),
        AnyGame::V2(g) => Family::V2(g),
        _ => Family::Other,
    }
}

/// The layout of one of the two Overcookeds.
pub enum OvercookedLayout {
    /// A classic layout.
    Classic(proagent_overcooked::env::Layout),
    /// An OvercookedV2 layout.
    V2(proagent_overcooked_v2::env::Layout),
}

/// The Overcooked layout a spec names, as the catalog loads it (with the file's text for a
/// layout that is not built in; `text`, when given, is that text); a spec of another game
/// is a `ValueError`.
pub fn load_overcooked(spec: &str, text: Option<&str>) -> PyResult<(OvercookedLayout, Option<String>)> {
    let (game, text) = crate::vec_env::load_game(spec, text, &GameOptions::default())?;
    match family(&game) {
        Family::Classic(g) => Ok((OvercookedLayout::Classic((*g.layout).clone()), text)),
        Family::V2(g) => Ok((OvercookedLayout::V2((*g.layout).clone()), text)),
        Family::Other => {
            Err(PyValueError::new_err(format!("{spec:?} is a {} game, not an Overcooked layout", game.kind())))
        }
    }
}
