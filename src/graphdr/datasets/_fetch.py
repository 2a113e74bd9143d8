"""Get a registered raw file onto this machine, byte-exact, or refuse it.

Order of sources for ``fetch(name)``:

1. the mirror directory (``mirror=``, else ``$GRAPHDR_DATA_MIRROR``): ``<mirror>/<name>`` is used
   in place (never copied) when its sha256 matches;
2. the download cache (``data_home=``, else ``$GRAPHDR_DATA_HOME``, else
   ``pooch.os_cache("graphdr")``): ``<data_home>/<name>``, used when its sha256 matches;
3. a download: the registry's exact-bytes ``urls`` in order, then its zip ``archives``.

Every candidate is hashed before it is used. A download goes to a temporary directory first and
only a verified file is moved into the cache, so a file that fails its checksum is refused with a
:class:`ChecksumError` (a ``ValueError``) and nothing is written to the cache. A download that
fails with a network error (``OSError``) is tried again (``DOWNLOAD_ATTEMPTS`` in all, after
``RETRY_DELAYS`` seconds); wrong bytes are not: the same URL would send them again. Hashes are
remembered per (path, size, mtime) for the life of the process, so a file is hashed once.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

import pooch

from ._registry import file_entry

MIRROR_ENV = "GRAPHDR_DATA_MIRROR"
HOME_ENV = "GRAPHDR_DATA_HOME"

_HASH_CACHE: dict[tuple[str, int, int], str] = {}

#: tries of one URL when the network fails (a moment's outage), and the waits between them
DOWNLOAD_ATTEMPTS = 3
RETRY_DELAYS = (2.0, 8.0)

_CAUSES = {
    "mirror": (
        "the mirror holds a damaged copy or another version of the file; copy it again from "
        "one of the registry URLs"
    ),
    "cache": (
        "the cached download is damaged or incomplete; delete it and fetch again, or point "
        "data_home elsewhere"
    ),
    "download": (
        "the server sent other bytes (a changed, truncated or replaced file, or an HTML error page)"
    ),
}


class ChecksumError(ValueError):
    """A file whose sha256 differs from the registry's."""


class DownloadError(OSError):
    """No source could deliver a registered file."""


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 hex digest of a file, remembered per (real path, size, mtime)."""
    path = Path(path)
    stat = path.stat()
    key = (os.path.realpath(path), stat.st_size, stat.st_mtime_ns)
    if key not in _HASH_CACHE:
        digest = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        _HASH_CACHE[key] = digest.hexdigest()
    return _HASH_CACHE[key]


def resolve_mirror(mirror: str | os.PathLike | None = None) -> Path | None:
    """Mirror directory: the argument, else ``$GRAPHDR_DATA_MIRROR`` (empty means none)."""
    value = mirror if mirror is not None else os.environ.get(MIRROR_ENV) or None
    return None if value is None else Path(value).expanduser()


def resolve_data_home(home: str | os.PathLike | None = None) -> Path:
    """Download cache: the argument, else ``$GRAPHDR_DATA_HOME``, else pooch's user cache."""
    value = home if home is not None else os.environ.get(HOME_ENV) or None
    return Path(value).expanduser() if value is not None else Path(pooch.os_cache("graphdr"))


def mismatch_message(name: str, where: str, location, expected: str, found: str) -> str:
    """One checksum-failure message: which file, where, expected and found hash, likely cause."""
    return (
        f"{name}: the {where} copy at {location} has sha256 {found}, but the registry expects "
        f"{expected}. Likely cause: {_CAUSES[where]}. The file was refused and nothing was written."
    )


def verify(path: Path, entry: dict, where: str, location=None) -> Path:
    """Return ``path`` if its sha256 is the registry's, else raise :class:`ChecksumError`."""
    found = file_sha256(path)
    if found != entry["sha256"]:
        raise ChecksumError(
            mismatch_message(entry["name"], where, location or path, entry["sha256"], found)
        )
    return path


def fetch(
    name: str,
    *,
    mirror: str | os.PathLike | None = None,
    data_home: str | os.PathLike | None = None,
    registry: str | os.PathLike | None = None,
) -> Path:
    """Local path of the registered raw file ``name`` (e.g. ``"usps/usps_7291_2007.mat"``).

    Tries the mirror, then the download cache, then the registry's URLs (see the module doc).
    Raises :class:`ChecksumError` for a file with the wrong sha256 and :class:`DownloadError`
    when no source has the file (e.g. an offline machine without a mirror).
    """
    entry = file_entry(name, registry)
    mirror_path = resolve_mirror(mirror)
    if mirror_path is not None and (mirror_path / name).is_file():
        return verify(mirror_path / name, entry, "mirror")
    target = resolve_data_home(data_home) / name
    if target.is_file():
        return verify(target, entry, "cache")
    return _download(entry, target, mirror_path)


def _download(entry: dict, target: Path, mirror_path: Path | None) -> Path:
    """Try every URL, then every archive; install the first verified file at ``target``."""
    name = entry["name"]
    failures: list[str] = []
    mismatches: list[str] = []
    sources = [(url, None) for url in entry["urls"]]
    sources += [(arch["url"], arch["member"]) for arch in entry["archives"]]
    for url, member in sources:
        with tempfile.TemporaryDirectory(prefix="graphdr-download-") as tmp:
            try:
                candidate = _download_retrying(url, member, Path(tmp), Path(name).name)
            except Exception as exc:  # network and archive errors: try the next source
                failures.append(f"{url}: {type(exc).__name__}: {exc}")
                continue
            found = file_sha256(candidate)
            if found != entry["sha256"]:
                where = url if member is None else f"{url} (member {member})"
                mismatches.append(mismatch_message(name, "download", where, entry["sha256"], found))
                continue
            return _install(candidate, target)
    if mismatches:
        raise ChecksumError(" ".join(mismatches))
    raise DownloadError(_unavailable_message(name, failures, mirror_path))


def _download_retrying(url: str, member: str | None, tmp: Path, fname: str) -> Path:
    """:func:`_download_one`, tried again after a network error (``OSError``) only."""
    for attempt in range(DOWNLOAD_ATTEMPTS):
        try:
            return _download_one(url, member, tmp, fname)
        except OSError:
            if attempt + 1 == DOWNLOAD_ATTEMPTS:
                raise
            time.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
    raise AssertionError("unreachable")


def _download_one(url: str, member: str | None, tmp: Path, fname: str) -> Path:
    """Download ``url`` into ``tmp``; for a zip archive extract ``member`` there too."""
    if member is None:
        return Path(pooch.retrieve(url, known_hash=None, fname=fname, path=tmp))
    paths = pooch.retrieve(
        url, known_hash=None, fname="archive.zip", path=tmp, processor=pooch.Unzip([member])
    )
    wanted = [Path(p) for p in paths if Path(p).as_posix().endswith(member)]
    if not wanted:
        raise FileNotFoundError(f"archive has no member {member!r}")
    return wanted[0]


def _install(source: Path, target: Path) -> Path:
    """Copy a verified file into the cache atomically (parallel jobs may fetch the same file)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.part-{os.getpid()}")
    shutil.copyfile(source, partial)
    os.replace(partial, target)
    return target


def _unavailable_message(name: str, failures: list[str], mirror_path: Path | None) -> str:
    tried = "; ".join(failures) if failures else "the registry lists no download URL"
    if mirror_path is None:
        where = f"no mirror is set (${MIRROR_ENV})"
    elif not mirror_path.is_dir():
        where = (
            f"the mirror directory {mirror_path} does not exist (check ${MIRROR_ENV} or "
            "mirror=: a typo, or a file system not mounted here)"
        )
    else:
        where = f"the mirror {mirror_path} has no {name}"
    return (
        f"Could not get {name}: {where}, and the download failed ({tried}). On a machine "
        f"without internet, copy the file to <mirror>/{name} and set ${MIRROR_ENV}=<mirror> "
        "(or pass mirror=)."
    )
