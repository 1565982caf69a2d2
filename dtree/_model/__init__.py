"""The fitted model: the ``Tree`` node arrays, their one routing rule, what a tree records of
its rows, and the fitted state an estimator installs.

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
