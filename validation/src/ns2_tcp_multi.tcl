# Peer scenario for issue 19: competing TCP flows on one bottleneck, in ns-2.35.
#
#   S_i --access_rate, d_i-- R1 --bottleneck_rate, bottleneck_delay-- R2 --access_rate, recv_delay-- D_i
#
# Written for rexmit's multi-flow validation; run through validation/ns2_multi.py, or by hand:
#   ns validation/src/ns2_tcp_multi.tcl agents=Sack1,Sack1 delays=11,30 starts=0.1,0.7 duration=100
# Arguments are key=value; the defaults are in `opt` below. Prints one JSON object on stdout.
#
# - Flow i's sender access delay is delays[i] (ms), so its two-way propagation delay is
#   2 (delays[i] + bottleneck_delay + recv_delay) plus serialisations.
# - Queues are DropTail (limit_ = queue + 1: `queue` packets wait besides the one on the wire, as
#   in the single-flow script) or RED on R1 -> R2 (thresholds in packets, mean_pktsize_ the full
#   packet, wait_ off unless red_wait=1); every other queue holds 1000 packets.
# - loss=uniform drops packets after the bottleneck's delay element R1 -> R2 (data direction).
# - Goodput counts the in-order bytes each sink received between `warmup` and `duration`;
#   retransmissions, timeouts, the bottleneck loss rate = (queue drops + error drops) / arrivals
#   at R1 -> R2 and its mean queue (time average of packets waiting) count the whole run, as
#   rexmit's link statistics do.
# - shorts=T:N:A,... adds short transfers (one agent pair each, on their own hosts with RTT
#   `short_rtt`): at time T, agent A sends N packets; the output lists their completion times
#   (last ACK) or -1 if unfinished.

array set opt {
    seed 1 duration 100 warmup 20 agents Sack1 delays 11 starts 0
    access_rate 100Mb recv_delay 1 bottleneck_rate 10Mb bottleneck_delay 10
    queue 30 qdisc DropTail red_min 5 red_max 15 red_maxp 0.1 red_wq 0.002 red_gentle 1 red_wait 0 red_pktsize 500
    loss none rate 0.0
    pktsize 1460 window 10000 windowinit 2 minrto 0.2 tick 0.01 delack 0.2 maxburst 0 bugfix {}
    shorts {} short_rtt 60
}
source [file join [file dirname [info script]] ns2_common.tcl]
parse_args $argv
set agents [split $opt(agents) ,]
set delays [split $opt(delays) ,]
set starts [split $opt(starts) ,]
set n [llength $agents]
if {[llength $delays] != $n || [llength $starts] != $n} {
    puts stderr "agents, delays and starts must have the same length"; exit 2
}

set ns [new Simulator]
set rng [new RNG]
$rng seed 1
for {set r 0} {$r < $opt(seed)} {incr r} { $rng next-substream }

if {$opt(qdisc) == "RED"} {
    Queue/RED set thresh_ $opt(red_min)
    Queue/RED set maxthresh_ $opt(red_max)
    Queue/RED set linterm_ [expr {1.0 / $opt(red_maxp)}]
    Queue/RED set q_weight_ $opt(red_wq)
    Queue/RED set gentle_ [expr {$opt(red_gentle) ? "true" : "false"}]
    Queue/RED set wait_ [expr {$opt(red_wait) ? "true" : "false"}]
    Queue/RED set queue_in_bytes_ false
    Queue/RED set setbit_ false
    Queue/RED set mean_pktsize_ $opt(red_pktsize)
}

set R1 [$ns node]; set R2 [$ns node]
$ns duplex-link $R1 $R2 $opt(bottleneck_rate) "$opt(bottleneck_delay)ms" $opt(qdisc)
$ns queue-limit $R1 $R2 [expr {$opt(queue) + 1}]
$ns queue-limit $R2 $R1 1000
set devnull [open /dev/null w]
set qm [$ns monitor-queue $R1 $R2 $devnull]
set integ [$qm get-pkts-integrator]

proc access_pair {d} {
    # A sender host with access delay d (ms) and a receiver host behind R2.
    global ns opt R1 R2
    if {$d < 0} { puts stderr "negative access delay $d ms"; exit 2 }
    set s [$ns node]; set r [$ns node]
    $ns duplex-link $s $R1 $opt(access_rate) "${d}ms" DropTail
    $ns duplex-link $R2 $r $opt(access_rate) "$opt(recv_delay)ms" DropTail
    foreach p [list [list $s $R1] [list $R1 $s] [list $R2 $r] [list $r $R2]] {
        $ns queue-limit [lindex $p 0] [lindex $p 1] 1000
    }
    return [list $s $r]
}

proc tcp_pair {agent s r} {
    global ns opt
    set tcp [new_tcp_agent $agent]
    if {$agent == "Sack1"} { set sink [new Agent/TCPSink/Sack1/DelAck] } else { set sink [new Agent/TCPSink/DelAck] }
    $sink set interval_ $opt(delack)
    $ns attach-agent $s $tcp
    $ns attach-agent $r $sink
    $ns connect $tcp $sink
    return [list $tcp $sink]
}

set em ""
if {$opt(loss) == "uniform"} {
    set em [uniform_error_model $opt(rate) $rng]
    set emdrops [new Agent/LossMonitor]
    $ns link-lossmodel $em $R1 $R2
    $em drop-target $emdrops
} elseif {$opt(loss) != "none"} { puts stderr "unknown loss $opt(loss)"; exit 2 }

set flows {}
for {set i 0} {$i < $n} {incr i} {
    lassign [access_pair [lindex $delays $i]] s r
    lassign [tcp_pair [lindex $agents $i] $s $r] tcp sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns at [lindex $starts $i] "$ftp start"
    $tcp set fid_ $i
    lappend flows [list $tcp $sink]
}

# Short transfers: each on a host pair of its own; `done` records the completion time.
set shorts {}
if {$opt(shorts) != ""} {
    Agent/TCP instproc done {} {
        global ns short_done
        set short_done($self) [$ns now]
    }
    set k 0
    foreach spec [split $opt(shorts) ,] {
        lassign [split $spec :] t npk agent
        lassign [access_pair [expr {$opt(short_rtt) / 2.0 - $opt(bottleneck_delay) - $opt(recv_delay)}]] s r
        lassign [tcp_pair $agent $s $r] tcp sink
        $tcp set fid_ [expr {1000 + $k}]
        $ns at $t "$tcp advance $npk"
        lappend shorts [list $tcp $t $npk]
        incr k
    }
}

proc snapshot {} {
    global flows warm integ qm
    set warm(t) [[Simulator instance] now]
    set warm(qsum) [$integ set sum_]
    set warm(arr) [$qm set parrivals_]
    set warm(drop) [$qm set pdrops_]
    set i 0
    foreach f $flows { set warm(rx,$i) [[lindex $f 1] set bytes_]; incr i }
}

proc finish {} {
    global ns opt flows shorts short_done warm integ qm em emdrops wall0
    set T [$ns now]
    set span [expr {$T - $warm(t)}]
    set parts {}
    set i 0
    foreach f $flows {
        lassign $f tcp sink
        set pkts [expr {([$sink set bytes_] - $warm(rx,$i)) / ($opt(pktsize) + 40)}]
        set rx [expr {$pkts * $opt(pktsize)}]
        lappend parts [format {{"goodput_bps": %.1f, "rx_bytes": %s, "data_segments_sent": %s, "retransmissions": %s, "timeouts": %s, "cwnd_cuts": %s}} \
            [expr {$rx * 8.0 / $span}] $rx [$tcp set ndatapack_] [$tcp set nrexmitpack_] [$tcp set nrexmit_] [$tcp set ncwndcuts_]]
        incr i
    }
    set sparts {}
    foreach s $shorts {
        lassign $s tcp t npk
        set done [expr {[info exists short_done($tcp)] ? $short_done($tcp) - $t : -1}]
        lappend sparts [format {{"start_s": %s, "packets": %s, "completion_s": %.6f, "retransmissions": %s, "timeouts": %s}} \
            $t $npk $done [$tcp set nrexmitpack_] [$tcp set nrexmit_]]
    }
    set arr [$qm set parrivals_]
    set qdrops [$qm set pdrops_]
    set edrops [expr {$em == "" ? 0 : [$emdrops set npkts_]}]
    puts [format {{"peer": "ns-2.35", "scenario": "tcp_multi", "seed": %s, "duration_s": %s, "warmup_s": %s, "agents": "%s", "qdisc": "%s", "flows": [%s], "shorts": [%s], "bottleneck": {"arrivals": %s, "queue_drops": %s, "error_drops": %s, "mean_queue_pkts": %.4f}, "wall_run_s": %.6f}} \
        $opt(seed) $opt(duration) $opt(warmup) $opt(agents) $opt(qdisc) [join $parts {, }] [join $sparts {, }] \
        $arr $qdrops $edrops [expr {[$integ set sum_] / $T}] \
        [expr {([clock microseconds] - $wall0) / 1e6}]]
    exit 0
}
$ns at $opt(warmup) "snapshot"
$ns at $opt(duration) "finish"
set wall0 [clock microseconds]
$ns run
