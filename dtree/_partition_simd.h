/* Stable partition of one presorted column segment on vector lanes.
 *
 * The exact splitter keeps every column sorted at every node: after a split,
 * each column's segment is stably partitioned into the rows that go left, then
 * those that go right (values, sample ids and one target per entry moving
 * together). The scalar kernel (``partition_segment`` in _common.pxd) writes
 * each entry twice, to the left cursor in place and to a scratch right cursor,
 * so it is bound by stores. Here 8 (AVX2) or 16 (AVX-512) entries move at
 * once: their sides are read from the bitset with one gather, and each array's
 * lanes are packed left and right by a permutation (AVX2: from a table indexed
 * by the side mask; AVX-512: its compress instruction), then stored whole.
 *
 * A whole-vector store writes some lanes past its cursor. For the in-place
 * left part they land at positions below the end of the block just read
 * (the left cursor never passes the read position), which later stores
 * overwrite; the scratch right part needs DTREE_PARTITION_SLACK entries of
 * room past the segment's length.
 *
 * The result is the scalar kernel's, entry for entry. The instruction set is
 * chosen once at run time (a wheel built for any x86-64 runs everywhere);
 * other compilers and machines use the scalar kernel.
 */
#ifndef DTREE_PARTITION_SIMD_H
#define DTREE_PARTITION_SIMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
static int dtree_tables_ready = 0;

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
    dtree_tables_ready = 1;
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

#endif  /* DTREE_X86_SIMD */

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
    if (!dtree_tables_ready)
        dtree_fill_tables();
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
    if (!dtree_tables_ready)
        dtree_fill_tables();
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

#endif  /* DTREE_PARTITION_SIMD_H */
