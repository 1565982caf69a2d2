/* Row mode of the random splitter (``_row_cuts`` in _splitter.pyx) on vector
 * lanes: a node's rows of X are read once for every feature's range and once
 * for every drawn cut's left-side sums. The scalar loops walk each row's d
 * values one by one; here a row's features are lanes (16 floats, or 8 doubles
 * for the sums), up to DTREE_ROW_BLOCK of them at a time, the accumulators
 * staying in registers while the rows stream past. A wider X is done a block
 * of features per pass over the rows: each pass reads other cache lines of the
 * same rows, so the traffic is that of one pass.
 *
 * Every feature's numbers are made in the scalar loops' order, row after row,
 * with the same roundings, so the trees are the same:
 *  - least and greatest: MINPS/MAXPS return their second operand unless the
 *    first is below (above) it, which is the scalar ``x < lo ? x : lo``,
 *    NaN and signed zeros included;
 *  - the sums: the scalar loop adds g * t for a side g of 1 or 0 and a term t
 *    (1, a class code, a weight, w * y, (w * y) * y, each rounded as the
 *    scalar rounds it); g * t is t or a zero, and adding a zero leaves a sum
 *    that is not -0 as it is (these sums start at +0 and round to nearest), so
 *    a masked add of t gives the same bits. The terms are formed once per row
 *    with plain products, never fused.
 * The functions return 0 where no vector version runs (the caller's scalar
 * loop then does the work), else 1.
 */
#ifndef DTREE_ROW_KERNELS_H
#define DTREE_ROW_KERNELS_H

#include "_vector_kernels.h"

/* features one pass over the rows takes (two 16-float or four 8-double vectors) */
#define DTREE_ROW_BLOCK 32
/* rows fetched this far ahead of their use (their ids are known in advance) */
#define DTREE_ROW_AHEAD 8

/* what the second pass sums per feature, for its g-weighted terms:
 * 0: count and class code (two classes, unit weights);
 * 1: count, weight and the row's class's weight (classes);
 * 2: count, y and y * y (squared error, unit weights);
 * 3: count, weight, w * y and (w * y) * y (squared error, weights) */
enum { DTREE_ROWS_TWO_CLASSES = 0, DTREE_ROWS_CLASSES = 1, DTREE_ROWS_SQUARES = 2,
       DTREE_ROWS_WEIGHTED_SQUARES = 3 };

#ifdef DTREE_X86_SIMD

/* a mask of the first k of 16 lanes (k may be <= 0 or > 16) */
static inline __mmask16 dtree_first_lanes16(ptrdiff_t k)
{
    return k <= 0 ? 0 : (k >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << k) - 1u));
}

__attribute__((target("avx512f")))
static inline void dtree_row_prefetch(const float* row, ptrdiff_t width)
{
    __builtin_prefetch(row);
    __builtin_prefetch(row + width - 1);
}

/* features [f0, f0 + width) of the ranges, width <= DTREE_ROW_BLOCK */
__attribute__((target("avx512f")))
static void dtree_row_ranges_avx512(const float* xrows, const int* ids, ptrdiff_t n,
                                    ptrdiff_t d, ptrdiff_t f0, ptrdiff_t width, float* lo,
                                    float* hi, int* nm)
{
    __mmask16 m0 = dtree_first_lanes16(width), m1 = dtree_first_lanes16(width - 16);
    __m512 lo0 = _mm512_maskz_loadu_ps(m0, lo + f0), lo1 = _mm512_maskz_loadu_ps(m1, lo + f0 + 16);
    __m512 hi0 = _mm512_maskz_loadu_ps(m0, hi + f0), hi1 = _mm512_maskz_loadu_ps(m1, hi + f0 + 16);
    __m512i c0 = _mm512_maskz_loadu_epi32(m0, nm + f0);
    __m512i c1 = _mm512_maskz_loadu_epi32(m1, nm + f0 + 16);
    __m512i one = _mm512_set1_epi32(1);
    ptrdiff_t q;
    for (q = 0; q < n; q++) {
        const float* row = xrows + (ptrdiff_t)ids[q] * d + f0;
        __m512 x0, x1;
        if (q + DTREE_ROW_AHEAD < n)
            dtree_row_prefetch(xrows + (ptrdiff_t)ids[q + DTREE_ROW_AHEAD] * d + f0, width);
        x0 = _mm512_maskz_loadu_ps(m0, row);
        x1 = _mm512_maskz_loadu_ps(m1, row + 16);
        c0 = _mm512_mask_add_epi32(c0, _mm512_cmp_ps_mask(x0, x0, _CMP_UNORD_Q), c0, one);
        c1 = _mm512_mask_add_epi32(c1, _mm512_cmp_ps_mask(x1, x1, _CMP_UNORD_Q), c1, one);
        lo0 = _mm512_min_ps(x0, lo0);
        lo1 = _mm512_min_ps(x1, lo1);
        hi0 = _mm512_max_ps(x0, hi0);
        hi1 = _mm512_max_ps(x1, hi1);
    }
    _mm512_mask_storeu_ps(lo + f0, m0, lo0);
    _mm512_mask_storeu_ps(lo + f0 + 16, m1, lo1);
    _mm512_mask_storeu_ps(hi + f0, m0, hi0);
    _mm512_mask_storeu_ps(hi + f0 + 16, m1, hi1);
    _mm512_mask_storeu_epi32(nm + f0, m0, c0);
    _mm512_mask_storeu_epi32(nm + f0 + 16, m1, c1);
}

/* eight features' sides at a cut (the lanes in ``in``): value <= threshold, NaN
 * read as nan_value */
__attribute__((target("avx512f")))
static inline __mmask8 dtree_row_sides8(const float* row, __mmask16 lanes, __mmask8 in,
                                        __m512d threshold, __m512d nan_value)
{
    __m512d x = _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_maskz_loadu_ps(lanes, row)));
    __m512d v = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q), x, nan_value);
    return _mm512_mask_cmp_pd_mask(in, v, threshold, _CMP_LE_OQ);
}

/* features [f0, f0 + width) of the sums, width <= DTREE_ROW_BLOCK, for one kind
 * (a constant in each copy: ``dtree_row_sums_avx512``): a[k] is the k-th
 * per-feature array the kind sums (the count first), t[k] the row's term for it */
__attribute__((target("avx512f"), always_inline))
static inline void dtree_row_sums_kind(const int kind, const float* xrows, const int* ids,
                                       ptrdiff_t n, ptrdiff_t d, ptrdiff_t f0,
                                       ptrdiff_t width, const double* threshold,
                                       const double* nan_value, const double* ny,
                                       const double* nw, const int* nc, double* const* a,
                                       double* by_class)
{
    const int n_sums = kind == DTREE_ROWS_WEIGHTED_SQUARES ? 4
                       : (kind == DTREE_ROWS_SQUARES ? 3 : 2);
    __mmask16 lanes[4];
    __mmask8 in[4];
    __m512d thr[4], nanv[4], acc[4][4], t[4];
    int c, k;
    ptrdiff_t q;
    for (c = 0; c < 4; c++) {
        ptrdiff_t left = width - 8 * c;
        in[c] = (__mmask8)dtree_first_lanes16(left < 8 ? left : 8);
        lanes[c] = (__mmask16)in[c];
        thr[c] = _mm512_maskz_loadu_pd(in[c], threshold + f0 + 8 * c);
        nanv[c] = _mm512_maskz_loadu_pd(in[c], nan_value + f0 + 8 * c);
        for (k = 0; k < 4; k++)
            acc[k][c] = k < n_sums ? _mm512_maskz_loadu_pd(in[c], a[k] + f0 + 8 * c)
                                   : _mm512_setzero_pd();
    }
    t[0] = _mm512_set1_pd(1.0);
    t[1] = t[2] = t[3] = _mm512_setzero_pd();
    for (q = 0; q < n; q++) {
        const float* row = xrows + (ptrdiff_t)ids[q] * d + f0;
        double* cls = NULL;
        if (q + DTREE_ROW_AHEAD < n)
            dtree_row_prefetch(xrows + (ptrdiff_t)ids[q + DTREE_ROW_AHEAD] * d + f0, width);
        if (kind == DTREE_ROWS_TWO_CLASSES) {
            t[1] = _mm512_set1_pd((double)nc[q]);
        } else if (kind == DTREE_ROWS_CLASSES) {
            t[1] = _mm512_set1_pd(nw != NULL ? nw[q] : 1.0);
            cls = by_class + (ptrdiff_t)nc[q] * d + f0;
        } else if (kind == DTREE_ROWS_SQUARES) {
            double y = ny[q];
            t[1] = _mm512_set1_pd(y);
            t[2] = _mm512_set1_pd(y * y);
        } else {
            double w = nw[q], y = ny[q], wy = w * y;
            t[1] = _mm512_set1_pd(w);
            t[2] = _mm512_set1_pd(wy);
            t[3] = _mm512_set1_pd(wy * y);
        }
        for (c = 0; c < 4; c++) {
            __mmask8 g;
            if (!in[c])
                break;
            g = dtree_row_sides8(row + 8 * c, lanes[c], in[c], thr[c], nanv[c]);
            for (k = 0; k < n_sums; k++)
                acc[k][c] = _mm512_mask_add_pd(acc[k][c], g, acc[k][c], t[k]);
            if (kind == DTREE_ROWS_CLASSES)
                _mm512_mask_storeu_pd(cls + 8 * c, g, _mm512_add_pd(
                    _mm512_maskz_loadu_pd(g, cls + 8 * c), t[1]));
        }
    }
    for (c = 0; c < 4; c++)
        for (k = 0; k < n_sums; k++)
            _mm512_mask_storeu_pd(a[k] + f0 + 8 * c, in[c], acc[k][c]);
}

__attribute__((target("avx512f")))
static void dtree_row_sums_avx512(int kind, const float* xrows, const int* ids, ptrdiff_t n,
                                  ptrdiff_t d, ptrdiff_t f0, ptrdiff_t width,
                                  const double* threshold, const double* nan_value,
                                  const double* ny, const double* nw, const int* nc,
                                  double* const* a, double* by_class)
{
    switch (kind) {
    case DTREE_ROWS_TWO_CLASSES:
        dtree_row_sums_kind(DTREE_ROWS_TWO_CLASSES, xrows, ids, n, d, f0, width, threshold,
                            nan_value, ny, nw, nc, a, by_class);
        break;
    case DTREE_ROWS_CLASSES:
        dtree_row_sums_kind(DTREE_ROWS_CLASSES, xrows, ids, n, d, f0, width, threshold,
                            nan_value, ny, nw, nc, a, by_class);
        break;
    case DTREE_ROWS_SQUARES:
        dtree_row_sums_kind(DTREE_ROWS_SQUARES, xrows, ids, n, d, f0, width, threshold,
                            nan_value, ny, nw, nc, a, by_class);
        break;
    default:
        dtree_row_sums_kind(DTREE_ROWS_WEIGHTED_SQUARES, xrows, ids, n, d, f0, width,
                            threshold, nan_value, ny, nw, nc, a, by_class);
        break;
    }
}

#endif  /* DTREE_X86_SIMD */

/* Each feature's least and greatest value (NaN aside) and NaN count over a node's
 * n rows of X (row i at xrows + i * d; the node's ids[0..n)), folded into lo,
 * hi and nm as they stand. Returns 0 where no vector version runs. */
static int dtree_row_ranges(const float* xrows, const int* ids, ptrdiff_t n, ptrdiff_t d,
                            float* lo, float* hi, int* nm)
{
#ifdef DTREE_X86_SIMD
    ptrdiff_t f0;
    if (dtree_simd_level() == DTREE_SIMD_AVX512) {
        for (f0 = 0; f0 < d; f0 += DTREE_ROW_BLOCK)
            dtree_row_ranges_avx512(xrows, ids, n, d, f0,
                                    d - f0 < DTREE_ROW_BLOCK ? d - f0 : DTREE_ROW_BLOCK,
                                    lo, hi, nm);
        return 1;
    }
#else
    (void)xrows; (void)ids; (void)n; (void)d; (void)lo; (void)hi; (void)nm;
#endif
    return 0;
}

/* Every feature's left-side sums at its cut (value <= threshold[f], NaN read as
 * nan_value[f]) over a node's n rows, added to the arrays the kind names
 * (``DTREE_ROWS_*``): count, then ones (codes), weight, sum and squares as the
 * kind has them; by_class[c * d + f] the classes' weights. Row q's target is
 * ny[q] or class nc[q], its weight nw[q] (NULL: 1). Returns 0 where no vector
 * version runs. */
static int dtree_row_sums(int kind, const float* xrows, const int* ids, ptrdiff_t n,
                          ptrdiff_t d, const double* threshold, const double* nan_value,
                          const double* ny, const double* nw, const int* nc, double* count,
                          double* ones, double* weight, double* sum, double* squares,
                          double* by_class)
{
#ifdef DTREE_X86_SIMD
    double* a[4];
    ptrdiff_t f0;
    if (dtree_simd_level() != DTREE_SIMD_AVX512)
        return 0;
    a[0] = count;
    switch (kind) {
    case DTREE_ROWS_TWO_CLASSES:
        a[1] = ones;
        a[2] = a[3] = NULL;
        break;
    case DTREE_ROWS_CLASSES:
        a[1] = weight;
        a[2] = a[3] = NULL;
        break;
    case DTREE_ROWS_SQUARES:
        a[1] = sum;
        a[2] = squares;
        a[3] = NULL;
        break;
    default:
        a[1] = weight;
        a[2] = sum;
        a[3] = squares;
        break;
    }
    for (f0 = 0; f0 < d; f0 += DTREE_ROW_BLOCK)
        dtree_row_sums_avx512(kind, xrows, ids, n, d, f0,
                              d - f0 < DTREE_ROW_BLOCK ? d - f0 : DTREE_ROW_BLOCK,
                              threshold, nan_value, ny, nw, nc, a, by_class);
    return 1;
#else
    (void)kind; (void)xrows; (void)ids; (void)n; (void)d; (void)threshold; (void)nan_value;
    (void)ny; (void)nw; (void)nc; (void)count; (void)ones; (void)weight; (void)sum;
    (void)squares; (void)by_class;
    return 0;
#endif
}

#endif  /* DTREE_ROW_KERNELS_H */
