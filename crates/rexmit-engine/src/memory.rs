//! The process's resident memory, for the `max_memory` run guard. Read from
//! `/proc/self/status` (Linux); `None` where that is not available.

/// The value of line `key` (e.g. `"VmRSS:"`) of a `/proc` file whose lines read
/// `key  N kB`, in bytes; `None` if it cannot be read.
fn proc_kb_field(path: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resident set size in bytes (`VmRSS`), or `None` if it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    proc_kb_field("/proc/self/status", "VmRSS:")
}

/// The machine's memory in bytes (`MemTotal` of `/proc/meminfo`), or `None` if it cannot be read.
pub fn total_bytes() -> Option<u64> {
    proc_kb_field("/proc/meminfo", "MemTotal:")
}

/// The memory guard of a run that sets none: three quarters of the machine's memory, so that a
/// runaway scenario (an open-loop source far beyond what its links carry, say) stops with an
/// error and its partial results instead of meeting the kernel's OOM killer.
pub fn default_limit() -> Option<u64> {
    total_bytes().map(|t| t / 4 * 3)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_plausible_where_proc_exists() {
        if let Some(b) = super::resident_bytes() {
            assert!(b > 1 << 20 && b < 1 << 40, "{b}");
        }
    }

    #[test]
    fn the_default_limit_is_three_quarters_of_the_machine_where_proc_exists() {
        if let (Some(total), Some(limit)) = (super::total_bytes(), super::default_limit()) {
            assert!(total > 64 << 20, "{total}");
            assert_eq!(limit, total / 4 * 3);
            assert!(super::resident_bytes().is_some_and(|r| r < limit));
        }
    }
}
