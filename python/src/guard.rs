//! The boundary between Python and Rust: no Rust panic crosses it (a panic becomes
//! `proagent.InternalError`, an `Exception` subclass, instead of a `BaseException` that
//! escapes `except Exception`): every `#[pymethods]` block is written inside
//! [`guarded_methods!`] and every `#[pyfunction]` inside [`guarded_fns!`], which run each
//! body through [`guarded`] (so no method can be added unguarded), integers from Python are range-checked with the
//! parameter's name in the message, and large buffers are reserved fallibly so that an
//! allocation that cannot be met raises `MemoryError` instead of aborting the process.

use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
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

/// Writes a `#[pymethods]` impl block whose every method body runs inside [`guarded`].
/// Each method must return `PyResult<_>`.
macro_rules! guarded_methods {
    (
        $(#[$($iattr:tt)*])*
        impl $ty:ident {
            $(
                $(#[$($attr:tt)*])*
                $vis:vis fn $name:ident $(<$($lt:lifetime),+>)? ( $($args:tt)* ) -> $ret:ty $body:block
            )*
        }
    ) => {
        $(#[$($iattr)*])*
        impl $ty {
            $(
                $(#[$($attr)*])*
                $vis fn $name $(<$($lt),+>)? ( $($args)* ) -> $ret {
                    $crate::guard::guarded(|| $body)
                }
            )*
        }
    };
}
pub(crate) use guarded_methods;

/// Writes `#[pyfunction]`s whose bodies run inside [`guarded`]. Each must return
/// `PyResult<_>`.
macro_rules! guarded_fns {
    (
        $(
            $(#[$($attr:tt)*])*
            $vis:vis fn $name:ident $(<$($lt:lifetime),+>)? ( $($args:tt)* ) -> $ret:ty $body:block
        )*
    ) => {
        $(
            $(#[$($attr)*])*
            $vis fn $name $(<$($lt),+>)? ( $($args)* ) -> $ret {
                $crate::guard::guarded(|| $body)
            }
        )*
    };
}
pub(crate) use guarded_fns;

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

/// The bytes of the file at `path`, read only if it is a regular file (checked with `stat`
/// before it is opened, so a FIFO never blocks and a device is never read) no larger than
/// `limit` (`what` names the kind of file in the error, as in docs/limits.md).
pub fn read_regular(path: &std::path::Path, limit: u64, what: &str) -> PyResult<Vec<u8>> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| PyOSError::new_err(format!("reading {shown}: {e}")))?;
    if !meta.is_file() {
        return Err(PyValueError::new_err(format!("{shown} is not a regular file (a path here must name a file)")));
    }
    proagent_core::limits::read_file(path, limit, what).map_err(|e| match e.kind() {
        std::io::ErrorKind::FileTooLarge => PyValueError::new_err(format!("{shown}: {e}")),
        _ => PyOSError::new_err(format!("reading {shown}: {e}")),
    })
}

/// Checks the model file a seat spec names (`bc:PATH`, `rl:PATH`) before the library opens
/// it: an existing path must be a regular file no larger than the weights limit (a FIFO
/// would block the open, a device would be read without end).
pub fn check_spec_path(spec: &str, what: &str) -> PyResult<()> {
    let s = spec.trim();
    let path = s.strip_prefix("rl:").or_else(|| s.strip_prefix("bc:").filter(|p| !matches!(*p, "train" | "test")));
    let Some(p) = path.filter(|p| !p.is_empty()) else { return Ok(()) };
    if let Ok(meta) = std::fs::metadata(p) {
        if !meta.is_file() {
            return Err(PyValueError::new_err(format!(
                "{what}: {p:?} is not a regular file (a model path must name a file)"
            )));
        }
        let cap = proagent_core::limits::MAX_WEIGHTS_BYTES;
        if meta.len() > cap {
            return Err(PyValueError::new_err(format!(
                "{what}: {p:?} is {} bytes, more than the limit for model files ({}; docs/limits.md)",
                meta.len(),
                proagent_core::limits::human_bytes(cap)
            )));
        }
    }
    Ok(())
}

/// A vector of `n` copies of `x`, or `MemoryError` when it cannot be allocated.
pub fn try_vec<T: Clone>(n: usize, x: T, what: &str) -> PyResult<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| PyMemoryError::new_err(format!("cannot allocate {what} ({n} entries)")))?;
    v.resize(n, x);
    Ok(v)
}

/// A probe for the tests of the boundary: its method panics (`_native._PanicProbe().method()`
/// must raise [`InternalError`]).
#[pyclass(module = "proagent._native", name = "_PanicProbe")]
pub struct PanicProbe;

guarded_methods! {
#[pymethods]
impl PanicProbe {
    #[new]
    fn new() -> PyResult<PanicProbe> {
        Ok(PanicProbe)
    }

    /// Panics (inside the guard).
    fn method(&self) -> PyResult<()> {
        panic!("a panic raised on purpose by PanicProbe.method")
    }
}
}

guarded_fns! {
/// Panics (inside the guard): `_native._panic_probe()` must raise [`InternalError`].
#[pyfunction]
pub fn _panic_probe() -> PyResult<()> {
    panic!("a panic raised on purpose by _panic_probe")
}
}
