# Helpers shared by rexmit's ns-2 peer scripts (sourced; written for rexmit's validation).

# Parse key=value arguments into the global array `opt`, whose keys (with their defaults) the
# script has set: an unknown key or an argument without '=' stops with exit status 2.
proc parse_args {argv} {
    global opt
    foreach a $argv {
        set i [string first = $a]
        if {$i < 0} { puts stderr "argument without '=': $a"; exit 2 }
        set k [string range $a 0 [expr {$i - 1}]]
        if {![info exists opt($k)]} { puts stderr "unknown argument: $k"; exit 2 }
        set opt($k) [string range $a [expr {$i + 1}] end]
    }
}

# A one-way TCP agent of kind Tahoe | Reno | Newreno | Sack1 configured from `opt` (pktsize,
# window, windowinit, minrto, tick, maxburst, bugfix).
proc new_tcp_agent {agent} {
    global opt
    if {$agent == "Tahoe"} { set tcp [new Agent/TCP] } else { set tcp [new Agent/TCP/$agent] }
    $tcp set packetSize_ $opt(pktsize)
    $tcp set window_ $opt(window)
    $tcp set windowInit_ $opt(windowinit)
    $tcp set minrto_ $opt(minrto)
    $tcp set tcpTick_ $opt(tick)
    $tcp set maxburst_ $opt(maxburst)
    # bugFix_ (ns-2 default true): no second fast retransmit for dup ACKs of data sent before
    # the last one (RFC 6582 section 3.2 step 1's `recover` check, which ns-2 applies to Reno).
    if {$opt(bugfix) != ""} { $tcp set bugFix_ $opt(bugfix) }
    return $tcp
}

# A packet error model dropping each packet with probability `rate`, drawing from `rng`.
proc uniform_error_model {rate rng} {
    set em [new ErrorModel]
    $em unit pkt
    $em set rate_ $rate
    set rv [new RandomVariable/Uniform]
    $rv use-rng $rng
    $em ranvar $rv
    return $em
}
