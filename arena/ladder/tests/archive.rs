//! Hostile and good uploads through `archive::unpack`: every archive is built
//! here, byte by byte where a well-behaved packer would refuse to write it.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use arena_ladder::archive::{
    read_manifest, unpack, ArchiveError, ArchiveKind, ArchiveLimits, BotLimits,
};
use tar::{EntryType, Header};

/// One tar entry: its raw name, type, mode, contents, link target.
struct Entry<'a> {
    name: &'a [u8],
    kind: EntryType,
    mode: u32,
    data: &'a [u8],
    link: Option<&'a str>,
}

fn file<'a>(name: &'a str, mode: u32, data: &'a [u8]) -> Entry<'a> {
    Entry {
        name: name.as_bytes(),
        kind: EntryType::Regular,
        mode,
        data,
        link: None,
    }
}

fn special<'a>(name: &'a str, kind: EntryType, link: Option<&'a str>) -> Entry<'a> {
    Entry {
        name: name.as_bytes(),
        kind,
        mode: 0o644,
        data: b"",
        link,
    }
}

/// A tar.gz of `entries`. Names up to 100 bytes are written raw into the
/// header (so `../x` and `/etc/x` get in); longer ones through the GNU
/// long-name extension.
fn tar_gz(entries: &[Entry]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for e in entries {
        let mut h = Header::new_gnu();
        h.set_entry_type(e.kind);
        h.set_mode(e.mode);
        h.set_size(e.data.len() as u64);
        if let Some(l) = e.link {
            h.set_link_name(l).unwrap();
        }
        if e.name.len() <= 100 {
            h.as_old_mut().name[..e.name.len()].copy_from_slice(e.name);
            h.set_cksum();
            b.append(&h, e.data).unwrap();
        } else {
            let name = std::str::from_utf8(e.name).unwrap();
            b.append_data(&mut h, name, e.data).unwrap();
        }
    }
    b.into_inner().unwrap().finish().unwrap()
}

/// A zip of (name, unix mode, contents), deflated.
fn zip_of(entries: &[(&str, u32, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for &(name, mode, data) in entries {
        let o = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .unix_permissions(mode);
        w.start_file(name, o).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// Sets the Unix mode (file type bits included, which `zip`'s writer will
/// not) of the entry `name` in the central directory of the zip `z`.
fn set_zip_mode(z: &mut [u8], name: &str, mode: u32) {
    let sig = [0x50, 0x4b, 0x01, 0x02];
    let at = (0..z.len() - 46)
        .find(|&i| {
            let len = u16::from_le_bytes([z[i + 28], z[i + 29]]) as usize;
            z[i..i + 4] == sig && z.get(i + 46..i + 46 + len) == Some(name.as_bytes())
        })
        .expect("the entry's central directory header");
    z[at + 5] = 3; // made on Unix: the high half of the attributes is its mode
    z[at + 38..at + 42].copy_from_slice(&(mode << 16).to_le_bytes());
}

fn limits() -> ArchiveLimits {
    ArchiveLimits::default()
}

/// Unpacks into a fresh directory under `tmp`; the error, if any.
fn try_unpack(
    tmp: &Path,
    bytes: &[u8],
    kind: ArchiveKind,
) -> Result<arena_ladder::archive::Unpacked, ArchiveError> {
    let dest = tmp.join("bot");
    let r = unpack(bytes, kind, &limits(), &dest);
    if r.is_err() {
        assert!(!dest.exists(), "a refused archive leaves nothing behind");
    }
    r
}

fn refused(bytes: &[u8], kind: ArchiveKind) -> ArchiveError {
    let tmp = tempfile::tempdir().unwrap();
    let e = try_unpack(tmp.path(), bytes, kind).expect_err("must be refused");
    println!("refused: {e}");
    e
}

const MANIFEST: &[u8] = b"command = [\"./bot\"]\n[limits]\nmemory_mb = 256\n";

#[test]
fn a_good_tree_unpacks_the_same_from_tar_and_zip() {
    let tmp = tempfile::tempdir().unwrap();
    // Modes are set, not left to the umask: a sandboxed bot runs as another
    // user and must read its files. (The umask is the process's: this test
    // sets it for the others too, which set their modes the same way.)
    nix::sys::stat::umask(nix::sys::stat::Mode::from_bits_truncate(0o077));
    let t = tar_gz(&[
        special("./", EntryType::Directory, None),
        file("./arena-bot.toml", 0o664, MANIFEST),
        file("./bot", 0o775, b"#!/bin/sh\necho hi\n"),
        special("./data/", EntryType::Directory, None),
        file("./data/table.bin", 0o640, &[7u8; 3000]),
    ]);
    // Another order, no directory entries, other group/other bits.
    let z = zip_of(&[
        ("data/table.bin", 0o600, &[7u8; 3000]),
        ("bot", 0o700, b"#!/bin/sh\necho hi\n"),
        ("arena-bot.toml", 0o666, MANIFEST),
    ]);
    let a = unpack(&t, ArchiveKind::TarGz, &limits(), &tmp.path().join("a")).unwrap();
    let b = unpack(&z, ArchiveKind::Zip, &limits(), &tmp.path().join("b")).unwrap();
    println!("{a:?}");
    assert_eq!(a, b, "one content, one address, however packed");
    assert_eq!((a.files, a.bytes), (3, MANIFEST.len() as u64 + 18 + 3000));
    assert_eq!(a.sha256.len(), 64);
    for d in ["a", "b"] {
        let dir = tmp.path().join(d);
        let mode = |p: &str| std::fs::metadata(dir.join(p)).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode("bot"), 0o755);
        assert_eq!(mode("arena-bot.toml"), 0o644);
        assert_eq!(mode("data/table.bin"), 0o644);
        assert_eq!(mode("data"), 0o755);
        assert_eq!(mode("."), 0o755);
        assert_eq!(
            std::fs::read(dir.join("data/table.bin")).unwrap(),
            vec![7u8; 3000]
        );
        let m = read_manifest(&dir, &BotLimits::default()).unwrap();
        assert_eq!(m.command, ["./bot"]);
        assert_eq!(m.limits.memory_mb, Some(256));
    }

    // One byte or one mode bit changes the address.
    let c = zip_of(&[
        ("data/table.bin", 0o600, &[7u8; 3000]),
        ("bot", 0o600, b"#!/bin/sh\necho hi\n"),
        ("arena-bot.toml", 0o666, MANIFEST),
    ]);
    let c = unpack(&c, ArchiveKind::Zip, &limits(), &tmp.path().join("c")).unwrap();
    assert_ne!(c.sha256, a.sha256);
}

#[test]
fn parent_and_absolute_paths_are_refused() {
    for name in ["../x", "a/../../x", "/etc/x"] {
        let e = refused(&tar_gz(&[file(name, 0o644, b"x")]), ArchiveKind::TarGz);
        assert!(
            matches!(&e, ArchiveError::UnsafePath(p, _) if p == name),
            "{name}: {e}"
        );
    }
    let e = refused(
        &zip_of(&[("ok", 0o644, b""), ("../../x", 0o644, b"x")]),
        ArchiveKind::Zip,
    );
    assert!(
        matches!(&e, ArchiveError::UnsafePath(p, _) if p == "../../x"),
        "{e}"
    );
    assert!(e.to_string().contains("`..`"), "{e}");
    let e = refused(&zip_of(&[("/etc/passwd", 0o644, b"x")]), ArchiveKind::Zip);
    assert!(e.to_string().contains("absolute"), "{e}");
}

#[test]
fn links_and_devices_are_refused() {
    let e = refused(
        &tar_gz(&[special("evil", EntryType::Symlink, Some("/etc/passwd"))]),
        ArchiveKind::TarGz,
    );
    assert!(matches!(&e, ArchiveError::Link(p) if p == "evil"), "{e}");
    let e = refused(
        &tar_gz(&[
            file("a", 0o644, b"x"),
            special("b", EntryType::Link, Some("a")),
        ]),
        ArchiveKind::TarGz,
    );
    assert!(matches!(&e, ArchiveError::Link(p) if p == "b"), "{e}");
    for kind in [EntryType::Char, EntryType::Block, EntryType::Fifo] {
        let e = refused(&tar_gz(&[special("dev", kind, None)]), ArchiveKind::TarGz);
        assert!(
            matches!(&e, ArchiveError::Device(p) if p == "dev"),
            "{kind:?}: {e}"
        );
    }
    // A zip symlink: the link's target is its contents, the type in the mode.
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    w.add_symlink(
        "evil",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    let e = refused(&w.finish().unwrap().into_inner(), ArchiveKind::Zip);
    assert!(matches!(&e, ArchiveError::Link(p) if p == "evil"), "{e}");
    // A zip entry whose mode says character device.
    let mut z = zip_of(&[("dev", 0o644, b"")]);
    set_zip_mode(&mut z, "dev", 0o020644);
    let e = refused(&z, ArchiveKind::Zip);
    assert!(matches!(&e, ArchiveError::Device(p) if p == "dev"), "{e}");
}

#[test]
fn duplicates_and_file_directory_clashes_are_refused() {
    let e = refused(
        &tar_gz(&[file("a", 0o644, b"1"), file("./a", 0o644, b"2")]),
        ArchiveKind::TarGz,
    );
    assert!(matches!(&e, ArchiveError::Duplicate(p) if p == "a"), "{e}");
    let e = refused(
        &tar_gz(&[file("a", 0o644, b"1"), file("a/b", 0o644, b"2")]),
        ArchiveKind::TarGz,
    );
    assert!(
        matches!(&e, ArchiveError::Duplicate(p) if p == "a/b"),
        "{e}"
    );
    let e = refused(
        &tar_gz(&[file("a/b", 0o644, b"1"), file("a", 0o644, b"2")]),
        ArchiveKind::TarGz,
    );
    assert!(matches!(&e, ArchiveError::Duplicate(p) if p == "a"), "{e}");
}

#[test]
fn a_zip_bomb_stops_at_the_unpacked_limit() {
    // One file of 1 GB of zeros, deflated to about a megabyte.
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let o = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    w.start_file("zeros", o).unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..1024 {
        w.write_all(&chunk).unwrap();
    }
    let bomb = w.finish().unwrap().into_inner();
    println!("1 GB of zeros zipped: {} bytes", bomb.len());
    assert!((bomb.len() as u64) < limits().max_compressed);
    let e = refused(&bomb, ArchiveKind::Zip);
    assert!(
        matches!(e, ArchiveError::TooLarge { what: "the unpacked contents", limit } if limit == limits().max_unpacked),
        "{e}"
    );

    // The same as a tar.gz, whose header says 1 GB honestly.
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    let mut h = Header::new_gnu();
    h.set_size(1 << 30);
    h.set_mode(0o644);
    b.append_data(&mut h, "zeros", std::io::repeat(0).take_bytes(1 << 30))
        .unwrap();
    let bomb = b.into_inner().unwrap().finish().unwrap();
    println!("1 GB of zeros tar.gz: {} bytes", bomb.len());
    let e = refused(&bomb, ArchiveKind::TarGz);
    assert!(matches!(e, ArchiveError::TooLarge { .. }), "{e}");
}

/// `Read::take` by another name, so the bomb reads as what it is.
trait TakeBytes: std::io::Read + Sized {
    fn take_bytes(self, n: u64) -> std::io::Take<Self> {
        self.take(n)
    }
}
impl<R: std::io::Read> TakeBytes for R {}

#[test]
fn an_oversized_upload_is_refused_before_reading() {
    let small = ArchiveLimits {
        max_compressed: 100,
        ..limits()
    };
    let tmp = tempfile::tempdir().unwrap();
    let e = unpack(
        &[0u8; 101],
        ArchiveKind::TarGz,
        &small,
        &tmp.path().join("x"),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            ArchiveError::TooLarge {
                what: "the upload",
                limit: 100
            }
        ),
        "{e}"
    );
}

#[test]
fn a_bomb_of_100000_tiny_files_is_refused() {
    let names: Vec<String> = (0..100_000).map(|i| format!("f{i}")).collect();
    let entries: Vec<Entry> = names.iter().map(|n| file(n, 0o644, b"x")).collect();
    let t = tar_gz(&entries);
    println!("100,000 files tar.gz: {} bytes", t.len());
    let e = refused(&t, ArchiveKind::TarGz);
    assert!(
        matches!(e, ArchiveError::TooManyFiles { limit: 10_000 }),
        "{e}"
    );

    let data: Vec<(&str, u32, &[u8])> = names[..20_000]
        .iter()
        .map(|n| (n.as_str(), 0o644, &b""[..]))
        .collect();
    let e = refused(&zip_of(&data), ArchiveKind::Zip);
    assert!(
        matches!(e, ArchiveError::TooManyFiles { limit: 10_000 }),
        "{e}"
    );
}

#[test]
fn a_path_of_5000_bytes_is_refused() {
    let long = format!("{}/x", "d".repeat(4998));
    assert_eq!(long.len(), 5000);
    let e = refused(&tar_gz(&[file(&long, 0o644, b"x")]), ArchiveKind::TarGz);
    assert!(
        matches!(
            e,
            ArchiveError::PathTooLong {
                len: 5000,
                limit: 255,
                ..
            }
        ),
        "{e}"
    );
    let e = refused(&zip_of(&[(&long, 0o644, b"x")]), ArchiveKind::Zip);
    assert!(
        matches!(e, ArchiveError::PathTooLong { len: 5000, .. }),
        "{e}"
    );
}

#[test]
fn truncated_and_garbage_archives_are_corrupt() {
    let body = vec![b'a'; 200_000];
    let t = tar_gz(&[
        file("arena-bot.toml", 0o644, MANIFEST),
        file("big", 0o644, &body),
    ]);
    let e = refused(&t[..t.len() / 2], ArchiveKind::TarGz);
    assert!(matches!(e, ArchiveError::Corrupt(_)), "{e}");
    let z = zip_of(&[("arena-bot.toml", 0o644, MANIFEST), ("big", 0o644, &body)]);
    let e = refused(&z[..z.len() - 30], ArchiveKind::Zip);
    assert!(matches!(e, ArchiveError::Corrupt(_)), "{e}");
    let e = refused(b"this is not an archive at all", ArchiveKind::Zip);
    assert!(matches!(e, ArchiveError::Corrupt(_)), "{e}");
    let e = refused(b"this is not an archive at all", ArchiveKind::TarGz);
    assert!(matches!(e, ArchiveError::Corrupt(_)), "{e}");
    // A zip sent as a tar.gz.
    let e = refused(&z, ArchiveKind::TarGz);
    assert!(matches!(e, ArchiveError::Corrupt(_)), "{e}");
}

#[test]
fn an_existing_destination_is_not_written_into() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("bot");
    std::fs::create_dir(&dest).unwrap();
    std::fs::write(dest.join("keep"), "mine").unwrap();
    let e = unpack(
        &tar_gz(&[file("keep", 0o644, b"theirs")]),
        ArchiveKind::TarGz,
        &limits(),
        &dest,
    )
    .unwrap_err();
    assert!(matches!(e, ArchiveError::Io { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(dest.join("keep")).unwrap(), "mine");
}

#[test]
fn the_manifest_must_be_a_file_at_the_top() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tar_gz(&[file("mybot/arena-bot.toml", 0o644, MANIFEST)]);
    let dest = tmp.path().join("bot");
    unpack(&t, ArchiveKind::TarGz, &limits(), &dest).unwrap();
    let e = read_manifest(&dest, &BotLimits::default()).unwrap_err();
    assert!(e.to_string().contains("missing at the top"), "{e}");
    std::os::unix::fs::symlink("/etc/passwd", dest.join("arena-bot.toml")).unwrap();
    let e = read_manifest(&dest, &BotLimits::default()).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
}
