//! Fast paths (issue 40 step 7): shortcuts through the core for the common cases, each taken
//! only where the full path would provably do nothing more. Release builds always take them.
//! Test and fuzz builds can turn them off for one thread (`with_full_paths`), and the fuzz
//! harness runs every program both ways and compares the two connections field by field
//! after every operation (`fuzzing::run`), so a shortcut that differs from the full path in
//! any field, segment or timer fails the corpus replay under `cargo test`.

#[cfg(feature = "fuzzing")]
thread_local! {
    static FULL_PATHS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the fast paths are on (always, outside test and fuzz builds).
#[inline(always)]
pub(crate) fn enabled() -> bool {
    #[cfg(feature = "fuzzing")]
    {
        !FULL_PATHS.with(|c| c.get())
    }
    #[cfg(not(feature = "fuzzing"))]
    {
        true
    }
}

/// Run `f` with every fast path off on this thread (the full paths only).
#[cfg(feature = "fuzzing")]
pub fn with_full_paths<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            FULL_PATHS.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(FULL_PATHS.with(|c| c.replace(true)));
    f()
}
