"""The estimators: thin classes whose ``fit`` is plan -> input -> fit -> fitted state, and
their readers (predict, apply, paths, pruning, files, the analyst's tools).

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
