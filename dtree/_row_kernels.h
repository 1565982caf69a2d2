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

#endif  /* DTREE_ROW_KERNELS_H */
