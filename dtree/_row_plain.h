/* Row mode's two passes as plain loops over a row's features, which the
 * compiler runs on vector lanes. No include guard: _row_kernels.h includes it
 * once per copy, DTREE_ROW_PLAIN(name) naming the copy's functions and
 * DTREE_ROW_PLAIN_TARGET giving its target attribute. Every product and sum
 * is rounded on its own (no copy's target has fused multiply-add).
 */

/* 1.0 where a value goes left at a numeric cut, else 0.0; NaN read as
 * nan_value (the infinity on the cut's side), so ``value <= threshold`` is the
 * whole rule: a compare and a select */
DTREE_ROW_PLAIN_TARGET
static inline double DTREE_ROW_PLAIN(goes_left)(float x, double nan_value, double threshold)
{
    double v = x == x ? (double)x : nan_value;
    return v <= threshold ? 1.0 : 0.0;
}

DTREE_ROW_PLAIN_TARGET
static void DTREE_ROW_PLAIN(ranges)(const float* xrows, const int* ids, ptrdiff_t n,
                                    ptrdiff_t d, float* DTREE_RESTRICT lo, float* DTREE_RESTRICT hi,
                                    int* DTREE_RESTRICT nm)
{
    ptrdiff_t q, f;
    for (q = 0; q < n; q++) {
        const float* DTREE_RESTRICT row = xrows + (ptrdiff_t)ids[q] * d;
        if (q + DTREE_ROW_AHEAD < n)
            DTREE_ROW_PREFETCH(xrows + (ptrdiff_t)ids[q + DTREE_ROW_AHEAD] * d);
        for (f = 0; f < d; f++) {
            float x = row[f];
            nm[f] += x != x;
            lo[f] = x < lo[f] ? x : lo[f];      /* (NaN compares false: kept out of both) */
            hi[f] = x > hi[f] ? x : hi[f];
        }
    }
}

/* ``dtree_row_sums``'s loops, one per kind: g is 1 on the left and 0 on the
 * right, each sum _score_sides's term for term */
DTREE_ROW_PLAIN_TARGET
static void DTREE_ROW_PLAIN(sums)(int kind, const float* xrows, const int* ids, ptrdiff_t n,
                                  ptrdiff_t d, const double* DTREE_RESTRICT ct,
                                  const double* DTREE_RESTRICT cnan, const double* ny,
                                  const double* nw, const int* nc, double* DTREE_RESTRICT an,
                                  double* DTREE_RESTRICT a1, double* DTREE_RESTRICT aw,
                                  double* DTREE_RESTRICT s0, double* acl)
{
    ptrdiff_t q, f;
    for (q = 0; q < n; q++) {
        const float* DTREE_RESTRICT row = xrows + (ptrdiff_t)ids[q] * d;
        double g, w, yv, gw, code;
        if (q + DTREE_ROW_AHEAD < n)
            DTREE_ROW_PREFETCH(xrows + (ptrdiff_t)ids[q + DTREE_ROW_AHEAD] * d);
        switch (kind) {
        case DTREE_ROWS_TWO_CLASSES:
            code = (double)nc[q];
            for (f = 0; f < d; f++) {
                g = DTREE_ROW_PLAIN(goes_left)(row[f], cnan[f], ct[f]);
                an[f] += g;
                a1[f] += g * code;
            }
            break;
        case DTREE_ROWS_CLASSES: {
            double* DTREE_RESTRICT ac = acl + (ptrdiff_t)nc[q] * d;
            w = nw != NULL ? nw[q] : 1.0;
            for (f = 0; f < d; f++) {
                g = DTREE_ROW_PLAIN(goes_left)(row[f], cnan[f], ct[f]);
                gw = g * w;
                an[f] += g;
                ac[f] += gw;
                aw[f] += gw;
            }
            break;
        }
        case DTREE_ROWS_SUMS:
            yv = ny[q];
            for (f = 0; f < d; f++) {
                g = DTREE_ROW_PLAIN(goes_left)(row[f], cnan[f], ct[f]);
                an[f] += g;
                s0[f] += g * yv;
            }
            break;
        default:
            yv = ny[q];
            w = nw[q];
            for (f = 0; f < d; f++) {
                g = DTREE_ROW_PLAIN(goes_left)(row[f], cnan[f], ct[f]);
                gw = g * w;
                an[f] += g;
                s0[f] += gw * yv;
                aw[f] += gw;
            }
            break;
        }
    }
}
