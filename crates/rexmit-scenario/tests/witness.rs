//! The event-order witness (issue 40 step 1): the same scenario writes the same witness, and a
//! change of same-instant order (here: the scenario's own tie rule, FIFO instead of shuffled)
//! is reported at its first record, two records at one instant in the other order.

use rexmit_net::witness::first_divergence;
use rexmit_scenario::Scenario;
use std::path::{Path, PathBuf};

fn scenario(ties: &str) -> Scenario {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/reference/tcp_competing_droptail.toml");
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains("event_ties = \"random\""));
    let text = text
        .replace(
            "event_ties = \"random\"",
            &format!("event_ties = \"{ties}\""),
        )
        .replace("stop_time = ", "stop_time = \"5s\"\n# was: ");
    Scenario::from_toml(&text).unwrap()
}

fn witness(s: &Scenario, dir: &Path, name: &str) -> (PathBuf, (u64, u64)) {
    let path = dir.join(name);
    let (_, w) = rexmit_scenario::run::run_witnessed(s, None, Some(&path), |_| true).unwrap();
    (path, w.unwrap())
}

#[test]
fn the_witness_repeats_and_catches_a_reordered_tie_at_its_first_record() {
    let dir = std::env::temp_dir().join(format!("rexmit-witness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, da) = witness(&scenario("random"), &dir, "a");
    let (b, db) = witness(&scenario("random"), &dir, "b");
    assert_eq!(da, db);
    assert!(da.0 > 10_000, "{} records", da.0);
    assert_eq!(first_divergence(&a, &b, 4).unwrap(), None);

    let (c, dc) = witness(&scenario("fifo"), &dir, "c");
    assert_ne!(da.1, dc.1);
    let d = first_divergence(&a, &c, 4)
        .unwrap()
        .expect("the tie order differs");
    let (x, y) = (d.a.unwrap(), d.b.unwrap());
    // The first difference is an order, not a time: both runs did something at that instant,
    // and everything before it was the same.
    assert_eq!(x.time_ns, y.time_ns, "{d}");
    assert_eq!(d.before.len(), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}
