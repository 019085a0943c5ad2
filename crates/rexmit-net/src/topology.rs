//! Topology builders: a chain, the dumbbell with edge nodes (seed 000 Figure 5) and the dual
//! dumbbell with two disjoint bottlenecks and multihomed end hosts (seed 000 Figure 6). They only
//! add nodes and links to a `Network`; anything they build can also be written out by hand.

use crate::channel::LinkParams;

use crate::network::{BuildError, Network, NodeId};

/// Parameters of both directions of a link: `fwd` from the first-named end to the second.
#[derive(Clone, Debug, PartialEq)]
pub struct Duplex {
    pub fwd: LinkParams,
    pub rev: LinkParams,
}

impl Duplex {
    pub fn symmetric(p: LinkParams) -> Self {
        Duplex {
            fwd: p.clone(),
            rev: p,
        }
    }
}

/// A host hanging off a router: its name and access link (`fwd` = host to router).
#[derive(Clone, Debug, PartialEq)]
pub struct AccessLink {
    pub host: String,
    pub link: Duplex,
}

/// Routers `left` and `right` joined by the bottleneck; hosts on each side.
#[derive(Clone, Debug, PartialEq)]
pub struct DumbbellSpec {
    pub left_router: String,
    pub right_router: String,
    /// `fwd` = left router to right router.
    pub bottleneck: Duplex,
    pub left: Vec<AccessLink>,
    pub right: Vec<AccessLink>,
}

/// A host attached to both paths of a dual dumbbell.
#[derive(Clone, Debug, PartialEq)]
pub struct MultihomedHost {
    pub name: String,
    /// `true`: attached to the left routers of both paths; `false`: to the right routers.
    pub left: bool,
    /// Access links to path 1 and path 2 (`fwd` = host to router).
    pub links: [Duplex; 2],
}

#[derive(Clone, Debug, PartialEq)]
pub struct DualDumbbellSpec {
    pub paths: [DumbbellSpec; 2],
    pub multihomed: Vec<MultihomedHost>,
}

fn node(net: &mut Network, name: &str, forwarding: bool) -> Result<NodeId, BuildError> {
    net.add_node(name, forwarding)
}

fn duplex(net: &mut Network, a: NodeId, b: NodeId, p: &Duplex) -> Result<(), BuildError> {
    net.add_link(a, b, p.fwd.clone(), p.rev.clone(), None)
        .map(|_| ())
}

/// Nodes `names[0] - names[1] - ... - names[n]`, the inner ones routers; `links[i]` joins
/// `names[i]` and `names[i+1]`.
pub fn chain(
    net: &mut Network,
    names: &[String],
    links: &[Duplex],
) -> Result<Vec<NodeId>, BuildError> {
    assert_eq!(
        names.len(),
        links.len() + 1,
        "chain: one link fewer than nodes"
    );
    let last = names.len() - 1;
    let ids = names
        .iter()
        .enumerate()
        .map(|(i, n)| node(net, n, i != 0 && i != last))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, l) in links.iter().enumerate() {
        duplex(net, ids[i], ids[i + 1], l)?;
    }
    Ok(ids)
}

/// Build a dumbbell; returns (left router, right router).
pub fn dumbbell(net: &mut Network, spec: &DumbbellSpec) -> Result<(NodeId, NodeId), BuildError> {
    let l = node(net, &spec.left_router, true)?;
    let r = node(net, &spec.right_router, true)?;
    duplex(net, l, r, &spec.bottleneck)?;
    for (router, hosts) in [(l, &spec.left), (r, &spec.right)] {
        for h in hosts {
            let id = node(net, &h.host, false)?;
            duplex(net, id, router, &h.link)?;
        }
    }
    Ok((l, r))
}

/// Build two dumbbells and the multihomed hosts joining them. A multihomed host's first address
/// is on path 1, its second on path 2.
pub fn dual_dumbbell(net: &mut Network, spec: &DualDumbbellSpec) -> Result<(), BuildError> {
    let p1 = dumbbell(net, &spec.paths[0])?;
    let p2 = dumbbell(net, &spec.paths[1])?;
    for h in &spec.multihomed {
        let id = node(net, &h.name, false)?;
        let (r1, r2) = if h.left { (p1.0, p2.0) } else { (p1.1, p2.1) };
        duplex(net, id, r1, &h.links[0])?;
        duplex(net, id, r2, &h.links[1])?;
    }
    Ok(())
}
