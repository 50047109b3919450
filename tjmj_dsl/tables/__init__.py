"""Tables: Tianjin played in the browser — rooms, seats, bots, a socket per seat
(docs/table-protocol.md). A client of the engine (game/step.py) that knows no rule:
every question comes with the engine's menu, every view is computed for its seat."""
