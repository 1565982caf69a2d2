# cython: language_level=3
"""Quinlan's C4.5 growth, with fractional instances for missing values.

C4.5 sends a case whose split value is missing down every branch, its weight
multiplied by the branch's share of the known weight. A sample can then sit in
several nodes at once, which the core splitter's one-segment-per-node layout
cannot hold, so C4.5 grows here: each node owns its instances (sample id,
weight) and, for every numeric feature, the instances' order by value (NaN
last), filtered from the parent's order so no node ever sorts. The nodes go
into the growers' shared ``NodeStore``; entropies are ``_criterion``'s.

Split choice (C4.5 release 8): for each feature its best split by information
gain on the known cases, scaled by the known fraction; a numeric threshold pays
``log2(candidate cuts) / node weight``; among features whose gain is at least
the average gain, the highest gain ratio wins, the split information counting
the missing cases as one more branch. A split needs two branches with at least
``min_objs`` weight (numeric branches need C4.5's MinSplit). Multiway
categorical splits are stored as a cascade of one-category-vs-rest nodes,
peeled in increasing weight so the heaviest branch comes last; as in C4.5, a
category without cases at the split has its own (empty) branch, a leaf that
predicts the split node's classes.
"""
import numpy as np

from libc.math cimport NAN, log2
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ._common cimport CAT_WORDS, SplitRecord, below_min_decrease, set_bit, word_t
from ._criterion cimport entropy_impurity
from ._node_store cimport NodeStore

ctypedef Py_ssize_t intp_t

cdef double AVERAGE_SLACK = 1e-3   # C4.5 keeps gains within 1e-3 of the average
cdef double MIN_SPLIT_CAP = 25.0   # C4.5's upper bound on MinSplit for thresholds
cdef double WEIGHT_SLACK = 1e-9    # relative: rounding of shared weights at the limits
# C4.5 (and J48) take a later cut or feature only when it is better by more than
# this, in bits per case: near-ties go to the first, whatever the rounding
cdef double BETTER_BY = 1e-6


cdef inline double entropy_rest(const double* total, const double* part, intp_t K,
                                double weight, double* scratch) noexcept nogil:
    """Entropy (bits) of ``total - part``: the right side of a cut."""
    cdef intp_t k
    for k in range(K):
        scratch[k] = total[k] - part[k]
    return entropy_impurity(scratch, K, weight)


cdef inline double share_info(double part, double whole) noexcept nogil:
    if part <= 0.0 or whole <= 0.0:
        return 0.0
    return -(part / whole) * log2(part / whole)


cdef struct Candidate:
    bint valid
    double gain        # scaled by the known fraction, numeric cut cost deducted
    double raw_gain    # unscaled, for min_impurity_decrease
    double split_info
    double threshold
    intp_t cut         # numeric: last position (in the feature order) of the left branch


cdef Candidate eval_numeric(const float[:, ::1] X, intp_t f, const int[::1] order,
                            intp_t n_known, const int[::1] samples,
                            const double[::1] weights, const intp_t[::1] y, intp_t K,
                            double W, double min_objs, double* known_counts,
                            double* left, double* scratch) noexcept nogil:
    cdef Candidate c
    cdef intp_t i, j, tries = 0
    cdef double known = 0.0, lw = 0.0, rw, info, best_info = 0.0, min_split, base
    cdef float v, v_next
    c.valid = False
    memset(known_counts, 0, K * sizeof(double))
    memset(left, 0, K * sizeof(double))
    for i in range(n_known):
        j = order[i]
        known_counts[y[samples[j]]] += weights[j]
        known += weights[j]
    # weight limits are compared with a little slack: shares of fractional
    # cases must not fall just short of a limit they reach in exact arithmetic
    if known + WEIGHT_SLACK * W < 2.0 * min_objs or n_known < 2:
        return c
    min_split = 0.1 * known / K
    if min_split < min_objs:
        min_split = min_objs
    if min_split > MIN_SPLIT_CAP:
        min_split = MIN_SPLIT_CAP
    min_split -= WEIGHT_SLACK * W
    base = entropy_impurity(known_counts, K, known)
    for i in range(n_known - 1):
        j = order[i]
        left[y[samples[j]]] += weights[j]
        lw += weights[j]
        v = X[samples[j], f]
        v_next = X[samples[order[i + 1]], f]
        rw = known - lw
        if v < v_next and lw >= min_split and rw >= min_split:
            tries += 1
            info = (lw * entropy_impurity(left, K, lw)
                    + rw * entropy_rest(known_counts, left, K, rw, scratch)) / known
            if not c.valid or (best_info - info) * known > BETTER_BY * W:
                c.valid = True
                best_info = info
                c.cut = i
                c.threshold = (<double> v + <double> v_next) / 2.0
                if c.threshold >= v_next:
                    c.threshold = v
                c.split_info = lw  # left weight for now
    if not c.valid:
        return c
    lw = c.split_info
    c.raw_gain = base - best_info
    c.gain = known / W * c.raw_gain - log2(<double> tries) / W
    if c.gain < BETTER_BY:
        # the cut does not pay for its search: C4.5 leaves the feature out,
        # of the average gain too
        c.valid = False
        return c
    c.split_info = share_info(lw, W) + share_info(known - lw, W) + share_info(W - known, W)
    return c


cdef double category_counts(const float[:, ::1] X, intp_t f, intp_t n_codes, intp_t n,
                            const int[::1] samples, const double[::1] weights,
                            const intp_t[::1] y, intp_t K, double* counts,
                            double* known_counts) noexcept nogil:
    """Class weights per code (``counts``, n_codes x K) and of the known cases;
    returns the known weight."""
    cdef intp_t i, code
    cdef double known = 0.0
    cdef float v
    memset(counts, 0, n_codes * K * sizeof(double))
    memset(known_counts, 0, K * sizeof(double))
    for i in range(n):
        v = X[samples[i], f]
        if v != v:
            continue
        code = <intp_t> v
        counts[code * K + y[samples[i]]] += weights[i]
        known_counts[y[samples[i]]] += weights[i]
        known += weights[i]
    return known


cdef Candidate eval_categorical(const float[:, ::1] X, intp_t f, intp_t n_codes,
                                intp_t n, const int[::1] samples, const double[::1] weights,
                                const intp_t[::1] y, intp_t K, double W, double min_objs,
                                double* counts, double* known_counts) noexcept nogil:
    cdef Candidate c
    cdef intp_t code, k, reasonable = 0
    cdef double known, wb, info = 0.0, si = 0.0
    c.valid = False
    known = category_counts(X, f, n_codes, n, samples, weights, y, K, counts, known_counts)
    if known + WEIGHT_SLACK * W < 2.0 * min_objs:
        return c
    for code in range(n_codes):
        wb = 0.0
        for k in range(K):
            wb += counts[code * K + k]
        if wb <= 0.0:
            continue
        if wb + WEIGHT_SLACK * W >= min_objs:
            reasonable += 1
        info += wb * entropy_impurity(counts + code * K, K, wb)
        si += share_info(wb, W)
    if reasonable < 2:
        return c
    c.valid = True
    c.raw_gain = entropy_impurity(known_counts, K, known) - info / known
    c.gain = known / W * c.raw_gain
    c.split_info = si + share_info(W - known, W)
    c.threshold = NAN
    c.cut = -1
    return c


cdef Candidate eval_one_vs_rest(const float[:, ::1] X, intp_t f, intp_t n_codes,
                                intp_t n, const int[::1] samples, const double[::1] weights,
                                const intp_t[::1] y, intp_t K, double W, double min_objs,
                                double* counts, double* known_counts,
                                double* scratch) noexcept nogil:
    """The best one-category-against-the-rest split of a categorical feature (Weka
    J48's binary splits, ``-B``): each category with at least ``min_objs`` weight
    against the rest (which needs as much) by gain ratio, the first category
    kept unless a later one is better by more than BETTER_BY; ``cut`` holds the
    category's code."""
    cdef Candidate c
    cdef intp_t code, k
    cdef double known, wb, base, info, gain, si, ratio, best_ratio = 0.0
    c.valid = False
    c.gain = c.raw_gain = c.split_info = 0.0
    c.threshold = NAN
    c.cut = -1
    known = category_counts(X, f, n_codes, n, samples, weights, y, K, counts, known_counts)
    if known + WEIGHT_SLACK * W < 2.0 * min_objs:
        return c
    base = entropy_impurity(known_counts, K, known)
    for code in range(n_codes):
        wb = 0.0
        for k in range(K):
            wb += counts[code * K + k]
        if wb + WEIGHT_SLACK * W < min_objs or known - wb + WEIGHT_SLACK * W < min_objs:
            continue
        info = (wb * entropy_impurity(counts + code * K, K, wb)
                + (known - wb) * entropy_rest(known_counts, counts + code * K, K,
                                               known - wb, scratch)) / known
        gain = known / W * (base - info)
        si = share_info(wb, W) + share_info(known - wb, W) + share_info(W - known, W)
        ratio = gain / si if si > 0.0 else 0.0
        # (J48 takes its first category whatever its ratio, later ones only if better)
        if (code == 0) or ratio > best_ratio + BETTER_BY:
            c.valid = True
            best_ratio = ratio
            c.cut = code
            c.raw_gain = base - info
            c.gain = gain
            c.split_info = si
        c.valid = True
    return c


cdef class _Grower:
    """Grows one C4.5 tree; nodes are appended in scikit-learn's pre-order."""
    cdef const float[:, ::1] X
    cdef const intp_t[::1] y
    cdef intp_t K, n_features, max_depth, min_samples_split, max_codes
    cdef double min_objs, min_decrease, root_weight
    cdef bint use_ratio, one_vs_rest
    cdef const unsigned char[::1] is_cat
    cdef const int[::1] n_codes
    cdef intp_t[::1] numeric_slot        # feature -> row of the order arrays, or -1
    cdef NodeStore store

    def __init__(self, X, y, is_cat, n_codes, intp_t n_classes, intp_t max_depth,
                 intp_t min_samples_split, double min_objs, double min_decrease,
                 bint use_ratio, bint one_vs_rest=False):
        self.X, self.y, self.K, self.n_features = X, y, n_classes, X.shape[1]
        self.is_cat, self.n_codes = is_cat, n_codes
        # the limits, and the score (gain ratio, or information gain)
        self.max_depth, self.min_samples_split = max_depth, min_samples_split
        self.min_objs, self.min_decrease, self.use_ratio = min_objs, min_decrease, use_ratio
        self.one_vs_rest = one_vs_rest     # J48's -B: one category against the rest
        self.max_codes = max(1, int(np.max(n_codes, initial=0)))
        slots = np.full(self.n_features, -1, dtype=np.intp)
        numeric = np.flatnonzero(np.asarray(is_cat) == 0)
        slots[numeric] = np.arange(numeric.shape[0])
        self.numeric_slot = slots
        self.store = NodeStore(n_classes, 64)

    # ------------------------------------------------------------ storage
    cdef intp_t add_node(self, intp_t parent, bint is_left, intp_t depth, object stats,
                         intp_t n) except -1:
        cdef const double[::1] sv = stats
        cdef double w = float(stats.sum())
        cdef intp_t node = self.store.add(parent, is_left, depth,
                                          entropy_impurity(&sv[0], self.K, w), n, w, &sv[0])
        if node < 0:
            raise MemoryError("could not allocate memory for the tree")
        return node

    cdef set_split(self, intp_t node, intp_t f, double threshold, intp_t code,
                   double w_left, double w_right):
        """Record a threshold split, or (``code`` >= 0) one category against the rest."""
        cdef SplitRecord split
        split.feature = f
        split.threshold = threshold
        split.categorical = code >= 0
        split.missing_left = w_left > w_right
        memset(split.cat_left, 0, CAT_WORDS * sizeof(word_t))
        if code >= 0:
            set_bit(split.cat_left, code)
        if not self.store.set_split(node, &split):
            raise MemoryError("could not allocate memory for the tree")

    # ------------------------------------------------------------ growth
    def grow(self, samples, weights):
        """Grow from the root instances; returns the arrays of ``NodeStore.to_arrays``."""
        root = self.root_instances(samples, weights)
        self.root_weight = float(np.sum(weights))
        stack = [("grow", root, -1, True, 0)]
        while stack:
            item = stack.pop()
            if item[0] == "grow":
                self.grow_node(stack, item[1], item[2], item[3], item[4])
            else:
                self.cascade_node(stack, item[1], item[2], item[3], item[4], item[5])
        return self.store.to_arrays()

    def root_instances(self, samples, weights):
        numeric = np.flatnonzero(np.asarray(self.numeric_slot) >= 0)
        Xs = np.asarray(self.X)[samples]
        order = np.empty((numeric.shape[0], samples.shape[0]), dtype=np.int32)
        n_known = np.empty(numeric.shape[0], dtype=np.intp)
        for row, f in enumerate(numeric):
            column = Xs[:, f]
            order[row] = np.argsort(column, kind="stable")  # NaN sorts last
            n_known[row] = samples.shape[0] - int(np.count_nonzero(np.isnan(column)))
        return (np.ascontiguousarray(samples, dtype=np.int32),
                np.ascontiguousarray(weights, dtype=np.float64), order, n_known)

    cdef object class_counts(self, inst):
        cdef const int[::1] samples = inst[0]
        cdef const double[::1] weights = inst[1]
        counts = np.zeros(self.K, dtype=np.float64)
        cdef double[::1] cv = counts
        cdef intp_t i
        for i in range(samples.shape[0]):
            cv[self.y[samples[i]]] += weights[i]
        return counts

    cdef grow_node(self, list stack, tuple inst, intp_t parent, bint is_left, intp_t depth):
        stats = self.class_counts(inst)
        cdef intp_t n = inst[0].shape[0]
        cdef intp_t node = self.add_node(parent, is_left, depth, stats, n)
        cdef double W = float(stats.sum())
        if (depth >= self.max_depth or W * (1 + WEIGHT_SLACK) < self.min_samples_split
                or W * (1 + WEIGHT_SLACK) < 2.0 * self.min_objs or stats.max() >= W * (1.0 - 1e-12)):
            return
        cdef intp_t best_f
        best_f, best = self.choose_split(inst, W)
        if best_f < 0:
            return
        if self.is_cat[best_f] and self.one_vs_rest:
            self.split_one_vs_rest(stack, inst, node, best_f, best["cut"], depth)
        elif self.is_cat[best_f]:
            branches, n_missing = self.categorical_branches(inst, best_f)
            self.push_cascade(stack, node, best_f, branches, n_missing, depth)
        else:
            self.split_numeric(stack, inst, node, best_f, best, depth)

    cdef tuple choose_split(self, tuple inst, double W):
        cdef const int[::1] samples = inst[0]
        cdef const double[::1] weights = inst[1]
        cdef const int[:, ::1] order = inst[2]
        cdef const intp_t[::1] n_known = inst[3]
        cdef intp_t n = samples.shape[0], f, slot, best_f = -1, possible = 0
        cdef intp_t max_codes = self.max_codes
        cdef double* buf = <double*> malloc((max_codes + 3) * self.K * sizeof(double))
        cdef Candidate* cands = <Candidate*> malloc(self.n_features * sizeof(Candidate))
        cdef double average = 0.0, score, best_score = 0.0
        if buf == NULL or cands == NULL:
            free(buf)
            free(cands)
            raise MemoryError()
        with nogil:
            for f in range(self.n_features):
                slot = self.numeric_slot[f]
                if slot >= 0:
                    cands[f] = eval_numeric(self.X, f, order[slot], n_known[slot], samples,
                                            weights, self.y, self.K, W, self.min_objs,
                                            buf, buf + self.K, buf + 2 * self.K)
                elif self.one_vs_rest:
                    cands[f] = eval_one_vs_rest(self.X, f, self.n_codes[f], n, samples,
                                                weights, self.y, self.K, W, self.min_objs,
                                                buf + self.K, buf,
                                                buf + (max_codes + 1) * self.K)
                else:
                    cands[f] = eval_categorical(self.X, f, self.n_codes[f], n, samples,
                                                weights, self.y, self.K, W, self.min_objs,
                                                buf + self.K, buf)
                if cands[f].valid:
                    possible += 1
                    average += cands[f].gain
            if possible > 0:
                average /= possible
            for f in range(self.n_features):
                if not cands[f].valid or cands[f].gain <= 0.0:
                    continue
                if below_min_decrease(W / self.root_weight * cands[f].raw_gain,
                                      self.min_decrease):
                    continue
                if self.use_ratio:
                    if cands[f].gain < average - AVERAGE_SLACK or cands[f].split_info <= 0.0:
                        continue
                    score = cands[f].gain / cands[f].split_info
                else:
                    score = cands[f].gain
                if best_f < 0 or score > best_score + BETTER_BY:
                    best_f = f
                    best_score = score
        best = cands[best_f] if best_f >= 0 else cands[0]
        free(buf)
        free(cands)
        return best_f, best

    cdef split_numeric(self, list stack, tuple inst, intp_t node, intp_t f, dict best,
                       intp_t depth):
        cdef const int[:, ::1] order = inst[2]
        cdef intp_t slot = self.numeric_slot[f], i
        cdef intp_t n = inst[0].shape[0], n_known = inst[3][slot], cut = best["cut"]
        branch = np.full(n, -1, dtype=np.intp)
        cdef intp_t[::1] bv = branch
        for i in range(n_known):
            bv[order[slot, i]] = 0 if i <= cut else 1
        left, right = self.split_instances(inst, branch, 2)
        self.set_split(node, f, best["threshold"], -1, float(np.sum(left[1])),
                       float(np.sum(right[1])))
        stack.append(("grow", right, node, False, depth + 1))
        stack.append(("grow", left, node, True, depth + 1))

    cdef split_one_vs_rest(self, list stack, tuple inst, intp_t node, intp_t f, intp_t code,
                           intp_t depth):
        cdef const int[::1] samples = inst[0]
        cdef intp_t n = samples.shape[0], i
        cdef float v
        branch = np.full(n, -1, dtype=np.intp)
        cdef intp_t[::1] bv = branch
        for i in range(n):
            v = self.X[samples[i], f]
            if v == v:
                bv[i] = 0 if <intp_t> v == code else 1
        left, right = self.split_instances(inst, branch, 2)
        self.set_split(node, f, NAN, code, float(np.sum(left[1])), float(np.sum(right[1])))
        stack.append(("grow", right, node, False, depth + 1))
        stack.append(("grow", left, node, True, depth + 1))

    cdef tuple categorical_branches(self, tuple inst, intp_t f):
        """(code, instances) per category, lightest first: the categories no case
        here has (empty instances) in code order, then those present; and the
        number of cases missing the feature (each is in every present branch)."""
        cdef const int[::1] samples = inst[0]
        cdef const double[::1] weights = inst[1]
        cdef intp_t n = samples.shape[0], i, n_codes = self.n_codes[f]
        codes = np.full(n, -1, dtype=np.intp)
        cdef intp_t[::1] cv = codes
        per_code = np.zeros(n_codes, dtype=np.float64)
        cdef double[::1] pv = per_code
        cdef float v
        for i in range(n):
            v = self.X[samples[i], f]
            if v == v:
                cv[i] = <intp_t> v
                pv[cv[i]] += weights[i]
        present = np.flatnonzero(per_code > 0)
        present = present[np.lexsort((present, per_code[present]))]
        branch_of_code = np.full(n_codes, -1, dtype=np.intp)
        branch_of_code[present] = np.arange(present.shape[0])
        branch = np.where(codes >= 0, branch_of_code[np.maximum(codes, 0)], -1)
        children = self.split_instances(inst, branch, present.shape[0])
        # as in C4.5, a category no case here has gets an empty branch (a leaf
        # taking this node's classes); weightless, such branches come first
        empty = (np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.float64),
                 np.zeros((inst[2].shape[0], 0), dtype=np.int32),
                 np.zeros(inst[3].shape[0], dtype=np.intp))
        absent = [(int(code), empty) for code in np.flatnonzero(per_code <= 0)]
        n_missing = int(np.count_nonzero(codes < 0))
        return absent + [(int(code), child) for code, child in zip(present, children)], n_missing

    cdef push_cascade(self, list stack, intp_t node, intp_t f, list branches,
                      intp_t n_missing, intp_t depth):
        """Make ``node`` the head of a one-category-vs-rest cascade over ``branches``.
        Each link's statistics are suffix sums over its branches, taken once."""
        k = len(branches)
        stats = np.zeros((k + 1, self.K))
        weight = np.zeros(k + 1)
        cases = np.zeros(k + 1, dtype=np.intp)
        for j in range(k - 1, -1, -1):
            counts = self.class_counts(branches[j][1])
            stats[j] = stats[j + 1] + counts
            weight[j] = weight[j + 1] + counts.sum()
            # a case missing the split value sits in every present branch: once here
            n = branches[j][1][0].shape[0]
            cases[j] = cases[j + 1] + (n - n_missing if n else 0)
        cases[:k] += n_missing
        self.cascade_link(stack, node, f, branches, stats, weight, cases, 0, depth)

    cdef cascade_link(self, list stack, intp_t node, intp_t f, list branches, object stats,
                      object weight, object cases, intp_t j, intp_t depth):
        code, first = branches[j]
        self.set_split(node, f, NAN, code, float(weight[j] - weight[j + 1]), float(weight[j + 1]))
        if j + 2 == len(branches):
            stack.append(("grow", branches[j + 1][1], node, False, depth + 1))
        else:
            stack.append(("cascade", f, (branches, stats, weight, cases, j + 1), node, False,
                          depth + 1))
        stack.append(("grow", first, node, True, depth + 1))

    cdef cascade_node(self, list stack, intp_t f, tuple rest, intp_t parent, bint is_left,
                      intp_t depth):
        branches, stats, weight, cases, j = rest
        cdef intp_t node = self.add_node(parent, is_left, depth, stats[j], cases[j])
        if depth >= self.max_depth:
            return
        self.cascade_link(stack, node, f, branches, stats, weight, cases, j, depth)

    cdef list split_instances(self, tuple inst, object branch, intp_t n_branches):
        """Children's instances: known cases by ``branch``, missing (-1) ones to all.

        A missing case's weight is shared in proportion to the branches' known
        weights. Every numeric order stays sorted because children take their
        members in the parent's order.
        """
        cdef const int[::1] samples = inst[0]
        cdef const double[::1] weights = inst[1]
        cdef const int[:, ::1] order = inst[2]
        cdef const intp_t[::1] n_known = inst[3]
        cdef const intp_t[::1] bv = branch
        cdef intp_t n = samples.shape[0], n_num = order.shape[0], i, b, r, j, pos, size
        known_w = np.bincount(branch[branch >= 0], weights=np.asarray(weights)[branch >= 0],
                              minlength=n_branches)
        share = known_w / known_w.sum()
        cdef double[::1] sv = share
        n_known_b = np.bincount(branch[branch >= 0], minlength=n_branches).astype(np.intp)
        missing = np.flatnonzero(branch < 0)
        cdef intp_t n_missing = missing.shape[0]
        # local index of each parent instance inside its child
        rank = np.empty(n, dtype=np.intp)
        cdef intp_t[::1] rv = rank
        fill = np.zeros(n_branches, dtype=np.intp)
        cdef intp_t[::1] fv = fill
        cdef intp_t m = 0
        for i in range(n):
            b = bv[i]
            if b >= 0:
                rv[i] = fv[b]
                fv[b] += 1
            else:
                rv[i] = m
                m += 1
        offsets = np.zeros(n_branches + 1, dtype=np.intp)
        np.cumsum(n_known_b + n_missing, out=offsets[1:])
        cdef intp_t[::1] ov = offsets
        cdef intp_t[::1] kv = n_known_b
        cdef intp_t total = offsets[n_branches]
        all_samples = np.empty(total, dtype=np.int32)
        all_weights = np.empty(total, dtype=np.float64)
        all_order = np.empty((n_num, total), dtype=np.int32)
        child_known = np.zeros((n_branches, n_num), dtype=np.intp)
        cdef int[::1] asv = all_samples
        cdef double[::1] awv = all_weights
        cdef int[:, ::1] aov = all_order
        cdef intp_t[:, ::1] ckv = child_known
        with nogil:
            for i in range(n):
                b = bv[i]
                if b >= 0:
                    asv[ov[b] + rv[i]] = samples[i]
                    awv[ov[b] + rv[i]] = weights[i]
                else:
                    for b in range(n_branches):
                        asv[ov[b] + kv[b] + rv[i]] = samples[i]
                        awv[ov[b] + kv[b] + rv[i]] = weights[i] * sv[b]
            for r in range(n_num):
                for b in range(n_branches):
                    fv[b] = 0
                for pos in range(n):
                    i = order[r, pos]
                    b = bv[i]
                    if b >= 0:
                        aov[r, ov[b] + fv[b]] = <int> rv[i]
                        fv[b] += 1
                        if pos < n_known[r]:
                            ckv[b, r] += 1
                    else:
                        for j in range(n_branches):
                            aov[r, ov[j] + fv[j]] = <int> (kv[j] + rv[i])
                            fv[j] += 1
                            if pos < n_known[r]:
                                ckv[j, r] += 1
        children = []
        for b in range(n_branches):
            lo, hi = offsets[b], offsets[b + 1]
            children.append((all_samples[lo:hi].copy(), all_weights[lo:hi].copy(),
                             np.ascontiguousarray(all_order[:, lo:hi]), child_known[b].copy()))
        return children


def grow_c45(X, y, weights, n_classes, is_categorical, n_codes, *, max_depth,
             min_samples_split, min_objs, min_impurity_decrease, use_ratio=True,
             one_vs_rest=False):
    """Grow a C4.5 tree (see the module docstring).

    Parameters
    ----------
    X : ndarray (n_samples, n_features), C-contiguous float32
        Numbers and category codes; NaN is missing.
    y : ndarray (n_samples,), intp
        Class codes.
    weights : ndarray (n_samples,), float64, all > 0
    n_classes : int
    is_categorical : ndarray (n_features,), uint8
    n_codes : ndarray (n_features,), int32
        Number of categories of each categorical feature.
    max_depth, min_samples_split : int
    min_objs : float
        C4.5's MINOBJS: the weight two branches must each reach.
    min_impurity_decrease : float
        Weighted gain (as a fraction of the root weight) a split must reach.
    use_ratio : bool
        Gain ratio with C4.5's average-gain filter; else plain gain.
    one_vs_rest : bool
        Categorical splits send one category against the rest (Weka J48's
        ``-B``), the feature free to split again below; else one branch per
        category.

    Returns
    -------
    dict of ndarray
        The layout of ``NodeStore.to_arrays``.
    """
    grower = _Grower(X, np.ascontiguousarray(y, dtype=np.intp),
                     np.ascontiguousarray(is_categorical, dtype=np.uint8),
                     np.ascontiguousarray(n_codes, dtype=np.int32), n_classes, max_depth,
                     min_samples_split, min_objs, min_impurity_decrease, use_ratio,
                     one_vs_rest)
    samples = np.arange(X.shape[0], dtype=np.int32)
    return grower.grow(samples, np.ascontiguousarray(weights, dtype=np.float64))
