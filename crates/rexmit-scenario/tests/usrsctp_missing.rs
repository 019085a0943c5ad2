//! Without the usrsctp library, a scenario with `stack = "usrsctp"` still validates its options,
//! and building it fails with an error at the app's `stack` key that says how to install the
//! library (exit 2 from the command line). `$REXMIT_USRSCTP_LIB` names a library that does not
//! exist, in this test's own process (the library is looked up once per process).

use rexmit_scenario::Scenario;

const SCENARIO: &str = r#"
stop_time = "1s"
[topology]
kind = "chain"
nodes = ["A", "B"]
links = [ { rate = "10Mbps", delay = "1ms" } ]
[[apps]]
name = "f"
kind = "sctp_bulk"
from = "A"
to = "B"
stack = "usrsctp"
"#;

#[test]
fn a_missing_library_is_an_error_at_the_stack_key_naming_the_install_step() {
    std::env::set_var(
        rexmit_usrsctp::library::LIB_ENV,
        "librexmit-no-such-usrsctp.so.2",
    );
    let s = Scenario::from_toml(SCENARIO).expect("the options validate without the library");
    let Err(e) = rexmit_scenario::build::build(&s, None) else {
        panic!("no library, no run")
    };
    assert_eq!(e.path, "apps[0].stack");
    assert!(e.message.contains("usrsctp is not installed"), "{e}");
    assert!(e.message.contains("make usrsctp-deps"), "{e}");
    // Options FreeBSD cannot take are still refused first, by name.
    let rack = SCENARIO.replace(
        "stack = \"usrsctp\"",
        "stack = \"usrsctp\"\nsctp = { rack = { enabled = true } }",
    );
    assert_eq!(
        Scenario::from_toml(&rack).unwrap_err().path,
        "apps[0].sctp.rack.enabled"
    );
}
