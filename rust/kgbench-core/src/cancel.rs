//! Cooperative cancellation of long runs (Ctrl-C in the `kgbench` CLI).
//!
//! One process-wide flag: the Python binding sets it when the user interrupts a call
//! (SIGINT, seen by Python on the calling thread), and long loops of `kgbench-core` poll it
//! with [`requested`] / [`check`] and stop with an error, writing no further output. The
//! flag is cleared when the next cancellable call starts ([`clear`]). A relaxed atomic load
//! per poll: loops poll once per chunk of work, not per item.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The error of a run stopped by [`request`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Cancelled;

/// Ask every running cancellable loop to stop.
pub fn request() {
    REQUESTED.store(true, Ordering::Relaxed);
}

/// Forget an earlier [`request`] (at the start of a new run).
pub fn clear() {
    REQUESTED.store(false, Ordering::Relaxed);
}

/// Whether a stop was requested.
#[inline]
pub fn requested() -> bool {
    REQUESTED.load(Ordering::Relaxed)
}

/// `Err(Cancelled)` when a stop was requested.
#[inline]
pub fn check() -> Result<(), Cancelled> {
    if requested() {
        Err(Cancelled)
    } else {
        Ok(())
    }
}

/// `impl From<Cancelled> for E` mapping to `E::Interrupted`, for an error enum `E` with a unit
/// variant `Interrupted`: `cancel::check()?` then stops a run with that variant.
macro_rules! interrupted_from_cancelled {
    ($($error:ty),+ $(,)?) => {$(
        impl From<$crate::cancel::Cancelled> for $error {
            fn from(_: $crate::cancel::Cancelled) -> Self {
                Self::Interrupted
            }
        }
    )+};
}
pub(crate) use interrupted_from_cancelled;
