"""What a rule set means, found by search: which sets of patterns a hand's best
reading can claim (with a hand for each), why the others cannot be claimed,
and what the semantic checks of `tjmj check` conclude from that."""
