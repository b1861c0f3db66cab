//! What policies and runs share to drive an agent from Python: a current-thread async
//! runtime, waiting on a future while Python can still interrupt it, the seat factory of a
//! run, and the exception a failed model raises.

use crate::options::AgentOptions;
use proagent_eval::runner::seats::SeatFactory;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    ModelFailure,
    PyRuntimeError,
    "The agent's model failed: it refused the run, or more calls failed after every retry than max_llm_failures allows."
);

/// Drives `fut` to completion on `rt` with the interpreter released, waking every 100 ms
/// to let Python handle signals: Ctrl-C (or any signal handler that raises) interrupts a
/// model call or a retry backoff within a fraction of a second, dropping the future.
pub fn block_interruptible<F: std::future::Future + Send>(
    py: Python<'_>,
    rt: &tokio::runtime::Runtime,
    fut: F,
) -> PyResult<F::Output>
where
    F::Output: Send,
{
    let mut fut = std::pin::pin!(fut);
    loop {
        let step = py.detach(|| {
            rt.block_on(async { tokio::time::timeout(std::time::Duration::from_millis(100), fut.as_mut()).await })
        });
        match step {
            Ok(v) => return Ok(v),
            Err(_) => py.check_signals()?,
        }
    }
}

/// A current-thread runtime for driving one agent's `act`.
pub fn runtime() -> PyResult<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the async runtime: {e}")))
}

/// The seat factory of a run from Python: `proagent` seats get `options` (the CLI's flags).
pub fn factory_of(options: Option<&AgentOptions>, seed: u64) -> SeatFactory {
    match options {
        Some(o) => SeatFactory::new(Some(o.seat(seed))),
        None => SeatFactory::new(None),
    }
}

/// The action of one `act` call, or `ModelFailure` when the agent failed or its model's
/// failed calls (`failures`, the last one `last`) exceed `max_llm_failures` (`None`: no
/// limit): the one failure rule of every policy.
pub fn checked_action<A, E: std::fmt::Display>(
    action: Result<A, E>,
    failures: u64,
    last: Option<String>,
    max_llm_failures: Option<u64>,
) -> PyResult<A> {
    let a = action.map_err(|e| ModelFailure::new_err(e.to_string()))?;
    if let Some(limit) = max_llm_failures
        && failures > limit
    {
        return Err(ModelFailure::new_err(format!(
            "{failures} model call(s) failed after every retry, more than the {limit} allowed \
             (max_llm_failures); last failure: {}",
            last.as_deref().unwrap_or("unknown")
        )));
    }
    Ok(a)
}
