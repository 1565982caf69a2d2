"""Model files: a safe, versioned format for fitted trees and forests.

A model file is a ZIP archive of ``.npy`` members (a tree's uncompressed, as
``numpy.savez`` writes them; since format version 6 a forest's are compact, what
the trees' shapes say left out (``compact_members``), and deflated, their
inflated sizes counted against ``load``'s ``max_bytes``; in version 8 its
numbers are stored as byte planes, ``byte_planes``): ``header.npy`` holds
UTF-8 JSON (format name and version, dtree version, estimator class and
parameters, classes, feature names, and since format version 2 the units of the
stored impurities and weighted counts), the other members are the node arrays.
Loading never unpickles and never executes code: members are parsed with numpy's header reader, their
dtypes must be plain numbers, their declared sizes must match the bytes on
disk, and the tree is checked (child ids in range and pointing forward, so
acyclic; features in range; finite thresholds; value shapes) before any
estimator is built.

``to_dict`` / ``from_dict`` give the same content as JSON-able Python.
"""
import io
import json
import math
import os
import sys
import zipfile

import numpy as np

from .._estimators.params import ESTIMATORS, parameter_names
from .._input.encode import check_fitted
from .._input.files import NotRegularFileError, open_regular
from .._input.validation import column_label
from .._model.tree import CAT_WORDS
from .._model.fitted import Fitted, install
from .._model.leaves import LeafTargets
from .._model.narrow import widened
from .byte_planes import from_planes, to_planes
from .compact_members import MEMBERS as COMPACT, expanded, has_residuals, has_table, \
    member_dtype
from .forest_file import (NARROW_INTS, NARROW_REALS, OFFSETS, OWN_LENGTH, forest_from_dict,
                          forest_to_dict, is_forest, join_trees, split_trees)
from .file_checks import (ARRAYS, ModelFileError, check_categories, check_classes,
                          check_leaf_targets, check_other_splits, check_outputs, check_ranges,
                          check_tree, check_units)
from .._model.other_splits import COLUMNS as OTHER_COLUMNS
from .._plan.constraints import InvalidParameterError, validate_params
from .._version import __version__

FORMAT_NAME = "dtree-model"
# 3: several outputs (``n_outputs``; a classifier's classes a list per output);
# 2: impurities and weighted counts are stored as the builder computed them, with
# their units in the header (impurity_exponent, weight_unit); 1: in the user's units.
# A file is written in the oldest version that holds it, so one-output models stay
# readable by older releases.
# 4: competitor and surrogate splits (``other_*`` members, missing_rule "surrogate");
# 5: forests (``forest_file``); 6: a forest's file with compact, deflated members
# (``compact_members``; its dict stays version 5); 7: a regression forest's file whose
# split nodes' means and impurities are residuals (``_model.pooled``); 8: a forest's
# file with its leaf values in one table, or thresholds derived from ranges
FORMAT_VERSION = 4
FOREST_VERSION = 5
FOREST_FILE_VERSION = 6
RESIDUAL_FILE_VERSION = 7
TABLE_FILE_VERSION = 8
FOREST_FILE_VERSIONS = (FOREST_FILE_VERSION, RESIDUAL_FILE_VERSION, TABLE_FILE_VERSION)
# zlib's fastest level: a forest's narrow columns shrank 2.8 times, at about 75 MB/s
# (a 1.09M-node random forest: 0.75 s)
DEFLATE_LEVEL = 1
# The largest model file we read (and so the largest member): far above any real
# tree, far below a hostile file's claims. load(max_bytes=...) raises or lowers it.
MAX_FILE_BYTES = 1 << 31
MAX_MEMBER_BYTES = MAX_FILE_BYTES

# columns stored as the builder's (always finite) numbers; the header keeps their units
STORED_SCALED = {"impurity": "scaled_impurity",
                 "weighted_n_node_samples": "scaled_weighted_n_node_samples"}
# member with its own length: one row of category bits per categorical split
SETS = ("category_sets", np.uint64, CAT_WORDS)
# optional members of their own length: competitor and surrogate splits, one row each
OTHER = {f"other_{name}": dtype for name, dtype in OTHER_COLUMNS.items()}
# optional members of format 4, each of its own length: the other splits, each split
# node's training range of its feature, a regressor's leaf targets
EXTRA = dict(OTHER, split_low=np.float64, split_high=np.float64, leaf_node=np.int64,
             leaf_y=np.float64, leaf_w=np.float64)


def _extra_members(tree):
    """The optional arrays this tree holds, by member name."""
    out = {}
    if tree.other_splits is not None:
        out.update({f"other_{name}": getattr(tree.other_splits, name)
                    for name in OTHER_COLUMNS})
    if tree.feature_range is not None:
        out["split_low"], out["split_high"] = tree.feature_range[:, 0], tree.feature_range[:, 1]
    if tree.leaf_targets is not None:
        out.update(leaf_node=tree.leaf_targets.node, leaf_y=tree.leaf_targets.y,
                   leaf_w=tree.leaf_targets.w)
    return {k: np.ascontiguousarray(v, dtype=EXTRA[k]) for k, v in out.items()}


# ------------------------------------------------------------------ dict
def _encode_labels(classes, what="classes"):
    """Labels (classes, or a column's categories: ``what`` names them for errors) as JSON."""
    # (an object array keeps numpy scalars as they are: as Python's, they save)
    values = [v.item() if isinstance(v, np.generic) else v for v in classes.tolist()]
    kinds = {type(v).__name__ for v in values}
    if kinds <= {"str"}:
        return {"kind": "str", "values": values}
    if kinds <= {"bool"}:
        return {"kind": "bool", "values": values}
    if kinds <= {"int"}:
        return {"kind": "int", "values": values}
    if kinds <= {"float", "int"}:
        return {"kind": "float", "values": [float(v) for v in values]}
    raise TypeError(f"{what} of kinds {sorted(kinds)} cannot be saved: labels must be "
                    "str, int, float or bool (convert them, e.g. to str, before fit)")


def to_dict(estimator):
    """Everything needed to rebuild a fitted estimator, as JSON-able Python.

    Parameters
    ----------
    estimator : fitted tree or forest estimator

    Returns
    -------
    dict
    """
    return _as_dict(estimator, arrays=True)


def _as_dict(estimator, arrays):
    # ``to_dict``; without ``arrays`` the trees' arrays left out (``save`` writes
    # them as binary members: listing millions of numbers only to drop them cost
    # a forest's save most of its time)
    check_fitted(estimator)
    shared = {
        "format": FORMAT_NAME,
        "dtree_version": __version__,
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": (estimator.feature_names_in_.tolist()
                             if hasattr(estimator, "feature_names_in_") else None),
        "categorical_features": [bool(v) for v in estimator.categorical_features_],
        "categories": [None if c is None else
                       _encode_labels(np.asarray(c), "the categories of " + column_label(
                                          j, getattr(estimator, "feature_names_in_", None)))
                       for j, c in enumerate(estimator.categories_)],
    }
    if is_forest(type(estimator)):
        return forest_to_dict(estimator, lambda tree: _as_dict(tree, arrays), _params_of,
                              _encode_labels, FOREST_VERSION, shared)
    tree = estimator.tree_
    out = {
        **shared,
        "format_version": _oldest_version(estimator),
        "estimator": type(estimator).__name__,
        "params": _params_of(estimator),
        "max_features": int(estimator.max_features_),
        "classes": (None if not hasattr(estimator, "classes_") else
                    _encode_labels(estimator.classes_) if estimator.n_outputs_ == 1 else
                    [_encode_labels(c) for c in estimator.classes_]),
        "impurity_exponent": int(tree.impurity_exponent),
        **({"n_outputs": int(estimator.n_outputs_)} if estimator.n_outputs_ > 1 else {}),
        "weight_unit": float(tree.weight_unit),
    }
    if arrays:
        out["tree"] = {name: _stored_column(tree, name).tolist() for name in ARRAYS}
        out["tree"]["category_sets"] = [[int(w) for w in row] for row in tree.category_sets]
    if getattr(estimator, "ccp_alpha_", None) is not None:
        out["ccp_alpha"] = float(estimator.ccp_alpha_)
    if tree.fractional_missing:  # C4.5: NaN at predict follows every branch
        out["missing_rule"] = "fractional"
    if tree.surrogate_missing:
        out["missing_rule"] = "surrogate"
    extra = _extra_members(tree)
    if extra and arrays:
        out["tree"]["extra"] = {name: arr.tolist() for name, arr in extra.items()}
    return out


def _params_of(estimator):
    """The estimator's parameters as JSON carries them (objects a fitted model does not
    need, such as RandomState or CV splitters, as their defaults)."""
    params = {}
    defaults = estimator._param_defaults()
    for name, value in estimator.get_params().items():
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            value = value.item()
        if value is None or isinstance(value, (str, int, float, bool)):
            params[name] = value
        elif isinstance(value, dict):  # class_weight
            params[name] = _dict_items(value)
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            params[name] = {"__dict_list__": [_dict_items(v) for v in value]}
        elif _plain_list(value):  # categorical_features as indices, names or a mask
            params[name] = [_plain(v) for v in value]
        else:  # RandomState objects, CV splitters, callables: not part of a fitted model
            params[name] = defaults[name]
    return params


def _oldest_version(estimator):
    """The oldest format version that holds this model (older readers can load it)."""
    tree = estimator.tree_
    if tree.surrogate_missing or _extra_members(tree):
        return 4
    return 3 if estimator.n_outputs_ > 1 else 2


def _dict_items(value):
    # a dict as JSON can carry it: its keys need not be strings
    return {"__dict_items__": [[_plain(k), _plain(v)] for k, v in value.items()]}


def _read_dict(name, value):
    items = value.get("__dict_items__") if isinstance(value, dict) else None
    if not isinstance(items, list) or not all(
            isinstance(i, list) and len(i) == 2 for i in items):
        raise ModelFileError(f"parameter {name!r} is malformed")
    return {k: v for k, v in items}


def _stored_column(tree, name):
    """A tree column as files keep it: impurities and weights in the builder's units."""
    if name in STORED_SCALED:
        return getattr(tree, STORED_SCALED[name])
    return getattr(tree, name)


def _plain_list(value):
    """A list, tuple or 1-D array of plain numbers, text or bools (JSON carries it)."""
    if isinstance(value, np.ndarray):
        value = value.tolist() if value.ndim == 1 else None
    if not isinstance(value, (list, tuple)):
        return False
    return all(isinstance(_plain(v), (str, int, float, bool)) for v in value)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def from_dict(data):
    """Rebuild a fitted estimator from ``to_dict`` output, validating everything.

    Parameters
    ----------
    data : dict
        As ``to_dict`` returns it (plain lists, numbers and strings).

    Returns
    -------
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTree*, or a forest
        The fitted estimator the dict describes.

    Raises
    ------
    ModelFileError
        When anything is missing, malformed or inconsistent.
    """
    if not isinstance(data, dict):
        raise ModelFileError("a model must be a dict")
    cls = _forest_class(data)
    if cls is not None:
        return forest_from_dict(data, cls, lambda k, tree: from_dict(tree), _checked_params,
                                FORMAT_NAME, (FOREST_VERSION,))
    header = {k: v for k, v in data.items() if k != "tree"}
    tree = data.get("tree")
    if not isinstance(tree, dict):
        raise ModelFileError("the model has no 'tree' section")
    arrays = {}
    for name, (dtype, ndim) in ARRAYS.items():
        if name not in tree:
            raise ModelFileError(f"the tree lacks the array {name!r}")
        try:
            arr = np.asarray(tree[name], dtype=dtype)
        except (TypeError, ValueError, OverflowError) as exc:
            raise ModelFileError(f"tree array {name!r} is not numeric: {exc}") from None
        arrays[name] = arr
    try:
        sets = np.asarray(tree.get("category_sets", []), dtype=np.uint64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ModelFileError(f"category_sets is not numeric: {exc}") from None
    if sets.size % CAT_WORDS or sets.ndim not in (1, 2) or \
            (sets.ndim == 2 and sets.shape[1] != CAT_WORDS):
        raise ModelFileError(f"category_sets must hold rows of {CAT_WORDS} words; got an "
                             f"array of shape {sets.shape}")
    arrays["category_sets"] = sets.reshape(-1, CAT_WORDS)
    extra = tree.get("extra", {})
    if not isinstance(extra, dict) or set(extra) - set(EXTRA):
        raise ModelFileError(f"the tree's extra arrays must be a dict of {sorted(EXTRA)}")
    for name, values in extra.items():
        try:
            arrays[name] = np.asarray(values, dtype=EXTRA[name])
        except (TypeError, ValueError, OverflowError) as exc:
            raise ModelFileError(f"tree array {name!r} is not numeric: {exc}") from None
    return _build(header, arrays)


# ------------------------------------------------------------ validation
def _build(header, arrays):
    if header.get("format") != FORMAT_NAME:
        raise ModelFileError(f"not a dtree model (format {header.get('format')!r})")
    version = header.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ModelFileError("format_version must be an integer")
    if version > FORMAT_VERSION or version < 1:
        raise ModelFileError(f"model format version {version} is not supported by dtree "
                             f"{__version__} (it reads versions 1 to {FORMAT_VERSION})")
    name = header.get("estimator")
    cls = ESTIMATORS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ModelFileError(f"unknown estimator {header.get('estimator')!r}")
    n_features = header.get("n_features_in")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise ModelFileError("n_features_in must be a positive integer")
    is_classifier = cls._is_classifier
    n_outputs = check_outputs(header, version, arrays["value"])
    classes = check_classes(header, is_classifier, n_outputs)
    n_classes = [c.shape[0] for c in classes] if is_classifier else [1] * n_outputs
    categorical, categories = check_categories(header, n_features)
    units = check_units(header, is_classifier) if version >= 2 else (0, 1.0)
    # C4.5's trees (fractional missing values) may hold empty leaves
    tree = check_tree(arrays, n_features, n_classes, is_classifier, categories, units,
                      empty_leaves=header.get("missing_rule") == "fractional")

    estimator = cls(**_checked_params(cls, header.get("params")))
    names = header.get("feature_names_in")
    if names is not None:
        if not isinstance(names, list) or len(names) != n_features or \
                not all(isinstance(n, str) for n in names):
            raise ModelFileError("feature_names_in must list one str per feature")
        names = np.asarray(names, dtype=object)
    max_features = header.get("max_features", n_features)
    if not isinstance(max_features, int) or not 1 <= max_features <= n_features:
        raise ModelFileError("max_features must be an integer in [1, n_features_in]")
    labels, counts = None, None
    if is_classifier and n_outputs == 1:
        labels, counts = classes[0], int(n_classes[0])
    elif is_classifier:
        labels, counts = classes, np.asarray(n_classes, dtype=np.intp)
    alpha = None
    if "ccp_alpha" in header:
        alpha = header["ccp_alpha"]
        # (inf: cross-validation chose the root alone; compared exactly, as an int
        # may pass float64's range; NaN fails)
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool) or \
                not 0 <= alpha <= math.inf or \
                (isinstance(alpha, int) and alpha > sys.float_info.max):
            raise ModelFileError("ccp_alpha must be a number >= 0 (a float64)")
        alpha = float(alpha)
    rule = header.get("missing_rule", "majority")
    if rule not in ("majority", "fractional", "surrogate"):
        raise ModelFileError(f"missing_rule must be 'majority', 'fractional' or "
                             f"'surrogate'; got {rule!r}")
    if rule == "fractional" and not is_classifier:
        raise ModelFileError("fractional missing values (C4.5) are for classifiers")
    if (rule == "surrogate" or any(k in arrays for k in EXTRA)) and version < 4:
        raise ModelFileError(f"{sorted(k for k in EXTRA if k in arrays) or rule} need "
                             "format version 4")
    tree.fractional_missing = rule == "fractional"
    tree.surrogate_missing = rule == "surrogate"
    if any(k in arrays for k in OTHER):
        tree.other_splits = check_other_splits(arrays, tree, categories)
    if "split_low" in arrays or "split_high" in arrays:
        tree.feature_range = check_ranges(arrays, tree)
    if any(k in arrays for k in ("leaf_node", "leaf_y", "leaf_w")):
        if is_classifier:
            raise ModelFileError("leaf targets are kept by regressors only")
        tree.leaf_targets = LeafTargets(*check_leaf_targets(arrays, tree))
    return install(estimator, Fitted(
        tree_=tree, n_features_in_=n_features, categorical_features_=categorical,
        categories_=categories, n_outputs_=n_outputs, max_features_=max_features,
        feature_names_in_=names, classes_=labels, n_classes_=counts, ccp_alpha_=alpha))


def _checked_params(cls, params):
    """An estimator's parameters read from a model, each checked as ``fit`` checks it."""
    if not isinstance(params, dict):
        raise ModelFileError("params must be a dict")
    known = set(parameter_names(cls))
    unknown = set(params) - known
    if unknown:
        raise ModelFileError(f"unknown parameters {sorted(unknown)} for {cls.__name__}")
    clean = {}
    for name, value in params.items():
        if isinstance(value, dict) and "__dict_list__" in value:
            dicts = value["__dict_list__"]
            if not isinstance(dicts, list) or len(value) != 1:
                raise ModelFileError(f"parameter {name!r} is malformed")
            value = [_read_dict(name, d) for d in dicts]
        elif isinstance(value, dict):
            value = _read_dict(name, value)
        elif not (value is None or isinstance(value, (str, int, float, bool))
                  or _plain_list(value)):
            raise ModelFileError(f"parameter {name!r} has an unsupported type")
        clean[name] = value
    try:
        validate_params(cls(**clean))
    except InvalidParameterError as exc:
        raise ModelFileError(f"the model's parameters are invalid: {exc}") from None
    return clean


def _forest_class(header):
    """The forest class a header names, None for a tree (or a name that is neither:
    the tree reader refuses it)."""
    name = header.get("estimator")
    cls = ESTIMATORS.get(name) if isinstance(name, str) else None
    return cls if cls is not None and is_forest(cls) else None


def _tree_members(tree):
    """The binary members of one tree's arrays."""
    members = {name: np.ascontiguousarray(_stored_column(tree, name), dtype=dtype)
               for name, (dtype, _) in ARRAYS.items()}
    members[SETS[0]] = np.ascontiguousarray(tree.category_sets, dtype=SETS[1])
    members.update(_extra_members(tree))
    return members


# ------------------------------------------------------------------ files
def save(estimator, path):
    """Write a fitted estimator to ``path`` (see the module docstring for the format).

    Parameters
    ----------
    estimator : fitted DecisionTreeClassifier or DecisionTreeRegressor
    path : str or path-like or writable binary file
    """
    data = _as_dict(estimator, arrays=False)
    # the arrays go in as binary members (a forest's trees' end to end)
    if is_forest(type(estimator)):
        tree_members = [_tree_members(t.tree_) for t in estimator.estimators_]
        if any(set(m) != set(tree_members[0]) for m in tree_members):
            raise ValueError("the forest's trees keep different arrays: save needs the same")
        arrays, derived = join_trees(tree_members, hasattr(estimator, "classes_"),
                                     [int(t.tree_.impurity_exponent)
                                      for t in estimator.estimators_])
        if derived:
            data["derived"] = derived
        # (the oldest version that holds the file)
        data["format_version"] = TABLE_FILE_VERSION if has_table(arrays) else \
            RESIDUAL_FILE_VERSION if has_residuals(arrays) else FOREST_FILE_VERSION
        if data["format_version"] == TABLE_FILE_VERSION:
            arrays, data["byte_planes"] = to_planes(arrays, OFFSETS)
    else:
        arrays = _tree_members(estimator.tree_)
    header = np.frombuffer(json.dumps(data, sort_keys=True).encode("utf-8"), dtype=np.uint8)
    members = {"header": header, **arrays}
    deflate = is_forest(type(estimator))
    if hasattr(path, "write"):
        _write_members(path, members, deflate)
        return
    try:
        # an open file keeps numpy from appending ".npz" to the name
        with open(path, "wb") as fh:
            _write_members(fh, members, deflate)
    except OSError as exc:
        raise OSError(f"cannot write the model to {str(path)!r}: "
                      f"{exc.strerror or exc}") from exc


def _write_members(fh, members, deflate):
    # a tree's members stored as numpy.savez stores them; a forest's deflated
    if not deflate:
        np.savez(fh, **members)
        return
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=DEFLATE_LEVEL, allowZip64=True) as archive:
        for name, array in members.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as out:
                np.lib.format.write_array(out, np.asanyarray(array), allow_pickle=False)


def load(path, *, max_bytes=MAX_FILE_BYTES):
    """Read a model file written by ``save``; never executes code from it.

    Parameters
    ----------
    path : str or path-like or readable binary file
    max_bytes : int, default=2**31
        Files larger than this are refused before they are parsed (a special
        file such as ``/dev/zero`` is refused without being read), and so are
        files whose members would inflate to more.

    Returns
    -------
    DecisionTreeClassifier, DecisionTreeRegressor, ExtraTree*, or a forest

    Raises
    ------
    ModelFileError
        For a file that is not a valid dtree model (truncated, corrupt,
        hostile, too large, or of a newer format version).
    """
    raw = _read_bounded(path, max_bytes)
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except Exception as exc:  # zipfile raises many kinds on hostile bytes
        raise ModelFileError(f"not a dtree model file (bad archive: {exc})") from None
    with archive:
        members, deflated = {}, []
        inflated = sum(info.file_size for info in archive.infolist())
        if inflated > max_bytes:
            raise ModelFileError(f"the model file's members inflate to {inflated} bytes, "
                                 f"more than max_bytes={max_bytes}")
        for info in archive.infolist():
            name = info.filename
            if not name.endswith(".npy") or name[:-4] in members:
                raise ModelFileError(f"unexpected member {name!r} in the model file")
            key = name[:-4]
            if key != "header" and key not in ARRAYS and key != SETS[0] and \
                    key not in EXTRA and key not in OFFSETS and key not in COMPACT:
                raise ModelFileError(f"unexpected member {name!r} in the model file")
            members[key] = _read_member(archive, info)
            if info.compress_type == zipfile.ZIP_DEFLATED:
                deflated.append(name)
    if "header" not in members:
        raise ModelFileError("the model file has no header")
    header_bytes = members.pop("header")
    if header_bytes.dtype != np.uint8 or header_bytes.ndim != 1:
        raise ModelFileError("the model header must be bytes")
    try:
        header = json.loads(header_bytes.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"the model header is not JSON: {exc}") from None
    except RecursionError:
        raise ModelFileError("the model header is nested too deeply") from None
    if not isinstance(header, dict):
        raise ModelFileError("the model header must be a JSON object")
    forest = _forest_class(header)
    version = header.get("format_version")
    if deflated and not (forest is not None and version in FOREST_FILE_VERSIONS):
        raise ModelFileError(f"member {deflated[0]!r} is compressed; a tree's model file "
                             "stores its arrays uncompressed (a forest's file of format "
                             f"version {FOREST_FILE_VERSION} or later deflates them)")
    if forest is None and any(k in members for k in OFFSETS + COMPACT):
        raise ModelFileError("a tree's model file holds a forest's members")
    if forest is not None:
        if version not in FOREST_FILE_VERSIONS and (
                header.get("derived") or any(k in members for k in COMPACT)):
            raise ModelFileError("compact members belong to forest files of format "
                                 f"version {FOREST_FILE_VERSION} or later")
        if version not in (RESIDUAL_FILE_VERSION, TABLE_FILE_VERSION) and \
                has_residuals(members):
            raise ModelFileError("residual members belong to forest files of format "
                                 f"version {RESIDUAL_FILE_VERSION} or later")
        if version != TABLE_FILE_VERSION and (has_table(members) or "byte_planes" in header):
            raise ModelFileError("leaf tables, thresholds from ranges and byte planes "
                                 f"belong to forest files of format version "
                                 f"{TABLE_FILE_VERSION}")
        if "byte_planes" in header:
            members = from_planes(members, header["byte_planes"])
        dtypes = dict({name: dtype for name, (dtype, _) in ARRAYS.items()}, **EXTRA)
        # (a forest's file keeps some columns narrow: read back as the tree holds them)
        for name in NARROW_INTS + NARROW_REALS:
            if name in members:
                members[name] = widened(members[name], member_dtype(name, dtypes))
        # (and leaves out what the trees' shapes say: put back before any check)
        members = expanded(members, header.get("derived", []), dtypes,
                           _impurity_exponents(header))
    missing = [name for name in ARRAYS if name not in members]
    if missing:
        raise ModelFileError(f"the model file lacks the arrays {missing}")
    arrays = {}
    for name, (dtype, _) in ARRAYS.items():
        arr = members[name]
        if arr.dtype != np.dtype(dtype):
            raise ModelFileError(f"tree array {name!r} has dtype {arr.dtype}, expected "
                                 f"{np.dtype(dtype)}")
        arrays[name] = arr
    sets = members.get(SETS[0], np.zeros((0, CAT_WORDS), dtype=np.uint64))
    if sets.dtype != np.uint64 or sets.ndim != 2:
        raise ModelFileError("category_sets must be a 2-D uint64 array")
    arrays["category_sets"] = sets
    arrays.update({key: members[key] for key in EXTRA if key in members})
    if forest is None:
        return _build(header, arrays)
    entries = header.get("trees")
    if not isinstance(entries, list) or not entries:
        raise ModelFileError("a forest must list its trees under 'trees'")
    node_members = [k for k in arrays if k != "category_sets" and
                    not any(k in names for names in OWN_LENGTH.values())]
    per_tree = split_trees(dict(arrays, **{k: members.get(k) for k in OFFSETS}),
                           len(entries), node_members)
    return forest_from_dict(header, forest, lambda k, tree: _build(tree, per_tree[k]),
                            _checked_params, FORMAT_NAME, (FOREST_VERSION,) + FOREST_FILE_VERSIONS)


def _impurity_exponents(header):
    # each tree's, as its entry gives it (checked where residuals need them; the
    # tree's own reader checks it again)
    entries = header.get("trees")
    if not isinstance(entries, list):
        return None
    return [entry.get("impurity_exponent", 0) if isinstance(entry, dict) else None
            for entry in entries]


def _read_bounded(path, max_bytes):
    """The bytes of a model file, refusing anything over ``max_bytes`` unread."""
    if hasattr(path, "read"):
        raw = _read_chunks(path, max_bytes + 1)
    else:
        try:
            fh = open_regular(path, "the model file")
        except NotRegularFileError as exc:   # a FIFO, a device: refused unread
            raise ModelFileError(str(exc)) from None
        with fh:  # FileNotFoundError etc. propagate as they are
            info = os.fstat(fh.fileno())
            if info.st_size > max_bytes:
                raise ModelFileError(f"{str(path)!r} has {info.st_size} bytes, more than "
                                     f"max_bytes={max_bytes}")
            # the size it has now, plus one byte to see it grow: a read of
            # max_bytes + 1 would claim that much memory before reading a byte
            raw = _read_chunks(fh, min(info.st_size, max_bytes) + 1)
    if len(raw) > max_bytes:
        raise ModelFileError(f"the model file is larger than max_bytes={max_bytes}")
    return raw


def _read_chunks(fh, limit):
    """At most ``limit`` bytes of ``fh``, read in pieces so that memory follows the
    bytes there are, not the limit."""
    pieces, size = [], 0
    while size < limit:
        try:
            piece = fh.read(min(limit - size, 1 << 24))
        except UnicodeDecodeError:      # a file opened in text mode
            piece = None
        if not isinstance(piece, bytes):
            raise ModelFileError("a model file must be opened in binary mode")
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


def _read_member(archive, info):
    """One .npy member, read without pickle and with its declared size checked."""
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        raise ModelFileError(f"member {info.filename!r} is compressed by another method "
                             "than deflate; model files store arrays uncompressed or "
                             "deflated")
    if info.file_size > MAX_MEMBER_BYTES:
        raise ModelFileError(f"member {info.filename!r} is too large")
    try:
        raw = archive.read(info)
    except Exception as exc:  # bad CRC, odd flags, truncation: all mean a corrupt file
        raise ModelFileError(f"member {info.filename!r} is corrupt: {exc}") from None
    stream = io.BytesIO(raw)
    try:
        major, minor = np.lib.format.read_magic(stream)
        if (major, minor) == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(stream)
        elif (major, minor) == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(stream)
        else:
            raise ValueError(f"unsupported .npy version {major}.{minor}")
    except Exception as exc:  # any failure to parse untrusted bytes is a bad file
        raise ModelFileError(f"member {info.filename!r} has a bad header: {exc}") from None
    if dtype.hasobject or dtype.kind not in "biuf" or dtype.fields is not None:
        raise ModelFileError(f"member {info.filename!r} has unsupported dtype {dtype}")
    if fortran or not shape or not all(type(s) is int and s >= 0 for s in shape):
        # (a 0-d member, or a shape of booleans, is no node array)
        raise ModelFileError(f"member {info.filename!r} has an unsupported layout")
    count = 1
    for s in shape:
        count *= s
    offset = stream.tell()
    if count * dtype.itemsize != len(raw) - offset:
        raise ModelFileError(f"member {info.filename!r} declares {count} items but holds "
                             f"{len(raw) - offset} bytes")
    return np.frombuffer(raw, dtype=dtype, count=count, offset=offset).reshape(shape)
