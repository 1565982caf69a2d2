# cython: language_level=3
"""The search for the set of categories a binary split sends left: written once for
the exact splitter (``_splitter``, groups from a sorted column) and the histogram
splitter (``_hist_splitter``, groups from bins).

A categorical feature's samples in a node fall into groups: one per category
present (in code order), then the missing values. Up to SUBSETS_EXHAUSTIVE groups
every subset is tried (Gray code: one group moves per step), which is exact for
every criterion and leaf-size limit. Above that, for two classes and for
regression the groups are ordered by class-1 rate or mean and the m - 1 cuts of
that order are scanned (Breiman: exact for gini, entropy and squared error when
the leaf-size limits do not bind); for more classes, one group against the rest.
A subset beats the best only strictly, so among equal subsets the first met
stays. With ``one_vs_rest`` only one category against the rest is tried (the
missing values with the rest), as splits on one-hot columns would.
"""
from libc.string cimport memset

from ._common cimport better, CAT_WORDS, check_cut, CUT_SCORE, record_candidate, set_bit
from ._common cimport SplitRecord, tiny_weight
from ._criterion cimport clf_proxy, clf_rest_acc, clf_side_acc, node_entropy_terms, reg_proxy

from libc.math cimport NAN


cdef enum:
    SUBSETS_EXHAUSTIVE = 12      # every subset is tried up to this many groups


cdef struct Groups:
    # a categorical feature's groups in a node (filled by the splitter)
    double* stats           # per group, ``stride`` values: class weights, or sum w*y at [0]
    double* weight          # per group: its weight
    Py_ssize_t* count       # ... its samples
    int* code               # ... its category code, -1 for the missing values
    double* key             # Breiman's ordering key (scratch)
    Py_ssize_t* order       # groups in that order (scratch)
    Py_ssize_t stride
    double* left            # the left side's statistics (stride values, scratch)
    double left_weight
    Py_ssize_t left_count


cdef struct SubsetRules:
    # what scores a subset: the splitter's criterion and limits
    int criterion
    Py_ssize_t n_classes             # 0 for regression
    const double* xlogx_table
    Py_ssize_t min_samples_leaf
    double min_weight_leaf
    bint one_vs_rest                 # one category against the rest (and the missing values)


cdef inline void order_groups(Groups* g, Py_ssize_t m, bint regression) noexcept nogil:
    """Breiman's order: by class-1 rate (two classes) or mean (regression); stable,
    so equal keys keep code order."""
    cdef Py_ssize_t h, j
    cdef Py_ssize_t at = 0 if regression else 1
    for h in range(m):
        g.key[h] = g.stats[h * g.stride + at] / g.weight[h]
        j = h
        while j > 0 and g.key[g.order[j - 1]] > g.key[h]:
            g.order[j] = g.order[j - 1]
            j -= 1
        g.order[j] = h


cdef inline void move_group(Groups* g, Py_ssize_t h, int direction,
                            unsigned char* in_left) noexcept nogil:
    """Add (+1) or remove (-1) one group to/from the left side."""
    cdef Py_ssize_t k
    for k in range(g.stride):
        g.left[k] += direction * g.stats[h * g.stride + k]
    g.left_weight += direction * g.weight[h]
    g.left_count += direction * g.count[h]
    in_left[h] = direction > 0


cdef inline void consider_subset(Groups* g, const SubsetRules* r, Py_ssize_t f, Py_ssize_t m,
                                 const unsigned char* in_left, const double* stats,
                                 double weight, Py_ssize_t n_node, double w_node_entropy,
                                 double wlogw, SplitRecord* best) noexcept nogil:
    """Score the subset on the left and keep it if it beats the best."""
    cdef Py_ssize_t K = r.n_classes, h
    cdef double wl = g.left_weight, wr = weight - wl, num, den
    # a subset is not a cut of a scan: any rule failing just passes it
    if check_cut(g.left_count, n_node, wl, wr, r.min_samples_leaf, r.min_weight_leaf,
                 tiny_weight(weight)) != CUT_SCORE:
        return
    if K > 0:
        num = clf_proxy(r.criterion, wl, clf_side_acc(r.criterion, g.left, K, r.xlogx_table),
                        wr, clf_rest_acc(r.criterion, stats, g.left, K, r.xlogx_table),
                        w_node_entropy, wlogw, r.xlogx_table, 1.0, &den)
    else:
        num = reg_proxy(r.criterion, wl, g.left[0], wr, stats[0] - g.left[0], &den)
    if not better(num, den, best):
        return
    record_category_split(best, num, den, f, False)
    for h in range(m):
        if in_left[h]:
            if g.code[h] < 0:
                best.missing_left = True
            else:
                set_bit(best.cat_left, g.code[h])


cdef inline void record_category_split(SplitRecord* best, double num, double den,
                                       Py_ssize_t f, bint multiway) noexcept nogil:
    # the caller then fills cat_left (and cat_rest) and missing_left
    record_candidate(best, num, den, f, False, True, multiway)
    best.threshold = NAN
    memset(best.cat_left, 0, CAT_WORDS * sizeof(unsigned long long))
    memset(best.cat_rest, 0, CAT_WORDS * sizeof(unsigned long long))


cdef inline void search_subsets(Groups* g, const SubsetRules* r, Py_ssize_t f, Py_ssize_t m,
                                const double* stats, double weight, Py_ssize_t n_node,
                                unsigned char* in_left, SplitRecord* best) noexcept nogil:
    """The best subset of the m groups to send left (see the module docstring);
    ``in_left`` is scratch of m bytes."""
    cdef double wlogw = 0.0, w_node_entropy = 0.0
    cdef unsigned long long n_subsets, code, prev, changed
    cdef Py_ssize_t i, h
    if m < 2:
        return
    if r.n_classes > 0:
        node_entropy_terms(r.criterion, stats, r.n_classes, weight, r.xlogx_table, False,
                           &wlogw, &w_node_entropy)
    memset(in_left, 0, m)
    memset(g.left, 0, g.stride * sizeof(double))
    g.left_weight = 0.0
    g.left_count = 0
    if r.one_vs_rest:
        # one category against the rest, as a one-hot column would split; the
        # missing values stay with the rest
        for h in range(m):
            if g.code[h] < 0:
                continue
            move_group(g, h, 1, in_left)
            consider_subset(g, r, f, m, in_left, stats, weight, n_node, w_node_entropy, wlogw,
                            best)
            move_group(g, h, -1, in_left)
    elif m <= SUBSETS_EXHAUSTIVE:
        # every subset with group 0 on the right, in Gray-code order
        n_subsets = (<unsigned long long>1) << (m - 1)
        prev = 0
        for i in range(1, <Py_ssize_t>n_subsets):
            code = (<unsigned long long>i) ^ ((<unsigned long long>i) >> 1)
            changed = code ^ prev
            h = 1
            while not (changed & 1):
                changed >>= 1
                h += 1
            move_group(g, h, 1 if (code & (code ^ prev)) else -1, in_left)
            prev = code
            consider_subset(g, r, f, m, in_left, stats, weight, n_node, w_node_entropy, wlogw,
                            best)
    elif r.n_classes == 0 or r.n_classes == 2:
        order_groups(g, m, r.n_classes == 0)
        for i in range(m - 1):
            move_group(g, g.order[i], 1, in_left)
            consider_subset(g, r, f, m, in_left, stats, weight, n_node, w_node_entropy, wlogw,
                            best)
    else:
        for h in range(m):
            move_group(g, h, 1, in_left)
            consider_subset(g, r, f, m, in_left, stats, weight, n_node, w_node_entropy, wlogw,
                            best)
            move_group(g, h, -1, in_left)
