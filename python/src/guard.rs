//! The boundary between Python and Rust: no Rust panic crosses it (a panic becomes
//! `proagent.InternalError`, an `Exception` subclass, instead of a `BaseException` that
//! escapes `except Exception`), integers from Python are range-checked with the
//! parameter's name in the message, and large buffers are reserved fallibly so that an
//! allocation that cannot be met raises `MemoryError` instead of aborting the process.

use pyo3::exceptions::{PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use std::panic::{AssertUnwindSafe, catch_unwind};

pyo3::create_exception!(
    _native,
    InternalError,
    PyRuntimeError,
    "A bug inside proagent's Rust code (a panic caught at the Python boundary). Please report it."
);

/// Runs `f`, turning a panic into [`InternalError`].
pub fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!("internal error (a Rust panic): {msg}")))
        }
    }
}

/// An integer parameter from Python in `lo..=hi`: a float, a bool or a value out of
/// range is an error naming `name` (`seed must be ≥ 0, got -1`).
pub fn int_param(v: &Bound<'_, PyAny>, name: &str, lo: u64, hi: u64) -> PyResult<u64> {
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!("{name} must be an integer, got {}", v.repr()?)));
    }
    let i: i128 = if v.is_instance_of::<PyInt>() {
        let repr = v.repr()?.to_string();
        v.extract().map_err(|_| PyValueError::new_err(format!("{name} is out of range, got {repr}")))?
    } else {
        // numpy integers and other objects with __index__.
        let idx = v.call_method0("__index__").map_err(|_| {
            PyTypeError::new_err(format!(
                "{name} must be an integer, got {}",
                v.repr().map(|r| r.to_string()).unwrap_or_default()
            ))
        })?;
        idx.extract().map_err(|_| PyValueError::new_err(format!("{name} is out of range")))?
    };
    if i < 0 && lo == 0 {
        return Err(PyValueError::new_err(format!("{name} must be ≥ 0, got {i}")));
    }
    if i < i128::from(lo) || i > i128::from(hi) {
        return Err(PyValueError::new_err(format!("{name} must be in {lo}..={hi}, got {i}")));
    }
    Ok(i as u64)
}

/// An optional integer parameter (`None` passes through).
pub fn opt_int_param(v: Option<&Bound<'_, PyAny>>, name: &str, lo: u64, hi: u64) -> PyResult<Option<u64>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => int_param(v, name, lo, hi).map(Some),
    }
}

/// A seed: any integer in `0..2^64`.
pub fn seed_param(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    opt_int_param(v, "seed", 0, u64::MAX)
}

/// A vector of `n` copies of `x`, or `MemoryError` when it cannot be allocated.
pub fn try_vec<T: Clone>(n: usize, x: T, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| PyMemoryError::new_err(format!("cannot allocate {what} ({n} entries)")))?;
    v.resize(n, x);
    Ok(v)
}
