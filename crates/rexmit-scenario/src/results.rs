//! What a run produces: a summary, one row per flow, one row per link direction, per-node
//! drop counters, the requested time series and per-flow tables (message latencies, HTTP
//! responses). Plain data, serializable to JSON.

use serde::Serialize;

#[derive(Clone, Debug, Serialize)]
pub struct RunResults {
    pub summary: Summary,
    pub flows: Vec<Row>,
    pub links: Vec<Row>,
    pub nodes: Vec<Row>,
    #[serde(skip)]
    pub series: Vec<SeriesData>,
    /// One entry per (table, flow): e.g. every delivered message of a message app.
    pub tables: Vec<TableData>,
    pub pcap_files: Vec<String>,
    /// Emulation runs only: lateness, the real hosts' namespaces and the sysctls and socket
    /// options set there (filled by rexmit-emulate, opaque here).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub emulation: Option<serde_json::Value>,
    /// Things the user should know that did not stop the run (e.g. a scripted drop that never
    /// matched a packet), one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Integer columns of one table of one flow (`messages`: msg, sent_ns, latency_ns, rtx, size;
/// `responses`: request, requested_ns, size, completed, completion_ns).
#[derive(Clone, Debug, Serialize)]
pub struct TableData {
    pub table: String,
    pub flow: String,
    pub columns: Vec<(String, Vec<u64>)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub seed: u64,
    pub stop_time_s: f64,
    pub end_time_s: f64,
    pub events: u64,
    pub wall_time_s: f64,
    /// Packet hops: transmissions on any link.
    pub packet_hops: u64,
    /// `None` for a complete run; otherwise why the run stopped early (results are partial).
    pub partial: Option<String>,
    pub pcap_errors: u64,
}

/// A named entity with string labels and numeric metrics.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub metrics: Vec<(String, f64)>,
}

#[derive(Clone, Debug)]
pub struct SeriesData {
    pub name: String,
    pub t_ns: Vec<u64>,
    pub values: Vec<f64>,
}
