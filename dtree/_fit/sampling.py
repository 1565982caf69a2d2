"""The fit's randomness and its samples: the splitters' seed, hold-outs and folds.

Drawn as scikit-learn draws them, so that the same ``random_state`` gives
scikit-learn's feature draws and leaves a RandomState passed in in the state
scikit-learn would.
"""
import threading

import numpy as np

from .._plan.constraints import is_int

# scikit-learn's splitters seed their generator with randint(0, RAND_R_MAX)
RAND_R_MAX = 2**31 - 1


_THREAD = threading.local()


def seeded(seed):
    """``np.random.RandomState(seed)``'s generator, for a draw made at once: this
    thread's one generator seeded again, valid until the next call on the thread.
    Making a RandomState costs ~100 us (numpy gathers entropy before the seed
    replaces it), seeding one ~1 us: a forest seeds two per tree."""
    state = getattr(_THREAD, "state", None)
    if state is None:
        state = _THREAD.state = np.random.RandomState(0)
    state.seed(seed)
    return state


def _draw(random_state, low, high):
    """One integer in [low, high) from what ``random_state`` names (scikit-learn's
    ``check_random_state``: None is numpy's global RandomState; a Generator, which
    scikit-learn refuses, draws with ``integers``)."""
    if random_state is None or random_state is np.random:
        return int(np.random.randint(low, high, dtype=np.int64))
    if is_int(random_state):
        random_state = seeded(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(low, high, dtype=np.int64))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(low, high))
    raise ValueError(f"random_state must be None, an int, a numpy RandomState or "
                     f"Generator; got {random_state!r}")


def draw_seed(random_state):
    """The seed of the splitters' generator, drawn as scikit-learn draws it.

    ``randint(0, RAND_R_MAX)``, so that the same ``random_state`` gives
    scikit-learn's feature draws and leaves a RandomState passed in in the
    state scikit-learn would.
    """
    return _draw(random_state, 0, RAND_R_MAX)


def rng(random_state):
    """The RandomState of hold-outs and folds (kept apart from the splitters' seed)."""
    if isinstance(random_state, np.random.RandomState):
        return random_state
    return np.random.RandomState(_draw(random_state, 1, 2**62) % 2**32)


def holdout(encoded_y, n_classes, fraction, rng):
    """Mask of a held-out part of about ``fraction`` of the samples (per class)."""
    n = encoded_y.shape[0]
    held = np.zeros(n, dtype=bool)
    groups = [np.flatnonzero(encoded_y == k) for k in range(n_classes)] if n_classes \
        else [np.arange(n)]
    for members in groups:
        if members.shape[0] < 2:
            continue
        take = min(max(1, int(round(fraction * members.shape[0]))), members.shape[0] - 1)
        held[rng.choice(members, size=take, replace=False)] = True
    if held.all() or not held.any():
        what = "train on" if held.all() else "validate on"
        raise ValueError(f"validation_fraction={fraction} leaves no samples to {what}")
    return held


def folds_of(fraction):
    """N for a held-out fraction of 1/N (J48's -N); ValueError for other fractions."""
    n = round(1.0 / fraction)
    if n < 2 or abs(1.0 / fraction - n) > 1e-9 * n:
        raise ValueError(f"algorithm='c4.5' prunes with one of N folds, as Weka J48's -R -N: "
                         f"validation_fraction must be 1/N (0.5, 1/3, 0.25, ...); got {fraction!r}")
    return n


def j48_prune_fold(encoded_y, n_folds):
    """Mask of the cases Weka J48's reduced-error pruning (``-R -N n_folds``) holds
    out: Weka's ``stratify`` (cases grouped by class as its swaps leave them, then
    dealt round-robin into folds) and ``testCV(n_folds, n_folds - 1)``, the last
    fold. No randomness: J48's seed only shuffles the growing cases' order."""
    order = list(range(encoded_y.shape[0]))
    y = encoded_y.tolist()
    n = len(order)
    index = 1
    while index < n:        # Weka's grouping by class, swap for swap
        first = y[order[index - 1]]
        for j in range(index, n):
            if y[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    dealt = [order[j] for start in range(n_folds) for j in range(start, n, n_folds)]
    size, rest = divmod(n, n_folds)
    fold = n_folds - 1
    count = size + 1 if fold < rest else size
    first = fold * size + (fold if fold < rest else rest)
    held = np.zeros(n, dtype=bool)
    held[dealt[first:first + count]] = True
    if held.all() or not held.any():
        raise ValueError(f"{n_folds} folds leave no samples to "
                         f"{'train on' if held.all() else 'prune with'}")
    return held


def check_fold(pair, k, n_samples):
    """A user's (train, test) pair as integer index arrays within the data."""
    try:
        train, test = pair
    except (TypeError, ValueError):
        raise ValueError(f"cv split {k} is not a (train, test) pair") from None
    out = []
    for part, indices in (("train", train), ("test", test)):
        try:
            indices = np.asarray(indices)
        except (TypeError, ValueError):
            raise ValueError(f"cv split {k}: the {part} indices are not an array") from None
        if indices.dtype == bool and indices.shape == (n_samples,):
            indices = np.flatnonzero(indices)  # a mask
        if indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
            raise ValueError(f"cv split {k}: the {part} indices must be a 1-D array of "
                             f"integers; got dtype {indices.dtype}, shape {indices.shape}")
        if indices.size == 0:
            raise ValueError("every cv split needs training and test samples")
        if indices.min() < 0 or indices.max() >= n_samples:
            raise ValueError(f"cv split {k}: {part} indices must lie in [0, {n_samples}); "
                             f"got {indices.min()} to {indices.max()}")
        out.append(indices.astype(np.intp))
    return tuple(out)
