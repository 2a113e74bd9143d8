"""File permissions shared by every atomic writer of graphdr."""

from __future__ import annotations

import os


def _umask() -> int:
    """The process umask, read without changing it where the system allows (Linux /proc);
    elsewhere set-and-restore (another thread could create a file in between: rare)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def shared_file_mode() -> int:
    """Mode of a file created the ordinary way (``open(path, "w")``): 0o666 minus the umask.

    Atomic writers create their temporary file with :func:`tempfile.mkstemp`, which makes it
    0600 whatever the umask; they set this mode before moving it into place, so collaborators
    on a shared directory can read the outputs (0644 under the usual umask 022).
    """
    return 0o666 & ~_umask()
