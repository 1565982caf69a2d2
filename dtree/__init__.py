"""dtree: exact, fast decision trees with typed Cython kernels.

Public names: ``DecisionTreeClassifier``, ``DecisionTreeRegressor``,
``NotFittedError`` and ``__version__``; datasets live in ``dtree.datasets``.
"""
from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._validation import NotFittedError
from ._version import __version__

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "NotFittedError",
           "__version__"]
