//! Without the library a run that asks for usrsctp gets an error saying how to install it (the
//! library is loaded at run time; nothing links against it). `$REXMIT_USRSCTP_LIB` names a
//! library that does not exist, in this test's own process.

use rexmit_usrsctp::{LoadError, StackError, StackRun};

#[test]
fn a_missing_library_is_an_error_that_says_how_to_install_it() {
    std::env::set_var(
        rexmit_usrsctp::library::LIB_ENV,
        "librexmit-no-such-usrsctp.so.2",
    );
    let Err(e) = StackRun::open(1) else {
        panic!("no library, no stack")
    };
    assert!(
        matches!(e, StackError::Load(LoadError::NotInstalled { .. })),
        "{e:?}"
    );
    let text = e.to_string();
    assert!(
        text.starts_with("usrsctp is not installed (librexmit-no-such-usrsctp.so.2: ")
            && text.ends_with("run `make usrsctp-deps` or `apt-get install libusrsctp2`"),
        "{text}"
    );
    assert!(rexmit_usrsctp::available().is_err());
}
