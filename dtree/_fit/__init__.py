"""Growing and pruning: the plan's builder on scaled data, pruning, and what a tree records
of its rows (ranges, leaf targets, competitors and surrogates).

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
