//! The process's resident memory, for the `max_memory` run guard. Read from
//! `/proc/self/status` (Linux); `None` where that is not available.

/// Resident set size in bytes (`VmRSS`), or `None` if it cannot be read.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    #[test]
    fn resident_memory_is_plausible_where_proc_exists() {
        if let Some(b) = super::resident_bytes() {
            assert!(b > 1 << 20 && b < 1 << 40, "{b}");
        }
    }
}
