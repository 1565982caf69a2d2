"""Forests in model files and dicts: the forest's header, then each tree as a tree.

A forest's dict holds what its trees share once (columns, categories, class
labels) and, under ``trees``, each tree's own header and arrays as a single
tree's ``to_dict`` has them; every tree is rebuilt (and checked) by the single
tree's reader. In a model file the trees' arrays are laid end to end, one
member per array, with ``tree_nodes`` and ``tree_sets`` giving where each
tree's nodes and category sets start.
"""
import numpy as np

from .._forest.draws import MAX_DRAWN
from .._model.narrow import narrow_ints, narrow_reals
from .._model.other_splits import COLUMNS as OTHER_COLUMNS
from .compact_members import COUNTS, LEAVES, POSITIONS, RESIDUALS, SPLITS, compacted
from .file_checks import ModelFileError, check_categories, check_classes

# what the trees of a forest share, stored once in the forest's header
SHARED = ("n_features_in", "feature_names_in", "categorical_features", "categories",
          "n_outputs")
# members of a forest's file besides the trees' arrays: where each tree starts in
# the node members, the category sets and (when the trees hold them) the members
# of their own length: competitor and surrogate splits, leaf targets
OWN_LENGTH = {"tree_others": tuple(f"other_{name}" for name in OTHER_COLUMNS),
              "tree_leaf_rows": ("leaf_node", "leaf_y", "leaf_w")}
OFFSETS = ("tree_nodes", "tree_sets") + tuple(OWN_LENGTH)
# the trees' members a forest's file keeps narrow (read back with ``widened``)
NARROW_INTS = ("children_left", "children_right", "feature", "n_node_samples", "node_depth",
               "categorical_set", "feature" + SPLITS, "categorical_set" + SPLITS,
               "n_node_samples" + LEAVES, POSITIONS) + RESIDUALS
NARROW_REALS = ("weighted_n_node_samples", "split_low", "split_high",
                "weighted_n_node_samples" + LEAVES, "split_low" + SPLITS,
                "split_high" + SPLITS, COUNTS, "value" + LEAVES, "impurity" + LEAVES)


def is_forest(cls):
    return getattr(cls, "_tree_class", None) is not None


def forest_to_dict(forest, tree_to_dict, params_of, encode_labels, version, header):
    """The forest as JSON-able Python (``model_file.to_dict`` for forests)."""
    trees = []
    for tree in forest.estimators_:
        entry = tree_to_dict(tree)
        for key in SHARED + ("format", "dtree_version", "estimator", "classes"):
            entry.pop(key, None)
        trees.append(entry)
    out = dict(header, format_version=version, estimator=type(forest).__name__,
               params=params_of(forest), tree_estimator=forest._tree_class.__name__,
               n_samples=int(forest._n_samples),
               n_samples_bootstrap=(None if forest._n_samples_bootstrap is None
                                    else int(forest._n_samples_bootstrap)),
               weighted_draws=forest._sample_weight is not None, trees=trees)
    if forest.n_outputs_ > 1:
        out["n_outputs"] = int(forest.n_outputs_)
    if hasattr(forest, "classes_"):
        out["classes"] = (encode_labels(forest.classes_) if forest.n_outputs_ == 1 else
                          [encode_labels(c) for c in forest.classes_])
        codes = [np.arange(len(c), dtype=np.float64) for c in
                 (forest.classes_ if forest.n_outputs_ > 1 else [forest.classes_])]
        out["tree_classes"] = ([encode_labels(c) for c in codes] if forest.n_outputs_ > 1
                               else encode_labels(codes[0]))
    if isinstance(getattr(forest, "oob_score_", None), (float, int)):
        out["oob_score"] = float(forest.oob_score_)
    return out


def forest_from_dict(data, cls, tree_from_dict, make_params, name, versions):
    """Rebuild a fitted forest from its dict (format ``name``, one of ``versions``),
    every tree checked as a tree's (``tree_from_dict(k, header)``)."""
    if data.get("format") != name:
        raise ModelFileError(f"not a dtree model (format {data.get('format')!r})")
    if data.get("format_version") not in versions:
        raise ModelFileError("a forest's model format version must be "
                             f"{' or '.join(map(str, versions))}; got "
                             f"{data.get('format_version')!r}")
    trees = data.get("trees")
    if not isinstance(trees, list) or not trees or not all(isinstance(t, dict)
                                                          for t in trees):
        raise ModelFileError("a forest must list its trees (dicts) under 'trees'")
    tree_cls = cls._tree_class
    if data.get("tree_estimator") != tree_cls.__name__:
        raise ModelFileError(f"a {cls.__name__}'s trees are {tree_cls.__name__}s; got "
                             f"{data.get('tree_estimator')!r}")
    n_features = data.get("n_features_in")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise ModelFileError("n_features_in must be a positive integer")
    categorical, categories = check_categories(data, n_features)
    n_outputs = data.get("n_outputs", 1)
    if not isinstance(n_outputs, int) or isinstance(n_outputs, bool) or n_outputs < 1:
        raise ModelFileError("n_outputs must be a positive integer")
    shared = {key: data[key] for key in SHARED if key in data}
    if cls._is_classifier:
        classes = check_classes(data, True, n_outputs)
        shared["classes"] = data.get("tree_classes")
        codes = check_classes(dict(classes=shared["classes"]), True, n_outputs)
        if [len(c) for c in codes] != [len(c) for c in classes] or not all(
                np.array_equal(c, np.arange(len(c))) for c in codes):
            raise ModelFileError("a forest's trees must be fitted on its class codes "
                                 "0, 1, ...")
    estimators = []
    for k, entry in enumerate(trees):
        tree_dict = dict(entry, **shared, format=data.get("format"),
                         estimator=tree_cls.__name__)
        try:
            estimators.append(tree_from_dict(k, tree_dict))
        except ModelFileError as exc:
            raise ModelFileError(f"tree {k}: {exc}") from None
        if estimators[-1].n_outputs_ != n_outputs:
            raise ModelFileError(f"tree {k} has another number of outputs than the forest")
    forest = cls(**make_params(cls, data.get("params")))
    n_samples = data.get("n_samples")
    n_drawn = data.get("n_samples_bootstrap")
    if not isinstance(n_samples, int) or isinstance(n_samples, bool) or n_samples < 1 or \
            not (n_drawn is None or (isinstance(n_drawn, int) and not isinstance(n_drawn, bool)
                                     and n_drawn >= 1)):
        raise ModelFileError("n_samples and n_samples_bootstrap must be positive integers")
    if n_samples > MAX_DRAWN or (n_drawn is not None and n_drawn > MAX_DRAWN):
        # (rows are counted in 32 bits: no fit has more, and estimators_samples_
        # would allocate that many)
        raise ModelFileError(f"n_samples and n_samples_bootstrap must be at most {MAX_DRAWN}")
    state = dict(estimators_=estimators, estimator_=tree_cls(), n_features_in_=n_features,
                 categorical_features_=categorical, categories_=categories,
                 n_outputs_=n_outputs, _n_samples=n_samples, _n_samples_bootstrap=n_drawn,
                 # (the weights that drew the bootstraps are not kept)
                 _sample_weight="not kept" if data.get("weighted_draws") else None)
    names = estimators[0].__dict__.get("feature_names_in_")
    if names is not None:
        state["feature_names_in_"] = names
    if cls._is_classifier:
        state["classes_"] = classes[0] if n_outputs == 1 else classes
        state["n_classes_"] = (len(classes[0]) if n_outputs == 1 else
                               np.array([len(c) for c in classes], dtype=np.intp))
    if "oob_score" in data:
        score = data["oob_score"]
        if not isinstance(score, (int, float)) or isinstance(score, bool) or \
                not np.isfinite(score):
            raise ModelFileError("oob_score must be a finite number")
        state["oob_score_"] = float(score)
    forest._install(state)
    return forest


def join_trees(tree_members, is_classifier, impurity_exponents):
    """The members of a forest's file and the header's ``"derived"``: what the
    trees' shapes say left out (``compact_members``), each array of the trees laid
    end to end (its integer columns, whole weighted counts and float32 ranges in
    as few bytes as hold them: ``_model.narrow``), and where each tree starts
    (``tree_nodes``, ``tree_sets``, and ``OWN_LENGTH``'s offsets for the members of
    their own length the trees hold). ``impurity_exponents``: each tree's."""
    nodes = [m["children_left"].shape[0] for m in tree_members]
    tree_members, derived, forest = compacted(tree_members, is_classifier,
                                              impurity_exponents)
    out = dict(forest)
    for name in tree_members[0]:
        column = np.ascontiguousarray(np.concatenate([m[name] for m in tree_members]))
        if name in NARROW_INTS:
            column = narrow_ints(column)
        elif name in NARROW_REALS:
            column = narrow_reals(column)
        out[name] = column
    out["tree_nodes"] = np.cumsum([0] + nodes, dtype=np.int64)
    out["tree_sets"] = np.cumsum([0] + [m["category_sets"].shape[0] for m in tree_members],
                                 dtype=np.int64)
    for offsets, names in OWN_LENGTH.items():
        held = [n for n in names if n in tree_members[0]]
        if held:
            out[offsets] = np.cumsum([0] + [m[held[0]].shape[0] for m in tree_members],
                                     dtype=np.int64)
    return out, derived


def split_trees(members, n_trees, node_members):
    """Each tree's arrays from a forest file's members (``join_trees``'s inverse),
    the offsets checked first."""
    bounds = {}
    for name, length_of in (("tree_nodes", "children_left"), ("tree_sets", "category_sets")):
        bounds[name] = _offsets(members, name, n_trees, members[length_of].shape[0])
    for name in node_members:
        if members[name].shape[0] != members["children_left"].shape[0]:
            raise ModelFileError(f"the forest's array {name!r} has another length than "
                                 "its nodes")
    own = {}
    for offsets, names in OWN_LENGTH.items():
        held = [n for n in names if members.get(n) is not None]
        if not held:
            if members.get(offsets) is not None:
                raise ModelFileError(f"{offsets!r} without the members it cuts")
            continue
        if any(members[n].shape[0] != members[held[0]].shape[0] for n in held):
            raise ModelFileError(f"the members {held} have other lengths")
        own[offsets] = (_offsets(members, offsets, n_trees, members[held[0]].shape[0]), held)
    nodes, sets = bounds["tree_nodes"], bounds["tree_sets"]
    out = []
    for k in range(n_trees):
        tree = {name: members[name][nodes[k]:nodes[k + 1]] for name in node_members}
        tree["category_sets"] = members["category_sets"][sets[k]:sets[k + 1]]
        for at, held in own.values():
            tree.update({n: members[n][at[k]:at[k + 1]] for n in held})
        out.append(tree)
    return out


def _offsets(members, name, n_trees, length):
    offsets = members.get(name)
    if offsets is None or offsets.dtype != np.int64 or offsets.ndim != 1 or \
            offsets.shape[0] != n_trees + 1:
        raise ModelFileError(f"{name!r} must be an int64 array of n_trees + 1 offsets")
    if offsets[0] != 0 or (np.diff(offsets) < 0).any() or offsets[-1] != length:
        raise ModelFileError(f"{name!r} must rise from 0 to the length of the arrays")
    return offsets
