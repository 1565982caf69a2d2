"""Parameters checked as data, the registry of what works with what, and the frozen fit plan.

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
