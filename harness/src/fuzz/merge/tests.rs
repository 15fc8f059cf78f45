use super::*;
use serde_json::json;

/// A reproducer as `mcpspec fuzz` writes it, with the fields a merge reads.
fn reproducer(id: &str, command: &str, text: &str) -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "finding": id,
        "rule": "robustness/no-crash",
        "level": "MUST",
        "role": "server",
        "command": command,
        "transport": "stdio",
        "url": null,
        "revision": "2025-11-25",
        "seed": 7,
        "input": {"label": "x", "writes": [{"text": text}]},
    }))
    .expect("json")
}

fn put(dir: &Path, name: &str, bytes: &[u8]) {
    std::fs::create_dir_all(dir).expect("mkdir");
    std::fs::write(dir.join(name), bytes).expect("write");
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn corpora_unite_and_a_finding_met_twice_keeps_its_smallest_reproducer() {
    let root = tempfile::tempdir().expect("tempdir");
    let (a, b, out) = (root.path().join("a"), root.path().join("b"), root.path().join("out"));
    put(&a.join("corpus"), "00aa.json", b"{\"one\":1}");
    put(&a.join("corpus"), "11bb.json", b"{\"two\":2}");
    put(&b.join("corpus"), "11bb.json", b"{\"two\":2}");
    put(&b.join("corpus"), "22cc.json", b"{\"three\":3}");
    put(&a.join("findings"), "crash-1.json", &reproducer("crash-1", "srv", "a long input line"));
    put(&b.join("findings"), "crash-1.json", &reproducer("crash-1", "srv", "short"));
    put(&b.join("findings"), "hang-2.json", &reproducer("hang-2", "srv", "x"));

    let merged = merge(&[a, b], &out).expect("merge");
    assert_eq!((merged.shards, merged.corpus, merged.corpus_duplicates), (2, 3, 1));
    assert_eq!(names(&out.join("corpus")), ["00aa.json", "11bb.json", "22cc.json"]);
    assert_eq!(names(&out.join("findings")), ["crash-1.json", "hang-2.json"]);
    let ids: Vec<(&str, usize)> = merged.findings.iter().map(|f| (f.id.as_str(), f.shards)).collect();
    assert_eq!(ids, [("crash-1", 2), ("hang-2", 1)]);
    let kept = std::fs::read_to_string(out.join("findings/crash-1.json")).expect("read");
    assert!(kept.contains("\"short\""), "the smaller reproducer is kept: {kept}");
    assert_eq!(merged.findings[0].rule, "robustness/no-crash");
}

#[test]
fn findings_of_another_campaign_are_refused_and_nothing_is_written() {
    let root = tempfile::tempdir().expect("tempdir");
    let (a, b, out) = (root.path().join("a"), root.path().join("b"), root.path().join("out"));
    put(&a.join("findings"), "crash-1.json", &reproducer("crash-1", "srv", "x"));
    put(&b.join("findings"), "crash-2.json", &reproducer("crash-2", "other-srv", "x"));
    let err = merge(&[a, b], &out).expect_err("two campaigns");
    assert!(matches!(err, MergeError::Differ { what: "command", .. }), "{err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn what_is_no_shard_output_is_refused() {
    let root = tempfile::tempdir().expect("tempdir");
    let (a, empty, out) = (root.path().join("a"), root.path().join("empty"), root.path().join("out"));
    std::fs::create_dir_all(&empty).expect("mkdir");
    put(&a.join("corpus"), "00aa.json", b"{}");
    assert!(matches!(merge(&[], &out), Err(MergeError::Nothing)));
    assert!(matches!(merge(&[a.clone(), empty], &out), Err(MergeError::Empty(_))));
    assert!(matches!(merge(std::slice::from_ref(&a), &a), Err(MergeError::IntoShard(_))));
    put(&out.join("corpus"), "old.json", b"{}");
    assert!(matches!(merge(std::slice::from_ref(&a), &out), Err(MergeError::NotEmpty(_))));

    put(&a.join("findings"), "crash-9.json", b"{\"finding\": \"crash-1\", \"input\": {}}");
    let err = merge(std::slice::from_ref(&a), &root.path().join("out2")).expect_err("misnamed");
    assert!(err.to_string().contains("not named crash-1.json"), "{err}");
    put(&a.join("findings"), "crash-9.json", b"not json");
    assert!(matches!(merge(&[a], &root.path().join("out3")), Err(MergeError::NotAReproducer { .. })));
}
