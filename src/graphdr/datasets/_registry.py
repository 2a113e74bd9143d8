"""The dataset registry: which raw files exist, their sha256, their URLs, and the datasets built
from them.

The package ships one registry file (``registry.toml``). A user registry (TOML or JSON, same two
tables ``files`` and ``datasets``) can add or override entries, given by ``registry=`` or by the
environment variable ``GRAPHDR_EXTRA_REGISTRY``; that is all it takes to add a UCI-style dataset.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import re
import tomllib
from importlib import resources
from pathlib import Path

EXTRA_REGISTRY_ENV = "GRAPHDR_EXTRA_REGISTRY"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def _read_table_file(path: Path) -> dict:
    """Parse a registry file (TOML, or JSON when the name ends in .json)."""
    if path.suffix.lower() == ".json":
        return json.loads(path.read_text(encoding="utf-8"))
    return tomllib.loads(path.read_text(encoding="utf-8"))


@functools.cache
def _package_registry() -> dict:
    text = resources.files("graphdr.datasets").joinpath("registry.toml").read_text("utf-8")
    return tomllib.loads(text)


@functools.lru_cache(maxsize=16)
def _user_registry(path: str, mtime_ns: int) -> dict:
    # mtime is part of the key so that an edited user registry is re-read.
    return _read_table_file(Path(path))


def extra_registry_path(registry: str | os.PathLike | None = None) -> Path | None:
    """User registry file: the argument, else ``$GRAPHDR_EXTRA_REGISTRY``, else none."""
    value = registry if registry is not None else os.environ.get(EXTRA_REGISTRY_ENV) or None
    return None if value is None else Path(value).expanduser()


def read_registry(registry: str | os.PathLike | None = None) -> dict:
    """The merged registry ``{"files": {...}, "datasets": {...}}`` (user entries win)."""
    base = _package_registry()
    merged = {"files": dict(base["files"]), "datasets": dict(base["datasets"])}
    path = extra_registry_path(registry)
    if path is not None:
        if not path.is_file():
            raise FileNotFoundError(
                f"User dataset registry {path} does not exist (given by registry= or "
                f"${EXTRA_REGISTRY_ENV})."
            )
        extra = _user_registry(str(path.resolve()), path.stat().st_mtime_ns)
        unknown = set(extra) - {"files", "datasets"}
        if unknown:
            raise ValueError(
                f"User dataset registry {path} has tables {sorted(unknown)}; only 'files' and "
                "'datasets' are allowed."
            )
        merged["files"].update(extra.get("files", {}))
        merged["datasets"].update(extra.get("datasets", {}))
    return merged


def _not_found(kind: str, name: str, known) -> KeyError:
    close = difflib.get_close_matches(name, list(known), n=3)
    hint = f" Did you mean {', '.join(map(repr, close))}?" if close else ""
    return KeyError(
        f"Unknown {kind} {name!r}.{hint} Registered {kind}s are listed by "
        f"graphdr.datasets.list_{kind}s(); add new ones with a user registry "
        f"(registry= or ${EXTRA_REGISTRY_ENV})."
    )


def file_entry(name: str, registry=None) -> dict:
    """Registry entry of a raw file (relative path as in the mirror), validated."""
    files = read_registry(registry)["files"]
    if name not in files:
        raise _not_found("file", name, files)
    entry = dict(files[name])
    sha = str(entry.get("sha256", "")).lower()
    if not _SHA256.match(sha):
        raise ValueError(
            f"Registry entry of file {name!r} needs a 64-hex-digit sha256, got {sha!r}."
        )
    entry["sha256"] = sha
    entry["name"] = name
    entry.setdefault("urls", [])
    entry.setdefault("archives", [])
    return entry


def dataset_entry(name: str, registry=None) -> dict:
    """Registry entry of a dataset, validated (its files must be registered too)."""
    reg = read_registry(registry)
    datasets = reg["datasets"]
    if name not in datasets:
        raise _not_found("dataset", name, datasets)
    entry = dict(datasets[name])
    entry["name"] = name
    entry.setdefault("files", [])
    if "loader" not in entry:
        raise ValueError(f"Registry entry of dataset {name!r} has no 'loader'.")
    missing = [f for f in entry["files"] if f not in reg["files"]]
    if missing:
        raise ValueError(
            f"Dataset {name!r} reads files {missing} that have no [files] entry in the registry."
        )
    return entry


def list_datasets(registry=None) -> list[str]:
    """Names accepted by :func:`graphdr.datasets.load`, sorted."""
    return sorted(read_registry(registry)["datasets"])


def list_files(registry=None) -> list[str]:
    """Relative paths of every registered raw file, sorted."""
    return sorted(read_registry(registry)["files"])


def dataset_files(name: str, registry=None) -> list[str]:
    """Raw files (relative paths) a dataset reads, e.g. to declare workflow inputs."""
    return list(dataset_entry(name, registry)["files"])
