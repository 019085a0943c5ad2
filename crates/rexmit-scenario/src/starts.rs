//! Random starts (`apps[].start_jitter`): resolved once, before a run is built, into the plain
//! `start` every other part reads (the build, the results' measurement windows, emulation).

use crate::schema::Scenario;
use rexmit_engine::{Duration, StreamFactory};

impl Scenario {
    /// This scenario with every `start_jitter` drawn: `start` moves by a uniform draw in
    /// [0, start_jitter) from the stream `app/NAME/start` of the scenario's seed.
    pub fn with_resolved_starts(&self) -> Scenario {
        let mut s = self.clone();
        let streams = StreamFactory::new(s.seed);
        for a in &mut s.apps {
            if let Some(j) = a.start_jitter.take() {
                let mut rng = streams.stream(&format!("app/{}/start", a.name));
                let offset = (rng.uniform() * j.0.as_nanos() as f64) as u64;
                a.start.0 += Duration::from_nanos(offset);
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::Scenario;

    fn scenario(seed: u64, jitter: &str) -> Scenario {
        Scenario::from_toml(&format!(
            r#"
seed = {seed}
stop_time = "10s"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "10ms" }}
left = [{{ name = "S0", rate = "100Mbps", delay = "1ms" }}, {{ name = "S1", rate = "100Mbps", delay = "1ms" }}]
right = [{{ name = "D0", rate = "100Mbps", delay = "1ms" }}, {{ name = "D1", rate = "100Mbps", delay = "1ms" }}]
[[apps]]
name = "a"
kind = "tcp_bulk"
from = "S0"
to = "D0"
start = "1s"
start_jitter = "{jitter}"
[[apps]]
name = "b"
kind = "tcp_bulk"
from = "S1"
to = "D1"
start = "1s"
"#
        ))
        .expect("valid scenario")
    }

    #[test]
    fn the_start_moves_within_the_jitter_by_seed_and_nothing_else_does() {
        let starts: Vec<u64> = (1..=20)
            .map(|seed| scenario(seed, "500ms").with_resolved_starts())
            .map(|s| {
                assert!(s.apps[0].start_jitter.is_none());
                assert_eq!(s.apps[1].start.0.as_nanos(), 1_000_000_000);
                s.apps[0].start.0.as_nanos()
            })
            .collect();
        assert!(starts
            .iter()
            .all(|&t| (1_000_000_000..1_500_000_000).contains(&t)));
        let distinct: std::collections::BTreeSet<_> = starts.iter().collect();
        assert!(distinct.len() >= 19, "{starts:?}");
        // The same seed draws the same start.
        let again = scenario(7, "500ms").with_resolved_starts().apps[0].start.0;
        assert_eq!(again.as_nanos(), starts[6]);
    }

    #[test]
    fn a_jitter_reaching_stop_time_is_refused_by_name() {
        let text = toml::to_string(&scenario(1, "500ms"))
            .unwrap()
            .replace("500ms", "9s");
        let e = Scenario::from_toml(&text).unwrap_err();
        assert!(e.to_string().contains("apps[0].start_jitter"), "{e}");
    }
}
