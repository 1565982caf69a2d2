/* Row mode of the random splitter (``_row_cuts`` in _splitter.pyx): a node's
 * rows of X read once for every feature's range and once for every drawn cut's
 * left-side sums, as plain loops over each row's features (_row_plain.h) that
 * the compiler runs on vector lanes: across features, so that each feature's
 * numbers are made row after row, in the same order and with the same roundings
 * on every machine. The loops are compiled twice: for the baseline and, on
 * x86-64, for AVX2 (chosen at import with the exact splitter's kernels; an
 * extra-trees regressor's fit measured 2-9% faster on AVX2 lanes, 20 to 50
 * features). AVX2 brings no fused multiply-add, so both copies give the same
 * bits. (Hand-written AVX-512 loops were tried and dropped: 1-4% beyond the
 * AVX2 copy.)
 */
#ifndef DTREE_ROW_KERNELS_H
#define DTREE_ROW_KERNELS_H

#include "_vector_kernels.h"

/* rows fetched this far ahead of their use (their ids are known in advance) */
#define DTREE_ROW_AHEAD 8

#if defined(__GNUC__) || defined(__clang__)
#define DTREE_ROW_PREFETCH(p) __builtin_prefetch(p)
#define DTREE_RESTRICT __restrict__
#elif defined(_MSC_VER)
#define DTREE_ROW_PREFETCH(p) ((void)0)
#define DTREE_RESTRICT __restrict
#else
#define DTREE_ROW_PREFETCH(p) ((void)0)
#define DTREE_RESTRICT
#endif

/* what the second pass sums per feature, for its g-weighted terms:
 * 0: count and class code (two classes, unit weights);
 * 1: count, weight and the row's class's weight (classes);
 * 2: count and y (squared error, unit weights);
 * 3: count, weight and w * y (squared error, weights).
 * (No square is summed: a random cut's proxy, tie key and checks read the sums
 * alone, and the winner's children are summed afresh.) */
enum { DTREE_ROWS_TWO_CLASSES = 0, DTREE_ROWS_CLASSES = 1, DTREE_ROWS_SUMS = 2,
       DTREE_ROWS_WEIGHTED_SUMS = 3 };

/* the plain loops: the baseline copy, and the AVX2 one */
#define DTREE_ROW_PLAIN(name) dtree_row_plain_##name
#define DTREE_ROW_PLAIN_TARGET
#include "_row_plain.h"
#undef DTREE_ROW_PLAIN
#undef DTREE_ROW_PLAIN_TARGET
#ifdef DTREE_X86_SIMD
#define DTREE_ROW_PLAIN(name) dtree_row_avx2_##name
#define DTREE_ROW_PLAIN_TARGET __attribute__((target("avx2")))
#include "_row_plain.h"
#undef DTREE_ROW_PLAIN
#undef DTREE_ROW_PLAIN_TARGET
#endif


/* Each feature's least and greatest value (NaN aside) and NaN count over a node's
 * n rows of X (row i at xrows + i * d; the node's ids[0..n)), folded into lo,
 * hi and nm as they stand. */
static void dtree_row_ranges(const float* xrows, const int* ids, ptrdiff_t n, ptrdiff_t d,
                             float* lo, float* hi, int* nm)
{
#ifdef DTREE_X86_SIMD
    if (dtree_simd_level() >= DTREE_SIMD_AVX2) {
        dtree_row_avx2_ranges(xrows, ids, n, d, lo, hi, nm);
        return;
    }
#endif
    dtree_row_plain_ranges(xrows, ids, n, d, lo, hi, nm);
}

/* Every feature's left-side sums at its cut (value <= threshold[f], NaN read as
 * nan_value[f]) over a node's n rows, added to the arrays the kind names
 * (``DTREE_ROWS_*``): count, then ones (codes), weight and sum as the
 * kind has them; by_class[c * d + f] the classes' weights. Row q's target is
 * ny[q] or class nc[q], its weight nw[q] (NULL: 1). */
static void dtree_row_sums(int kind, const float* xrows, const int* ids, ptrdiff_t n,
                           ptrdiff_t d, const double* threshold, const double* nan_value,
                           const double* ny, const double* nw, const int* nc, double* count,
                           double* ones, double* weight, double* sum, double* by_class)
{
#ifdef DTREE_X86_SIMD
    if (dtree_simd_level() >= DTREE_SIMD_AVX2) {
        dtree_row_avx2_sums(kind, xrows, ids, n, d, threshold, nan_value, ny, nw, nc, count,
                            ones, weight, sum, by_class);
        return;
    }
#endif
    dtree_row_plain_sums(kind, xrows, ids, n, d, threshold, nan_value, ny, nw, nc, count,
                         ones, weight, sum, by_class);
}

/* A few features of a node's n rows gathered in one pass (``_sample_split``'s
 * predicted draw): feature f[b]'s values into out + b * stride, their least
 * and greatest (NaN aside) and NaN count into lo[b], hi[b], nm[b]. A row's
 * features share its cache lines, so one pass waits on each row once where a
 * gather per feature waited on it per feature. The count k of features is a
 * literal in each copy (``dtree_gather_few``), so that every running least and
 * greatest stays in a register. */
#define DTREE_GATHER_MAX 8

static inline void dtree_gather_k(const float* DTREE_RESTRICT xrows, const int* ids,
                                  ptrdiff_t n, ptrdiff_t d, const ptrdiff_t* f, int k,
                                  float* DTREE_RESTRICT out, ptrdiff_t stride, float* lo,
                                  float* hi, ptrdiff_t* nm)
{
    float least[DTREE_GATHER_MAX], greatest[DTREE_GATHER_MAX];
    ptrdiff_t missing[DTREE_GATHER_MAX], q;
    int b;
    for (b = 0; b < k; b++) {
        least[b] = INFINITY;
        greatest[b] = -INFINITY;
        missing[b] = 0;
    }
    for (q = 0; q < n; q++) {
        const float* row = xrows + (ptrdiff_t)ids[q] * d;
        if (q + DTREE_ROW_AHEAD < n) {
            const float* ahead = xrows + (ptrdiff_t)ids[q + DTREE_ROW_AHEAD] * d;
            DTREE_ROW_PREFETCH(ahead);
            DTREE_ROW_PREFETCH(ahead + d - 1);   /* (a row may span two lines) */
        }
        for (b = 0; b < k; b++) {
            float x = row[f[b]];
            out[b * stride + q] = x;
            missing[b] += x != x;
            least[b] = x < least[b] ? x : least[b];
            greatest[b] = x > greatest[b] ? x : greatest[b];
        }
    }
    for (b = 0; b < k; b++) {
        lo[b] = least[b];
        hi[b] = greatest[b];
        nm[b] = missing[b];
    }
}

static void dtree_gather_few(const float* xrows, const int* ids, ptrdiff_t n, ptrdiff_t d,
                             const ptrdiff_t* f, int k, float* out, ptrdiff_t stride,
                             float* lo, float* hi, ptrdiff_t* nm)
{
    switch (k) {   /* (each case a copy with k a literal) */
    case 1: dtree_gather_k(xrows, ids, n, d, f, 1, out, stride, lo, hi, nm); break;
    case 2: dtree_gather_k(xrows, ids, n, d, f, 2, out, stride, lo, hi, nm); break;
    case 3: dtree_gather_k(xrows, ids, n, d, f, 3, out, stride, lo, hi, nm); break;
    case 4: dtree_gather_k(xrows, ids, n, d, f, 4, out, stride, lo, hi, nm); break;
    case 5: dtree_gather_k(xrows, ids, n, d, f, 5, out, stride, lo, hi, nm); break;
    case 6: dtree_gather_k(xrows, ids, n, d, f, 6, out, stride, lo, hi, nm); break;
    case 7: dtree_gather_k(xrows, ids, n, d, f, 7, out, stride, lo, hi, nm); break;
    default: dtree_gather_k(xrows, ids, n, d, f, DTREE_GATHER_MAX, out, stride, lo, hi, nm);
    }
}

#endif  /* DTREE_ROW_KERNELS_H */
