//! Named sets of defaults for `TcpConfig`: the RFC defaults and the Linux 6.x defaults as far
//! as rexmit models them. Data in one place: both are columns of the option table
//! (`config::tcp_option_table`), and a scenario's own fields override them.

use crate::config::TcpConfig;

rexmit_options::choices! {
    /// A named set of defaults (`tcp.profile`).
    pub enum Profile {
        /// The RFC defaults (RFC 5681, 6298, 6675 ...): `TcpConfig::default()`.
        Rfc = "rfc",
        /// Linux 6.x defaults (net/ipv4/tcp*.c and the sysctl defaults): what the kernel does
        /// that rexmit models. What it does that rexmit does not is listed in
        /// docs/validation_linux.md.
        Linux = "linux",
    }
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Rfc, Profile::Linux];

    /// The profile's configuration: the option table's RFC defaults, or its Linux column
    /// (`config::tcp_option_table`, where each Linux value is explained).
    pub fn config(self) -> TcpConfig {
        match self {
            Profile::Rfc => TcpConfig::default(),
            Profile::Linux => TcpConfig::linux_values(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_options::Choice;
    use rexmit_time::Duration;

    #[test]
    fn every_profile_is_a_valid_configuration() {
        for p in Profile::ALL {
            assert_eq!(p.config().validate(), Ok(()), "{}", p.name());
        }
        assert_eq!(Profile::Rfc.config(), TcpConfig::default());
    }

    /// Linux's RTO floor: srtt + 200 ms at least, not max(srtt + 4·rttvar, 200 ms).
    #[test]
    fn linux_rto_is_srtt_plus_rto_min() {
        let mut e = rexmit_transport::RttEstimator::new(Profile::Linux.config().rto);
        for _ in 0..50 {
            e.on_sample(Duration::from_millis(100));
        }
        assert_eq!(e.rto(), Duration::from_millis(300));
    }
}
