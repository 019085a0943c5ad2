use rexmit_bench::*;

#[test]
fn hold_and_run_loop_give_positive_rates() {
    let r = bench_hold(100, 10_000, 1);
    assert!(r.heap_eps > 0.0 && r.calendar_eps > 0.0 && r.radix_eps > 0.0);
    assert!(bench_run_loop(10, 10_000, 1) > 0.0);
}

// Hand calculation: 1 flow of 1 Mb/s of 1000 B packets for 1 s is 125 packets, each crossing
// 3 links (access, bottleneck, access), well under the 10 Mb/s bottleneck: 125 x 3 hops.
#[test]
fn one_flow_dumbbell_has_hand_computed_hop_count() {
    let r = bench_dumbbell(1, 1_000_000, 1.0, 1);
    assert_eq!(r.packet_hops, 125 * 3);
    assert!(r.events > 0 && r.hops_per_sec() > 0.0 && r.speedup() > 0.0);
}
