"""The rulebook: a document model built from the IR and the scorer's answers
(content.py), and two renderers that escape every string of it (markdown.py,
html.py). No rule-file string reaches a renderer's output unescaped."""
