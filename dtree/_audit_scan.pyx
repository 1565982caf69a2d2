# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Competitor and surrogate splits of a fitted tree, in one replay of its growth.

The exact splitter presorts the training rows once; the replay walks the
fitted tree's split nodes, and at each one (its rows a contiguous segment of
every presorted feature, as during growth):

* scans every other feature with the splitter's own scan (``_scan``: the same
  criterion, leaf limits, missing-value sides and category subsets), keeps the
  k best by the scans' rule (ties to the lower feature index) and routes each
  (``finish_split``) for its children's impurities;
* routes the node's own split (``finish_split``), which marks each row's side;
* finds on every other feature rpart's best agreeing split (``choose_surg``:
  the rows the primary sends somewhere count, a threshold sends two of them
  each way, ties to the first threshold met, then "below goes right"; a
  category goes to the side most of its weight went) and keeps the s best;
* partitions the segment by the node's split, as growth did.

So the whole pass costs about one fit, where scanning each node afresh would
sort its rows again per feature.
"""
import numpy as np
cimport numpy as cnp

cnp.import_array()

from libc.string cimport memcpy, memset

from ._common cimport bit_is_set, CAT_WORDS, clear_split, compare_score, DTYPE_t, MAX_CATEGORIES
from ._common cimport midpoint, put_bit, set_bit, SplitRecord, word_t
from ._criterion cimport node_impurity
from ._splitter cimport Splitter


cdef inline Py_ssize_t numbers_end(const DTYPE_t* v, Py_ssize_t start,
                                   Py_ssize_t end) noexcept nogil:
    # missing values (NaN) sort last in a segment
    while end > start and v[end - 1] != v[end - 1]:
        end -= 1
    return end


cdef inline void add_to_side(const word_t* goes_left, Py_ssize_t i, double w, double* left,
                             double* right) noexcept nogil:
    # row i's weight to the side the primary split sent it
    if bit_is_set(goes_left, i):
        left[0] += w
    else:
        right[0] += w


cdef struct Agreement:
    bint found
    double agree            # weight sent the primary's way
    double threshold        # numeric: x <= threshold is the test
    bint passing_left       # rows passing the test go left
    word_t cats[CAT_WORDS]  # categorical: the codes that go left
    word_t seen[CAT_WORDS]  # ... and the codes it decides (those the node's rows hold)


cdef class _Replay:
    cdef Splitter sp
    cdef Py_ssize_t n, d
    cdef word_t* primary_missing     # bit i: row i lacks the node's split feature
    cdef word_t* decided             # bit i: a surrogate already decided row i
    cdef double* cat_w               # per category: weight left, weight right
    cdef Py_ssize_t* cat_n           # ... and rows left, rows right
    cdef object _owned

    def __cinit__(self, Splitter sp):
        self.sp = sp
        self.n = sp.n_samples
        self.d = sp.n_features
        words = np.zeros((self.n + 63) // 64 + 1, dtype=np.uint64)
        done = np.zeros((self.n + 63) // 64 + 1, dtype=np.uint64)
        cw = np.zeros(2 * (MAX_CATEGORIES + 1), dtype=np.float64)
        cn = np.zeros(2 * (MAX_CATEGORIES + 1), dtype=np.intp)
        self._owned = (words, done, cw, cn)
        cdef cnp.uint64_t[::1] wv = words, dv = done
        cdef double[::1] cwv = cw
        cdef Py_ssize_t[::1] cnv = cn
        self.primary_missing = <word_t*> &wv[0]
        self.decided = <word_t*> &dv[0]
        self.cat_w = &cwv[0]
        self.cat_n = &cnv[0]

    cdef void mark_primary(self, Py_ssize_t f, Py_ssize_t start, Py_ssize_t end,
                           double* wl, double* wr) noexcept nogil:
        """Which rows lack the split feature; the weight the split sends each way."""
        cdef const DTYPE_t* v = self.sp.vals + f * self.n
        cdef const int* ix = self.sp.idx + f * self.n
        cdef Py_ssize_t p, known = numbers_end(v, start, end)
        cdef int i
        cdef double w
        wl[0] = 0.0
        wr[0] = 0.0
        for p in range(start, end):
            i = ix[p]
            put_bit(self.primary_missing, i, p >= known)
            put_bit(self.decided, i, False)
            if p < known:
                add_to_side(self.sp.goes_left, i, self.sp.sw[i] if self.sp.sw != NULL else 1.0,
                            wl, wr)

    cdef void numeric_agreement(self, Py_ssize_t g, Py_ssize_t start, Py_ssize_t end,
                                Agreement* out) noexcept nogil:
        """rpart's best threshold on numeric feature g (see the module docstring)."""
        cdef const DTYPE_t* v = self.sp.vals + g * self.n
        cdef const int* ix = self.sp.idx + g * self.n
        cdef Py_ssize_t p, known = numbers_end(v, start, end)
        cdef Py_ssize_t n_all = 0, n_low = 0
        cdef double w_left = 0.0, w_right = 0.0, low_left = 0.0, low_right = 0.0
        cdef double w, best, a_right, a_left
        cdef int i
        cdef bint usable, seen = False
        cdef DTYPE_t last = 0
        out.found = False
        for p in range(start, known):
            i = ix[p]
            if bit_is_set(self.primary_missing, i):
                continue
            n_all += 1
            add_to_side(self.sp.goes_left, i, self.sp.sw[i] if self.sp.sw != NULL else 1.0,
                        &w_left, &w_right)
        best = w_left if w_left > w_right else w_right     # the majority's agreement
        out.agree = best
        for p in range(start, known):
            i = ix[p]
            if seen and v[p] != last and n_low >= 2 and n_all - n_low >= 2:
                # the cut between last and v[p]: "below goes right", then "left"
                a_right = low_right + (w_left - low_left)
                a_left = low_left + (w_right - low_right)
                if a_right > best:
                    best = a_right
                    out.found = True
                    out.passing_left = False
                    out.threshold = midpoint(last, v[p])
                elif a_left > best:
                    best = a_left
                    out.found = True
                    out.passing_left = True
                    out.threshold = midpoint(last, v[p])
            seen = True
            last = v[p]
            usable = not bit_is_set(self.primary_missing, i)
            if usable:
                n_low += 1
                add_to_side(self.sp.goes_left, i, self.sp.sw[i] if self.sp.sw != NULL else 1.0,
                            &low_left, &low_right)
        out.agree = best

    cdef void category_agreement(self, Py_ssize_t g, Py_ssize_t start, Py_ssize_t end,
                                 Py_ssize_t n_cat, Agreement* out) noexcept nogil:
        """rpart's best category set on categorical feature g: each category to the
        side most of its weight went, a tie to the majority side."""
        cdef const DTYPE_t* v = self.sp.vals + g * self.n
        cdef const int* ix = self.sp.idx + g * self.n
        cdef Py_ssize_t p, c, known = numbers_end(v, start, end)
        cdef Py_ssize_t agreeing = 0, disagreeing = 0
        cdef double w, total_left = 0.0, total_right = 0.0, agree = 0.0
        cdef double* wl = self.cat_w
        cdef double* wr = self.cat_w + (MAX_CATEGORIES + 1)
        cdef Py_ssize_t* nl = self.cat_n
        cdef Py_ssize_t* nr = self.cat_n + (MAX_CATEGORIES + 1)
        cdef int i
        cdef bint majority_left, left
        out.found = False
        memset(out.cats, 0, CAT_WORDS * sizeof(word_t))
        memset(out.seen, 0, CAT_WORDS * sizeof(word_t))
        for c in range(n_cat):
            wl[c] = 0.0
            wr[c] = 0.0
            nl[c] = 0
            nr[c] = 0
        for p in range(start, known):
            i = ix[p]
            if bit_is_set(self.primary_missing, i):
                continue
            c = <Py_ssize_t> v[p]
            w = self.sp.sw[i] if self.sp.sw != NULL else 1.0
            if bit_is_set(self.sp.goes_left, i):
                wl[c] += w
                nl[c] += 1
                total_left += w
            else:
                wr[c] += w
                nr[c] += 1
                total_right += w
        majority_left = total_left > total_right
        for c in range(n_cat):
            if nl[c] + nr[c] == 0:
                continue        # (rpart: undecided, the next surrogate's to decide)
            set_bit(out.seen, c)
            left = wl[c] > wr[c] or (wl[c] == wr[c] and majority_left)
            if left:
                set_bit(out.cats, c)
                agree += wl[c]
                agreeing += nl[c]
                disagreeing += nr[c]
            else:
                agree += wr[c]
                agreeing += nr[c]
                disagreeing += nl[c]
        out.agree = agree
        out.passing_left = True
        out.found = agreeing >= 2 and disagreeing >= 2 and \
            agree > (total_left if total_left > total_right else total_right)

    cdef Py_ssize_t count_decided(self, Py_ssize_t g, Py_ssize_t start,
                                  Py_ssize_t end) noexcept nogil:
        """Rows lacking the split feature that surrogate g decides (the rows earlier
        surrogates decided excepted); marks them decided."""
        cdef const DTYPE_t* v = self.sp.vals + g * self.n
        cdef const int* ix = self.sp.idx + g * self.n
        cdef Py_ssize_t p, count = 0, known = numbers_end(v, start, end)
        cdef int i
        for p in range(start, known):
            i = ix[p]
            if bit_is_set(self.primary_missing, i) and not bit_is_set(self.decided, i):
                set_bit(self.decided, i)
                count += 1
        return count


def replay(Splitter sp, tree, Py_ssize_t k, Py_ssize_t s):
    """Competitors (k per node) and surrogates (s per node) of ``tree``'s split nodes,
    ``sp`` holding the rows the tree was grown on (user units, zero weights dropped).

    Returns
    -------
    dict
        ``rows``: a list of dicts (node, kind 0/1, feature, threshold, codes or None,
        improvement or agreement, adj, goes_left, count), best first per node and
        kind; ``majority_left``: per node, 1 where the split sends more weight left
        (ties: ``tree.missing_go_to_left``).
    """
    cdef _Replay rp = _Replay(sp)
    cdef Py_ssize_t n = sp.n_samples, d = sp.n_features, S = sp.n_stats
    cdef Py_ssize_t node, start, end, f, g, j, best_f, n_left
    cdef double weight, impurity, wl, wr, total, majority
    cdef cnp.int64_t[::1] left_of = np.asarray(tree.children_left, dtype=np.int64)
    cdef cnp.int64_t[::1] right_of = np.asarray(tree.children_right, dtype=np.int64)
    cdef cnp.int64_t[::1] feature = np.asarray(tree.feature, dtype=np.int64)
    cdef cnp.int64_t[::1] cat_row = np.asarray(tree.categorical_set, dtype=np.int64)
    cdef cnp.int64_t[::1] n_node = np.asarray(tree.n_node_samples, dtype=np.int64)
    cdef double[::1] thresholds = np.asarray(tree.threshold, dtype=np.float64)
    cdef cnp.uint8_t[::1] missing_left = np.asarray(tree.missing_go_to_left, dtype=np.uint8)
    sets = np.ascontiguousarray(tree.category_sets, dtype=np.uint64).reshape(-1, CAT_WORDS)
    majority_left = np.asarray(tree.missing_go_to_left, dtype=np.uint8).copy()
    records = np.zeros(max(d, 1) * sizeof(SplitRecord), dtype=np.uint8)
    cdef cnp.uint8_t[::1] rec_bytes = records
    cdef SplitRecord* rec = <SplitRecord*> &rec_bytes[0]
    cdef SplitRecord primary
    cdef Agreement* agreements
    agree_bytes = np.zeros(max(d, 1) * sizeof(Agreement), dtype=np.uint8)
    cdef cnp.uint8_t[::1] agree_view = agree_bytes
    agreements = <Agreement*> &agree_view[0]
    taken_arr = np.zeros(max(d, 1), dtype=np.uint8)
    cdef cnp.uint8_t[::1] taken = taken_arr
    child = np.zeros(2 * S, dtype=np.float64)
    cdef double[::1] child_v = child
    cdef double[::1] stats_v
    cdef const int* n_cats = sp.n_categories
    rows = []
    root = np.zeros(S, dtype=np.float64)
    stats_v = root
    sp.begin(False)
    sp.root_stats(&stats_v[0], &weight)
    stack = [(0, 0, n, root, weight)]
    while stack:
        node, start, end, stats, weight = stack.pop()
        if left_of[node] < 0:
            continue
        stats_v = stats
        f = feature[node]
        impurity = node_impurity(sp.criterion, &stats_v[0], S, weight, sp.n_outputs)
        sp.prepare_node(start, end)
        # competitors: every other feature's best, the k best of them routed
        if k > 0:
            for g in range(d):
                clear_split(&rec[g], end)
                taken[g] = g == f
                if g != f and not sp.is_constant(g, start, end):
                    sp.scan_feature(g, start, end, &stats_v[0], weight, &rec[g])
                taken[g] = taken[g] or rec[g].feature < 0
            for j in range(k):
                best_f = -1
                for g in range(d):
                    if not taken[g] and (best_f < 0 or compare_score(
                            rec[g].num, rec[g].den, &rec[best_f]) > 0):
                        best_f = g
                if best_f < 0:
                    break
                taken[best_f] = True
                rec[best_f].proxy = rec[best_f].num / rec[best_f].den
                sp.finish_split(start, end, &stats_v[0], weight, impurity, weight,
                                &rec[best_f], &child_v[0])
                rows.append(_competitor(rec[best_f], node, weight * impurity, sp, start, end))
        # the node's own split routes its rows (and marks their sides)
        clear_split(&primary, end)
        primary.feature = f
        primary.threshold = thresholds[node]
        primary.missing_left = missing_left[node]
        primary.categorical = cat_row[node] >= 0
        primary.multiway = False
        memset(primary.cat_left, 0, CAT_WORDS * sizeof(word_t))
        if primary.categorical:
            for j in range(CAT_WORDS):
                primary.cat_left[j] = sets[cat_row[node], j]
        sp.finish_split(start, end, &stats_v[0], weight, impurity, weight, &primary,
                        &child_v[0])
        n_left = primary.pos - start
        if n_left != n_node[left_of[node]] or end - start != n_node[node]:
            raise RuntimeError(f"replaying node {node} routed {n_left} of {end - start} "
                               "rows left, not as the fit did")
        # surrogates, and the side the split sends more weight
        rp.mark_primary(f, start, end, &wl, &wr)
        if wl != wr:
            majority_left[node] = wl > wr
        total = wl + wr
        if s > 0 and total > 0:
            majority = (wl if wl > wr else wr) / total
            for g in range(d):
                taken[g] = True
                if g == f:
                    continue
                if n_cats[g] > 0:
                    rp.category_agreement(g, start, end, n_cats[g], &agreements[g])
                else:
                    rp.numeric_agreement(g, start, end, &agreements[g])
                if agreements[g].found and \
                        (agreements[g].agree / total - majority) / (1.0 - majority) > 1e-10:
                    taken[g] = False
            for j in range(s):
                best_f = -1
                for g in range(d):
                    if not taken[g] and (best_f < 0 or
                                         agreements[g].agree > agreements[best_f].agree):
                        best_f = g
                if best_f < 0:
                    break
                taken[best_f] = True
                rows.append(dict(
                    node=node, kind=1, feature=best_f,
                    threshold=np.nan if n_cats[best_f] > 0 else agreements[best_f].threshold,
                    codes=(_codes(agreements[best_f].cats, n_cats[best_f])
                           if n_cats[best_f] > 0 else None),
                    decided=(_codes(agreements[best_f].seen, n_cats[best_f])
                             if n_cats[best_f] > 0 else None),
                    improvement=agreements[best_f].agree / total,
                    adj=(agreements[best_f].agree / total - majority) / (1.0 - majority),
                    goes_left=int(agreements[best_f].passing_left),
                    count=rp.count_decided(best_f, start, end)))
        left_stats = child[:S].copy()
        right_stats = child[S:].copy()
        wl, wr = primary.weight_left, primary.weight_right
        sp.partition_node(start, end, &primary)
        stack.append((right_of[node], primary.pos, end, right_stats, wr))
        stack.append((left_of[node], start, primary.pos, left_stats, wl))
    return {"rows": rows, "majority_left": majority_left}


cdef list _codes(const word_t* bits, Py_ssize_t n_cat):
    return [c for c in range(n_cat) if bit_is_set(bits, c)]


cdef dict _competitor(SplitRecord r, Py_ssize_t node, double parent, Splitter sp,
                      Py_ssize_t start, Py_ssize_t end):
    cdef const DTYPE_t* v = sp.vals + r.feature * sp.n_samples
    cdef Py_ssize_t n_cat = sp.n_categories[r.feature]
    decrease = parent - (r.weight_left * r.impurity_left + r.weight_right * r.impurity_right)
    return dict(node=node, kind=0, feature=r.feature,
                threshold=np.nan if r.categorical else r.threshold,
                codes=_codes(r.cat_left, n_cat) if r.categorical else None, decided=None,
                improvement=max(decrease, 0.0), adj=0.0, goes_left=int(r.missing_left),
                count=end - numbers_end(v, start, end))
