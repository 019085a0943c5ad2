//! Run scripts from the command line while writing them:
//! `cargo run -p rexmit-script --example run_script -- FILE.pkt...` (`TRACE=1`: print every
//! packet in and out) (the same runner as
//! `rexmit script`; exit 1 if one failed, 2 if one is malformed).

fn main() {
    let mut code = 0;
    let trace = std::env::var_os("TRACE").is_some();
    for path in std::env::args().skip(1) {
        let o = rexmit_script::run_file_with(std::path::Path::new(&path), trace);
        for l in &o.trace {
            println!("  {l}");
        }
        match o.status {
            rexmit_script::Status::Passed => println!("ok   {path}"),
            rexmit_script::Status::Failed => {
                print!("FAIL {path}\n{}", o.report);
                code = code.max(1);
            }
            rexmit_script::Status::Malformed => {
                println!("BAD  {path}\n{}", o.report);
                code = 2;
            }
        }
    }
    std::process::exit(code);
}
