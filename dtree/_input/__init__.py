"""What users pass (arrays, frames, sparse matrices, labels, weights) as the arrays a fit reads.

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
