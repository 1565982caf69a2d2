"""Brute-force reference split finder in plain Python: the tests' oracle.

It tries every feature and every midpoint between consecutive distinct values
and scores each candidate from scratch (no running sums, no proxies), so it
shares no code or shortcut with the Cython splitter.
"""
import math

import numpy as np


def _class_impurity(counts, total, criterion):
    if criterion == "gini":
        return 1.0 - math.fsum((c / total) ** 2 for c in counts)
    return -math.fsum((c / total) * math.log2(c / total) for c in counts if c > 0)


def quantile_level(criterion):
    """(tau, above, below) of "absolute_error" or "quantile:<tau>", else None."""
    if criterion == "absolute_error":
        return 0.5, 1.0, 1.0
    if criterion.startswith("quantile:"):
        tau = float(criterion.split(":")[1])
        return tau, tau, 1.0 - tau
    return None


def pinball(y, w, q, above, below):
    """The weighted loss about q: above * w (y - q) for y > q, below * w (q - y) else."""
    return math.fsum(wi * (above * (yi - q) if yi > q else below * (q - yi))
                     for yi, wi in zip(y, w))


def least_pinball(y, w, above, below):
    """The least loss over every q: some target attains it (the loss is piecewise
    linear with its kinks at the targets), so trying each is exact."""
    return min(pinball(y, w, q, above, below) for q in set(np.asarray(y).tolist()))


def weighted_quantile(y, w, tau):
    """scikit-learn's weighted median generalised: the smallest target whose
    cumulative weight exceeds tau * W, the midpoint with the previous one where
    the weight below it is exactly tau * W."""
    order = np.argsort(y, kind="stable")
    ys, ws = np.asarray(y, float)[order], np.asarray(w, float)[order]
    target = tau * math.fsum(ws)
    below = 0.0
    for i in range(len(ys)):
        if below + ws[i] > target or i == len(ys) - 1:
            if below == target and below > 0:
                previous = max(k for k in range(i) if ws[k] > 0)
                return 0.5 * (ys[previous] + ys[i])
            return ys[i]
        below += ws[i]


def split_score(y, w, left_mask, criterion, n_classes=None):
    """Score of one split of a node; smaller is better.

    gini / entropy / squared_error / poisson: the weighted sum of child
    impurities (w_L * I_L + w_R * I_R); poisson: inf when a side's mean is 0
    (no such split is valid). gain_ratio: minus the gain ratio.
    absolute_error and "quantile:<tau>": the sum of the sides' least losses.
    """
    y = np.asarray(y)
    w = np.asarray(w, dtype=np.float64)
    if y.ndim == 2:  # several outputs: the impurity is the mean of theirs
        return math.fsum(split_score(y[:, k], w, left_mask, criterion, n_classes)
                         for k in range(y.shape[1])) / y.shape[1]
    parts = []
    level = quantile_level(criterion)
    for mask in (left_mask, ~left_mask):
        wt = math.fsum(w[mask])
        if level is not None:
            parts.append((wt, least_pinball(y[mask], w[mask], *level[1:]) / wt))
        elif criterion == "squared_error":
            mean = math.fsum(w[mask] * y[mask]) / wt
            parts.append((wt, math.fsum(w[mask] * (y[mask] - mean) ** 2) / wt))
        elif criterion == "poisson":
            # half Poisson deviance about the mean: sum w y ln(y / mean) / w
            mean = math.fsum(w[mask] * y[mask]) / wt
            if mean <= 0:
                return math.inf
            terms = [wi * yi * math.log(yi / mean) for wi, yi in zip(w[mask], y[mask]) if yi > 0]
            parts.append((wt, math.fsum(terms) / wt))
        else:
            counts = [math.fsum(w[mask & (y == k)]) for k in range(n_classes)]
            kind = "gini" if criterion == "gini" else "entropy"
            parts.append((wt, _class_impurity(counts, wt, kind)))
    (wl, il), (wr, ir) = parts
    if criterion != "gain_ratio":
        return wl * il + wr * ir
    total = wl + wr
    counts = [math.fsum(w[y == k]) for k in range(n_classes)]
    gain = _class_impurity(counts, total, "entropy") - (wl * il + wr * ir) / total
    split_info = -math.fsum(p * math.log2(p) for p in (wl / total, wr / total))
    return -gain / split_info


def _splits_of(column):
    """(threshold, missing_left, left mask) of every candidate cut of one column.

    NaN is a missing value: each cut between two numbers is tried with the
    missing values on either side, and "all numbers | all missing" is a cut too.
    """
    missing = np.isnan(column)
    values = np.unique(column[~missing])
    for a, b in zip(values[:-1], values[1:]):
        threshold = float(a) / 2.0 + float(b) / 2.0
        if threshold >= float(b):
            threshold = float(a)
        yield threshold, False, column <= threshold
        if missing.any():
            yield threshold, True, (column <= threshold) | missing
    if missing.any() and values.size:
        yield math.inf, False, ~missing


def all_candidates(X, y, w, criterion, n_classes=None, min_samples_leaf=1,
                   min_weight_leaf=0.0):
    """Every valid candidate as (score, feature, threshold, missing_left)."""
    X = np.asarray(X, dtype=np.float32)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=np.float64)
    total_w = math.fsum(w)
    out = []
    for f in range(X.shape[1]):
        for threshold, missing_left, left in _splits_of(X[:, f]):
            n_left = int(left.sum())
            if n_left < min_samples_leaf or len(y) - n_left < min_samples_leaf:
                continue
            wl = math.fsum(w[left])
            wr = total_w - wl
            if wl < min_weight_leaf or wr < min_weight_leaf:
                continue
            if wl <= 1e-12 * total_w or wr <= 1e-12 * total_w:
                continue
            score = split_score(y, w, left, criterion, n_classes)
            if score == math.inf:
                continue
            out.append((score, f, threshold, missing_left))
    return out


def is_tie(a, b, scale):
    return abs(a - b) <= 1e-9 * max(1.0, abs(scale))
