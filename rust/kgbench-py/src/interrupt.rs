//! Long native calls that stop on Ctrl-C.
//!
//! Python runs its SIGINT handler only between bytecodes of the main thread, so a native
//! call that releases the GIL and runs for minutes used to ignore Ctrl-C. A call made
//! through [`detach_interruptible`] runs on a worker thread while the calling thread waits
//! with the GIL released and, every [`POLL`], lets Python check its signals. On
//! `KeyboardInterrupt` it sets [`kgbench_core::cancel`]'s flag, which the core's long loops
//! poll (they stop with an error and write nothing more), waits up to [`GRACE`] for the
//! worker to stop, and raises `KeyboardInterrupt` (the CLI prints "interrupted" and exits
//! with code 130). A worker still running after the grace period is left to finish on its
//! own: its result is dropped (the CLI's process ends at once).

use std::sync::mpsc::{sync_channel, RecvTimeoutError};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread checks for signals.
const POLL: Duration = Duration::from_millis(50);
/// How long an interrupted call waits for its worker to stop.
const GRACE: Duration = Duration::from_secs(2);
/// Stack of the worker thread: as large as a main thread's usually is, so that work moved
/// off the main thread keeps its stack headroom (reserved, not committed).
const STACK: usize = 64 << 20;

/// Run `f` on a worker thread with the GIL released; raise `KeyboardInterrupt` (after
/// asking `f` to stop through [`kgbench_core::cancel`]) when the user presses Ctrl-C.
/// A panic in `f` is resumed on the calling thread (pyo3 turns it into `PanicException`).
pub(crate) fn detach_interruptible<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    kgbench_core::cancel::clear();
    let (tx, rx) = sync_channel::<T>(1);
    let worker = std::thread::Builder::new()
        .name("kgbench-native".into())
        .stack_size(STACK)
        .spawn(move || {
            let _ = tx.send(f());
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    let mut rx = rx;
    loop {
        let (back, got) = py.detach(move || {
            let got = rx.recv_timeout(POLL);
            (rx, got)
        });
        rx = back;
        match got {
            Ok(value) => {
                let _ = worker.join();
                return Ok(value);
            }
            Err(RecvTimeoutError::Disconnected) => {
                // the worker ended without a result: it panicked
                return match worker.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => Err(PyRuntimeError::new_err("the worker thread stopped")),
                };
            }
            Err(RecvTimeoutError::Timeout) => {}
        }
        if let Err(interrupt) = py.check_signals() {
            kgbench_core::cancel::request();
            let (_, stopped) = py.detach(move || {
                let got = rx.recv_timeout(GRACE);
                (rx, got)
            });
            if !matches!(stopped, Err(RecvTimeoutError::Timeout)) {
                let _ = worker.join();
            }
            return Err(interrupt);
        }
    }
}
