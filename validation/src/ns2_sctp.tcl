# Peer scenarios for issue 7: SCTP (SACK vs NR-SACK) and CMT in ns-2.35, seed 000 shapes.
#
#   topo=dumbbell (seed 000 Figure 5, without cross-traffic; uniform loss instead):
#     S --100 Mb/s 14 ms-- R1 --100 Mb/s 2 ms-- R2 --100 Mb/s 14 ms-- R
#   topo=cmt (seed 000 Figure 6 shape, two disjoint paths, multihomed S and R):
#     S.if0 --14 ms-- R1 --2 ms-- R2 --14 ms-- R.if0      (path 1, loss rate `rate`)
#     S.if1 --14 ms-- R3 --2 ms-- R4 --14 ms-- R.if1      (path 2, loss rate `rate2`)
#   all links 100 Mb/s; loss only on the bottleneck(s), data direction.
#
# Written for rexmit's cross-validation. Run through validation/ns2_sctp.py, which reads the packet
# trace; by hand: ns validation/src/ns2_sctp.tcl nrsack=1 rate=0.01 trace=/tmp/t.tr
# Arguments are key=value (defaults in `opt`). Prints one JSON object on stdout.
#
# Modelling notes:
# - DropTail queues hold `queue` waiting packets (limit_ = queue + 1, see ns2_tcp_single.tcl);
#   default 833 = the bandwidth-delay product of a 100 ms flow at 100 Mb/s in 1500-byte packets
#   (seed 000 §IV.A).
# - The error model is after the bottleneck link's delay ($ns link-lossmodel): dropped packets have
#   used the link; SACKs (reverse direction) are never dropped. Handshake packets can be.
# - Send buffer: ns-2's SCTP simulates it with initialSwnd_ (bytes of DATA chunks, header included,
#   released when cumulatively acked or, with NR-SACKs, nr-gap-acked); 0 = unlimited.
# - Unordered delivery (unordered_ 1) on the one outbound stream; the application is FTP (always
#   has data).

array set opt {
    topo dumbbell seed 1 duration 60 start 0.0 nrsack 0 unordered 1 swnd 65536 rwnd 4194304
    rate 0.0 rate2 0.0 queue 833 link_rate 100Mb edge_delay 14ms core_delay 2ms core_delay2 {}
    mtu 1500 chunk 1468 initcwnd 2 minrto 1.0 initrto 3.0 maxburst 1 sackdelay 0.2 delack 1
    rtxpolicy 2 trace {} traceall {}
}
source [file join [file dirname [info script]] ns2_common.tcl]
parse_args $argv

Trace set show_sctphdr_ 1
set ns [new Simulator]
set rng [new RNG]
$rng seed 1
# Substream `seed` (substream 0 of seed 1 starts with a draw of 0.0003, which would drop the
# first packet of every run at 1% loss).
for {set r 0} {$r < $opt(seed)} {incr r} { $rng next-substream }

proc link {a b delay} {
    global ns opt
    $ns duplex-link $a $b $opt(link_rate) $delay DropTail
    $ns queue-limit $a $b [expr {$opt(queue) + 1}]
    $ns queue-limit $b $a [expr {$opt(queue) + 1}]
}

set emdrops [new Agent/LossMonitor]
proc lossy {a b rate} {
    global ns rng emdrops
    if {$rate <= 0} { return }
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $rate
    set rv [new RandomVariable/Uniform]
    $rv use-rng $rng
    $em ranvar $rv
    $ns link-lossmodel $em $a $b
    $em drop-target $emdrops
}

proc configure {agent} {
    global opt
    $agent set mtu_ $opt(mtu)
    $agent set dataChunkSize_ $opt(chunk)
    $agent set numOutStreams_ 1
    $agent set unordered_ $opt(unordered)
    $agent set initialCwnd_ $opt(initcwnd)
    $agent set minRto_ $opt(minrto)
    $agent set initialRto_ $opt(initrto)
    $agent set useMaxBurst_ $opt(maxburst)
    $agent set sackDelay_ $opt(sackdelay)
    $agent set useDelayedSacks_ $opt(delack)
    $agent set initialRwnd_ $opt(rwnd)
    $agent set useNonRenegSacks_ $opt(nrsack)
}

set devnull [open /dev/null w]
set qms {}
if {$opt(topo) == "dumbbell"} {
    set S [$ns node]; set R1 [$ns node]; set R2 [$ns node]; set R [$ns node]
    link $S $R1 $opt(edge_delay); link $R1 $R2 $opt(core_delay); link $R2 $R $opt(edge_delay)
    foreach p [list [list $S $R1] [list $R1 $R2] [list $R2 $R] [list $R $R2] [list $R2 $R1] [list $R1 $S]] {
        lappend qms [$ns monitor-queue [lindex $p 0] [lindex $p 1] $devnull]
    }
    lossy $R1 $R2 $opt(rate)
    set snd [new Agent/SCTP]
    set rcv [new Agent/SCTP]
    configure $snd; configure $rcv
    $snd set initialSwnd_ $opt(swnd)
    $ns attach-agent $S $snd
    $ns attach-agent $R $rcv
    if {$opt(trace) != ""} { set tf [open $opt(trace) w]; $ns trace-queue $R2 $R $tf; $ns trace-queue $S $R1 $tf }
    $ns connect $snd $rcv
} elseif {$opt(topo) == "cmt"} {
    set Sc [$ns node]; set S0 [$ns node]; set S1 [$ns node]
    set Rc [$ns node]; set D0 [$ns node]; set D1 [$ns node]
    $ns multihome-add-interface $Sc $S0
    $ns multihome-add-interface $Sc $S1
    $ns multihome-add-interface $Rc $D0
    $ns multihome-add-interface $Rc $D1
    set R1 [$ns node]; set R2 [$ns node]; set R3 [$ns node]; set R4 [$ns node]
    link $S0 $R1 $opt(edge_delay); link $R1 $R2 $opt(core_delay); link $R2 $D0 $opt(edge_delay)
    # Path 2's core delay may differ (asymmetric paths); by default both are the same.
    set cd2 [expr {$opt(core_delay2) == "" ? $opt(core_delay) : $opt(core_delay2)}]
    link $S1 $R3 $opt(edge_delay); link $R3 $R4 $cd2; link $R4 $D1 $opt(edge_delay)
    foreach p [list [list $S0 $R1] [list $R1 $R2] [list $R2 $D0] [list $D0 $R2] [list $R2 $R1] [list $R1 $S0] \
                    [list $S1 $R3] [list $R3 $R4] [list $R4 $D1] [list $D1 $R4] [list $R4 $R3] [list $R3 $S1]] {
        lappend qms [$ns monitor-queue [lindex $p 0] [lindex $p 1] $devnull]
    }
    lossy $R1 $R2 $opt(rate)
    lossy $R3 $R4 $opt(rate2)
    set snd [new Agent/SCTP/CMT]
    set rcv [new Agent/SCTP/CMT]
    configure $snd; configure $rcv
    $snd set initialSwnd_ $opt(swnd)
    $snd set eCmtRtxPolicy_ $opt(rtxpolicy)
    $ns multihome-attach-agent $Sc $snd
    $ns multihome-attach-agent $Rc $rcv
    if {$opt(trace) != ""} {
        set tf [open $opt(trace) w]
        $ns trace-queue $R2 $D0 $tf; $ns trace-queue $R4 $D1 $tf
        $ns trace-queue $S0 $R1 $tf; $ns trace-queue $S1 $R3 $tf
    }
    $ns connect $snd $rcv
    $snd set-primary-destination $D0
} else {
    puts stderr "unknown topo $opt(topo)"; exit 2
}
if {$opt(traceall) != ""} {
    set ta [open $opt(traceall) w]
    $snd set trace_all_ 1
    $snd trace cwnd_
    $snd attach $ta
}

# timeoutCount_ reads 1 before anything is sent (seen at t = 0 in every run): report the increase.
$ns at 0.0 {set to0 [$snd set timeoutCount_]; set fr0 [$snd set frCount_]}
set ftp [new Application/FTP]
$ftp attach-agent $snd
$ns at $opt(start) "$ftp start"

proc finish {} {
    global ns snd opt qms tf ta emdrops wall0 to0 fr0
    if {[info exists tf]} { flush $tf; close $tf }
    if {[info exists ta]} { flush $ta; close $ta }
    set hops 0; set qd 0
    foreach qm $qms { incr hops [$qm set pdepartures_]; incr qd [$qm set pdrops_] }
    puts [format {{"peer": "ns-2.35", "scenario": "sctp_%s", "seed": %s, "duration_s": %s, "nrsack": %s, "unordered": %s, "send_buffer": %s, "rwnd": %s, "rate": %s, "rate2": %s, "queue_pkts": %s, "mtu": %s, "chunk": %s, "timeouts": %s, "fast_retransmits": %s, "error_drops": %s, "queue_drops": %s, "packet_hops": %s, "wall_run_s": %.6f}} \
        $opt(topo) $opt(seed) $opt(duration) $opt(nrsack) $opt(unordered) $opt(swnd) $opt(rwnd) $opt(rate) $opt(rate2) \
        $opt(queue) $opt(mtu) $opt(chunk) [expr {[$snd set timeoutCount_] - $to0}] [expr {[$snd set frCount_] - $fr0}] [$emdrops set npkts_] $qd $hops \
        [expr {([clock microseconds] - $wall0) / 1e6}]]
    exit 0
}
$ns at $opt(duration) "finish"
set wall0 [clock microseconds]
$ns run
