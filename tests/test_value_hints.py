"""The value player's hints are data: which tiles it holds on to comes from the
rule file's play section (value_player_keep, value_player_run_ranks), not from
Python. The Tianjin file names the neighbours of zhuo5's five (4m 6m) and the
long's runs; an overlay can change or drop them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.gamekit import rules, tiles
from tests.test_game import _overlay
from tjmj_dsl import Scorer
from tjmj_dsl.game.players import ValuePlayer
from tjmj_dsl.game.rules import GameRulesError, game_rules


def test_the_tianjin_file_names_zhuo5s_neighbours_and_the_long_runs() -> None:
    gr = rules()
    assert gr.keep_tiles == frozenset(tiles("4m 6m"))
    assert gr.run_ranks == 6


def test_kept_tiles_are_the_last_to_go() -> None:
    # 4m and 8p alike (lone tiles with one neighbour each): the kept one is judged more useful
    c = [0] * 34
    for t in tiles("4m 5m 8p 9p"):
        c[t] += 1
    u = ValuePlayer._uselessness
    keep = frozenset(tiles("4m 6m"))
    assert u(tiles("4m")[0], tuple(c), keep, 0) < u(tiles("8p")[0], tuple(c), keep, 0)
    assert u(tiles("4m")[0], tuple(c), frozenset(), 0) == u(tiles("8p")[0], tuple(c), frozenset(), 0)


def test_a_suit_near_its_run_is_kept_only_when_the_rules_say_so() -> None:
    c = [0] * 34
    for t in tiles("1p 2p 4p 5p 7p 9p 1s 2s"):
        c[t] += 1
    u = ValuePlayer._uselessness
    nine_p, two_s = tiles("9p")[0], tiles("2s")[0]
    assert u(nine_p, tuple(c), frozenset(), 6) < u(nine_p, tuple(c), frozenset(), 0)
    assert u(two_s, tuple(c), frozenset(), 6) == u(two_s, tuple(c), frozenset(), 0)


def test_an_overlay_changes_or_drops_the_hints(tmp_path: Path) -> None:
    gr = rules(path=_overlay(tmp_path, 'set:\n  play.value_player_keep: "3s 7s"\n  play.value_player_run_ranks: 0\n'))
    assert gr.keep_tiles == frozenset(tiles("3s 7s")) and gr.run_ranks == 0
    gr = rules(path=_overlay(tmp_path, 'set:\n  play.value_player_keep: ""\n'))
    assert gr.keep_tiles == frozenset()


@pytest.mark.parametrize("body, words", [
    ('set:\n  play.value_player_keep: "4x"\n', "play.value_player_keep"),
    ("set:\n  play.value_player_run_ranks: \"six\"\n", "play.value_player_run_ranks must be a int"),
])
def test_a_bad_hint_is_an_error_not_a_default(body: str, words: str, tmp_path: Path) -> None:
    with pytest.raises(GameRulesError, match=words):
        game_rules(Scorer(_overlay(tmp_path, body)))
