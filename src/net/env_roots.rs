//! The roots `SSL_CERT_FILE` (a PEM bundle) and `SSL_CERT_DIR` (directories of
//! PEM files, `:`-separated) add to the built-in ones, as OpenSSL and curl
//! read them: read once per process while their files stay as they were.
//!
//! Containers and distributions often set both to the system bundle and its
//! hashed directory: reading and checking those is about 6 ms and 760 KiB per
//! client (measured with Debian's 146 roots: each read twice, from the bundle
//! and the directory), which a service that makes a client per tenant would pay
//! per tenant. Every client now shares one list, and a client made while the
//! bundle and the directories are unchanged costs two `stat` calls. A client
//! made after the bundle was rewritten, or a file was added to or removed from
//! a directory (its modification time moves: how update-ca-certificates and
//! c_rehash change it), reads them again; a file rewritten in place inside a
//! directory is read once the directory itself changes. A failure (a missing
//! file, a directory without a certificate) is never kept, so the next client
//! reports it again.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use ureq::tls::{Certificate, RootCerts};

use super::tls::{certificates, read_pem_file, with_built_in};
use crate::error::Error;

/// What the roots were read from: the variables' values, and the length and
/// modification time of the bundle and of each directory (`None`: it could not
/// be read; the read reports why).
#[derive(PartialEq, Eq)]
struct Stamp {
    file: Option<OsString>,
    dirs: Option<OsString>,
    seen: Vec<(PathBuf, Option<(u64, SystemTime)>)>,
}

type Cache = Mutex<Option<(Stamp, RootCerts)>>;

static LAST: Cache = Mutex::new(None);

/// The built-in roots and those of `SSL_CERT_FILE` / `SSL_CERT_DIR`; `None`
/// when neither is set (or both are empty).
pub(crate) fn environment_roots() -> Result<Option<RootCerts>, Error> {
    let file = std::env::var_os("SSL_CERT_FILE").filter(|v| !v.is_empty());
    let dirs = std::env::var_os("SSL_CERT_DIR").filter(|v| !v.is_empty());
    roots_for(&LAST, file, dirs)
}

fn roots_for(
    cache: &Cache,
    file: Option<OsString>,
    dirs: Option<OsString>,
) -> Result<Option<RootCerts>, Error> {
    if file.is_none() && dirs.is_none() {
        return Ok(None);
    }
    let stamp = stamp(file, dirs);
    // Held while reading: clients made at once read the files once between them.
    let mut last = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((seen, roots)) = last.as_ref() {
        if *seen == stamp {
            return Ok(Some(roots.clone())); // an Arc: the list is shared
        }
    }
    let roots = with_built_in(read(stamp.file.as_deref(), stamp.dirs.as_deref())?);
    *last = Some((stamp, roots.clone()));
    Ok(Some(roots))
}

/// The stamp of what `read` reads: one stat call per path, no file opened.
fn stamp(file: Option<OsString>, dirs: Option<OsString>) -> Stamp {
    let of = |path: PathBuf| {
        let stat = std::fs::metadata(&path)
            .ok()
            .and_then(|m| Some((m.len(), m.modified().ok()?)));
        (path, stat)
    };
    let seen = file
        .iter()
        .map(PathBuf::from)
        .chain(dirs.iter().flat_map(std::env::split_paths))
        .map(of)
        .collect();
    Stamp { file, dirs, seen }
}

/// The certificates of `SSL_CERT_FILE`, then of each `SSL_CERT_DIR`.
fn read(file: Option<&OsStr>, dirs: Option<&OsStr>) -> Result<Vec<Certificate<'static>>, Error> {
    let mut out = Vec::new();
    if let Some(file) = file {
        out.extend(read_pem_file(Path::new(file), "SSL_CERT_FILE")?);
    }
    for dir in dirs.iter().flat_map(std::env::split_paths) {
        out.extend(read_pem_dir(&dir)?);
    }
    Ok(out)
}

/// The files of a directory (symbolic links followed), in order.
fn dir_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    paths.sort();
    Ok(paths)
}

/// Every PEM certificate in the directory's files; files without one are
/// skipped (OpenSSL's hashed directories hold other things too).
fn read_pem_dir(dir: &Path) -> Result<Vec<Certificate<'static>>, Error> {
    let paths = dir_files(dir).map_err(|e| {
        Error::invalid_param(
            "SSL_CERT_DIR",
            format!("SSL_CERT_DIR: cannot read '{}': {e}", dir.display()),
        )
    })?;
    let mut out = Vec::new();
    for path in paths {
        if let Ok(bytes) = std::fs::read(&path) {
            out.extend(certificates(&bytes, "SSL_CERT_DIR").unwrap_or_default());
        }
    }
    if out.is_empty() {
        return Err(Error::invalid_param(
            "SSL_CERT_DIR",
            format!("SSL_CERT_DIR: '{}' holds no PEM certificate", dir.display()),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use super::super::tls::TEST_CA as CA;

    fn list(roots: &Option<RootCerts>) -> Arc<Vec<Certificate<'static>>> {
        match roots {
            Some(RootCerts::Specific(certs)) => Arc::clone(certs),
            _ => panic!("not a list of roots"),
        }
    }

    #[test]
    fn environment_roots_are_read_once_until_a_file_changes() {
        let tmp = std::env::temp_dir().join(format!("gw-env-roots-{}", std::process::id()));
        let dir = tmp.join("certs");
        std::fs::create_dir_all(&dir).unwrap();
        let bundle = tmp.join("bundle.pem");
        std::fs::write(&bundle, CA).unwrap();
        std::fs::write(dir.join("a.pem"), CA).unwrap();
        let cache: Cache = Mutex::new(None);
        let (file, dirs) = (
            Some(bundle.clone().into_os_string()),
            Some(dir.clone().into_os_string()),
        );
        let built_in = webpki_roots::TLS_SERVER_ROOTS.len();

        let first = list(&roots_for(&cache, file.clone(), dirs.clone()).unwrap());
        assert_eq!(
            first.len(),
            built_in + 2,
            "built-in, the bundle's, the directory's"
        );
        let again = list(&roots_for(&cache, file.clone(), dirs.clone()).unwrap());
        assert!(
            Arc::ptr_eq(&first, &again),
            "the same files were read again"
        );

        // A file added to the directory: read again, and kept. (The directory's time
        // is set apart: file times move in steps of a clock tick, which two writes
        // may share.)
        std::fs::write(dir.join("b.pem"), format!("{CA}{CA}")).unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(60);
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let added = list(&roots_for(&cache, file.clone(), dirs.clone()).unwrap());
        assert_eq!(added.len(), built_in + 4);
        let kept = list(&roots_for(&cache, file.clone(), dirs.clone()).unwrap());
        assert!(Arc::ptr_eq(&added, &kept));

        // The bundle rewritten (another length): read again.
        std::fs::write(&bundle, format!("{CA}{CA}")).unwrap();
        let rewritten = list(&roots_for(&cache, file.clone(), dirs.clone()).unwrap());
        assert_eq!(rewritten.len(), built_in + 5);

        // A failure is reported, not kept: once the file is back, it is read.
        std::fs::remove_file(&bundle).unwrap();
        let e = roots_for(&cache, file.clone(), dirs.clone()).unwrap_err();
        assert!(e.to_string().contains("SSL_CERT_FILE"), "{e}");
        assert!(roots_for(&cache, file.clone(), dirs.clone()).is_err());
        std::fs::write(&bundle, CA).unwrap();
        assert_eq!(
            list(&roots_for(&cache, file, dirs).unwrap()).len(),
            built_in + 4
        );

        // Neither variable: the built-in roots alone (no list).
        assert!(roots_for(&cache, None, None).unwrap().is_none());
        let e = roots_for(&cache, None, Some(tmp.join("nowhere").into_os_string())).unwrap_err();
        assert!(e.to_string().contains("SSL_CERT_DIR"), "{e}");
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}
