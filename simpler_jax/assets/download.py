"""Download the original SIMPLER asset files and check them later.

`download_assets` fetches GitHub's source archive of `simpler-env/ManiSkill2_real2sim`
at the pinned commit, optionally checks its SHA-256, and extracts only the folders
the project reads into an asset root with the repository's own layout:

    <dest>/data/custom/...                                 objects, cabinets, metadata
    <dest>/data/real_inpainting/...                        real background photos
    <dest>/data/hab2_bench_assets/...                      scene stages (only if in the archive)
    <dest>/mani_skill2_real2sim/assets/descriptions/...    robot URDFs and meshes
    <dest>/LICENSE                                         the repository's licence
    <dest>/MANIFEST.sha256                                 `sha256sum -c` format, one line per file
    <dest>/SOURCE.json                                     url, commit, archive digest, date

The archive streams to a temporary file next to `dest`, is extracted into a temporary
folder next to `dest` and renamed into place only when complete, so `dest` is either
absent, the old copy or the new complete copy. Archive members that are absolute, contain
`..`, or are links or devices are never written.
`verify_assets` re-hashes an asset root against its `MANIFEST.sha256`.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import http.client
import json
import logging
import os
import pathlib
import re
import shutil
import stat
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import IO

from tqdm import tqdm

from simpler_jax.assets.paths import MissingAssetError, cache_dir

log = logging.getLogger(__name__)

REPOSITORY = "simpler-env/ManiSkill2_real2sim"
PINNED_COMMIT = "ef7a4d4fdf4b69f2c2154db5b15b9ac8dfe10682"
DEFAULT_ARCHIVE_URL = f"https://github.com/{REPOSITORY}/archive/{PINNED_COMMIT}.tar.gz"
# GitHub builds source archives on the fly and does not promise byte-stable output, and
# this digest could not be measured offline, so none is pinned: the commit in the URL pins
# the content, and MANIFEST.sha256 pins every extracted file from then on.
DEFAULT_ARCHIVE_SHA256: str | None = None

# Folders of the repository the project reads; all but the optional ones must be present.
REQUIRED_SUBTREES = (
    "data/custom",
    "data/real_inpainting",
    "mani_skill2_real2sim/assets/descriptions",
)
OPTIONAL_SUBTREES = ("data/hab2_bench_assets",)
EXTRA_FILES = ("LICENSE",)  # top-level files kept alongside the subtrees

MANIFEST_NAME = "MANIFEST.sha256"
SOURCE_NAME = "SOURCE.json"

_CHUNK = 1 << 20
_HEX64 = re.compile(r"[0-9a-f]{64}")
_COMMIT = re.compile(r"(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])")


class ChecksumError(ValueError):
    """The downloaded archive's SHA-256 is not the expected one."""


class DownloadError(RuntimeError):
    """The archive could not be fetched, or is not a usable SIMPLER source archive."""


def default_dest() -> pathlib.Path:
    """Where `download` puts the assets by default: `$SIMPLER_JAX_CACHE/assets`."""
    return cache_dir() / "assets"


def download_assets(
    dest: str | os.PathLike | None = None,
    url: str = DEFAULT_ARCHIVE_URL,
    sha256: str | None = DEFAULT_ARCHIVE_SHA256,
    progress: bool = True,
    overwrite: bool = False,
) -> pathlib.Path:
    """Download the SIMPLER source archive and extract the asset folders into `dest`.

    Args:
      dest: asset root to create (default `default_dest()`). If it exists and is not
        empty, `overwrite=True` is needed; it is then replaced in one rename.
      url: http(s)/file URL of a `.tar.gz` or `.zip` source archive, or a local path.
      sha256: expected hex digest of the archive; checked before anything is extracted.
      progress: show tqdm bars (bytes downloaded, files extracted).
    Returns:
      the asset root (absolute path).
    Raises:
      ChecksumError: digest mismatch (message names both digests; nothing is kept).
      DownloadError: HTTP/network failure, truncated download, or an archive without
        the required folders.
      FileExistsError: `dest` holds files and `overwrite` is False.
    """
    expected = _normalise_sha256(sha256) if sha256 is not None else None
    dest = pathlib.Path(dest).expanduser() if dest is not None else default_dest()
    dest = dest.absolute()
    if not overwrite and _non_empty(dest):
        raise FileExistsError(
            f"{str(dest)!r} already exists and is not empty; pass overwrite=True "
            "(CLI: --force) to replace it, or choose another --dest."
        )
    dest.parent.mkdir(parents=True, exist_ok=True)
    suffix = ".zip" if url.lower().endswith(".zip") else ".tar.gz"
    fd, archive_name = tempfile.mkstemp(prefix=f".{dest.name}.download-", suffix=suffix, dir=dest.parent)
    archive = pathlib.Path(archive_name)
    work = None
    try:
        with os.fdopen(fd, "wb") as out:
            digest, size = _fetch(url, out, progress)
        if expected is not None and digest != expected:
            raise ChecksumError(
                f"SHA-256 mismatch for {url}: expected {expected}, got {digest} "
                f"({size} bytes). The download was deleted."
            )
        work = pathlib.Path(tempfile.mkdtemp(prefix=f".{dest.name}.tmp-", dir=dest.parent))
        try:
            files, skipped = _extract(archive, work, progress)
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error) as err:
            raise DownloadError(f"the archive from {url} is damaged: {err}") from err
        commit = _archive_commit(archive, url)
        archive.unlink()
        missing = [s for s in REQUIRED_SUBTREES if not any(f.startswith(s + "/") for f in files)]
        if missing:
            raise DownloadError(
                f"archive from {url} has no files under {missing}: is it a source archive "
                f"of {REPOSITORY}?"
            )
        _write_manifest(work, files)
        if commit is not None and commit != PINNED_COMMIT:
            log.warning("archive is of commit %s, not the pinned %s", commit, PINNED_COMMIT)
        _write_source(work, url, commit, digest, size, files, skipped)
        _move_into_place(work, dest, overwrite)
        work = None
    finally:
        with contextlib.suppress(FileNotFoundError):
            archive.unlink()
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
    return dest


def verify_assets(root: str | os.PathLike | None = None, progress: bool = False) -> list[str]:
    """Re-hash the files listed in `root/MANIFEST.sha256`.

    Returns the sorted relative paths that are missing or whose SHA-256 differs
    (empty list: all good). Files not in the manifest are ignored.
    Raises MissingAssetError if the manifest itself is missing.
    """
    root = pathlib.Path(root).expanduser() if root is not None else default_dest()
    manifest = read_manifest(root)
    bad = []
    for rel, want in tqdm(manifest.items(), desc="verifying", unit=" files", disable=not progress):
        path = root / rel
        if not path.is_file() or _hash_file(path) != want:
            bad.append(rel)
    return sorted(bad)


def read_manifest(root: str | os.PathLike) -> dict[str, str]:
    """`{relative path: sha256 hex}` from `root/MANIFEST.sha256`."""
    path = pathlib.Path(root) / MANIFEST_NAME
    if not path.is_file():
        raise MissingAssetError(
            f"no {MANIFEST_NAME} in {str(root)!r}: only folders made by "
            "`python -m simpler_jax.assets download` can be verified."
        )
    entries = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        digest, sep, rel = line.partition("  ")
        if not sep or not _HEX64.fullmatch(digest):
            raise ValueError(f"{path}:{n}: not a `<sha256>  <path>` line: {line!r}")
        entries[rel] = digest
    return entries


# ---------------------------------------------------------------- download


def _fetch(url: str, out: IO[bytes], progress: bool) -> tuple[str, int]:
    """Stream `url` into `out`; returns (sha256 hex, byte count)."""
    if "://" not in url:  # a local archive path
        url = pathlib.Path(url).expanduser().absolute().as_uri()
    request = urllib.request.Request(url, headers={"User-Agent": "simpler_jax-assets"})
    hasher = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            length = response.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            name = pathlib.PurePosixPath(urllib.parse.urlparse(url).path).name or "archive"
            with tqdm(
                total=total, unit="B", unit_scale=True, unit_divisor=1024,
                desc=f"downloading {name}", disable=not progress,
            ) as bar:
                while chunk := response.read(_CHUNK):
                    out.write(chunk)
                    hasher.update(chunk)
                    size += len(chunk)
                    bar.update(len(chunk))
    except urllib.error.HTTPError as err:
        raise DownloadError(f"downloading {url} failed: HTTP {err.code} {err.reason}") from err
    except (OSError, http.client.HTTPException) as err:  # URLError, timeouts, IncompleteRead
        raise DownloadError(f"downloading {url} failed: {err}") from err
    if total is not None and size != total:
        raise DownloadError(f"downloading {url} stopped after {size} of {total} bytes")
    return hasher.hexdigest(), size


# ---------------------------------------------------------------- extraction


def safe_member_parts(name: str) -> tuple[str, ...] | None:
    """The path components of an archive member name, or None if it is unsafe.

    Unsafe: absolute paths (`/x`, `\\x`, `C:x`), any `..` component (also between
    backslashes), NUL bytes. Empty and `.` components are dropped.
    """
    if not name or "\0" in name or name.startswith(("/", "\\")) or re.match(r"[A-Za-z]:", name):
        return None
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if any(".." in p.split("\\") for p in parts):
        return None
    return parts


_TOP_LEVEL = ("data", "mani_skill2_real2sim")


def _destination(parts: tuple[str, ...], skip: int | None) -> tuple[tuple[str, ...], int | None] | None:
    """(destination components, wrapper depth) for a member the project needs, else None.

    Members may sit under one wrapping folder (GitHub's `<repo>-<commit>/`, depth 1) or
    none (depth 0); `skip` is the depth already seen in this archive, or None.
    """
    if len(parts) == 1 and parts[0] in EXTRA_FILES:
        return parts, None
    if len(parts) == 2 and parts[1] in EXTRA_FILES and parts[0] not in _TOP_LEVEL:
        return parts[1:], None
    for depth in (1, 0) if skip is None else (skip,):
        rel = parts[depth:]
        joined = "/".join(rel)
        for subtree in REQUIRED_SUBTREES + OPTIONAL_SUBTREES:
            if joined == subtree or joined.startswith(subtree + "/"):
                return rel, depth
    return None


def _extract(archive: pathlib.Path, work: pathlib.Path, progress: bool) -> tuple[dict[str, str], list[str]]:
    """Write the wanted regular files of `archive` under `work`.

    Returns ({relative path: sha256} of written files, [skipped unsafe/link member names]).
    """
    files: dict[str, str] = {}
    skipped: list[str] = []
    root = work.resolve()
    depth = None
    with tqdm(desc="extracting", unit=" files", disable=not progress) as bar:
        for name, kind, open_member in _members(archive):
            parts = safe_member_parts(name)
            if parts is None:
                log.warning("skipping unsafe archive member %r", name)
                skipped.append(name)
                continue
            found = _destination(parts, depth)
            if found is None:
                continue
            rel, member_depth = found
            depth = depth if member_depth is None else member_depth
            if kind not in ("file", "dir"):
                log.warning("skipping %s archive member %r (only files are extracted)", kind, name)
                skipped.append(name)
                continue
            target = work.joinpath(*rel)
            if not target.resolve().is_relative_to(root):  # belt and braces
                log.warning("skipping archive member %r outside the target", name)
                skipped.append(name)
                continue
            if kind == "dir":
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            hasher = hashlib.sha256()
            with open_member() as src, open(target, "wb") as dst:
                while chunk := src.read(_CHUNK):
                    hasher.update(chunk)
                    dst.write(chunk)
            files["/".join(rel)] = hasher.hexdigest()
            bar.update(1)
    return files, skipped


def _members(archive: pathlib.Path) -> Iterator[tuple[str, str, Callable[[], IO[bytes]]]]:
    """(name, kind, opener) for each member; kind is file, dir, symlink, hardlink or special."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zf:
            for info in zf.infolist():
                mode = info.external_attr >> 16
                if info.is_dir():
                    kind = "dir"
                elif stat.S_ISLNK(mode):
                    kind = "symlink"
                elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # 0: no type recorded
                    kind = "special"
                else:
                    kind = "file"
                yield info.filename, kind, (lambda info=info: zf.open(info))
        return
    try:
        tf = tarfile.open(archive, "r:*")
    except tarfile.TarError as err:
        raise DownloadError(f"the download is neither a tar nor a zip archive: {err}") from err
    with tf:
        for member in tf:
            if member.isdir():
                kind = "dir"
            elif member.isreg():
                kind = "file"
            elif member.issym():
                kind = "symlink"
            elif member.islnk():
                kind = "hardlink"
            else:
                kind = "special"
            yield member.name, kind, (lambda member=member: tf.extractfile(member))


# ---------------------------------------------------------------- bookkeeping


def _write_manifest(root: pathlib.Path, files: dict[str, str]) -> None:
    lines = [f"{files[rel]}  {rel}\n" for rel in sorted(files)]
    (root / MANIFEST_NAME).write_text("".join(lines), encoding="utf-8")


def _archive_commit(archive: pathlib.Path, url: str) -> str | None:
    """The commit an archive was made from: GitHub writes it as the archive comment
    (zip comment, tar pax global header), else a 40-hex name in the URL, else None."""
    comment = ""
    with contextlib.suppress(OSError, tarfile.TarError, zipfile.BadZipFile, UnicodeDecodeError):
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zf:
                comment = zf.comment.decode("ascii")
        else:
            with tarfile.open(archive, "r:*") as tf:
                tf.next()  # reads the global header
                comment = tf.pax_headers.get("comment", "")
    for text in (comment.strip().lower(), pathlib.PurePosixPath(urllib.parse.urlparse(url).path).name.lower()):
        if match := _COMMIT.search(text):
            return match.group(0)
    return None


def _write_source(root, url, commit, digest, size, files, skipped) -> None:
    source = {
        "repository": REPOSITORY,
        "url": url,
        "commit": commit,
        "archive_sha256": digest,
        "archive_bytes": size,
        "downloaded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "subtrees": [s for s in REQUIRED_SUBTREES + OPTIONAL_SUBTREES if any(f.startswith(s + "/") for f in files)],
        "file_count": len(files),
        "skipped_members": skipped,
    }
    (root / SOURCE_NAME).write_text(json.dumps(source, indent=2) + "\n", encoding="utf-8")


def _move_into_place(work: pathlib.Path, dest: pathlib.Path, overwrite: bool) -> None:
    """Rename `work` to `dest`; with `overwrite`, swap out an existing non-empty `dest`."""
    if dest.is_dir() and not _non_empty(dest):
        dest.rmdir()
    if not dest.exists():
        os.rename(work, dest)
        return
    if not overwrite:
        raise FileExistsError(f"{str(dest)!r} appeared while downloading; not replacing it.")
    old = pathlib.Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
    old.rmdir()
    os.rename(dest, old)
    os.rename(work, dest)
    if old.is_dir():
        shutil.rmtree(old, ignore_errors=True)
    else:
        old.unlink()


def _non_empty(path: pathlib.Path) -> bool:
    if not path.exists():
        return False
    if not path.is_dir():
        return True
    return any(path.iterdir())


def _normalise_sha256(value: str) -> str:
    digest = value.strip().lower().removeprefix("sha256:")
    if not _HEX64.fullmatch(digest):
        raise ValueError(f"not a SHA-256 hex digest (64 hex digits): {value!r}")
    return digest


def _hash_file(path: pathlib.Path) -> str:
    hasher = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()
