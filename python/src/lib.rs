//! The Python extension module `proagent._native`: thin bindings over the library crates
//! (`proagent-core`, `-eval`, the game crates, `-partners`, `-agent`, ...; the single source
//! of truth). Drawing boards goes through [`render`], the one module that names the
//! boards' crate. The pure-Python package `proagent` wraps it
//! with Gymnasium / PettingZoo adapters, type stubs and docstrings.

mod convert;
mod driving;
mod env;
mod games;
mod guard;
mod lanes;
mod obs;
mod options;
mod policy;
mod render;
mod run;
mod seat_policy;
mod vec_env;

use pyo3::prelude::*;

/// The native half of the `proagent` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<env::Env>()?;
    m.add_function(wrap_pyfunction!(env::_restore_env, m)?)?;
    m.add_function(wrap_pyfunction!(env::_restore_env_v2, m)?)?;
    m.add_class::<vec_env::VecEnv>()?;
    // `GameEnv`: the same class under its older name.
    m.add("GameEnv", m.py().get_type::<env::Env>())?;
    m.add_function(wrap_pyfunction!(env::_restore_game_env, m)?)?;
    m.add_function(wrap_pyfunction!(games::game_info, m)?)?;
    m.add_function(wrap_pyfunction!(games::catalog_games, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::_restore_vec_env, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::obs_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::builtin_layouts, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::build_profile, m)?)?;
    m.add("InternalError", m.py().get_type::<guard::InternalError>())?;
    m.add_class::<guard::PanicProbe>()?;
    m.add_function(wrap_pyfunction!(guard::_panic_probe, m)?)?;
    m.add("ModelFailure", m.py().get_type::<driving::ModelFailure>())?;
    m.add_class::<policy::Policy>()?;
    m.add_function(wrap_pyfunction!(policy::_restore_policy, m)?)?;
    m.add_function(wrap_pyfunction!(policy::partner, m)?)?;
    m.add_function(wrap_pyfunction!(run::play, m)?)?;
    m.add_function(wrap_pyfunction!(run::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(run::qa_questions, m)?)?;
    m.add_function(wrap_pyfunction!(run::qa_score, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
