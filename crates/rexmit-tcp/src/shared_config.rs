//! `SharedConfig`: one configuration for many connections (a flow class), with its congestion
//! controller and loss-detection plugins looked up and their parameters resolved once.
//!
//! Why (issue 40 step 6, "configuration shared per flow class instead of copied per
//! connection"): an HTTP client opens a connection per request, and each copied the whole
//! `TcpConfig` (232 bytes and its strings and maps) and looked its controller up in the
//! registry and resolved its parameters: ≈ 600 instructions of a connection's set-up, ≈ 2% of a
//! thin-streams HTTP run. Connections hold an `Arc<SharedConfig>`, so a flow class's options
//! are one copy in the cache, not one per connection.

use crate::cc::registry::CcPlugin;
use crate::cc::CongestionControl;
use crate::config::TcpConfig;
use crate::loss::{LossPlugin, LossPolicy};
use std::sync::Arc;

/// A validated configuration and its resolved plugins. Derefs to the `TcpConfig`.
pub struct SharedConfig {
    cfg: TcpConfig,
    cc: Arc<dyn CcPlugin>,
    cc_values: Vec<f64>,
    loss: Arc<dyn LossPlugin>,
    loss_values: Vec<f64>,
}

impl SharedConfig {
    /// Resolve `cfg`'s plugins once. `cfg` must have passed `TcpConfig::validate` (as for
    /// `Connection::connect`): an unregistered controller or refused parameter panics here,
    /// as it did when a connection built it.
    pub fn new(cfg: TcpConfig) -> Arc<Self> {
        let (cc, cc_values) = cfg.resolve_cc();
        let (loss, loss_values) = cfg.resolve_loss();
        Arc::new(SharedConfig {
            cfg,
            cc,
            cc_values,
            loss,
            loss_values,
        })
    }

    /// The options.
    pub fn config(&self) -> &TcpConfig {
        &self.cfg
    }

    /// What `TcpConfig::build_cc` builds, without the lookup.
    pub fn build_cc(&self, smss: u64) -> Box<dyn CongestionControl> {
        self.cfg
            .build_cc_with(self.cc.as_ref(), &self.cc_values, smss)
    }

    /// What `TcpConfig::build_loss` builds, without the lookup.
    pub fn build_loss(&self) -> Box<dyn LossPolicy> {
        self.loss.build(&self.loss_values)
    }
}

impl std::ops::Deref for SharedConfig {
    type Target = TcpConfig;
    fn deref(&self) -> &TcpConfig {
        &self.cfg
    }
}

impl std::fmt::Debug for SharedConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.cfg.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::registry::ParamMap;

    /// The shared build gives the controller the per-connection build gives (every field, by
    /// its Debug form), for a controller with parameters and paced.
    #[test]
    fn builds_what_the_config_builds() {
        let params = ParamMap::of(&[("delta_l_ms", 500.0)]);
        let cfg = TcpConfig {
            cc: "htcp".into(),
            cc_params: params,
            pacing: true,
            loss: "rfc".into(),
            ..TcpConfig::default()
        };
        cfg.validate().expect("valid");
        let shared = SharedConfig::new(cfg.clone());
        for smss in [536, 1448] {
            let (a, b) = (cfg.build_cc(smss), shared.build_cc(smss));
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
        assert_eq!(format!("{:?}", *shared), format!("{cfg:?}"));
    }
}
