"""A fitted model outside Python: model files (safe, versioned), SQL and ONNX.

Imports nothing: a module of this layer is imported on its own (``tests/test_structure.py``).
"""
