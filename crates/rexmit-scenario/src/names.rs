//! One metric vocabulary for TCP and SCTP (issue 17). Where the two protocols measure the same
//! quantity they use the same name; the names they used before stay accepted where a scenario
//! names a value (time series), with a deprecation warning in the run's results. The Python
//! front accepts the old result names the same way (`rexmit.metric_names`).

/// (old name, current name) of the time-series values that were renamed.
pub const DEPRECATED_PROBES: &[(&str, &str)] = &[("rtx_queue_bytes", "rtxq_bytes")];

/// The current name of a time-series value, and a warning if `name` is an old one.
pub fn canonical_probe(path: &str, name: &str) -> (String, Option<String>) {
    match DEPRECATED_PROBES.iter().find(|(old, _)| *old == name) {
        Some((old, new)) => (new.to_string(), Some(format!("{path}.value: {old:?} is deprecated, use {new:?} (the same value under the name TCP and SCTP share)"))),
        None => (name.to_string(), None),
    }
}
