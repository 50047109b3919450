"""A file written whole or not at all: a temporary file beside the target, renamed over it. Two
writers at once never leave a torn file, a crash leaves the old file, and a symbolic link at the
target is replaced, never written through (the compile's outputs, impact's reports and chunks)."""

from __future__ import annotations

import os
import tempfile


def write_atomic(target: str, content: str) -> None:
    """`content` to `target` (its folder made if missing); an OSError names `target`, not the temporary."""
    d = os.path.dirname(target) or "."
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tjmj-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(content)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError) and e.filename != target:
            raise OSError(e.errno, e.strerror, target) from None
        raise
