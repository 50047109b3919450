"""Reading rule files: YAML with positions, overlays, and the schema."""
