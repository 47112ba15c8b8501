//! `phoneworld reconstruct --out` never writes over a folder of the user's files or a file.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn trace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../reconstruct/tests/fixtures/uiautomator")
}

fn reconstruct_with(out: &Path, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_phoneworld"))
        .arg("reconstruct")
        .arg(trace())
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("the binary starts")
}

fn reconstruct(out: &Path) -> Output {
    reconstruct_with(out, &[])
}

#[test]
fn reconstruct_refuses_a_folder_of_other_files_and_a_file_by_name() {
    let dir = std::env::temp_dir().join(format!("phoneworld-cli-reconstruct-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mine = dir.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep me").unwrap();
    let output = reconstruct(&mine);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "it wrote into {}", mine.display());
    assert!(stderr.contains(&mine.display().to_string()) && stderr.contains("not empty"), "{stderr}");
    assert_eq!(std::fs::read_dir(&mine).unwrap().count(), 1);

    let file = dir.join("app.txt");
    std::fs::write(&file, "a file").unwrap();
    let output = reconstruct(&file);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("app.txt") && stderr.contains("is a file"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file");

    // Asked to, it writes beside the user's files; once the folder holds a reconstruction,
    // a second run writes over it without --force.
    let output = reconstruct_with(&mine, &["--force"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(mine.join("app.ron").is_file() && mine.join("notes.txt").is_file());
    let output = reconstruct(&mine);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
