"""Pictures of a fitted tree's predictions: ``plot_decision_boundary`` (its leaves'
boxes over two features), ``roc_curve``, ``roc_auc`` and ``plot_roc``.

matplotlib is imported only when a picture is drawn (``pip install
"dtree-exact[plot]"``); each function returns the Axes it drew on and works
headless (Agg).
"""
import numpy as np

from .._model.names import feature_names_of, fitted_tree
from .._model.tree import TREE_LEAF
from .labels import _axes
from .text import _node_values, _one_output


_PALETTE = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189),
            (140, 86, 75), (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207)]


def _node_colour(tree, node, value_range):
    """Fill colour: the majority class's hue, paler when the node is less pure (the
    first output's, when there are several)."""
    if tree.is_classifier:
        proba = _node_values(tree, node)[0]
        k = int(np.argmax(proba))
        ordered = np.sort(proba)[::-1]
        strength = 1.0 if len(proba) == 1 else (ordered[0] - ordered[1]) / max(ordered[0], 1e-12)
        base = _PALETTE[k % len(_PALETTE)]
    else:
        lo, hi = value_range
        strength = 0.0 if hi <= lo else (tree.value[node, 0, 0] - lo) / (hi - lo)
        base = _PALETTE[1]
    rgb = [int(round(255 - strength * (255 - c))) for c in base]
    return "#{:02x}{:02x}{:02x}".format(*rgb)


# ------------------------------------------------------------- pictures
def _leaf_boxes(tree, lows, highs):
    """Axis-aligned box of every leaf of a tree on two features."""
    boxes = []
    stack = [(0, np.array(lows, float), np.array(highs, float))]
    while stack:
        node, lo, hi = stack.pop()
        if tree.children_left[node] == TREE_LEAF:
            boxes.append((node, lo, hi))
            continue
        f, t = tree.feature[node], tree.threshold[node]
        left_hi, right_lo = hi.copy(), lo.copy()
        left_hi[f] = min(hi[f], t)
        right_lo[f] = max(lo[f], t)
        stack.append((tree.children_left[node], lo, left_hi))
        stack.append((tree.children_right[node], right_lo, hi))
    return boxes


def plot_decision_boundary(estimator, X, y=None, *, ax=None, alpha=0.35):
    """Draw the leaf rectangles of a tree fitted on two features, and the data.

    Each leaf is the axis-aligned rectangle its splits cut out, filled with its
    class colour (classifiers) or shaded by its value (regressors).

    Parameters
    ----------
    estimator : estimator fitted on exactly two features
    X : array-like of shape (n_samples, 2)
        Points to scatter (and the extent of the picture).
    y : array-like of shape (n_samples,), optional
        Colours of the points.

    Returns
    -------
    matplotlib Axes
    """
    from matplotlib.patches import Rectangle

    tree = fitted_tree(estimator)
    _one_output(estimator, "plot_decision_boundary")
    if estimator.n_features_in_ != 2:
        raise ValueError("plot_decision_boundary needs a tree fitted on exactly 2 features; "
                         f"this one has {estimator.n_features_in_}")
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"X must have shape (n_samples, 2); got {X.shape}")
    span = X.max(axis=0) - X.min(axis=0)
    lows, highs = X.min(axis=0) - 0.05 * span - 1e-9, X.max(axis=0) + 0.05 * span + 1e-9
    ax = _axes(ax, (6, 5))
    value_range = (tree.value[:, 0, 0].min(), tree.value[:, 0, 0].max())
    for node, lo, hi in _leaf_boxes(tree, lows, highs):
        ax.add_patch(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1],
                               facecolor=_node_colour(tree, node, value_range), alpha=alpha,
                               edgecolor="black", linewidth=0.5))
    colours = None
    if y is not None and tree.is_classifier:
        codes = np.searchsorted(estimator.classes_, np.asarray(y))
        colours = [np.array(_PALETTE[c % len(_PALETTE)]) / 255 for c in codes]
    elif y is not None:
        colours = np.asarray(y, dtype=float)
    ax.scatter(X[:, 0], X[:, 1], c=colours, s=12, edgecolors="black", linewidths=0.3)
    names = feature_names_of(estimator, None)
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    ax.set_xlim(lows[0], highs[0])
    ax.set_ylim(lows[1], highs[1])
    return ax


def roc_curve(y_true, scores):
    """False and true positive rates at every distinct score threshold.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,) of 0/1 (or bool)
    scores : array-like of shape (n_samples,)
        Larger means more likely positive.

    Returns
    -------
    fpr, tpr, thresholds : ndarray
        Starting at (0, 0) with threshold +inf.
    """
    y_true = np.asarray(y_true).astype(bool)
    scores = np.asarray(scores, dtype=np.float64)
    if y_true.shape != scores.shape or y_true.ndim != 1:
        raise ValueError("y_true and scores must be 1-D of the same length")
    positives, negatives = y_true.sum(), (~y_true).sum()
    if positives == 0 or negatives == 0:
        raise ValueError("ROC needs both positive and negative samples")
    order = np.argsort(-scores, kind="mergesort")
    s, t = scores[order], y_true[order]
    last = np.r_[np.flatnonzero(np.diff(s) != 0), s.shape[0] - 1]
    tp = np.cumsum(t)[last]
    fp = (last + 1) - tp
    return (np.r_[0.0, fp / negatives], np.r_[0.0, tp / positives], np.r_[np.inf, s[last]])


def roc_auc(y_true, scores):
    """Area under the ROC curve (trapezoids, so tied scores count half).

    Returns
    -------
    float
    """
    fpr, tpr, _ = roc_curve(y_true, scores)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2.0))


def plot_roc(estimator, X, y, *, pos_label=None, ax=None):
    """ROC curve of a fitted binary classifier on (X, y), with its AUC in the legend.

    Parameters
    ----------
    pos_label : label, optional
        The positive class; defaults to ``classes_[1]``.

    Returns
    -------
    matplotlib Axes
    """
    fitted_tree(estimator)
    _one_output(estimator, "plot_roc")
    if not hasattr(estimator, "classes_") or len(estimator.classes_) != 2:
        raise ValueError("plot_roc needs a fitted binary classifier")
    pos_label = estimator.classes_[1] if pos_label is None else pos_label
    matches = np.flatnonzero(estimator.classes_ == pos_label)
    if matches.size == 0:
        raise ValueError(f"pos_label {pos_label!r} is not one of {estimator.classes_.tolist()}")
    scores = estimator.predict_proba(X)[:, matches[0]]
    truth = np.asarray(y) == pos_label
    fpr, tpr, _ = roc_curve(truth, scores)
    ax = _axes(ax, (5, 5))
    ax.plot(fpr, tpr, drawstyle="default", label=f"AUC = {roc_auc(truth, scores):.3f}")
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.legend(loc="lower right")
    return ax
