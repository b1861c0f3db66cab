//! What an opened episode holds in memory, measured rather than guessed from its text.
//!
//! [`Counting`] is a global allocator around the system one that keeps, per thread, the
//! net heap bytes the thread has allocated (each block counted as the chunk the system
//! allocator gives it: its size, an 8-byte header, 16-byte alignment, 32 bytes at least).
//! The `proagent` binary installs it; [`measured`] then tells how much a piece of work
//! allocated and kept on its thread, such as the parsed episode (frames, states, steps,
//! transcript) the viewer keeps open. Where it is not installed (a program that embeds
//! the server without it), [`measured`] says so and callers fall back to an estimate.
//! [`release_freed`] gives what parsing freed back to the operating system, so that the
//! process's resident memory follows what it holds.
//!
//! Guarantees: the counter never allocates and never panics (a thread-local integer), so
//! the allocator behaves exactly as the system's; the count of a closure run on one thread
//! is exact for what that thread allocated and freed during it (memory freed there that
//! was allocated before, or memory another thread allocates for it, would skew it, which
//! is why callers keep their inputs alive across the measurement).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};

/// The system allocator, counting each thread's net heap bytes (see the module docs).
pub struct Counting;

thread_local! {
    /// Heap bytes this thread allocated minus those it freed.
    static NET: Cell<i64> = const { Cell::new(0) };
}

/// Set by the first counted allocation: [`Counting`] is the global allocator.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The heap bytes a block of `size` bytes takes: the system allocator's chunk for it (an
/// 8-byte header, rounded up to 16 bytes, 32 at least). Large blocks the allocator maps on
/// their own take whole pages; the difference is under one page per block.
fn footprint(size: usize) -> i64 {
    (size.max(24).saturating_add(8 + 15) & !15) as i64
}

fn count(delta: i64) {
    // A thread-local `Cell` without a destructor: `try_with` cannot fail or allocate; it
    // is used anyway so that no path here can panic.
    let _ = NET.try_with(|n| n.set(n.get().wrapping_add(delta)));
}

fn counted() {
    if !ACTIVE.load(Ordering::Relaxed) {
        ACTIVE.store(true, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's arguments unchanged and
// returns its result; the counting beside it touches only a thread-local integer and an
// atomic flag (no allocation, no panic, no re-entry into the allocator).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received (see above).
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(footprint(layout.size()));
            counted();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as received (see above).
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(footprint(layout.size()));
            counted();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received (see above).
        unsafe { System.dealloc(ptr, layout) };
        count(-footprint(layout.size()));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as received (see above).
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            count(footprint(new_size) - footprint(layout.size()));
        }
        p
    }
}

/// Whether [`Counting`] is the global allocator of this program.
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Runs `f` on this thread and returns its result with the heap bytes the thread
/// allocated during it and still holds — what the result keeps, when `f` frees nothing it
/// did not allocate itself — or `None` when [`Counting`] is not the global allocator.
pub fn measured<T>(f: impl FnOnce() -> T) -> (T, Option<u64>) {
    let before = NET.try_with(Cell::get).unwrap_or(0);
    let out = f();
    let after = NET.try_with(Cell::get).unwrap_or(0);
    let held = active().then(|| u64::try_from(after.wrapping_sub(before)).unwrap_or(0));
    (out, held)
}

/// Gives the heap memory freed so far back to the operating system, where the system
/// allocator keeps it otherwise (glibc): parsing a large episode allocates many times its
/// text in small blocks and frees them, and glibc keeps such freed blocks resident (in the
/// arena of whichever thread parsed), so a server that opened a few large files would stay
/// at many times what it holds. Elsewhere this does nothing.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            /// glibc: releases free memory at the top of the heap and, since 2.8, every
            /// whole free page inside every arena; returns 1 if any memory was released.
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim takes a plain integer, touches only the allocator's own
        // free lists (under their locks) and may be called from any thread at any time.
        let _ = unsafe { malloc_trim(0) };
    }
}

/// Calls [`release_freed`] when dropped: on every way out of a scope that parsed.
pub struct ReleaseOnDrop;

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        release_freed();
    }
}

/// The library's own tests run with the counting allocator, as the binary does.
#[cfg(test)]
#[global_allocator]
static TEST_HEAP: Counting = Counting;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_closure_keeps_is_counted_and_what_it_frees_is_not() {
        // Warm the thread-local up.
        let _ = measured(|| Vec::<u8>::with_capacity(1));
        let (kept, held) = measured(|| {
            let scratch = vec![0u8; 1 << 20];
            drop(scratch);
            (0..1000).map(|i| vec![i as u8; 100]).collect::<Vec<Vec<u8>>>()
        });
        let held = held.expect("the tests install the counting allocator");
        // 1000 blocks of 100 bytes (112-byte chunks) and the outer vector's 24 000 bytes.
        let expected = 1000 * 112 + footprint(1000 * 24) as u64;
        assert_eq!(kept.len(), 1000);
        assert!(held >= expected && held < expected + 4096, "{held} vs {expected}");
        let (_, freed) = measured(|| drop(kept));
        assert_eq!(freed, Some(0), "freeing what was allocated before counts as nothing kept");
    }

    #[test]
    fn footprints_are_the_allocators_chunks() {
        assert_eq!(footprint(0), 32);
        assert_eq!(footprint(24), 32);
        assert_eq!(footprint(25), 48);
        assert_eq!(footprint(100), 112);
    }
}
