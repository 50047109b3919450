"""Where the built-in rule files are: rules/ of a checkout, or the copy that
`pip install` puts in the package as tjmj_dsl.data (pyproject maps rules/ there)."""

from __future__ import annotations

import os

_CHECKOUT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "rules")


def rules_file(name: str) -> str:
    p = os.path.join(_CHECKOUT, name)
    if os.path.exists(p):
        return p
    from importlib import resources
    return str(resources.files("tjmj_dsl.data").joinpath(name))


MAX_FILE_BYTES = 1_000_000  # a rule file or known-values file; tianjin.yaml is about 20 kB


class FileProblem(Exception):
    """A file that cannot be read as a rule file: what is wrong, without its content."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


def read_text(path: str) -> str:
    """The text of a rule file: a regular file (not a directory or a device),
    at most MAX_FILE_BYTES, UTF-8. Raises FileNotFoundError when it does not
    exist, FileProblem for the rest; the size is checked before reading."""
    import stat
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise
    except OSError as e:
        raise FileProblem(f"cannot read {path}: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise FileProblem(f"{path} is a directory", "name a rule file (.yaml)")
    if not stat.S_ISREG(st.st_mode):
        raise FileProblem(f"{path} is not a regular file", "name a rule file (.yaml)")
    if st.st_size > MAX_FILE_BYTES:
        raise FileProblem(f"{path} has {st.st_size:,} bytes; a rule file may have at most {MAX_FILE_BYTES:,}")
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise FileProblem(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise FileProblem(f"{path} has more than {MAX_FILE_BYTES:,} bytes; a rule file may have at most {MAX_FILE_BYTES:,}")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise FileProblem(f"{path} is not UTF-8 (byte {e.start + 1}, line {line})",
                          "save the file as UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text  # a byte order mark is not part of the text
