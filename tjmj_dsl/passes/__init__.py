"""Compiler passes: each a pure function from one stage to the next."""
