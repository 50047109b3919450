"""Tiles and the hand notation (rulebook §1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tjmj_dsl.notation import parse_hand
from tjmj_dsl.tiles import NAMES, TileError, format_tiles, parse_tile, parse_tiles


def test_34_kinds_in_order() -> None:
    assert len(NAMES) == 34
    assert NAMES[:3] == ("1m", "2m", "3m") and NAMES[9] == "1p" and NAMES[18] == "1s"
    assert NAMES[27:] == ("E", "S", "W", "N", "C", "F", "P")


@pytest.mark.parametrize("text, names", [
    ("345m", ["3m", "4m", "5m"]),
    ("1z7z", ["E", "P"]),
    ("1234567z", ["E", "S", "W", "N", "C", "F", "P"]),
    ("EESWNCFP", ["E", "E", "S", "W", "N", "C", "F", "P"]),
    ("五万 5万 7筒 7饼 9条 9索", ["5m", "5m", "7p", "7p", "9s", "9s"]),
    ("东 南风 西 北 红中 发 白板", ["E", "S", "W", "N", "C", "F", "P"]),
    ("伍万", ["5m"]),
    ("1m, 2m 3m", ["1m", "2m", "3m"]),
])
def test_parse(text: str, names: list[str]) -> None:
    assert [NAMES[k] for k in parse_tiles(text)] == names


@pytest.mark.parametrize("text, pos, message", [
    ("345m123sEEE77m45x", 16, "'x' is not a suit"),
    ("8z", 0, "no honor tile 8z"),
    ("10m", 1, "no tile 0m"),
    ("34", 0, "digit '3' has no suit after it"),
    ("5m Q", 3, "'Q' is not a tile"),
])
def test_parse_errors_point_at_the_character(text: str, pos: int, message: str) -> None:
    with pytest.raises(TileError) as e:
        parse_tiles(text)
    assert e.value.message == message
    assert e.value.pos == pos
    assert e.value.render().splitlines()[2].index("^") == 2 + pos  # caret under the offending character


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.integers(0, 33), min_size=1, max_size=6), max_size=8))
def test_compact_runs_read_as_written(runs: list[list[int]]) -> None:
    """The compact form's own reader (a run of one suit's digits, an honor
    letter) gives the tiles each run was written from, in order, the first
    time a text is read and again from the cache."""
    text = ""
    want: list[int] = []
    for run in runs:
        suit = run[0] // 9 if run[0] < 27 else None
        kinds = [k for k in run if (k // 9 if k < 27 else None) == suit]
        want += kinds
        text += "".join(NAMES[k] for k in kinds) if suit is None else \
            "".join(str(k % 9 + 1) for k in kinds) + "mps"[suit]
    assert parse_tiles(text) == want
    assert parse_tiles(text) == want


def test_format_round_trip() -> None:
    kinds = parse_tiles("345m123sEEE77m45s")
    assert format_tiles(kinds) == "345m123sEEE77m45s"
    assert parse_tiles(format_tiles(kinds)) == kinds


def test_parse_tile_wants_exactly_one() -> None:
    assert NAMES[parse_tile("白板")] == "P"
    with pytest.raises(TileError):
        parse_tile("12m")


def test_hand_notation() -> None:
    h = parse_hand("345m 123s EEE 77m 45s [5555p] (9999s) [777m] +6s")
    assert h == {"concealed": "345m123sEEE77m45s",
                 "melds": [{"type": "kong", "tile": "5p"}, {"type": "concealed_kong", "tile": "9s"},
                           {"type": "pung", "tile": "7m"}],
                 "draw": "6s"}
    assert "draw" not in parse_hand("345m 123s EEE 77m 45s 6s")


@pytest.mark.parametrize("text, message", [
    ("345m [5555p", "'[' is not closed"),
    ("345m [5556p] +6s", "a declared meld is 3 or 4 of one tile; a concealed kong is 4"),
    ("345m (555p) +6s", "a declared meld is 3 or 4 of one tile; a concealed kong is 4"),
    ("345m +6s +7s", "one winning tile after '+'"),
])
def test_hand_notation_errors(text: str, message: str) -> None:
    with pytest.raises(TileError) as e:
        parse_hand(text)
    assert e.value.message == message


def test_full_width_digits_and_letters_are_read_and_no_other_digits() -> None:
    # what the README says of the notation (an audit asked it be written): an input method's full-width
    # 345m is 345m; the Arabic-Indic five and a superscript two are no ranks
    assert parse_tiles("３４５ｍ１２３ｓＥ") == parse_tiles("345m123sE")
    for text in ("٥m", "²m"):
        with pytest.raises(TileError):
            parse_tiles(text)
