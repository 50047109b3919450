"""Hun-aware decomposition and scoring. The modules here import only the
standard library and each other (marked lines), because the code generator
inlines them into the standalone scorer."""
