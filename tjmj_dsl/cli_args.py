"""Argument types of the `tjmj` command line: each refuses a bad value as argparse's usage error
(exit 2, the argument named, one message) before any work, so no command meets a count out of its
range, a number that is not one (`nan`, `1e3`, `٣`), or a path that is missing or a directory."""

from __future__ import annotations

import argparse
import math
import os
import re
from typing import Callable

_INT = re.compile(r"-?[0-9]+\Z")  # ASCII digits only: int() reads "٣" and "1_0", str.isdigit() passes "²"
_FLOAT = re.compile(r"-?([0-9]+\.?[0-9]*|\.[0-9]+)\Z")


def int_in(lo: int, hi: int) -> Callable[[str], int]:
    """An integer from lo to hi, written in ASCII digits (no sign but '-', no '_', no exponent)."""
    def parse(text: str) -> int:
        if not _INT.match(text) or len(text) > 20:
            raise argparse.ArgumentTypeError(f"takes a whole number from {lo:,} to {hi:,}, got {text!r}")
        n = int(text)
        if not lo <= n <= hi:
            raise argparse.ArgumentTypeError(f"takes a whole number from {lo:,} to {hi:,}, got {text}")
        return n
    parse.__name__ = "integer"
    return parse


def seconds(lo: float, hi: float) -> Callable[[str], float]:
    """A number of seconds, more than lo and at most hi, in plain decimal (no nan, inf or exponent)."""
    def parse(text: str) -> float:
        v = float(text) if _FLOAT.match(text) and len(text) <= 20 else math.nan
        if not (math.isfinite(v) and lo < v <= hi):
            raise argparse.ArgumentTypeError(f"takes more than {lo:g} and at most {hi:g} seconds, got {text!r}")
        return v
    parse.__name__ = "seconds"
    return parse


def number_in(lo: float, hi: float, unit: str = "") -> Callable[[str], float]:
    """A number from lo to hi (both included), in plain decimal (no nan, inf or exponent)."""
    def parse(text: str) -> float:
        v = float(text) if _FLOAT.match(text) and len(text) <= 20 else math.nan
        if not (math.isfinite(v) and lo <= v <= hi):
            raise argparse.ArgumentTypeError(f"takes a number from {lo:g} to {hi:g}{unit}, got {text!r}")
        return v
    parse.__name__ = "number"
    return parse


def text_of(most: int) -> Callable[[str], str]:
    """Text of at most `most` characters, without control characters (a seed, a name)."""
    def parse(text: str) -> str:
        if not text:
            raise argparse.ArgumentTypeError("takes at least one character, got none")
        if len(text) > most:
            raise argparse.ArgumentTypeError(f"takes at most {most} characters, got {len(text):,}")
        if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in text):
            raise argparse.ArgumentTypeError(f"takes no control characters, got {text!r}")
        return text
    parse.__name__ = "text"
    return parse


def seed_of(text: str) -> int | str:
    """A game seed as a run and its records name it: an integer when written as one in ASCII
    digits ("7", "-3"), else the text itself."""
    return int(text) if _INT.match(text) else text


def input_file(text: str) -> str:
    """A file to read: it exists and is a regular file (not a directory, device or pipe)."""
    if not text:
        raise argparse.ArgumentTypeError("names no file (an empty name)")
    if not os.path.exists(text):
        raise argparse.ArgumentTypeError(f"no such file: {text!r}")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    if not os.path.isfile(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular file")
    return text


def input_file_or_stdin(text: str) -> str:
    """A file to read, or - for standard input."""
    return text if text == "-" else input_file(text)


def output_file(text: str) -> str:
    """A file to write: not a directory, in a folder that exists (whether it may be written over
    is the command's to say)."""
    if not text:
        raise argparse.ArgumentTypeError("names no file (an empty name)")
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"no folder {os.path.dirname(text) or folder!r} to write {os.path.basename(text)!r} in")
    return text


def output_dir(text: str) -> str:
    """A folder to write in: not an existing file (it is made if missing)."""
    if not text:
        raise argparse.ArgumentTypeError("names no folder (an empty name)")
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder")
    return text


def rules_source(text: str) -> str:
    """A rule file as `init --from` names one: builtin:NAME, or a rule file."""
    return text if text.startswith("builtin:") else input_file(text)
