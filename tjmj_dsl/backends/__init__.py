"""Backends over the core IR: the reference interpreter and the code generators."""
