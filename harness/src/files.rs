//! The one way mcpspec writes a file: whole or not at all (a temporary file beside it, created
//! exclusively, then renamed over it), so a reader or a run stopped half-way never sees half a
//! file, and a name planted in a shared folder (a symlink) is never written through. Reports
//! are for sharing; fuzz reproducers and corpus inputs hold what was sent to and answered by
//! the implementation, so they, and the folders mcpspec creates for them, are private (issue
//! #17: 0600 files, 0700 folders).

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::Path;

/// Who may read a file mcpspec writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Readable by all (0644), in folders created as the umask says: reports.
    Shared,
    /// The owner's only (0600), in folders created 0700: fuzz reproducers and corpus inputs.
    Private,
}

impl Access {
    fn file_mode(self) -> u32 {
        match self {
            Access::Shared => 0o644,
            Access::Private => 0o600,
        }
    }
}

/// Creates `dir` and its missing parents; with [`Access::Private`], those it creates are 0700
/// (folders that exist already are left as their owner made them).
pub fn create_dir(dir: &Path, access: Access) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    if access == Access::Private {
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Writes `bytes` to `path` whole or not at all, creating its folder, the file's mode as
/// `access` says.
pub fn write_atomically(path: &Path, bytes: &[u8], access: Access) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    create_dir(dir, access)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    // tempfile creates the file with O_EXCL and mode 0600, so it is private while written.
    let mut file = tempfile::Builder::new().prefix(&format!(".{name}.")).tempfile_in(dir)?;
    file.write_all(bytes)?;
    std::fs::set_permissions(file.path(), std::fs::Permissions::from_mode(access.file_mode()))?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).expect("metadata").permissions().mode() & 0o777
    }

    #[test]
    fn writes_are_atomic_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("deep/finding.json");
        write_atomically(&path, b"one", Access::Private).expect("write");
        write_atomically(&path, b"two", Access::Private).expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), b"two");
        let names: Vec<_> = std::fs::read_dir(path.parent().expect("parent")).expect("dir").collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn private_files_and_the_folders_created_for_them_are_the_owners_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("a/b/finding.json");
        write_atomically(&path, b"{}", Access::Private).expect("write");
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("a")), 0o700);
        assert_eq!(mode(&dir.path().join("a/b")), 0o700);
        let shared = dir.path().join("r/report.json");
        write_atomically(&shared, b"{}", Access::Shared).expect("write");
        assert_eq!(mode(&shared), 0o644);
    }

    #[test]
    fn a_symlink_in_the_way_is_replaced_never_written_through() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("elsewhere");
        std::fs::write(&target, b"untouched").expect("write");
        let path = dir.path().join("finding.json");
        std::os::unix::fs::symlink(&target, &path).expect("symlink");
        write_atomically(&path, b"new", Access::Private).expect("write");
        assert_eq!(std::fs::read(&target).expect("read"), b"untouched");
        assert_eq!(std::fs::read(&path).expect("read"), b"new");
    }
}
