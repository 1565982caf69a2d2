"""Reading a fitted tree: text, rules, Graphviz dot, drawings, pictures, ROC, SQL, ONNX.

Every function reads the flat node arrays of ``estimator.tree_``: ``text``
(``export_text``, ``export_compact``, ``export_rules``), ``drawing``
(scikit-learn's ``export_graphviz`` and ``plot_tree``), ``pictures``
(``plot_decision_boundary``, the ROC curve), and from the deployment layer
``export_sql`` and ``to_onnx``. Pictures need matplotlib (``pip install
"dtree-exact[plot]"``), imported only when a picture is drawn.
"""
from .._deploy.onnx import to_onnx       # (onnx itself is imported when a model converts)
from .._deploy.sql import export_sql
from .._input.encode import encode_predict_X
from .drawing import export_graphviz, plot_tree
from .pictures import plot_decision_boundary, plot_roc, roc_auc, roc_curve
from .text import export_compact, export_rules, export_text

__all__ = ["export_text", "export_sql", "export_compact", "export_rules", "export_graphviz",
           "plot_tree", "plot_decision_boundary", "roc_curve", "roc_auc", "plot_roc",
           "to_onnx", "onnx_input"]


def onnx_input(estimator, X):
    """The float32 matrix an exported graph takes for X.

    Numbers pass through; categorical columns become their category codes
    (the index in ``estimator.categories_``), missing values NaN.

    Returns
    -------
    ndarray of shape (n_samples, n_features), float32
    """
    return encode_predict_X(estimator, X)

