"""The expression language: grammar, AST, checker, interpreter and emitter."""
