"""A forest's randomness, drawn as scikit-learn's forests draw it.

scikit-learn gives each tree of a forest an int seed (``randint(MAX_INT)`` of
the forest's ``random_state``, one per tree in order), and the tree draws its
bootstrap from a RandomState of that seed: ``randint(0, n, n_boot)`` without
sample weights, ``choice(n, n_boot, p=w / w.sum())`` with them. The tree is
then fitted on all rows with each row's count in the draw as its weight (times
the bootstrap's own "balanced" class weights for ``"balanced_subsample"``),
and its splitter seeds itself from the same seed. Drawing the same numbers in
the same order is what makes dtree's forest scikit-learn's, tree for tree.
"""
import numbers
import warnings

import numpy as np

from .._fit.sampling import seeded
from .._input.encode import class_weight_table
from .._plan.machine import physical_memory

# scikit-learn's per-tree seeds are randint(MAX_INT)
MAX_INT = np.iinfo(np.int32).max


def forest_random_state(random_state):
    """The RandomState the forest's seeds come from (scikit-learn's
    ``check_random_state``: None is numpy's global one)."""
    if random_state is None or random_state is np.random:
        return np.random.mtrand._rand
    if isinstance(random_state, numbers.Integral):
        return np.random.RandomState(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return random_state
    raise ValueError(f"random_state must be None, an int or a numpy RandomState; got "
                     f"{random_state!r}")


def tree_seeds(random_state, n_new, n_existing=0):
    """The seeds of ``n_new`` trees added to a forest of ``n_existing`` (warm start:
    the seeds of the existing trees are drawn again first and thrown away, so
    that the new trees get the seeds a single fit would have given them)."""
    rs = forest_random_state(random_state)
    if n_existing:
        rs.randint(MAX_INT, size=n_existing)
    return [int(rs.randint(MAX_INT)) for _ in range(n_new)]


# rows one tree may draw: int32 indices, as scikit-learn's
MAX_DRAWN = 2**31 - 1
# bytes a drawn row takes at the draw's peak (numpy's uniform numbers and int64
# picks of ``choice``, then the int32 copy)
DRAW_BYTES = 24


def n_bootstrap(n_samples, max_samples, sample_weight):
    """Rows drawn per tree: ``n_samples`` (None), ``max_samples`` (an int) or the
    fraction ``max_samples`` of the rows (of the total sample weight, when there
    are weights), at least 1 and at most ``MAX_DRAWN``."""
    if max_samples is None:
        return n_samples
    if isinstance(max_samples, numbers.Integral):
        drawn = int(max_samples)
    else:
        total = n_samples if sample_weight is None else float(sample_weight.sum())
        product = max_samples * total
        drawn = MAX_DRAWN + 1 if not product < MAX_DRAWN else max(int(product), 1)
    if drawn > MAX_DRAWN:
        raise ValueError(f"max_samples={max_samples!r} draws more than {MAX_DRAWN} rows per "
                         "tree; pass at most that many")
    memory = physical_memory()
    if memory is not None and drawn * DRAW_BYTES > memory:
        # (a fraction of a large total sample weight: drawing would exhaust memory)
        raise ValueError(f"max_samples={max_samples!r} draws {drawn} rows per tree, about "
                         f"{drawn * DRAW_BYTES:.3g} bytes: more than this machine's memory "
                         f"({memory:.3g} bytes); pass a smaller max_samples")
    if isinstance(max_samples, numbers.Integral):
        return drawn
    if drawn < max(10, n_samples ** (1 / 3)):
        warnings.warn(f"Using the fractional value max_samples={max_samples!r} gives a low "
                      f"number ({drawn}) of bootstrap samples. We recommend passing "
                      "`max_samples` as an integer instead.", UserWarning, stacklevel=3)
    return drawn


def bootstrap_indices(seed, n_samples, n_drawn, sample_weight=None):
    """The rows a tree of seed ``seed`` draws (with replacement; int32, in draw order)."""
    rs = seeded(seed)
    if sample_weight is None:
        drawn = rs.randint(0, n_samples, n_drawn)
    else:
        drawn = rs.choice(n_samples, n_drawn, replace=True, p=sample_weight / np.sum(sample_weight))
    return drawn.astype(np.int32)


def bootstrap_counts(seed, n_samples, n_drawn, sample_weight=None):
    """How many times each row is drawn: the tree's sample weights."""
    return np.bincount(bootstrap_indices(seed, n_samples, n_drawn, sample_weight),
                       minlength=n_samples)


def subsample_balanced(codes, classes, indices):
    """The "balanced" class weight of each row computed on the bootstrap rows
    ``indices`` (with repeats) alone, the outputs' factors multiplied; rows of a
    class the draw missed get 0 (scikit-learn's ``compute_sample_weight(
    "balanced", y, indices=indices)``)."""
    codes = codes.reshape(codes.shape[0], -1)
    classes = classes if isinstance(classes, list) else [classes]
    factors = np.ones(codes.shape[0])
    for k in range(codes.shape[1]):
        drawn = codes[indices, k]
        counts = np.bincount(drawn, minlength=classes[k].shape[0])
        present = counts > 0
        table = np.zeros(classes[k].shape[0])
        # "balanced" over the classes the draw holds: drawn / (n_present * count)
        table[present] = class_weight_table("balanced", classes[k][present], counts[present])
        factors = factors * table[codes[:, k]]
    return factors


def forest_class_weights(class_weight, classes, codes, sample_weight, bootstrap):
    """Each row's class weight at forest level (None: none), scikit-learn's way:
    a dict (or one per output), or "balanced" on the (weighted) class counts of
    all rows; "balanced_subsample" is left to each tree when it bootstraps and
    is "balanced" otherwise."""
    if class_weight is None or (class_weight == "balanced_subsample" and bootstrap):
        return None
    multi = codes.ndim == 2
    cw = "balanced" if class_weight == "balanced_subsample" else class_weight
    codes2 = codes.reshape(codes.shape[0], -1)
    outputs = classes if multi else [classes]
    if isinstance(cw, dict):
        cw = [cw]
    if isinstance(cw, list) and len(cw) != codes2.shape[1]:
        raise ValueError("For multi-output, number of elements in class_weight should match "
                         f"number of outputs. Got {len(cw)} element(s) while having "
                         f"{codes2.shape[1]} outputs.")
    factors = np.ones(codes2.shape[0])
    for k in range(codes2.shape[1]):
        cw_k = cw if isinstance(cw, str) else cw[k]
        counts = np.bincount(codes2[:, k], weights=sample_weight,
                             minlength=outputs[k].shape[0])
        factors = factors * class_weight_table(cw_k, outputs[k], counts)[codes2[:, k]]
    return factors
