//! The Python extension module `proagent._native`: thin bindings over the `proagent`
//! library (the single source of truth). The pure-Python package `proagent` wraps it
//! with Gymnasium / PettingZoo adapters, type stubs and docstrings.

mod convert;
mod env;
mod env_v2;
mod guard;
mod lanes;
mod obs;
mod options;
mod policy;
mod render;
mod run;
mod vec_env;

use pyo3::prelude::*;

/// The native half of the `proagent` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<env::Env>()?;
    m.add_function(wrap_pyfunction!(env::_restore_env, m)?)?;
    m.add_class::<env_v2::EnvV2>()?;
    m.add_function(wrap_pyfunction!(env_v2::_restore_env_v2, m)?)?;
    m.add_class::<vec_env::VecEnv>()?;
    m.add_function(wrap_pyfunction!(vec_env::_restore_vec_env, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::obs_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::builtin_layouts, m)?)?;
    m.add_function(wrap_pyfunction!(vec_env::build_profile, m)?)?;
    m.add("InternalError", m.py().get_type::<guard::InternalError>())?;
    m.add("ModelFailure", m.py().get_type::<policy::ModelFailure>())?;
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
