//! `[topology]` and the link tables it is made of: the kinds chain, dumbbell and dual_dumbbell
//! (`resolve` checks which fields each needs), links with their queues (the queue table itself:
//! `queue.rs`), error models and reordering, dumbbell sides and multihomed hosts.

use crate::error::{Result, ScenarioError};
use crate::kinds::{kind_enum, Direction, ErrorModelCfg, KindFields};
pub use crate::queue::{QueueCfg, RedCfg};
use crate::units::{DurationStr, RateStr};
use serde::{Deserialize, Serialize};

kind_enum!(TopologyKind { Chain = "chain", Dumbbell = "dumbbell", DualDumbbell = "dual_dumbbell" });

/// `[topology]`: chain (`nodes`, `links`), dumbbell (`bottleneck`, `left`, `right`, router
/// names) or dual_dumbbell (`paths`, `multihomed`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Topology {
    pub kind: TopologyKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<LinkProps>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_router: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_router: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<LinkProps>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left: Option<Vec<HostLinkCfg>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right: Option<Vec<HostLinkCfg>>,
    /// dual_dumbbell: the two dumbbells, path 1 and path 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paths: Option<Vec<DumbbellCfg>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multihomed: Option<Vec<MultihomedCfg>>,
}

/// `Topology` once `resolve` has checked its kind's fields.
#[allow(clippy::large_enum_variant)] // a short-lived view, built once per check
pub enum TopologySpec {
    Chain {
        nodes: Vec<String>,
        links: Vec<LinkProps>,
    },
    Dumbbell(DumbbellCfg),
    DualDumbbell {
        paths: [DumbbellCfg; 2],
        multihomed: Vec<MultihomedCfg>,
    },
}

impl Topology {
    /// Every link table of the topology, wherever it appears.
    pub fn link_tables_mut(&mut self) -> Vec<&mut LinkProps> {
        let mut v: Vec<&mut LinkProps> = Vec::new();
        v.extend(self.links.iter_mut().flatten());
        v.extend(self.bottleneck.iter_mut());
        v.extend(self.left.iter_mut().flatten());
        v.extend(self.right.iter_mut().flatten());
        for d in self.paths.iter_mut().flatten() {
            v.push(&mut d.bottleneck);
            v.extend(&mut d.left);
            v.extend(&mut d.right);
        }
        for m in self.multihomed.iter_mut().flatten() {
            v.extend(m.links.iter_mut());
        }
        v
    }

    pub fn resolve(&self, path: &str) -> Result<TopologySpec> {
        let k = KindFields {
            path,
            kind: self.kind.name(),
        };
        let fields = [
            ("nodes", self.nodes.is_some()),
            ("links", self.links.is_some()),
            ("left_router", self.left_router.is_some()),
            ("right_router", self.right_router.is_some()),
            ("bottleneck", self.bottleneck.is_some()),
            ("left", self.left.is_some()),
            ("right", self.right.is_some()),
            ("paths", self.paths.is_some()),
            ("multihomed", self.multihomed.is_some()),
        ];
        Ok(match self.kind {
            TopologyKind::Chain => {
                k.only(&fields, &["nodes", "links"])?;
                TopologySpec::Chain {
                    nodes: k.need("nodes", &self.nodes)?,
                    links: k.need("links", &self.links)?,
                }
            }
            TopologyKind::Dumbbell => {
                k.only(
                    &fields,
                    &["left_router", "right_router", "bottleneck", "left", "right"],
                )?;
                TopologySpec::Dumbbell(DumbbellCfg {
                    left_router: self.left_router.clone().unwrap_or_else(r1),
                    right_router: self.right_router.clone().unwrap_or_else(r2),
                    bottleneck: k.need("bottleneck", &self.bottleneck)?,
                    left: self.left.clone().unwrap_or_default(),
                    right: self.right.clone().unwrap_or_default(),
                })
            }
            TopologyKind::DualDumbbell => {
                k.only(&fields, &["paths", "multihomed"])?;
                let paths = k.need("paths", &self.paths)?;
                let paths: [DumbbellCfg; 2] = paths.try_into().map_err(|p: Vec<DumbbellCfg>| {
                    ScenarioError::new(
                        format!("{path}.paths"),
                        format!("a dual dumbbell has exactly 2 paths, got {}", p.len()),
                    )
                })?;
                TopologySpec::DualDumbbell {
                    paths,
                    multihomed: self.multihomed.clone().unwrap_or_default(),
                }
            }
        })
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReorderCfg {
    pub probability: f64,
    pub mean_delay: DurationStr,
    #[serde(default)]
    pub direction: Direction,
}

/// The generator of `LinkProps` from `rexmit_net::link_option_table` (crate
/// `rexmit-options`' "one declaration per option"): the fields written in the invocation, then
/// one optional key per option of the table, typed as `mirror_table!` types them, and
/// `options`, the table's values range-checked by the option table. A separate generator,
/// not `mirror_table!` with `#[serde(flatten)]`, because the options are keys of the link
/// table itself and serde's `flatten` does not combine with `deny_unknown_fields`. Its entry
/// grammar is the link table's: `opt` values with a `check`, no Linux value, relation or
/// internal option (an entry that needs one fails to compile here, not silently).
macro_rules! link_props_table {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident for $Core:ty { $($fields:tt)* } ;
        public {
            $( $(#[doc = $doc:literal])* opt $field:ident : $ty:ty = $default:expr
               , unit = $unit:ident
               $(, check = $check:expr => $allowed:literal)? ; )*
        }
        internal {}
    ) => {
        $(#[$meta])*
        pub struct $Name {
            $($fields)*
            $(
                $(#[doc = $doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$crate::__mirror_ty!($unit, $ty)>,
            )*
        }

        impl $Name {
            /// The link's options: the keys it sets over the table's defaults, range-checked;
            /// `path` is the link table's key path (`topology.bottleneck`), for errors.
            pub fn options(&self, path: &str) -> Result<$Core> {
                let mut c = <$Core>::default();
                $(
                    if let Some(v) = &self.$field {
                        $crate::mirror::MirrorOf::merge(
                            v, &mut c.$field, &$crate::mirror::key(path, stringify!($field)))?;
                    }
                )*
                rexmit_options::validate(&c).map_err(|e| {
                    ScenarioError::new(
                        $crate::mirror::key(path, &e.field),
                        format!("{} is out of range: allowed {}", e.got, e.allowed),
                    )
                })?;
                Ok(c)
            }
        }
    };
}

rexmit_net::link_option_table!(link_props_table {
    /// A link: its rate, delay, queue, error models, reordering and the options of
    /// `rexmit_net::link_option_table` (both directions unless a model says otherwise). The
    /// same table serves every place a link appears; which naming field it takes depends on
    /// the place (checked by validation): `between` in `[[links]]` ("forward" is from
    /// `between[0]` to `between[1]`), `name` for a host on a dumbbell side (the host's name;
    /// forward = host to router), neither for bottlenecks, chain links and multihomed access
    /// links.
    #[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub struct LinkProps for rexmit_net::LinkOptions {
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "two_nodes"
        )]
        pub between: Option<[String; 2]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub name: Option<String>,
        pub rate: RateStr,
        pub delay: DurationStr,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub queue: Option<QueueCfg>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pub errors: Vec<ErrorModelCfg>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub reorder: Option<ReorderCfg>,
    }
});

/// An entry of `[[links]]` (needs `between`).
pub type LinkCfg = LinkProps;
/// A host on a dumbbell side (needs `name`).
pub type HostLinkCfg = LinkProps;

/// Which naming field a link table needs where it appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRole {
    Between,
    Host,
    Plain,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DumbbellCfg {
    #[serde(default = "r1")]
    pub left_router: String,
    #[serde(default = "r2")]
    pub right_router: String,
    pub bottleneck: LinkProps,
    #[serde(default)]
    pub left: Vec<HostLinkCfg>,
    #[serde(default)]
    pub right: Vec<HostLinkCfg>,
}
pub(crate) fn r1() -> String {
    "R1".into()
}
pub(crate) fn r2() -> String {
    "R2".into()
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    Right,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MultihomedCfg {
    pub name: String,
    pub side: Side,
    /// Access links to path 1 and path 2.
    pub links: [LinkProps; 2],
}

/// `between = ["A", "B"]`: exactly two node names (a fixed-size array would drop a third one
/// silently).
fn two_nodes<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<[String; 2]>, D::Error> {
    let v: Vec<String> = Deserialize::deserialize(d)?;
    let n = v.len();
    <[String; 2]>::try_from(v)
        .map(Some)
        .map_err(|_| serde::de::Error::custom(format!("a link joins exactly 2 nodes, got {n}")))
}
