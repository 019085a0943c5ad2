# Peer scenario for issue 7: one TCP bulk flow over the seed 001 Table 1 path, in ns-2.35.
#
#   S --10 Mb/s, 0.1 ms-- G1 --4 Mb/s, 50 ms-- G2 --10 Mb/s, 0.1 ms-- D
#
# Written for rexmit's cross-validation. Run through validation/ns2_tcp.py (which also resolves
# scripted drops of segments to packet ordinals and reads the optional packet trace); by hand:
#   ns validation/src/ns2_tcp_single.tcl agent=Newreno loss=uniform rate=0.01 seed=3 duration=60
# Arguments are key=value; the defaults are in `opt` below. Prints one JSON object on stdout.
#
# Modelling choices that matter when comparing with another simulator:
# - ns-2's TCP agents are one-way: no handshake, no FIN, sequence numbers count packets from 0,
#   every data packet carries packetSize_ payload bytes plus 40 header bytes (1460 + 40 = 1500).
# - Queues are DropTail. ns-2's DropTail drops an arriving packet when the queue would reach
#   limit_ packets, so it holds limit_ - 1 waiting packets besides the one on the wire; we set
#   limit_ = queue + 1 so that `queue` packets can wait, as in ns-3's device queue.
# - The error model is inserted after the bottleneck link's delay element G1 -> G2
#   ($ns link-lossmodel): a dropped packet has used the link; only the data direction is lossy.
#   loss=burst has no ns-2 model: the drop ordinals are drawn here, packet by packet, with ns-3's
#   BurstErrorModel rule, and handed to ErrorModel/List.

array set opt {
    seed 1 duration 60 agent Newreno sink DelAck
    loss none rate 0.0 burstmin 2 burstmax 5 droppkts {}
    access_rate 10Mb access_delay 0.1ms bottleneck_rate 4Mb bottleneck_delay 50ms
    queue 100 pktsize 1460 window 10000 windowinit 2 minrto 0.2 tick 0.01
    delack 0.2 maxburst 0 bugfix {} syn {} trace {} tracevars {}
}
source [file join [file dirname [info script]] ns2_common.tcl]
parse_args $argv

set ns [new Simulator]
set rng [new RNG]
$rng seed 1
# Substream `seed` (substream 0 of seed 1 starts with a draw of 0.0003, which would drop the
# first packet of every run at 1% loss).
for {set r 0} {$r < $opt(seed)} {incr r} { $rng next-substream }

set S [$ns node]; set G1 [$ns node]; set G2 [$ns node]; set D [$ns node]
$ns duplex-link $S $G1 $opt(access_rate) $opt(access_delay) DropTail
$ns duplex-link $G1 $G2 $opt(bottleneck_rate) $opt(bottleneck_delay) DropTail
$ns duplex-link $G2 $D $opt(access_rate) $opt(access_delay) DropTail
set pairs [list [list $S $G1] [list $G1 $S] [list $G1 $G2] [list $G2 $G1] [list $G2 $D] [list $D $G2]]
foreach p $pairs { $ns queue-limit [lindex $p 0] [lindex $p 1] [expr {$opt(queue) + 1}] }

if {$opt(trace) != ""} {
    set tf [open $opt(trace) w]
    $ns trace-queue $S $G1 $tf
    $ns trace-queue $G1 $G2 $tf
}
# Queue monitors count departures (link transmissions) and drops on every link direction.
set devnull [open /dev/null w]
set qms {}
foreach p $pairs { lappend qms [$ns monitor-queue [lindex $p 0] [lindex $p 1] $devnull] }

proc burst_droplist {n rate bmin bmax} {
    # ns-3 BurstErrorModel, per packet: a new burst starts with probability `rate` (restarting any
    # burst under way) and drops this packet; otherwise the current burst drops packets until it
    # has dropped its size, drawn uniformly in bmin..bmax.
    global rng
    set out {}
    set size 0; set count 0
    for {set i 1} {$i <= $n} {incr i} {
        if {[$rng uniform 0 1] < $rate} {
            set size [expr {$bmin + [$rng integer [expr {$bmax - $bmin + 1}]]}]
            set count 1
            lappend out [expr {$i - 1}]
        } elseif {$count < $size} {
            incr count
            lappend out [expr {$i - 1}]
        }
    }
    return $out   ;# 0-based ordinals, as ErrorModel/List counts
}

set em ""
switch -- $opt(loss) {
    none {}
    uniform {
        set em [uniform_error_model $opt(rate) $rng]
    }
    burst {
        # Upper bound on the packets the bottleneck can carry in the run.
        set bps [bw_parse $opt(bottleneck_rate)]
        set n [expr {int($opt(duration) * $bps / (8.0 * ($opt(pktsize) + 40))) + 100}]
        set em [new ErrorModel/List]
        $em droplist [burst_droplist $n $opt(rate) $opt(burstmin) $opt(burstmax)]
    }
    pkts {
        # 1-based ordinals of the packets reaching the error model (ErrorModel/List counts from 0).
        set em [new ErrorModel/List]
        set l {}
        foreach n [split $opt(droppkts) ,] { lappend l [expr {$n - 1}] }
        $em droplist $l
    }
    default { puts stderr "unknown loss $opt(loss)"; exit 2 }
}
# A LossMonitor as the error model's drop target counts its drops (they then bypass the link's
# drop trace, so trace lines 'd' are queue drops only).
set emdrops [new Agent/LossMonitor]
if {$em != ""} {
    $ns link-lossmodel $em $G1 $G2
    $em drop-target $emdrops
}

set tcp [new_tcp_agent $opt(agent)]
# syn_ (ns-2 default true): the first data packet goes out alone, as if it were a SYN.
if {$opt(syn) != ""} { $tcp set syn_ $opt(syn) }
switch -- $opt(sink) {
    DelAck { set sink [new Agent/TCPSink/DelAck] }
    Sack1DelAck { set sink [new Agent/TCPSink/Sack1/DelAck] }
    Plain { set sink [new Agent/TCPSink] }
    Sack1 { set sink [new Agent/TCPSink/Sack1] }
    default { puts stderr "unknown sink $opt(sink)"; exit 2 }
}
if {[string match *DelAck $opt(sink)]} { $sink set interval_ $opt(delack) }
$ns attach-agent $S $tcp
if {$opt(tracevars) != ""} {
    # ns-2 variable tracing: one line per change of cwnd_ or ssthresh_ (diagnostics).
    set vf [open $opt(tracevars) w]
    $tcp attach $vf
    $tcp trace cwnd_
    $tcp trace ssthresh_
}
$ns attach-agent $D $sink
$ns connect $tcp $sink
set ftp [new Application/FTP]
$ftp attach-agent $tcp
$ns at 0.0 "$ftp start"

proc finish {} {
    global ns tcp sink opt qms tf vf wall0 emdrops
    if {[info exists tf]} { flush $tf; close $tf }
    if {[info exists vf]} { flush $vf; close $vf }
    set hops 0
    foreach qm $qms { incr hops [$qm set pdepartures_] }
    set qd 0
    foreach qm $qms { incr qd [$qm set pdrops_] }
    set errd [$emdrops set npkts_]
    # TCPSink's bytes_ counts in-order packets at their full size (payload + 40 header bytes).
    set pkts [expr {[$sink set bytes_] / ($opt(pktsize) + 40)}]
    set rx [expr {$pkts * $opt(pktsize)}]
    puts [format {{"peer": "ns-2.35", "scenario": "tcp_single", "seed": %s, "duration_s": %s, "agent": "%s", "sink": "%s", "loss": "%s", "rate": %s, "burst_size": [%s, %s], "drop_pkts": [%s], "pkt_size": %s, "window": %s, "window_init": %s, "min_rto_s": %s, "tick_s": %s, "queue_pkts": %s, "goodput_bps": %.1f, "rx_bytes": %s, "rx_packets": %s, "data_segments_sent": %s, "retransmissions": %s, "timeouts": %s, "cwnd_cuts": %s, "highest_ack": %s, "error_drops": %s, "queue_drops": %s, "packet_hops": %s, "wall_run_s": %.6f}} \
        $opt(seed) $opt(duration) $opt(agent) $opt(sink) $opt(loss) $opt(rate) $opt(burstmin) $opt(burstmax) \
        [join [split $opt(droppkts) ,] {, }] $opt(pktsize) $opt(window) $opt(windowinit) $opt(minrto) $opt(tick) $opt(queue) \
        [expr {$rx * 8.0 / $opt(duration)}] $rx $pkts [$tcp set ndatapack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_] \
        [$tcp set ncwndcuts_] [$tcp set ack_] $errd $qd $hops [expr {([clock microseconds] - $wall0) / 1e6}]]
    exit 0
}
$ns at $opt(duration) "finish"
set wall0 [clock microseconds]
$ns run
