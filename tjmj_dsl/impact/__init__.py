"""`tjmj impact`: what a rule variant does to the game, measured by duplicate
play. Every arm (the base and each variant) plays the same seeded walls, each
wall with the players' seats rotated four ways, so the luck of the wall cancels
in the paired differences. The runner is a client of the engine's seeded hands:
it knows no rule of any game (pattern names come from the compiled rules).

arms.py (what an arm is, its rule files sent as text), chunk.py (a chunk of
walls played: a pure function), store.py (chunks kept to resume), stats.py
(paired intervals), measures.py (what is measured), analyze.py (the report's
numbers, JSON), render.py / plots.py (Markdown, HTML, SVG), schema.py (its JSON
Schema), runner.py (local processes or Ray), command.py (the CLI).
"""
