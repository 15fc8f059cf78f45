//! The committed seed corpora of the fuzz targets (`fuzz/corpus/<target>/`), replayed by
//! ordinary tests through the same properties the targets call.

/// The folder of a fuzz target's committed seed corpus.
pub fn corpus_dir(target: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("corpus").join(target)
}

/// Every file of a target's corpus, sorted by name (empty if the folder does not exist).
pub fn corpus_files(target: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Runs `property` on every file of a target's corpus, naming the file that fails; returns how
/// many files ran.
pub fn replay(target: &str, property: impl Fn(&[u8])) -> usize {
    let files = corpus_files(target);
    for (path, bytes) in &files {
        if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| property(bytes))) {
            eprintln!("corpus file {} breaks the property of fuzz target {target}", path.display());
            std::panic::resume_unwind(panic);
        }
    }
    files.len()
}
