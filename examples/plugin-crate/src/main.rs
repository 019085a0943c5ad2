//! `vegas-plugin SCENARIO.toml|SCENARIO.json`: run a scenario with the `vegas_rs` controller
//! registered and print each flow's metrics as JSON. The whole plugin is `vegas.rs` plus the
//! `register()` line.

mod vegas;

fn main() {
    vegas::register();
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| fail("usage: vegas-plugin SCENARIO.toml|SCENARIO.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let s = if path.ends_with(".json") {
        rexmit_scenario::Scenario::from_json(&text)
    } else {
        rexmit_scenario::Scenario::from_toml(&text)
    }
    .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let r = rexmit_scenario::run::run(&s, None, |_| true)
        .unwrap_or_else(|e| fail(&format!("{path}: {e}")));
    let flows: serde_json::Map<String, serde_json::Value> = r
        .flows
        .iter()
        .map(|f| {
            let m: serde_json::Map<String, serde_json::Value> = f
                .metrics
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::json!(v)))
                .collect();
            (f.name.clone(), serde_json::Value::Object(m))
        })
        .collect();
    println!("{}", serde_json::Value::Object(flows));
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}
