//! The read restriction around a real agent (`agentero --sandboxed-exec`): the launcher
//! restricts itself with Landlock and becomes the program, and every process it starts stays
//! inside — files outside the policy cannot be read or listed, files inside can. On a kernel
//! without Landlock the launcher refuses to start the program at all.

use std::process::Command;

use crate::common;

#[test]
fn the_launcher_restricts_the_whole_process_tree() {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().canonicalize().unwrap();
    let vault = root.join("vault");
    let allowed = root.join("allowed");
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(vault.join("secret.txt"), "VAULT-SECRET\n").unwrap();
    std::fs::write(allowed.join("ok.txt"), "ALLOWED-TEXT\n").unwrap();
    let mut read: Vec<String> = ["/usr", "/lib", "/lib64", "/bin", "/etc", "/proc", "/dev"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    read.push(allowed.display().to_string());
    let policy = serde_json::json!({ "read": read }).to_string();
    // A shell (the launched program) whose children read: one allowed file, one vault file,
    // a listing of the vault.
    let script = format!(
        "cat {a}/ok.txt; cat {v}/secret.txt; ls {v}; echo done",
        a = allowed.display(),
        v = vault.display()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.args(["--sandboxed-exec", &policy, "/bin/sh", "-c", &script]);
    let out = common::output_within(cmd, std::time::Duration::from_secs(30));
    let (stdout, stderr) = (common::stdout(&out), common::stderr(&out));
    if stderr.contains("does not enforce Landlock") {
        // Fails closed: nothing ran.
        assert!(!out.status.success());
        assert!(!stdout.contains("VAULT-SECRET") && !stdout.contains("done"));
        eprintln!("this kernel has no Landlock: the launcher refused to start the program");
        return;
    }
    assert!(stdout.contains("ALLOWED-TEXT"), "{stdout}\n{stderr}");
    assert!(stdout.contains("done"), "{stdout}\n{stderr}");
    assert!(
        !stdout.contains("VAULT-SECRET") && !stdout.contains("secret.txt"),
        "the vault was read or listed from inside the restriction:\n{stdout}"
    );
    assert!(stderr.contains("Permission denied"), "{stderr}");
    // Without the launcher the same shell reads the vault (the test can fail).
    let plain = Command::new("/bin/sh")
        .args(["-c", &script])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&plain.stdout).contains("VAULT-SECRET"));
}
