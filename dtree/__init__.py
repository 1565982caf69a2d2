"""dtree: exact, fast decision trees with typed Cython kernels.

Public names: the estimators ``DecisionTreeClassifier``,
``DecisionTreeRegressor``, ``ExtraTreeClassifier`` and ``ExtraTreeRegressor``, and
the forests ``RandomForestClassifier``, ``RandomForestRegressor``,
``ExtraTreesClassifier`` and ``ExtraTreesRegressor``;
``load`` / ``from_dict`` for model files (and their ``ModelFileError``);
``NotFittedError``; ``__version__``; and scikit-learn's exporters under their
``sklearn.tree`` names (``export_text``, ``export_graphviz``, ``plot_tree``).
Datasets live in ``dtree.datasets``, every exporter in ``dtree.export``.
"""
from ._estimators.classifier import DecisionTreeClassifier, ExtraTreeClassifier
from ._estimators.regressor import DecisionTreeRegressor, ExtraTreeRegressor
from ._forest.estimators import (ExtraTreesClassifier, ExtraTreesRegressor,
                                 RandomForestClassifier, RandomForestRegressor)
from ._fit.gains import information_gains
from ._deploy.model_file import ModelFileError, from_dict, load
from ._input.categorical import IdentifierColumnWarning
from ._input.validation import NotFittedError
from ._version import __version__
from .export import export_graphviz, export_text, plot_tree

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
           "ExtraTreeRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor",
           "IdentifierColumnWarning",
           "ModelFileError", "RandomForestClassifier", "RandomForestRegressor",
           "NotFittedError", "export_graphviz", "export_text", "from_dict", "information_gains",
           "load", "plot_tree", "__version__"]
