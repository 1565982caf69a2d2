/* The exact splitter's two hot kernels on vector lanes, chosen at run time
 * (a wheel built for any x86-64 runs everywhere; other compilers and machines
 * use the scalar code, which gives the same trees).
 *
 * 1. The stable partition of one presorted column segment. The exact splitter
 * keeps every column sorted at every node: after a split, each column's
 * segment is stably partitioned into the rows that go left, then those that
 * go right (values, sample ids and one target per entry moving together). The
 * scalar kernel (``partition_segment`` in _common.pxd) writes each entry
 * twice, to the left cursor in place and to a scratch right cursor, so it is
 * bound by stores. Here 8 (AVX2) or 16 (AVX-512) entries move at once: their
 * sides are read from the bitset with one gather, and each array's lanes are
 * packed left and right by a permutation (AVX2: from a table indexed by the
 * side mask; AVX-512: its compress instruction), then stored whole. A
 * whole-vector store writes some lanes past its cursor. For the in-place left
 * part they land at positions below the end of the block just read (the left
 * cursor never passes the read position), which later stores overwrite; the
 * scratch right part needs DTREE_PARTITION_SLACK entries of room past the
 * segment's length. The result is the scalar kernel's, entry for entry.
 *
 * 2. The filtered scans of a two-class Gini or squared-error segment
 * (``filtered_scan`` in _splitter.pyx): a two-class block's running sums
 * (``dtree_gini_sums``), every cut's score (``dtree_cut_scores``) and the cuts
 * near the best score (``dtree_cuts_to_offer``), which alone are then offered
 * to the exact rule.
 *
 * 3. A forest tree's rows of the shared sorted columns (``dtree_kept_rows``).
 *
 * 4. A random cut's left side in a two-class node (``dtree_two_class_left``).
 *
 * DTREE_SIMD=0 (or 1) in the environment caps the instruction set at none (or
 * AVX2); DTREE_FILTERED_SCANS=0 offers every cut, one by one. Both are read
 * once, at import, and are there to compare kernels.
 */
#ifndef DTREE_VECTOR_KERNELS_H
#define DTREE_VECTOR_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

/* entries of scratch the vector kernels may write past a segment's right part */
#define DTREE_PARTITION_SLACK 16

enum { DTREE_SIMD_SCALAR = 0, DTREE_SIMD_AVX2 = 1, DTREE_SIMD_AVX512 = 2 };

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    !defined(DTREE_NO_SIMD) && (!defined(__clang__) || __clang_major__ >= 8)
#define DTREE_X86_SIMD 1
#include <immintrin.h>
#endif

/* the level in use: -1 until first asked (then the machine's best, or
 * DTREE_SIMD's if that is lower); set lower by tests to compare kernels */
static int dtree_simd_level_in_use = -1;

static int dtree_simd_machine_level(void)
{
#ifdef DTREE_X86_SIMD
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return DTREE_SIMD_AVX512;
    if (__builtin_cpu_supports("avx2"))
        return DTREE_SIMD_AVX2;
#endif
    return DTREE_SIMD_SCALAR;
}

static int dtree_simd_level(void)
{
    if (dtree_simd_level_in_use < 0) {
        int level = dtree_simd_machine_level();
        const char* env = getenv("DTREE_SIMD");
        if (env != NULL && env[0] >= '0' && env[0] <= '9' && env[0] - '0' < level)
            level = env[0] - '0';
        dtree_simd_level_in_use = level;
    }
    return dtree_simd_level_in_use;
}

/* whether the scans may filter their cuts a block at a time (any machine);
 * DTREE_FILTERED_SCANS=0 has every cut offered one by one, to compare */
static int dtree_filtered_scans(void)
{
    static int on = -1;
    if (on < 0) {
        const char* env = getenv("DTREE_FILTERED_SCANS");
        on = !(env != NULL && env[0] == '0');
    }
    return on;
}

#ifdef DTREE_X86_SIMD
static void dtree_fill_tables(void);
#endif

/* the level, the switches and the permutation tables settled once, at the
 * module's import (before any thread can ask) */
static void dtree_simd_init(void)
{
    (void)dtree_simd_level();
    (void)dtree_filtered_scans();
#ifdef DTREE_X86_SIMD
    dtree_fill_tables();
#endif
}

/* a level no higher than the machine's; returns the level now in use */
static int dtree_simd_set_level(int level)
{
    int best = dtree_simd_machine_level();
    dtree_simd_level_in_use = level < 0 ? 0 : (level > best ? best : level);
    return dtree_simd_level_in_use;
}

#ifdef DTREE_X86_SIMD

/* permutations packing the lanes a mask selects to the front: 8 x 32-bit lanes
 * (AVX2 values and ids), 4 x 64-bit lanes as 32-bit pairs (AVX2 doubles), and
 * 8 x 16-bit lanes as bytes (AVX2 class codes; 0x80 zeroes a byte) */
static uint32_t dtree_pack8[256][8];
static uint32_t dtree_pack4d[16][8];
static uint8_t dtree_pack8w[256][16];

static void dtree_fill_tables(void)
{
    int m, b, k;
    for (m = 0; m < 256; m++) {
        k = 0;
        for (b = 0; b < 8; b++)
            if ((m >> b) & 1) {
                dtree_pack8[m][k] = (uint32_t)b;
                dtree_pack8w[m][2 * k] = (uint8_t)(2 * b);
                dtree_pack8w[m][2 * k + 1] = (uint8_t)(2 * b + 1);
                k++;
            }
        for (; k < 8; k++) {
            dtree_pack8[m][k] = 0;
            dtree_pack8w[m][2 * k] = 0x80;
            dtree_pack8w[m][2 * k + 1] = 0x80;
        }
    }
    for (m = 0; m < 16; m++) {
        k = 0;
        for (b = 0; b < 4; b++)
            if ((m >> b) & 1) {
                dtree_pack4d[m][2 * k] = (uint32_t)(2 * b);
                dtree_pack4d[m][2 * k + 1] = (uint32_t)(2 * b + 1);
                k++;
            }
        for (; k < 4; k++) {
            dtree_pack4d[m][2 * k] = 0;
            dtree_pack4d[m][2 * k + 1] = 1;
        }
    }
}

/* the side bits of 8 sample ids, bit j for lane j (the bitset read as 32-bit
 * words: the same bits on a little-endian machine) */
__attribute__((target("avx2")))
static inline int dtree_sides8(const unsigned long long* goes_left, __m256i ids)
{
    const int* words = (const int*)goes_left;
    __m256i w = _mm256_i32gather_epi32(words, _mm256_srli_epi32(ids, 5), 4);
    w = _mm256_srlv_epi32(w, _mm256_and_si256(ids, _mm256_set1_epi32(31)));
    return _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(w, 31)));
}

__attribute__((target("avx2")))
static inline void dtree_pack_store8(float* left, float* right, int* left_i, int* right_i,
                                     __m256 x, __m256i ids, int L)
{
    __m256i pl = _mm256_loadu_si256((const __m256i*)dtree_pack8[L]);
    __m256i pr = _mm256_loadu_si256((const __m256i*)dtree_pack8[~L & 255]);
    _mm256_storeu_ps(left, _mm256_permutevar8x32_ps(x, pl));
    _mm256_storeu_ps(right, _mm256_permutevar8x32_ps(x, pr));
    _mm256_storeu_si256((__m256i*)left_i, _mm256_permutevar8x32_epi32(ids, pl));
    _mm256_storeu_si256((__m256i*)right_i, _mm256_permutevar8x32_epi32(ids, pr));
}

__attribute__((target("avx2")))
static ptrdiff_t dtree_partition_avx2_u16(float* v, int* ix, unsigned short* y,
                                          const unsigned long long* goes_left, float* tv, int* ti,
                                          unsigned short* ty, ptrdiff_t p, ptrdiff_t end)
{
    ptrdiff_t nl = p, nr = 0;
    for (; p + 8 <= end; p += 8) {
        __m256i ids = _mm256_loadu_si256((const __m256i*)(ix + p));
        __m256 x = _mm256_loadu_ps(v + p);
        __m128i c = _mm_loadu_si128((const __m128i*)(y + p));
        int L = dtree_sides8(goes_left, ids), k = __builtin_popcount(L);
        dtree_pack_store8(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L);
        _mm_storeu_si128((__m128i*)(y + nl), _mm_shuffle_epi8(
            c, _mm_loadu_si128((const __m128i*)dtree_pack8w[L])));
        _mm_storeu_si128((__m128i*)(ty + nr), _mm_shuffle_epi8(
            c, _mm_loadu_si128((const __m128i*)dtree_pack8w[~L & 255])));
        nl += k;
        nr += 8 - k;
    }
    for (; p < end; p++) {   /* the last few, as the scalar kernel moves them */
        int i = ix[p];
        float x = v[p];
        unsigned short c = y[p];
        int s = (int)((goes_left[i >> 6] >> (i & 63)) & 1);
        v[nl] = x; ix[nl] = i; y[nl] = c;
        tv[nr] = x; ti[nr] = i; ty[nr] = c;
        nl += s;
        nr += 1 - s;
    }
    return nl;
}

__attribute__((target("avx2")))
static ptrdiff_t dtree_partition_avx2_f64(float* v, int* ix, double* y,
                                          const unsigned long long* goes_left, float* tv, int* ti,
                                          double* ty, ptrdiff_t p, ptrdiff_t end)
{
    ptrdiff_t nl = p, nr = 0;
    for (; p + 8 <= end; p += 8) {
        __m256i ids = _mm256_loadu_si256((const __m256i*)(ix + p));
        __m256 x = _mm256_loadu_ps(v + p);
        __m256i lo = _mm256_loadu_si256((const __m256i*)(y + p));
        __m256i hi = _mm256_loadu_si256((const __m256i*)(y + p + 4));
        int L = dtree_sides8(goes_left, ids), k = __builtin_popcount(L);
        int L0 = L & 15, L1 = L >> 4, k0 = __builtin_popcount(L0);
        dtree_pack_store8(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L);
        /* each half's lanes packed, the second half's after the first's */
        _mm256_storeu_si256((__m256i*)(y + nl), _mm256_permutevar8x32_epi32(
            lo, _mm256_loadu_si256((const __m256i*)dtree_pack4d[L0])));
        _mm256_storeu_si256((__m256i*)(ty + nr), _mm256_permutevar8x32_epi32(
            lo, _mm256_loadu_si256((const __m256i*)dtree_pack4d[~L0 & 15])));
        _mm256_storeu_si256((__m256i*)(y + nl + k0), _mm256_permutevar8x32_epi32(
            hi, _mm256_loadu_si256((const __m256i*)dtree_pack4d[L1])));
        _mm256_storeu_si256((__m256i*)(ty + nr + 4 - k0), _mm256_permutevar8x32_epi32(
            hi, _mm256_loadu_si256((const __m256i*)dtree_pack4d[~L1 & 15])));
        nl += k;
        nr += 8 - k;
    }
    for (; p < end; p++) {
        int i = ix[p];
        float x = v[p];
        double c = y[p];
        int s = (int)((goes_left[i >> 6] >> (i & 63)) & 1);
        v[nl] = x; ix[nl] = i; y[nl] = c;
        tv[nr] = x; ti[nr] = i; ty[nr] = c;
        nl += s;
        nr += 1 - s;
    }
    return nl;
}

/* the side bits of 16 sample ids, bit j for lane j */
__attribute__((target("avx512f")))
static inline __mmask16 dtree_sides16(const unsigned long long* goes_left, __m512i ids)
{
    __m512i w = _mm512_i32gather_epi32(_mm512_srli_epi32(ids, 5), (const int*)goes_left, 4);
    w = _mm512_srlv_epi32(w, _mm512_and_si512(ids, _mm512_set1_epi32(31)));
    return _mm512_test_epi32_mask(w, _mm512_set1_epi32(1));
}

/* (a compress into a register and a whole store: the compressing store is slow
 * on some processors) */
__attribute__((target("avx512f")))
static inline void dtree_pack_store16(float* left, float* right, int* left_i, int* right_i,
                                      __m512 x, __m512i ids, __mmask16 L, __mmask16 R)
{
    _mm512_storeu_ps(left, _mm512_maskz_compress_ps(L, x));
    _mm512_storeu_ps(right, _mm512_maskz_compress_ps(R, x));
    _mm512_storeu_si512(left_i, _mm512_maskz_compress_epi32(L, ids));
    _mm512_storeu_si512(right_i, _mm512_maskz_compress_epi32(R, ids));
}

/* the segment's last entries (fewer than 16): masked loads, and the left part's
 * stores masked to its own lanes (whole stores could pass the segment's end) */
__attribute__((target("avx512f")))
static inline void dtree_pack_last16(float* left, float* right, int* left_i, int* right_i,
                                     __m512 x, __m512i ids, __mmask16 L, __mmask16 R)
{
    __mmask16 kept = (__mmask16)((1u << __builtin_popcount((unsigned)L)) - 1u);
    _mm512_mask_storeu_ps(left, kept, _mm512_maskz_compress_ps(L, x));
    _mm512_storeu_ps(right, _mm512_maskz_compress_ps(R, x));
    _mm512_mask_storeu_epi32(left_i, kept, _mm512_maskz_compress_epi32(L, ids));
    _mm512_storeu_si512(right_i, _mm512_maskz_compress_epi32(R, ids));
}

__attribute__((target("avx512f")))
static ptrdiff_t dtree_partition_avx512_u16(float* v, int* ix, unsigned short* y,
                                            const unsigned long long* goes_left, float* tv,
                                            int* ti, unsigned short* ty, ptrdiff_t p,
                                            ptrdiff_t end)
{
    ptrdiff_t nl = p, nr = 0;
    for (; p < end; p += 16) {
        int whole = p + 16 <= end;
        __mmask16 in = whole ? (__mmask16)0xFFFF : (__mmask16)((1u << (end - p)) - 1u);
        __m512i ids = _mm512_maskz_loadu_epi32(in, ix + p);
        __m512 x = _mm512_maskz_loadu_ps(in, v + p);
        __mmask16 L = dtree_sides16(goes_left, ids) & in, R = (__mmask16)(~L & in);
        int k = __builtin_popcount((unsigned)L);
        __m256i codes;
        if (whole) {
            codes = _mm256_loadu_si256((const __m256i*)(y + p));
        } else {   /* (a masked load of 16-bit lanes needs AVX-512BW) */
            unsigned short last[16] = {0};
            memcpy(last, y + p, (size_t)(end - p) * sizeof(unsigned short));
            codes = _mm256_loadu_si256((const __m256i*)last);
        }
        __m512i wide = _mm512_cvtepu16_epi32(codes);   /* a lane per code */
        __m256i cl = _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(L, wide));
        __m256i cr = _mm512_cvtepi32_epi16(_mm512_maskz_compress_epi32(R, wide));
        if (whole) {
            dtree_pack_store16(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L, R);
            _mm256_storeu_si256((__m256i*)(y + nl), cl);
        } else {
            dtree_pack_last16(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L, R);
            _mm512_mask_cvtepi32_storeu_epi16(y + nl, (__mmask16)((1u << k) - 1u),
                                              _mm512_maskz_compress_epi32(L, wide));
        }
        _mm256_storeu_si256((__m256i*)(ty + nr), cr);
        nl += k;
        nr += __builtin_popcount((unsigned)R);
    }
    return nl;
}

__attribute__((target("avx512f")))
static ptrdiff_t dtree_partition_avx512_f64(float* v, int* ix, double* y,
                                            const unsigned long long* goes_left, float* tv,
                                            int* ti, double* ty, ptrdiff_t p, ptrdiff_t end)
{
    ptrdiff_t nl = p, nr = 0;
    for (; p < end; p += 16) {
        int whole = p + 16 <= end;
        __mmask16 in = whole ? (__mmask16)0xFFFF : (__mmask16)((1u << (end - p)) - 1u);
        __m512i ids = _mm512_maskz_loadu_epi32(in, ix + p);
        __m512 x = _mm512_maskz_loadu_ps(in, v + p);
        __m512d lo = _mm512_maskz_loadu_pd((__mmask8)in, y + p);
        __m512d hi = _mm512_maskz_loadu_pd((__mmask8)(in >> 8), y + p + 8);
        __mmask16 L = dtree_sides16(goes_left, ids) & in, R = (__mmask16)(~L & in);
        __mmask8 L0 = (__mmask8)L, L1 = (__mmask8)(L >> 8);
        __mmask8 R0 = (__mmask8)R, R1 = (__mmask8)(R >> 8);
        int k0 = __builtin_popcount((unsigned)L0), k1 = __builtin_popcount((unsigned)L1);
        int r0 = __builtin_popcount((unsigned)R0), r1 = __builtin_popcount((unsigned)R1);
        if (whole) {
            dtree_pack_store16(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L, R);
            _mm512_storeu_pd(y + nl, _mm512_maskz_compress_pd(L0, lo));
            _mm512_storeu_pd(y + nl + k0, _mm512_maskz_compress_pd(L1, hi));
        } else {
            dtree_pack_last16(v + nl, tv + nr, ix + nl, ti + nr, x, ids, L, R);
            _mm512_mask_storeu_pd(y + nl, (__mmask8)((1u << k0) - 1u),
                                  _mm512_maskz_compress_pd(L0, lo));
            _mm512_mask_storeu_pd(y + nl + k0, (__mmask8)((1u << k1) - 1u),
                                  _mm512_maskz_compress_pd(L1, hi));
        }
        _mm512_storeu_pd(ty + nr, _mm512_maskz_compress_pd(R0, lo));
        _mm512_storeu_pd(ty + nr + r0, _mm512_maskz_compress_pd(R1, hi));
        nl += k0 + k1;
        nr += r0 + r1;
    }
    return nl;
}

/* A segment of at most 16 entries, partitioned in registers: each array's
 * lanes loaded once, the left lanes packed and stored at the segment's start
 * and the right lanes behind them, each store masked to its own lanes (no
 * scratch, no copy back: a small node's partition was mostly the three copies'
 * calls). The same result as the kernels above. */
__attribute__((target("avx512f")))
static ptrdiff_t dtree_partition_few_avx512_u16(float* v, int* ix, unsigned short* y,
                                                const unsigned long long* goes_left,
                                                ptrdiff_t start, ptrdiff_t end)
{
    __mmask16 in = (__mmask16)((1u << (end - start)) - 1u);
    __m512i ids = _mm512_maskz_loadu_epi32(in, ix + start);
    __m512 x = _mm512_maskz_loadu_ps(in, v + start);
    unsigned short few[16] = {0};
    memcpy(few, y + start, (size_t)(end - start) * sizeof(unsigned short));
    __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i*)few));
    __mmask16 L = dtree_sides16(goes_left, ids) & in, R = (__mmask16)(~L & in);
    int k = __builtin_popcount((unsigned)L);
    __mmask16 kl = (__mmask16)((1u << k) - 1u);
    __mmask16 kr = (__mmask16)((1u << (end - start - k)) - 1u);
    _mm512_mask_storeu_ps(v + start, kl, _mm512_maskz_compress_ps(L, x));
    _mm512_mask_storeu_ps(v + start + k, kr, _mm512_maskz_compress_ps(R, x));
    _mm512_mask_storeu_epi32(ix + start, kl, _mm512_maskz_compress_epi32(L, ids));
    _mm512_mask_storeu_epi32(ix + start + k, kr, _mm512_maskz_compress_epi32(R, ids));
    _mm512_mask_cvtepi32_storeu_epi16(y + start, kl, _mm512_maskz_compress_epi32(L, wide));
    _mm512_mask_cvtepi32_storeu_epi16(y + start + k, kr, _mm512_maskz_compress_epi32(R, wide));
    return start + k;
}

__attribute__((target("avx512f")))
static ptrdiff_t dtree_partition_few_avx512_f64(float* v, int* ix, double* y,
                                                const unsigned long long* goes_left,
                                                ptrdiff_t start, ptrdiff_t end)
{
    __mmask16 in = (__mmask16)((1u << (end - start)) - 1u);
    __m512i ids = _mm512_maskz_loadu_epi32(in, ix + start);
    __m512 x = _mm512_maskz_loadu_ps(in, v + start);
    __m512d lo = _mm512_maskz_loadu_pd((__mmask8)in, y + start);
    __m512d hi = _mm512_maskz_loadu_pd((__mmask8)(in >> 8), y + start + 8);
    __mmask16 L = dtree_sides16(goes_left, ids) & in, R = (__mmask16)(~L & in);
    __mmask8 L0 = (__mmask8)L, L1 = (__mmask8)(L >> 8);
    __mmask8 R0 = (__mmask8)R, R1 = (__mmask8)(R >> 8);
    int k0 = __builtin_popcount((unsigned)L0), k1 = __builtin_popcount((unsigned)L1);
    int r0 = __builtin_popcount((unsigned)R0), r1 = __builtin_popcount((unsigned)R1);
    int k = k0 + k1;
    __mmask16 kl = (__mmask16)((1u << k) - 1u);
    __mmask16 kr = (__mmask16)((1u << (r0 + r1)) - 1u);
    _mm512_mask_storeu_ps(v + start, kl, _mm512_maskz_compress_ps(L, x));
    _mm512_mask_storeu_ps(v + start + k, kr, _mm512_maskz_compress_ps(R, x));
    _mm512_mask_storeu_epi32(ix + start, kl, _mm512_maskz_compress_epi32(L, ids));
    _mm512_mask_storeu_epi32(ix + start + k, kr, _mm512_maskz_compress_epi32(R, ids));
    /* (each half's lanes packed, the second half's after the first's; every
     * value is read into a register before any store) */
    _mm512_mask_storeu_pd(y + start, (__mmask8)((1u << k0) - 1u),
                          _mm512_maskz_compress_pd(L0, lo));
    _mm512_mask_storeu_pd(y + start + k0, (__mmask8)((1u << k1) - 1u),
                          _mm512_maskz_compress_pd(L1, hi));
    _mm512_mask_storeu_pd(y + start + k, (__mmask8)((1u << r0) - 1u),
                          _mm512_maskz_compress_pd(R0, lo));
    _mm512_mask_storeu_pd(y + start + k + r0, (__mmask8)((1u << r1) - 1u),
                          _mm512_maskz_compress_pd(R1, hi));
    return start + k;
}

/* The scores of a block's cuts for a filtered scan (``filtered_scan`` in
 * _splitter.pyx): for q in [lo, hi), with the left weight wl = cw[q], x = cx[q]
 * (the left class-1 weight for a two-class Gini, kind 0; the left sum of w*y
 * for squared error, kind 1) and the value test on v[q], v[q + 1] (float32,
 * as ``scan_cut`` makes it), score[q] is the cut's proxy over its
 * denominator where the cut is scored, else -inf. The vector versions return
 * q where their lanes stopped (the caller scores the rest with
 * ``dtree_cut_score``) and their greatest score in *top (lower than the true
 * greatest when a NaN came up: the filter then only offers more). A score
 * here need not be the scalar one bit for bit: the filter's margin is far
 * above rounding. */
__attribute__((target("avx2")))
static ptrdiff_t dtree_cut_scores_avx2(int kind, const double* cw, const double* cx,
                                       const float* v, float tol, double weight,
                                       double total, double min_wleaf, double tiny,
                                       double* score, ptrdiff_t lo, ptrdiff_t hi,
                                       double* top)
{
    __m256d best = _mm256_set1_pd(-INFINITY), none = _mm256_set1_pd(-INFINITY);
    __m256d W = _mm256_set1_pd(weight), T = _mm256_set1_pd(total);
    __m256d minw = _mm256_set1_pd(min_wleaf), tin = _mm256_set1_pd(tiny);
    __m128 t4 = _mm_set1_ps(tol);
    double lanes[4];
    ptrdiff_t q = lo;
    int k;
    for (; q + 4 <= hi; q += 4) {
        __m256d here = _mm256_cvtps_pd(_mm_add_ps(_mm_loadu_ps(v + q), t4));
        __m256d next = _mm256_cvtps_pd(_mm_loadu_ps(v + q + 1));
        __m256d wl = _mm256_loadu_pd(cw + q), x = _mm256_loadu_pd(cx + q);
        __m256d wr = _mm256_sub_pd(W, wl), xr = _mm256_sub_pd(T, x), num;
        if (kind == 0) {   /* (l0^2 + l1^2) wr + (r0^2 + r1^2) wl */
            __m256d l0 = _mm256_sub_pd(wl, x), r0 = _mm256_sub_pd(wr, xr);
            num = _mm256_add_pd(
                _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(l0, l0), _mm256_mul_pd(x, x)), wr),
                _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(r0, r0), _mm256_mul_pd(xr, xr)),
                              wl));
        } else {           /* sl^2 wr + sr^2 wl */
            num = _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(x, x), wr),
                                _mm256_mul_pd(_mm256_mul_pd(xr, xr), wl));
        }
        __m256d ok = _mm256_and_pd(_mm256_cmp_pd(next, here, _CMP_NLE_UQ),
                                   _mm256_and_pd(_mm256_cmp_pd(wl, minw, _CMP_GE_OQ),
                                                 _mm256_cmp_pd(wl, tin, _CMP_GT_OQ)));
        __m256d sc = _mm256_blendv_pd(none, _mm256_div_pd(num, _mm256_mul_pd(wl, wr)), ok);
        _mm256_storeu_pd(score + q, sc);
        best = _mm256_max_pd(best, sc);
    }
    _mm256_storeu_pd(lanes, best);
    *top = lanes[0];
    for (k = 1; k < 4; k++)
        *top = lanes[k] > *top ? lanes[k] : *top;
    return q;
}

__attribute__((target("avx512f")))
static ptrdiff_t dtree_cut_scores_avx512(int kind, const double* cw, const double* cx,
                                         const float* v, float tol, double weight,
                                         double total, double min_wleaf, double tiny,
                                         double* score, ptrdiff_t lo, ptrdiff_t hi,
                                         double* top)
{
    __m512d best = _mm512_set1_pd(-INFINITY), none = _mm512_set1_pd(-INFINITY);
    __m512d W = _mm512_set1_pd(weight), T = _mm512_set1_pd(total);
    __m512d minw = _mm512_set1_pd(min_wleaf), tin = _mm512_set1_pd(tiny);
    __m256 t8 = _mm256_set1_ps(tol);
    ptrdiff_t q = lo;
    for (; q + 8 <= hi; q += 8) {
        __m512d here = _mm512_cvtps_pd(_mm256_add_ps(_mm256_loadu_ps(v + q), t8));
        __m512d next = _mm512_cvtps_pd(_mm256_loadu_ps(v + q + 1));
        __m512d wl = _mm512_loadu_pd(cw + q), x = _mm512_loadu_pd(cx + q);
        __m512d wr = _mm512_sub_pd(W, wl), xr = _mm512_sub_pd(T, x), num;
        if (kind == 0) {
            __m512d l0 = _mm512_sub_pd(wl, x), r0 = _mm512_sub_pd(wr, xr);
            num = _mm512_add_pd(
                _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(l0, l0), _mm512_mul_pd(x, x)), wr),
                _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(r0, r0), _mm512_mul_pd(xr, xr)),
                              wl));
        } else {
            num = _mm512_add_pd(_mm512_mul_pd(_mm512_mul_pd(x, x), wr),
                                _mm512_mul_pd(_mm512_mul_pd(xr, xr), wl));
        }
        __mmask8 ok = _mm512_cmp_pd_mask(next, here, _CMP_NLE_UQ)
                      & _mm512_cmp_pd_mask(wl, minw, _CMP_GE_OQ)
                      & _mm512_cmp_pd_mask(wl, tin, _CMP_GT_OQ);
        __m512d sc = _mm512_mask_div_pd(none, ok, num, _mm512_mul_pd(wl, wr));
        _mm512_storeu_pd(score + q, sc);
        best = _mm512_max_pd(best, sc);
    }
    *top = _mm512_reduce_max_pd(best);
    return q;
}

#endif  /* DTREE_X86_SIMD */

/* 4. A random cut's left side in a node of two classes and unit weights (the
 * random splitter's ``_score_sides``): of the node's n gathered values x, how
 * many go left (x <= t, NaN where ``missing_right`` is 0) and how many of those
 * are of class 1 (codes 0 or 1). Whole counts, the same in any order; t is a
 * float32 value (a random cut's threshold), so comparing in float32 is the
 * rule's own comparison. */
static void dtree_two_class_left_scalar(const float* x, const int* codes, ptrdiff_t n,
                                        float t, int missing_right, ptrdiff_t* n_left,
                                        ptrdiff_t* ones)
{
    ptrdiff_t q, left = 0, one = 0;
    for (q = 0; q < n; q++) {
        int g = 1 - ((x[q] > t) | ((x[q] != x[q]) & missing_right));
        left += g;
        one += g & codes[q];
    }
    *n_left += left;
    *ones += one;
}

#ifdef DTREE_X86_SIMD
__attribute__((target("avx512f")))
static ptrdiff_t dtree_two_class_left_avx512(const float* x, const int* codes, ptrdiff_t n,
                                             float t, int missing_right, ptrdiff_t* n_left,
                                             ptrdiff_t* ones)
{
    __m512 T = _mm512_set1_ps(t);
    ptrdiff_t q = 0, left = 0, one = 0;
    for (; q + 16 <= n; q += 16) {
        __m512 v = _mm512_loadu_ps(x + q);
        __mmask16 L = _mm512_cmp_ps_mask(v, T, _CMP_LE_OQ);
        if (!missing_right)
            L |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        __m512i c = _mm512_loadu_si512(codes + q);
        left += __builtin_popcount((unsigned)L);
        one += __builtin_popcount((unsigned)_mm512_mask_test_epi32_mask(L, c, c));
    }
    *n_left += left;
    *ones += one;
    return q;
}

__attribute__((target("avx2")))
static ptrdiff_t dtree_two_class_left_avx2(const float* x, const int* codes, ptrdiff_t n,
                                           float t, int missing_right, ptrdiff_t* n_left,
                                           ptrdiff_t* ones)
{
    __m256 T = _mm256_set1_ps(t);
    ptrdiff_t q = 0, left = 0, one = 0;
    for (; q + 8 <= n; q += 8) {
        __m256 v = _mm256_loadu_ps(x + q);
        __m256 l = _mm256_cmp_ps(v, T, _CMP_LE_OQ);
        if (!missing_right)
            l = _mm256_or_ps(l, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        int L = _mm256_movemask_ps(l);
        /* (class 1 lanes: their code's lowest bit moved to the sign) */
        int C = _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_slli_epi32(
            _mm256_loadu_si256((const __m256i*)(codes + q)), 31)));
        left += __builtin_popcount((unsigned)L);
        one += __builtin_popcount((unsigned)(L & C));
    }
    *n_left += left;
    *ones += one;
    return q;
}
#endif

static void dtree_two_class_left(const float* x, const int* codes, ptrdiff_t n, float t,
                                 int missing_right, ptrdiff_t* n_left, ptrdiff_t* ones)
{
    ptrdiff_t q = 0;
    *n_left = 0;
    *ones = 0;
#ifdef DTREE_X86_SIMD
    int level = dtree_simd_level();
    if (level == DTREE_SIMD_AVX512)
        q = dtree_two_class_left_avx512(x, codes, n, t, missing_right, n_left, ones);
    else if (level == DTREE_SIMD_AVX2)
        q = dtree_two_class_left_avx2(x, codes, n, t, missing_right, n_left, ones);
#endif
    dtree_two_class_left_scalar(x + q, codes + q, n - q, t, missing_right, n_left, ones);
}

/* Stable partition of [start, end) into left + right on the level in use, the
 * right part moved from scratch behind the left; returns where the right part
 * starts, or -1 when no vector kernel runs here (the caller's scalar one then
 * must). The scratch holds end - start + DTREE_PARTITION_SLACK entries. */
static ptrdiff_t dtree_partition_u16(float* v, int* ix, unsigned short* y,
                                     const unsigned long long* goes_left, float* tv, int* ti,
                                     unsigned short* ty, ptrdiff_t start, ptrdiff_t end)
{
#ifdef DTREE_X86_SIMD
    int level = dtree_simd_level();
    ptrdiff_t nl, nr;
    if (level == DTREE_SIMD_SCALAR)
        return -1;
    if (level == DTREE_SIMD_AVX512 && end - start <= 16)
        return end > start ? dtree_partition_few_avx512_u16(v, ix, y, goes_left, start, end)
                           : start;
    if (level == DTREE_SIMD_AVX512)
        nl = dtree_partition_avx512_u16(v, ix, y, goes_left, tv, ti, ty, start, end);
    else
        nl = dtree_partition_avx2_u16(v, ix, y, goes_left, tv, ti, ty, start, end);
    nr = end - nl;
    memcpy(v + nl, tv, (size_t)nr * sizeof(float));
    memcpy(ix + nl, ti, (size_t)nr * sizeof(int));
    memcpy(y + nl, ty, (size_t)nr * sizeof(unsigned short));
    return nl;
#else
    (void)v; (void)ix; (void)y; (void)goes_left; (void)tv; (void)ti; (void)ty;
    (void)start; (void)end;
    return -1;
#endif
}

static ptrdiff_t dtree_partition_f64(float* v, int* ix, double* y,
                                     const unsigned long long* goes_left, float* tv, int* ti,
                                     double* ty, ptrdiff_t start, ptrdiff_t end)
{
#ifdef DTREE_X86_SIMD
    int level = dtree_simd_level();
    ptrdiff_t nl, nr;
    if (level == DTREE_SIMD_SCALAR)
        return -1;
    if (level == DTREE_SIMD_AVX512 && end - start <= 16)
        return end > start ? dtree_partition_few_avx512_f64(v, ix, y, goes_left, start, end)
                           : start;
    if (level == DTREE_SIMD_AVX512)
        nl = dtree_partition_avx512_f64(v, ix, y, goes_left, tv, ti, ty, start, end);
    else
        nl = dtree_partition_avx2_f64(v, ix, y, goes_left, tv, ti, ty, start, end);
    nr = end - nl;
    memcpy(v + nl, tv, (size_t)nr * sizeof(float));
    memcpy(ix + nl, ti, (size_t)nr * sizeof(int));
    memcpy(y + nl, ty, (size_t)nr * sizeof(double));
    return nl;
#else
    (void)v; (void)ix; (void)y; (void)goes_left; (void)tv; (void)ti; (void)ty;
    (void)start; (void)end;
    return -1;
#endif
}

/* A forest tree's sorted columns: the entries of one sorted column (values v,
 * sample ids ix, n of them) whose row the tree keeps, in order, renumbered:
 * renumber[i] is row i's number among the kept rows, or -1 where the tree does
 * not keep it. Writes the kept values and new ids to out_v, out_i (room for n +
 * DTREE_PARTITION_SLACK entries: whole vectors are stored) and returns how many
 * there are. */
static ptrdiff_t dtree_kept_rows_scalar(const float* v, const int* ix, ptrdiff_t n,
                                        const int* renumber, float* out_v, int* out_i)
{
    ptrdiff_t p, q = 0;
    for (p = 0; p < n; p++) {
        int id = renumber[ix[p]];
        out_v[q] = v[p];
        out_i[q] = id;
        q += id >= 0;
    }
    return q;
}

#ifdef DTREE_X86_SIMD
__attribute__((target("avx512f")))
static ptrdiff_t dtree_kept_rows_avx512(const float* v, const int* ix, ptrdiff_t n,
                                        const int* renumber, float* out_v, int* out_i)
{
    ptrdiff_t p = 0, q = 0;
    __m512i none = _mm512_set1_epi32(-1);
    for (; p + 16 <= n; p += 16) {
        __m512i ids = _mm512_i32gather_epi32(_mm512_loadu_si512(ix + p), renumber, 4);
        __mmask16 kept = _mm512_cmpneq_epi32_mask(ids, none);
        _mm512_storeu_ps(out_v + q, _mm512_maskz_compress_ps(kept, _mm512_loadu_ps(v + p)));
        _mm512_storeu_si512(out_i + q, _mm512_maskz_compress_epi32(kept, ids));
        q += __builtin_popcount((unsigned)kept);
    }
    return q + dtree_kept_rows_scalar(v + p, ix + p, n - p, renumber, out_v + q, out_i + q);
}
#endif

static ptrdiff_t dtree_kept_rows(const float* v, const int* ix, ptrdiff_t n,
                                 const int* renumber, float* out_v, int* out_i)
{
#ifdef DTREE_X86_SIMD
    if (dtree_simd_level() == DTREE_SIMD_AVX512)
        return dtree_kept_rows_avx512(v, ix, n, renumber, out_v, out_i);
#endif
    return dtree_kept_rows_scalar(v, ix, n, renumber, out_v, out_i);
}

/* A two-class block's running sums (``filtered_scan``): for q < m, cw[q] is
 * w_left plus the weights of samples 0..q, cx[q] *ones plus their weights
 * times their class codes (0 or 1); *ones is left at cx[m - 1]. Weights are
 * counts[ix[q]] (whole, below 256; the array readable 3 bytes past its end),
 * or 1 for counts NULL. Every sum is a whole number: exact in any order. */
static void dtree_gini_sums_scalar(const unsigned char* counts, const int* ix,
                                   const unsigned short* codes, ptrdiff_t m, double w_left,
                                   double* ones, double* cw, double* cx)
{
    ptrdiff_t q;
    long long w = 0, x = 0, c;
    for (q = 0; q < m; q++) {
        c = counts != NULL ? counts[ix[q]] : 1;
        w += c;
        x += c * codes[q];
        cw[q] = w_left + (double)w;
        cx[q] = *ones + (double)x;
    }
    if (m > 0)
        *ones = cx[m - 1];
}

#ifdef DTREE_X86_SIMD
/* 16 lanes' inclusive prefix sums */
__attribute__((target("avx512f")))
static inline __m512i dtree_prefix16(__m512i x)
{
    __m512i zero = _mm512_setzero_si512();
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 15));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 14));
    x = _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 12));
    return _mm512_add_epi32(x, _mm512_alignr_epi32(x, zero, 8));
}

__attribute__((target("avx512f")))
static void dtree_gini_sums_avx512(const unsigned char* counts, const int* ix,
                                   const unsigned short* codes, ptrdiff_t m, double w_left,
                                   double* ones, double* cw, double* cx)
{
    ptrdiff_t q = 0;
    double base_w = w_left, base_x = *ones;
    __m512i low_byte = _mm512_set1_epi32(0xFF), one = _mm512_set1_epi32(1);
    for (; q + 16 <= m; q += 16) {
        __m512i c = one, x, w;
        if (counts != NULL)
            c = _mm512_and_si512(_mm512_i32gather_epi32(_mm512_loadu_si512(ix + q), counts, 1),
                                 low_byte);
        x = _mm512_mullo_epi32(c, _mm512_cvtepu16_epi32(
            _mm256_loadu_si256((const __m256i*)(codes + q))));
        w = dtree_prefix16(c);
        x = dtree_prefix16(x);
        __m512d bw = _mm512_set1_pd(base_w), bx = _mm512_set1_pd(base_x);
        _mm512_storeu_pd(cw + q, _mm512_add_pd(bw, _mm512_cvtepi32_pd(
            _mm512_castsi512_si256(w))));
        _mm512_storeu_pd(cw + q + 8, _mm512_add_pd(bw, _mm512_cvtepi32_pd(
            _mm512_extracti64x4_epi64(w, 1))));
        _mm512_storeu_pd(cx + q, _mm512_add_pd(bx, _mm512_cvtepi32_pd(
            _mm512_castsi512_si256(x))));
        _mm512_storeu_pd(cx + q + 8, _mm512_add_pd(bx, _mm512_cvtepi32_pd(
            _mm512_extracti64x4_epi64(x, 1))));
        base_w = cw[q + 15];
        base_x = cx[q + 15];
    }
    *ones = base_x;
    dtree_gini_sums_scalar(counts, ix + q, codes + q, m - q, base_w, ones, cw + q, cx + q);
}
#endif

static void dtree_gini_sums(const unsigned char* counts, const int* ix,
                            const unsigned short* codes, ptrdiff_t m, double w_left,
                            double* ones, double* cw, double* cx)
{
#ifdef DTREE_X86_SIMD
    if (dtree_simd_level() == DTREE_SIMD_AVX512) {
        dtree_gini_sums_avx512(counts, ix, codes, m, w_left, ones, cw, cx);
        return;
    }
#endif
    dtree_gini_sums_scalar(counts, ix, codes, m, w_left, ones, cw, cx);
}

/* The cuts of [lo, hi) to offer: those whose score is above -inf and at least
 * floor, their indices written to out in order; returns how many. */
static ptrdiff_t dtree_cuts_to_offer_scalar(const double* score, ptrdiff_t lo, ptrdiff_t hi,
                                            double floor, int* out)
{
    ptrdiff_t q, k = 0;
    for (q = lo; q < hi; q++)
        if (score[q] > -INFINITY && score[q] >= floor)
            out[k++] = (int)q;
    return k;
}

#ifdef DTREE_X86_SIMD
__attribute__((target("avx512f")))
static ptrdiff_t dtree_cuts_to_offer_avx512(const double* score, ptrdiff_t lo, ptrdiff_t hi,
                                            double floor, int* out)
{
    ptrdiff_t q = lo, k = 0;
    __m512d f = _mm512_set1_pd(floor), none = _mm512_set1_pd(-INFINITY);
    for (; q + 8 <= hi; q += 8) {
        __m512d sc = _mm512_loadu_pd(score + q);
        __mmask8 m = _mm512_cmp_pd_mask(sc, f, _CMP_GE_OQ)
                     & _mm512_cmp_pd_mask(sc, none, _CMP_GT_OQ);
        if (m) {
            /* (few cuts pass: their indices one by one) */
            int bits = m, b;
            while (bits) {
                b = __builtin_ctz((unsigned)bits);
                out[k++] = (int)(q + b);
                bits &= bits - 1;
            }
        }
    }
    return k + dtree_cuts_to_offer_scalar(score, q, hi, floor, out + k);
}
#endif

static ptrdiff_t dtree_cuts_to_offer(const double* score, ptrdiff_t lo, ptrdiff_t hi,
                                     double floor, int* out)
{
#ifdef DTREE_X86_SIMD
    if (dtree_simd_level() == DTREE_SIMD_AVX512)
        return dtree_cuts_to_offer_avx512(score, lo, hi, floor, out);
#endif
    return dtree_cuts_to_offer_scalar(score, lo, hi, floor, out);
}

/* one cut's score as the vector versions make it (their scalar rest, and the
 * whole block where no vector version runs) */
static inline double dtree_cut_score(int kind, double wl, double x, const float* v, float tol,
                                     double weight, double total, double min_wleaf,
                                     double tiny)
{
    double wr = weight - wl, xr = total - x, num, l0, r0;
    float here = v[0] + tol;
    if (!(!(v[1] <= here) && wl >= min_wleaf && wl > tiny))
        return -INFINITY;
    if (kind == 0) {
        l0 = wl - x;
        r0 = wr - xr;
        num = (l0 * l0 + x * x) * wr + (r0 * r0 + xr * xr) * wl;
    } else {
        num = x * x * wr + xr * xr * wl;
    }
    return num / (wl * wr);
}

/* ``dtree_cut_scores_*`` on the level in use; lo (and *top -inf) where none runs */
static ptrdiff_t dtree_cut_scores(int kind, const double* cw, const double* cx,
                                  const float* v, float tol, double weight, double total,
                                  double min_wleaf, double tiny, double* score, ptrdiff_t lo,
                                  ptrdiff_t hi, double* top)
{
    *top = -INFINITY;
#ifdef DTREE_X86_SIMD
    switch (dtree_simd_level()) {
    case DTREE_SIMD_AVX512:
        return dtree_cut_scores_avx512(kind, cw, cx, v, tol, weight, total, min_wleaf, tiny,
                                       score, lo, hi, top);
    case DTREE_SIMD_AVX2:
        return dtree_cut_scores_avx2(kind, cw, cx, v, tol, weight, total, min_wleaf, tiny,
                                     score, lo, hi, top);
    default:
        break;
    }
#else
    (void)kind; (void)cw; (void)cx; (void)v; (void)tol; (void)weight; (void)total;
    (void)min_wleaf; (void)tiny; (void)score; (void)hi;
#endif
    return lo;
}

#endif  /* DTREE_VECTOR_KERNELS_H */
