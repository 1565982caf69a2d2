"""Adapters for tools that know scikit-learn's tree classes by name.

- ``to_shap(model)``: the tree in shap's documented dict format, for
  ``shap.TreeExplainer`` (which refuses classes it does not know): the same
  arrays shap reads from a scikit-learn tree, so identical trees give identical
  SHAP values.
- ``register_skl2onnx()``: skl2onnx converts pipelines holding dtree models
  with dtree's own ONNX converter.
- ``to_dtreeviz(model, X, y)``: dtreeviz's view of a numeric-split tree.
- ``log_mlflow_model`` / ``save_mlflow_model`` / ``log_fit`` / ``autolog``: MLflow
  pyfunc models kept in dtree's own model file (no pickle), and logging of fits.
"""
import copy

import numpy as np

__all__ = ["autolog", "log_fit", "log_mlflow_model", "register_skl2onnx", "save_mlflow_model",
           "to_dtreeviz", "to_shap"]


def _threshold_tree(model, caller, refusal):
    """The fitted tree of ``model`` if every split is a threshold with missing values on
    one side (what tools built for scikit-learn's trees can read); else a clear error."""
    tree = getattr(model, "tree_", None)
    if tree is None:
        raise ValueError(f"{caller} needs a fitted dtree estimator (call fit first)")
    if tree.category_sets.shape[0] > 0 or (tree.categorical_set >= 0).any():
        raise ValueError(f"this tree splits by sets of categories, which {refusal} (it "
                         "reads every split as a threshold): fit with numeric or one-hot "
                         "columns")
    if getattr(tree, "fractional_missing", False):
        raise ValueError(f"this tree spreads missing values over both children "
                         f"(algorithm='c4.5'), which {refusal}")
    return tree


def to_shap(model):
    """A fitted dtree estimator as the model dict ``shap.TreeExplainer`` takes.

    Parameters
    ----------
    model : fitted DecisionTree*/ExtraTree* estimator, or a fitted forest
        With numeric splits only (shap's trees compare a value with a threshold).

    Returns
    -------
    dict
        ``{"trees": [tree, ...], "input_dtype", "internal_dtype", "tree_output"}``:
        a classifier's node values are its class probabilities
        (``tree_output="probability"``), a regressor's its predictions; a
        forest's trees each weigh ``1 / n_estimators`` (shap adds its trees'
        outputs, the forest averages them), as shap reads scikit-learn's forests.

    Examples
    --------
    >>> import numpy as np
    >>> import shap
    >>> from dtree import DecisionTreeRegressor
    >>> from dtree.integrations import to_shap
    >>> reg = DecisionTreeRegressor(max_depth=1).fit([[1.0], [2.0], [3.0], [4.0]],
    ...                                              [0.0, 0.0, 1.0, 1.0])
    >>> explainer = shap.TreeExplainer(to_shap(reg))
    >>> explainer.shap_values(np.array([[1.0], [4.0]])).round(3).tolist()
    [[-0.5], [0.5]]
    """
    members = getattr(model, "estimators_", None)
    if members is None:
        trees = [_shap_tree(_threshold_tree(model, "to_shap", _SHAP_REFUSAL), 1.0)]
    else:
        trees = [_shap_tree(_threshold_tree(m, "to_shap", _SHAP_REFUSAL), 1.0 / len(members))
                 for m in members]
    classifier = bool(trees and trees[0]["classifier"])
    for tree in trees:
        del tree["classifier"]
    return {"trees": trees, "input_dtype": np.float32, "internal_dtype": np.float64,
            "tree_output": "probability" if classifier else "raw_value"}


_SHAP_REFUSAL = "shap's tree format cannot express"


def _shap_tree(tree, scale):
    """One tree in shap's dict format, its values times ``scale``."""
    values = np.asarray(tree.value, dtype=np.float64).reshape(tree.node_count, -1)
    classifier = bool(tree.is_classifier)
    if classifier:     # class fractions, as shap normalizes a scikit-learn classifier's
        values = values / values.sum(axis=1, keepdims=True)
    left = tree.children_left.astype(np.int32)
    right = tree.children_right.astype(np.int32)
    return {
        "children_left": left,
        "children_right": right,
        "children_default": np.where(tree.missing_go_to_left.astype(bool), left, right),
        "features": tree.feature.astype(np.int32),
        "thresholds": tree.threshold.astype(np.float64),
        "values": values * scale,
        "node_sample_weight": tree.weighted_n_node_samples.astype(np.float64),
        "classifier": classifier,
    }


def register_skl2onnx():
    """Teach skl2onnx to convert dtree's estimators (inside pipelines too) with dtree's
    own ONNX converter (``dtree.export.to_onnx``).

    After the call, ``skl2onnx.convert_sklearn`` / ``to_onnx`` accept pipelines
    holding dtree models; a classifier gets skl2onnx's usual options
    (``zipmap``). Single-output models with numeric (or one-hot) input columns.

    Examples
    --------
    >>> register_skl2onnx()                                          # doctest: +SKIP
    >>> onx = skl2onnx.to_onnx(pipeline, X[:1].astype("float32"))    # doctest: +SKIP
    """
    from skl2onnx import update_registered_converter
    # skl2onnx knows a classifier (label and probabilities, zipmap) by
    # ClassifierMixin or its list of classifier classes; dtree's classes do not
    # inherit scikit-learn's: list them, and name the classifier parser
    from skl2onnx._parse import _parse_sklearn_classifier
    from skl2onnx._supported_operators import sklearn_classifier_list
    from skl2onnx.common.shape_calculator import (calculate_linear_classifier_output_shapes,
                                                  calculate_linear_regressor_output_shapes)

    from . import (DecisionTreeClassifier, DecisionTreeRegressor,
                                      ExtraTreeClassifier, ExtraTreeRegressor)
    for cls in (DecisionTreeClassifier, ExtraTreeClassifier):
        if cls not in sklearn_classifier_list:
            sklearn_classifier_list.append(cls)
        update_registered_converter(cls, f"Dtree{cls.__name__}",
                                    calculate_linear_classifier_output_shapes,
                                    _skl2onnx_converter, parser=_parse_sklearn_classifier,
                                    options={"zipmap": [True, False, "columns"],
                                             "nocl": [True, False]})
    for cls in (DecisionTreeRegressor, ExtraTreeRegressor):
        update_registered_converter(cls, f"Dtree{cls.__name__}",
                                    calculate_linear_regressor_output_shapes,
                                    _skl2onnx_converter)


def _skl2onnx_converter(scope, operator, container):
    """skl2onnx's converter: dtree's own graph, its nodes renamed into the container
    (its input is the operator's, its outputs the operator's label and
    probabilities, or its prediction)."""
    from onnx import helper

    from ._deploy.onnx import to_onnx
    model = operator.raw_operator
    if getattr(model, "n_outputs_", 1) != 1:
        raise ValueError("skl2onnx takes single-output dtree models")
    graph = to_onnx(model).graph
    prefix = scope.get_unique_operator_name("dtree")
    outputs = [o.full_name for o in operator.outputs]
    names = {"X": operator.inputs[0].full_name}
    if hasattr(model, "classes_"):
        names.update(label=outputs[0], probabilities=outputs[1])
    else:
        names["variable"] = outputs[0]

    def renamed(name):
        return names.get(name, f"{prefix}_{name}")

    for node in graph.node:
        attributes = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        domain = node.domain or ""
        container.add_node(node.op_type, [renamed(i) for i in node.input],
                           [renamed(o) for o in node.output],
                           name=f"{prefix}_{node.name or node.op_type}", op_domain=domain,
                           op_version=1 if domain == "ai.onnx.ml" else None, **attributes)


def _class_codes(classes, y):
    """A classifier's labels as the indices of ``classes`` (dtreeviz counts classes
    by index, so text labels are drawn by their codes)."""
    y = np.asarray(y).ravel()
    codes = np.searchsorted(classes, y)
    inside = codes < len(classes)
    if not (inside.all() and (classes[np.minimum(codes, len(classes) - 1)] == y).all()):
        unknown = y[~inside | (classes[np.minimum(codes, len(classes) - 1)] != y)][0]
        unknown = unknown.item() if isinstance(unknown, np.generic) else unknown
        raise ValueError(f"y holds the label {unknown!r}, which is not one of the "
                         f"model's classes {classes.tolist()}")
    return codes


def to_dtreeviz(model, X, y, *, feature_names=None, target_name="target", class_names=None):
    """The dtreeviz view of a fitted dtree model (``dtreeviz.model`` refuses classes it
    does not know; its scikit-learn shadow tree reads dtree's node arrays).

    Parameters
    ----------
    model : fitted DecisionTree*/ExtraTree* estimator
        With numeric splits only: dtreeviz draws a split as a threshold and feeds
        numbers back to ``predict``.
    X, y : the data to draw (numeric X)
    feature_names, target_name, class_names
        As ``dtreeviz.model`` takes them (default: ``feature_names_in_``,
        ``classes_``).

    Returns
    -------
    dtreeviz.trees.DTreeVizAPI
        ``.view()``, ``.leaf_sizes()``, ``.explain_prediction_path(x)``, ...
    """
    from dtreeviz.models.sklearn_decision_trees import ShadowSKDTree
    from dtreeviz.trees import DTreeVizAPI

    _threshold_tree(model, "to_dtreeviz", "dtreeviz cannot show")
    if feature_names is None:
        fitted = getattr(model, "feature_names_in_", None)
        feature_names = [str(n) for n in fitted] if fitted is not None else \
            [f"feature_{i}" for i in range(model.n_features_in_)]
    if class_names is None and hasattr(model, "classes_"):
        class_names = [str(c) for c in model.classes_]
    if hasattr(model, "classes_"):
        # dtreeviz draws classes 0..k-1 (text labels fail in its view, scikit-learn's
        # too): it is shown a copy whose classes are the codes, named by the labels
        y = _class_codes(model.classes_, y)
        model = copy.copy(model)
        model.classes_ = np.arange(len(class_names))
    shadow = ShadowSKDTree(model, X, y, list(feature_names), target_name, class_names)
    return DTreeVizAPI(shadow)


def log_mlflow_model(model, name="model", **kwargs):
    """Log a fitted dtree model to the active MLflow run, stored in dtree's own model
    file (no pickle: loading never runs code from the artifact).

    The model is an MLflow pyfunc model whose loader is this module
    (``mlflow.pyfunc.load_model(uri).predict(X)`` calls the tree's ``predict``).
    Other keyword arguments go to ``mlflow.pyfunc.log_model`` (``signature``,
    ``input_example``, ...).

    Returns
    -------
    mlflow.models.model.ModelInfo
    """
    import mlflow.pyfunc
    return _with_model_file(model, lambda path: mlflow.pyfunc.log_model(
        name=name, loader_module=__name__, data_path=path,
        pip_requirements=kwargs.pop("pip_requirements", _requirements()), **kwargs))


def save_mlflow_model(model, path, **kwargs):
    """Save a fitted dtree model as an MLflow pyfunc model directory at ``path`` (see
    ``log_mlflow_model``)."""
    import mlflow.pyfunc
    _with_model_file(model, lambda file: mlflow.pyfunc.save_model(
        path, loader_module=__name__, data_path=file,
        pip_requirements=kwargs.pop("pip_requirements", _requirements()), **kwargs))


def log_fit(model, X=None, y=None, sample_weight=None):
    """Log what autologging would for a fitted dtree model to the active MLflow run:
    its parameters, its size (depth, leaves) and, given data, its score on it.

    Returns
    -------
    dict
        The metrics logged.
    """
    import mlflow
    mlflow.log_params({k: v for k, v in model.get_params().items()})
    metrics = {"tree_depth": float(model.get_depth()), "tree_leaves": float(model.get_n_leaves())}
    if X is not None and y is not None:
        metrics["training_score"] = float(model.score(X, y, sample_weight=sample_weight))
    mlflow.log_metrics(metrics)
    return metrics


def _with_model_file(model, write):
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.dtree")
        model.save(path)
        return write(path)


def _requirements():
    from ._version import __version__
    return [f"dtree-exact=={__version__}"]


class _MlflowModel:
    """What ``mlflow.pyfunc`` loads: the tree, predicting on the given input."""

    def __init__(self, model):
        self.model = model

    def predict(self, model_input, params=None):
        return self.model.predict(model_input)


def _load_pyfunc(data_path):
    """MLflow's loader protocol: the model file logged by ``log_mlflow_model``."""
    from ._deploy.model_file import load
    return _MlflowModel(load(data_path))


_UNPATCHED = {}


def autolog(disable=False):
    """Log every dtree fit to MLflow, as ``mlflow.sklearn.autolog`` does for
    scikit-learn's estimators (which it finds by class): after each ``fit``, its
    parameters, depth, leaves and training score (``log_fit``) go to the active
    run, or to a run started for the fit.

    Parameters
    ----------
    disable : bool, default=False
        Stop logging (restore the plain ``fit``).
    """
    import functools

    import mlflow

    from . import DecisionTreeClassifier, DecisionTreeRegressor
    for cls in (DecisionTreeClassifier, DecisionTreeRegressor):
        if disable:
            if cls in _UNPATCHED:
                cls.fit = _UNPATCHED.pop(cls)
            continue
        if cls in _UNPATCHED:
            continue
        plain = _UNPATCHED[cls] = cls.fit

        @functools.wraps(plain)
        def fit(self, X, y, sample_weight=None, _plain=plain):
            fitted = _plain(self, X, y, sample_weight=sample_weight)
            started = mlflow.active_run() is None
            if started:
                mlflow.start_run()
            try:
                log_fit(fitted, X, y, sample_weight)
            finally:
                if started:
                    mlflow.end_run()
            return fitted

        cls.fit = fit
