"""Adapters for tools that know scikit-learn's tree classes by name.

- ``to_shap(model)``: the tree in shap's documented dict format, for
  ``shap.TreeExplainer`` (which refuses classes it does not know): the same
  arrays shap reads from a scikit-learn tree, so identical trees give identical
  SHAP values.
"""
import numpy as np

__all__ = ["to_shap"]


def to_shap(model):
    """A fitted dtree estimator as the model dict ``shap.TreeExplainer`` takes.

    Parameters
    ----------
    model : fitted DecisionTree*/ExtraTree* estimator
        With numeric splits only (shap's trees compare a value with a threshold).

    Returns
    -------
    dict
        ``{"trees": [tree], "input_dtype", "internal_dtype", "tree_output"}``:
        a classifier's node values are its class probabilities
        (``tree_output="probability"``), a regressor's its predictions.

    Examples
    --------
    >>> import shap                                                  # doctest: +SKIP
    >>> explainer = shap.TreeExplainer(to_shap(clf))                 # doctest: +SKIP
    >>> values = explainer.shap_values(X)                            # doctest: +SKIP
    """
    tree = getattr(model, "tree_", None)
    if tree is None:
        raise ValueError("to_shap needs a fitted dtree estimator (call fit first)")
    if tree.category_sets.shape[0] > 0 or (tree.categorical_set >= 0).any():
        raise ValueError("this tree splits by sets of categories, which shap's tree format "
                         "cannot express (it compares a value with a threshold): fit with "
                         "numeric or one-hot columns to explain it with shap")
    if getattr(tree, "fractional_missing", False):
        raise ValueError("this tree spreads missing values over both children "
                         "(algorithm='c4.5'), which shap's tree format cannot express")
    values = np.asarray(tree.value, dtype=np.float64).reshape(tree.node_count, -1)
    classifier = bool(tree.is_classifier)
    if classifier:     # class fractions, as shap normalizes a scikit-learn classifier's
        values = values / values.sum(axis=1, keepdims=True)
    left = tree.children_left.astype(np.int32)
    right = tree.children_right.astype(np.int32)
    shap_tree = {
        "children_left": left,
        "children_right": right,
        "children_default": np.where(tree.missing_go_to_left.astype(bool), left, right),
        "features": tree.feature.astype(np.int32),
        "thresholds": tree.threshold.astype(np.float64),
        "values": values,
        "node_sample_weight": tree.weighted_n_node_samples.astype(np.float64),
    }
    return {"trees": [shap_tree], "input_dtype": np.float32, "internal_dtype": np.float64,
            "tree_output": "probability" if classifier else "raw_value"}
