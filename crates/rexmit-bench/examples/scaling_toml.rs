//! Print the benchmark's TCP dumbbell scenario: `scaling_toml FLOWS SECONDS > file.toml`, for
//! profiling one point of the scaling series with `profile_scenario`.
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flows: usize = args.first().and_then(|s| s.parse().ok()).unwrap_or(1);
    let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(30.0);
    print!("{}", rexmit_bench::tcp_dumbbell_toml(flows, secs));
}
