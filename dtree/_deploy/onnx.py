"""ONNX export: a fitted tree as a standard ai.onnx.ml TreeEnsemble graph.

Needs the ``onnx`` package (``pip install "dtree-exact[onnx]"``); run the result with
onnxruntime or any ONNX runtime with the ML operators. The graph takes float32
input, as dtree does: each float64 threshold becomes the largest float32 not
above it, which sends every float32 input the same way as dtree does (a
float32 ``x`` satisfies ``x <= t`` exactly when it satisfies
``x <= float32_floor(t)``). Missing values (NaN) take the false branch of every
comparison, so a node that sends them left is written as ``x > t`` with its
children swapped. A category-set split becomes a chain of ``x == c`` tests: c
is the category itself where categories are numbers (whole numbers, exact in
float32), so the graph takes the column as the user has it; text categories
cannot enter a float tensor, so export refuses them, naming the columns, unless
``categories="codes"`` asks for a graph that takes every categorical column as
its category codes (``dtree.export.onnx_input`` builds that input). Regression
values beyond float32 (which the runtime would turn into inf or 0) are refused.
"""
import numbers

import numpy as np

from .._input.encode import check_fitted
from .._input.validation import column_label
from .._model.routing import node_rule
from .._model.tree import TREE_LEAF

ML_DOMAIN = "ai.onnx.ml"


def _float32_floor(values):
    with np.errstate(over="ignore"):  # +inf stays +inf
        t32 = values.astype(np.float32)
    above = t32.astype(np.float64) > values
    t32[above] = np.nextafter(t32[above], np.float32(-np.inf))
    return t32


def _category_numbers(estimator, categories):
    """Per feature, the number the graph tests each category against (None for a
    numeric feature): its code (``categories="codes"``) or its value."""
    if categories not in ("values", "codes"):
        raise ValueError(f"categories must be 'values' or 'codes'; got {categories!r}")
    out, text = [], []
    names = getattr(estimator, "feature_names_in_", None)
    for j, cats in enumerate(estimator.categories_):
        if cats is None:
            out.append(None)
        elif categories == "codes":
            out.append(np.arange(len(cats), dtype=np.float32))
        elif all(isinstance(c, numbers.Real) for c in cats) and \
                len(set(as32 := [float(np.float32(c)) for c in cats])) == len(cats) and \
                all(a == float(c) for a, c in zip(as32, cats)):
            out.append(np.asarray(as32, dtype=np.float32))
        else:
            text.append(column_label(j, names))
            out.append(None)
    if text:
        raise ValueError(
            f"{', '.join(text)} {'holds' if len(text) == 1 else 'hold'} categories that are "
            "not numbers exact in float32 (text, say): an ONNX tree ensemble takes one "
            "float tensor, so the graph cannot take them as they are. Pass "
            "categories='codes' for a graph that takes every categorical column as its "
            "category codes, and feed it dtree.export.onnx_input(model, X)")
    return out


def _checked_float32(values, what):
    """``values`` as float32, refused where a nonzero value would become inf or 0."""
    with np.errstate(over="ignore", under="ignore"):
        as32 = values.astype(np.float32)
    lost = (values != 0) & ((as32 == 0) | ~np.isfinite(as32))
    if lost.any():
        raise ValueError(f"{what} {values[lost].flat[0]!r} lies beyond float32's range, "
                         "in which ONNX tree ensembles compute (it would come out as inf "
                         "or 0): rescale the targets before fitting to export this model")
    return as32


def _class_labels(classes):
    if classes.dtype.kind in "US" or classes.dtype == object:
        return "classlabels_strings", [str(c) for c in classes], "string"
    if classes.dtype.kind == "b" or (classes.dtype.kind in "iu"):
        return "classlabels_int64s", [int(c) for c in classes], "int64"
    if classes.dtype.kind == "f" and np.all(classes == np.round(classes)):
        return "classlabels_int64s", [int(c) for c in classes], "int64"
    raise ValueError(f"classes of dtype {classes.dtype} cannot be ONNX labels")


def _classifier_nodes(helper, TensorProto, trees, k, classes, suffix, common):
    """The operators of output k of a classifier: its tree ensemble (probabilities:
    each tree's leaf fractions times its weight, summed) and its label, and the
    label's tensor type. ``trees``: (tree id, tree, leaves, weight) of each tree."""
    n_classes = len(classes)
    label_attr, labels, label_type = _class_labels(classes)
    tree_ids, node_ids, class_ids, weights = [], [], [], []
    for tree_id, tree, leaves, weight in trees:
        proba = tree.value[leaves, k, :n_classes] * weight
        tree_ids += [tree_id] * (len(leaves) * n_classes)
        node_ids += np.repeat(leaves, n_classes).astype(int).tolist()
        class_ids += np.tile(np.arange(n_classes), len(leaves)).astype(int).tolist()
        weights += proba.astype(np.float32).ravel().astype(float).tolist()
    node = helper.make_node(
        "TreeEnsembleClassifier", ["X"], [f"ensemble_label{suffix}", f"probabilities{suffix}"],
        domain=ML_DOMAIN, class_treeids=tree_ids, class_nodeids=node_ids,
        class_ids=class_ids, class_weights=weights, **{label_attr: labels}, **common)
    # The label is the first most probable class, as dtree predicts it. The
    # operator's own label is not used: for two classes onnxruntime derives
    # it from the sign of the second class's score.
    label_type_proto = TensorProto.STRING if label_type == "string" else TensorProto.INT64
    classes_const = helper.make_tensor(f"class_labels{suffix}", label_type_proto, [n_classes],
                                       [s.encode() for s in labels]
                                       if label_type == "string" else labels)
    return [
        node,
        helper.make_node("Constant", [], [f"classes{suffix}"], value=classes_const),
        helper.make_node("ArgMax", [f"probabilities{suffix}"], [f"best{suffix}"], axis=1,
                         keepdims=0),
        helper.make_node("Gather", [f"classes{suffix}", f"best{suffix}"], [f"label{suffix}"],
                         axis=0),
    ], label_type_proto


def _check_one_branch(tree):
    """ONNX tree ensembles send a row down one branch: refuse the trees that do not."""
    if tree is not None and tree.fractional_missing:
        raise ValueError("this tree was grown by C4.5, which sends a missing value down every "
                         "branch at predict; ONNX tree ensembles follow one branch, so the "
                         "model cannot be converted faithfully")
    if tree is not None and tree.surrogate_missing:
        raise ValueError("this tree routes missing values by surrogate splits "
                         "(handle_missing='surrogate'); ONNX tree ensembles send a missing "
                         "value one fixed way, so the model cannot be converted faithfully")


def _tree_nodes(tree, tree_id, categories_, tested, out):
    """Append one tree's nodes (its id ``tree_id``) to the ensemble's node lists
    ``out``; returns its leaves' ids."""
    n = tree.node_count
    is_leaf = tree.children_left == TREE_LEAF
    leaves = np.arange(n)[is_leaf]

    def add(node_id, feature, mode, value, true_id, false_id):
        out["treeids"].append(tree_id)
        out["nodeids"].append(int(node_id))
        out["featureids"].append(int(feature))
        out["modes"].append(mode)
        out["values"].append(float(value))
        out["truenodeids"].append(int(true_id))
        out["falsenodeids"].append(int(false_id))

    # leaves and category-set splits carry no threshold (NaN); +inf stays
    thresholds = _float32_floor(np.where(is_leaf | np.isnan(tree.threshold), 0.0,
                                         tree.threshold))
    extra = n  # ids for the chain nodes of category-set splits
    for node in range(n):
        left, right = tree.children_left[node], tree.children_right[node]
        if is_leaf[node]:
            add(node, 0, "LEAF", 0.0, 0, 0)
            continue
        rule = node_rule(tree, node)    # one test: surrogates were refused above
        test = rule.tests[0]
        if test.codes is None:
            # NaN compares false in every mode and takes the false branch. A
            # node that sends NaN left becomes "x > t" with its children
            # swapped, so no runtime has to honour missing-value tracking.
            if rule.missing_left:
                add(node, test.feature, "BRANCH_GT", thresholds[node], right, left)
            else:
                add(node, test.feature, "BRANCH_LEQ", thresholds[node], left, right)
            continue
        # A category set becomes a chain of "x == code" tests. NaN (and any
        # code outside the chain) falls through to the last false branch,
        # so the chain lists the codes of the side NaN does not take.
        k = len(categories_[test.feature])
        if rule.missing_left:
            codes, hit, fall = [c for c in range(k) if c not in test.codes], right, left
        else:
            codes, hit, fall = list(test.codes), left, right
        if not codes:  # every code falls through: one always-false test
            codes = [-1]
        chain = [node] + list(range(extra, extra + len(codes) - 1))
        extra += len(codes) - 1
        numbers_of = tested[test.feature]
        for i, code in enumerate(codes):
            nxt = chain[i + 1] if i + 1 < len(chain) else fall
            # (code -1: the always-false test; no category is NaN)
            add(chain[i], test.feature, "BRANCH_EQ",
                numbers_of[code] if code >= 0 else np.nan, hit, nxt)
    return leaves


def to_onnx(estimator, *, name="dtree", opset=17, categories="values"):
    """Convert a fitted estimator to an ONNX model (needs the onnx package:
    ``pip install ".[onnx]"``).

    Parameters
    ----------
    estimator : fitted tree or forest estimator
        A forest becomes one tree-ensemble operator whose trees each weigh
        ``1 / n_estimators``.
    name : str, default="dtree"
        Graph name.
    opset : int, default=17
        Opset of the default ONNX domain (the tree operator uses ai.onnx.ml 3).
    categories : {"values", "codes"}, default="values"
        What the graph takes in categorical columns: the categories themselves
        (numbers only: text categories are refused, naming their columns), or
        every categorical column's category codes (``dtree.export.onnx_input``).

    Returns
    -------
    onnx.ModelProto
        Input ``X`` (float32, [N, n_features]). A classifier has outputs
        ``label`` ([N]) and ``probabilities`` ([N, n_classes]); with several
        outputs ``label`` ([N, n_outputs]; the outputs' labels must all be
        numbers or all text) and ``probabilities_k`` for each output k. A
        regressor has ``variable`` ([N, n_outputs]).
    """
    members = getattr(estimator, "estimators_", None)
    trees = [getattr(estimator, "tree_", None)] if members is None else \
        [m.tree_ for m in members]
    for tree in trees:
        _check_one_branch(tree)
    try:
        import onnx
        from onnx import TensorProto, helper
    except ImportError as exc:
        raise ImportError("to_onnx needs the onnx package: pip install onnx") from exc
    check_fitted(estimator)
    tested = _category_numbers(estimator, categories)
    graph_nodes = dict(treeids=[], nodeids=[], featureids=[], modes=[], values=[],
                       truenodeids=[], falsenodeids=[])
    # a forest averages its trees: each tree's leaf values weigh 1 / n_trees
    weight = 1.0 / len(trees)
    ensemble = []
    for tree_id, tree in enumerate(trees):
        leaves = _tree_nodes(tree, tree_id, estimator.categories_, tested, graph_nodes)
        ensemble.append((tree_id, tree, leaves, weight))
    common = {f"nodes_{key}": values for key, values in graph_nodes.items()}
    common.update(nodes_missing_value_tracks_true=[0] * len(graph_nodes["nodeids"]),
                  post_transform="NONE")
    tree = trees[0]
    X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, estimator.n_features_in_])
    n_outputs = tree.n_outputs
    if hasattr(estimator, "classes_"):
        per_output = estimator.classes_ if n_outputs > 1 else [estimator.classes_]
        nodes, outputs, labels = [], [], []
        for k, classes in enumerate(per_output):
            # one classifier operator per output (the operator has one), same tree
            suffix = f"_{k}" if n_outputs > 1 else ""
            part, label_type = _classifier_nodes(helper, TensorProto, ensemble, k, classes,
                                                 suffix, common)
            nodes += part
            labels.append((f"label{suffix}", label_type))
            outputs.append(helper.make_tensor_value_info(
                f"probabilities{suffix}", TensorProto.FLOAT, [None, len(classes)]))
        if n_outputs > 1:
            label_type = labels[0][1]
            if any(t != label_type for _, t in labels):
                raise ValueError("ONNX gives the labels of several outputs as one tensor: "
                                 "the outputs' labels must all be numbers or all be text")
            for name, _ in labels:
                nodes.append(helper.make_node("Unsqueeze", [name, "label_axis"],
                                              [name + "_column"]))
            nodes.insert(0, helper.make_node("Constant", [], ["label_axis"],
                                             value=helper.make_tensor(
                                                 "axis", TensorProto.INT64, [1], [1])))
            nodes.append(helper.make_node("Concat", [n + "_column" for n, _ in labels],
                                          ["label"], axis=1))
        outputs.insert(0, helper.make_tensor_value_info(
            "label", labels[0][1], [None, n_outputs] if n_outputs > 1 else [None]))
    else:
        target = dict(treeids=[], nodeids=[], ids=[], weights=[])
        for tree_id, member, leaves, w in ensemble:
            target["treeids"] += [tree_id] * (len(leaves) * n_outputs)
            target["nodeids"] += np.repeat(leaves, n_outputs).astype(int).tolist()
            target["ids"] += np.tile(np.arange(n_outputs), len(leaves)).astype(int).tolist()
            target["weights"] += _checked_float32(member.value[leaves, :, 0] * w,
                                                  "the leaf value").ravel().astype(float).tolist()
        node = helper.make_node(
            "TreeEnsembleRegressor", ["X"], ["variable"], domain=ML_DOMAIN,
            n_targets=n_outputs, **{f"target_{k}": v for k, v in target.items()},
            aggregate_function="SUM", **common)
        nodes = [node]
        outputs = [helper.make_tensor_value_info("variable", TensorProto.FLOAT,
                                                 [None, n_outputs])]
    graph = helper.make_graph(nodes, name, [X], outputs)
    model = helper.make_model(graph, producer_name="dtree",
                              opset_imports=[helper.make_opsetid("", opset),
                                             helper.make_opsetid(ML_DOMAIN, 3)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model
