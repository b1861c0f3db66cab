//! The layout of one of the two Overcookeds as the game catalog loads it: the one loader
//! `proagent.Env` and the functions that take a layout share.

use proagent_eval::games::{AnyGame, GameOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// The layout of one of the two Overcookeds.
pub enum OvercookedLayout {
    /// A classic layout.
    Classic(proagent_overcooked::env::Layout),
    /// An OvercookedV2 layout.
    V2(proagent_overcooked_v2::env::Layout),
}

/// The Overcooked layout a spec names, as the catalog loads it (with the file's text for a
/// layout that is not built in; `text`, when given, is that text); a spec of another game
/// is a `ValueError` that points to `GameEnv`.
pub fn load_overcooked(spec: &str, text: Option<&str>) -> PyResult<(OvercookedLayout, Option<String>)> {
    match crate::vec_env::load_game(spec, text, &GameOptions::default())? {
        (AnyGame::Overcooked(g), text) => Ok((OvercookedLayout::Classic((*g.layout).clone()), text)),
        (AnyGame::V2(g), text) => Ok((OvercookedLayout::V2((*g.layout).clone()), text)),
        (other, _) => Err(PyValueError::new_err(format!(
            "{spec:?} is a {} game: proagent.Env plays the Overcookeds; use proagent.GameEnv \
             (or the Gymnasium / PettingZoo wrappers, which take every game)",
            other.kind()
        ))),
    }
}
