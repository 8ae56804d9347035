use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o777
}

/// A vault with `.agentero/` and a file outside it that an attacker wants written.
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    std::fs::create_dir_all(vault.join(STATE_DIR)).unwrap();
    let outside = dir.path().join("bashrc");
    std::fs::write(&outside, b"export PATH=/usr/bin\n").unwrap();
    (dir, vault.join(STATE_DIR), outside)
}

#[test]
fn creates_files_0600_and_folders_0700_and_replaces_atomically() {
    let (_d, state, _) = setup();
    let file = state.join("serve/deep/usage.jsonl");
    append_whole(&file, "{\"a\":1}\n").unwrap();
    append_whole(&file, "{\"a\":2}\n").unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "{\"a\":1}\n{\"a\":2}\n"
    );
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&state.join("serve")), 0o700);
    assert_eq!(mode(&state.join("serve/deep")), 0o700);
    let json = state.join("state/places.json");
    atomic_write(&json, b"one").unwrap();
    atomic_write(&json, b"two").unwrap();
    assert_eq!(read(&json).unwrap(), b"two");
    assert_eq!(mode(&json), 0o600);
    let names = check_dir(&state.join("state")).unwrap().list().unwrap();
    assert_eq!(
        names,
        vec![OsString::from("places.json")],
        "no temporary file is left"
    );
    assert!(
        read_if_exists(&state.join("state/none.json"))
            .unwrap()
            .is_none()
    );
    assert!(
        read_if_exists(&state.join("nofolder/none.json"))
            .unwrap()
            .is_none()
    );
}

#[test]
fn a_path_without_a_state_folder_checks_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("a/b.json");
    atomic_write(&p, b"x").unwrap();
    assert_eq!(read(&p).unwrap(), b"x");
    let outside = dir.path().join("target");
    std::fs::write(&outside, b"keep").unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("a/link")).unwrap();
    let e = append_whole(&dir.path().join("a/link"), "x\n").unwrap_err();
    assert_eq!(e.problem(), Some(Problem::Symlink));
    assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
}

#[test]
fn a_planted_symlink_file_is_refused_for_every_use_and_the_target_is_untouched() {
    let (_d, state, outside) = setup();
    let before = std::fs::read(&outside).unwrap();
    std::fs::create_dir_all(state.join("serve")).unwrap();
    let link = state.join("serve/usage.jsonl");
    std::os::unix::fs::symlink(&outside, &link).unwrap();
    let errors = [
        append_whole(&link, "$(touch PWNED)\n").unwrap_err(),
        atomic_write(&link, b"x").unwrap_err(),
        read(&link).unwrap_err(),
        rename(&link, &state.join("serve/usage.jsonl.1")).unwrap_err(),
    ];
    for e in &errors {
        assert_eq!(e.problem(), Some(Problem::Symlink), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("is a symlink; agentero does not follow links inside .agentero/"),
            "{msg}"
        );
        assert!(msg.contains(&format!("rm {}", link.display())), "{msg}");
    }
    assert_eq!(std::fs::read(&outside).unwrap(), before);
    assert_eq!(mode(&outside), 0o644 & !umask_bits());
    // Removing the link removes the name only.
    remove_file(&link).unwrap();
    assert_eq!(std::fs::read(&outside).unwrap(), before);
}

fn umask_bits() -> u32 {
    let probe = tempfile::tempdir().unwrap();
    let f = probe.path().join("p");
    std::fs::write(&f, b"").unwrap();
    0o666 & !(std::fs::metadata(&f).unwrap().mode() & 0o777)
}

#[test]
fn a_symlinked_folder_anywhere_on_the_way_is_refused() {
    let (d, state, _) = setup();
    let elsewhere = d.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, state.join("chats")).unwrap();
    let e = append_whole(&state.join("chats/t1/transcript.jsonl"), "x\n").unwrap_err();
    assert_eq!(e.problem(), Some(Problem::Symlink));
    assert!(
        e.to_string().contains(".agentero/chats is a symlink"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing created through the link"
    );
    assert!(check_dir(&state.join("chats")).is_err());
    assert!(remove_dir_all(&state.join("chats")).is_err());
    assert!(elsewhere.is_dir());

    // The state folder itself as a link.
    let vault2 = d.path().join("vault2");
    std::fs::create_dir_all(&vault2).unwrap();
    std::os::unix::fs::symlink(&elsewhere, vault2.join(STATE_DIR)).unwrap();
    let e = atomic_write(&vault2.join(".agentero/serve-token"), b"t").unwrap_err();
    assert_eq!(e.problem(), Some(Problem::Symlink));
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
}

#[test]
fn a_hard_link_counts_as_foreign() {
    let (_d, state, outside) = setup();
    let before = std::fs::read(&outside).unwrap();
    let planted = state.join("permissions.json");
    std::fs::hard_link(&outside, &planted).unwrap();
    for e in [
        read(&planted).unwrap_err(),
        append_whole(&planted, "x\n").unwrap_err(),
        atomic_write(&planted, b"{}").unwrap_err(),
    ] {
        assert_eq!(e.problem(), Some(Problem::HardLinked { links: 2 }), "{e}");
        assert!(
            e.to_string()
                .contains("has 2 hard links; agentero counts a hard-linked file as foreign"),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&outside).unwrap(), before);
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let (_d, state, _) = setup();
    let fifo = state.join("serve-token");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        FileType::Fifo,
        Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    assert_eq!(
        read(&fifo).unwrap_err().problem(),
        Some(Problem::NotRegular)
    );
    assert_eq!(
        append_whole(&fifo, "x").unwrap_err().problem(),
        Some(Problem::NotRegular)
    );
    std::fs::write(state.join("file-not-dir"), b"").unwrap();
    let e = append_whole(&state.join("file-not-dir/x"), "x").unwrap_err();
    assert_eq!(e.problem(), Some(Problem::NotDirectory), "{e}");
}

/// `chown` needs root; elsewhere the test says so and passes (it cannot plant a foreign file).
fn chown_to_nobody(p: &Path) -> bool {
    match std::os::unix::fs::lchown(p, Some(65534), Some(65534)) {
        Ok(()) => true,
        Err(e) => {
            eprintln!(
                "skipped: cannot chown a planted file to uid 65534 ({e}); run as root to test it"
            );
            false
        }
    }
}

#[test]
fn a_file_or_folder_owned_by_another_user_is_refused() {
    let (_d, state, _) = setup();
    let planted = state.join("reading.json");
    std::fs::write(&planted, b"{\"planted\":true}").unwrap();
    if !chown_to_nobody(&planted) {
        return;
    }
    for e in [
        read(&planted).unwrap_err(),
        append_whole(&planted, "x\n").unwrap_err(),
        atomic_write(&planted, b"{}").unwrap_err(),
    ] {
        assert_eq!(e.problem(), Some(Problem::Foreign { uid: 65534 }), "{e}");
        assert!(
            e.to_string().contains("belongs to uid 65534, not to you"),
            "{e}"
        );
    }
    assert_eq!(std::fs::read(&planted).unwrap(), b"{\"planted\":true}");
    assert_eq!(std::fs::metadata(&planted).unwrap().uid(), 65534);
    let folder = state.join("logs");
    std::fs::create_dir(&folder).unwrap();
    assert!(chown_to_nobody(&folder));
    let e = open_append(&folder.join("agentero.log")).unwrap_err();
    assert_eq!(e.problem(), Some(Problem::Foreign { uid: 65534 }), "{e}");
    assert!(!folder.join("agentero.log").exists());
}

#[test]
fn paths_in_the_repair_advice_are_quoted() {
    assert_eq!(shell_quote("/a/b.json"), "/a/b.json");
    assert_eq!(
        shell_quote("/v/$(touch PWNED)x/a"),
        "'/v/$(touch PWNED)x/a'"
    );
    assert_eq!(shell_quote("/it's"), "'/it'\\''s'");
}

#[test]
fn the_walk_never_climbs_out_of_the_state_folder() {
    let (dir, state, _) = setup();
    let home = dir.path();
    std::fs::create_dir_all(home.join(".claude")).unwrap();
    std::fs::write(home.join(".claude/CLAUDE.md"), b"mine").unwrap();
    // A key joined raw: `notes/x /../../../.claude/CLAUDE.md`.
    let climbing = state.join("zotero/view/notes/x /../../../../../.claude/CLAUDE.md");
    let e = atomic_write(&climbing, b"PWNED").unwrap_err();
    assert_eq!(e.problem(), Some(Problem::Climbs), "{e}");
    assert!(e.to_string().contains("'.' or '..'"), "{e}");
    assert!(ensure_dir(&state.join("a/../../x")).is_err());
    assert!(read(&state.join("a/../catalog.json")).is_err());
    assert_eq!(
        std::fs::read(home.join(".claude/CLAUDE.md")).unwrap(),
        b"mine"
    );
    assert!(
        !state.join("zotero").exists(),
        "nothing was made on the way"
    );
}

#[test]
fn streamed_writes_are_bounded() {
    let (_dir, state, _) = setup();
    let path = state.join("copy.bin");
    let n = atomic_write_from(&path, &mut &b"hello"[..], 5).unwrap();
    assert_eq!((n, std::fs::read(&path).unwrap()), (5, b"hello".to_vec()));
    assert!(atomic_write_from(&path, &mut &b"longer"[..], 5).is_err());
    assert_eq!(
        std::fs::read(&path).unwrap(),
        b"hello",
        "the old file stays"
    );
    let left: Vec<_> = std::fs::read_dir(&state).unwrap().flatten().collect();
    assert_eq!(left.len(), 1, "no temp file is left: {left:?}");
}
