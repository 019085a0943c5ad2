//! `cargo run -p rexmit-emulate --example emulate_file -- SCENARIO.toml OUT_DIR`: an emulation
//! run without the Python front (results JSON on stdout).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(out)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: emulate_file SCENARIO.toml OUT_DIR");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(file).expect("read scenario");
    let s = rexmit_scenario::Scenario::from_toml(&text).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    match rexmit_emulate::emulate(&s, Some(std::path::Path::new(out)), |_| true) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).expect("json")),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}
