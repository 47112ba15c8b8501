//! A reader that stops early (`phoneworld tasks --json | head -c 64`) ends the program quietly.

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_is_not_a_panic() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_phoneworld"))
        .args(["tasks", "--json"]) // ~88 KB, more than a pipe buffer holds
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut first = [0u8; 64];
    child.stdout.take().expect("piped").read_exact(&mut first).expect("the start of the output");
    // the reader is dropped here: the rest of the output goes to a closed pipe
    let output = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(first[0], b'{');
    assert!(!stderr.contains("panicked"), "stderr: {stderr}");
    assert!(output.status.success(), "status {:?}, stderr: {stderr}", output.status);
}
