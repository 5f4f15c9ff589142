// The local plane of the preview's Douglas-Peucker (format-spec.md, "Derived fields",
// preview): each point's metres east and north, the longitudes unwrapped across the
// antimeridian by a running longitude that adds each step, wrapped to ±180. Every save
// projects every point of its route.
//
// The AVX2 path skips the running sum where it can prove it changes nothing: when the
// running longitude has the bits of the point before, and a step is at most 180 degrees
// and adding it to that point gives the next point's bits, the running longitude after
// the step has the next point's bits. Four points whose steps all pass that check (the
// usual case: a step between two nearby longitudes is exact) are projected from their
// own longitudes, four at a time; any other point goes the scalar way. The x and y are
// the scalar loop's bits on every processor.
#include <string.h>

#include "CRouteLogSystem.h"
#include "processor_features.h"

#pragma clang fp contract(off)

typedef struct {
    double longitude;  // the running longitude
    double previous;   // the last point's own longitude
} unwrap;

static inline void project_one(const double *lat, const double *lon, size_t i, double lon_scale,
                               double metres_per_degree, unwrap *u, double *x, double *y) {
    double longitude = lon[i], step = longitude - u->previous;
    if (step > 180) {
        step -= 360;
    } else if (step < -180) {
        step += 360;
    }
    u->longitude += step;
    u->previous = longitude;
    x[i] = u->longitude * lon_scale;
    y[i] = lat[i] * metres_per_degree;
}

static void project_portable(const double *lat, const double *lon, size_t count, double lon_scale,
                             double metres_per_degree, double *x, double *y) {
    if (count == 0) return;
    unwrap u = {lon[0], lon[0]};
    for (size_t i = 0; i < count; i++) project_one(lat, lon, i, lon_scale, metres_per_degree, &u, x, y);
}

void routelog_project_on_plane_portable(const double *lat, const double *lon, size_t count, double lon_scale,
                                        double metres_per_degree, double *x, double *y) {
    project_portable(lat, lon, count, lon_scale, metres_per_degree, x, y);
}

#if defined(__x86_64__)
#include <immintrin.h>

static inline int same_bits(double a, double b) {
    uint64_t p, q;
    memcpy(&p, &a, 8);
    memcpy(&q, &b, 8);
    return p == q;
}

__attribute__((target("avx2")))
static void project_avx2(const double *lat, const double *lon, size_t count, double lon_scale,
                         double metres_per_degree, double *x, double *y) {
    if (count == 0) return;
    unwrap u = {lon[0], lon[0]};
    project_one(lat, lon, 0, lon_scale, metres_per_degree, &u, x, y);
    const __m256d scale = _mm256_set1_pd(lon_scale), metres = _mm256_set1_pd(metres_per_degree),
                  half_turn = _mm256_set1_pd(180),
                  magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7FFFFFFFFFFFFFFFll));
    int in_step = same_bits(u.longitude, u.previous);  // the running longitude is the last point's
    size_t i = 1;
    for (; i + 4 <= count; i += 4) {
        __m256d before = _mm256_loadu_pd(lon + i - 1), after = _mm256_loadu_pd(lon + i);
        __m256d step = _mm256_sub_pd(after, before);
        __m256d small = _mm256_cmp_pd(_mm256_and_pd(step, magnitude), half_turn, _CMP_LE_OQ);
        __m256i exact = _mm256_cmpeq_epi64(_mm256_castpd_si256(_mm256_add_pd(before, step)), _mm256_castpd_si256(after));
        _mm256_storeu_pd(y + i, _mm256_mul_pd(_mm256_loadu_pd(lat + i), metres));
        if (in_step && _mm256_movemask_pd(_mm256_and_pd(small, _mm256_castsi256_pd(exact))) == 15) {
            _mm256_storeu_pd(x + i, _mm256_mul_pd(after, scale));
            u.longitude = u.previous = lon[i + 3];
            continue;
        }
        for (size_t k = i; k < i + 4; k++) project_one(lat, lon, k, lon_scale, metres_per_degree, &u, x, y);
        in_step = same_bits(u.longitude, u.previous);
    }
    for (; i < count; i++) project_one(lat, lon, i, lon_scale, metres_per_degree, &u, x, y);
}

void routelog_project_on_plane(const double *lat, const double *lon, size_t count, double lon_scale,
                               double metres_per_degree, double *x, double *y) {
    if (routelog_has_avx2()) {
        project_avx2(lat, lon, count, lon_scale, metres_per_degree, x, y);
    } else {
        project_portable(lat, lon, count, lon_scale, metres_per_degree, x, y);
    }
}
#else
void routelog_project_on_plane(const double *lat, const double *lon, size_t count, double lon_scale,
                               double metres_per_degree, double *x, double *y) {
    project_portable(lat, lon, count, lon_scale, metres_per_degree, x, y);
}
#endif
