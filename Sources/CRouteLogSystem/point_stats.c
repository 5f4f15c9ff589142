// The one pass of a route's stats over its points (Model/RouteStats.swift,
// RouteStats.compute): elevation gain and loss with a hysteresis, the mean and largest
// heart rate and cadence, and the largest speed the points report. Every save runs it
// over all its points, read where they lie in the app's array (no point copied, no
// optional made), with the same additions and comparisons in the same order as the
// Swift loop it stands for, so the same doubles.
#include <math.h>
#include "CRouteLogSystem.h"

#pragma clang fp contract(off)

static inline int absent(double x, uint64_t absent_bits) {
    uint64_t bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    return bits == absent_bits;
}

typedef struct {
    double sum, largest;
    size_t count;
} mean_and_max;

static inline void add(mean_and_max *m, double value) {
    if (!isfinite(value)) return;
    m->sum += value;
    m->count++;
    m->largest = value >= m->largest ? value : m->largest;
}

void routelog_point_stats(const double *points, size_t count, size_t stride, const size_t *fields,
                          uint64_t absent_bits, const size_t *segment_ends, size_t segment_count, double threshold,
                          routelog_point_stats_result *out) {
    const size_t altitude = fields[0], speed = fields[1], heart_rate = fields[2], cadence = fields[3];
    mean_and_max hr = {0, -INFINITY, 0}, rpm = {0, -INFINITY, 0};
    double reported = -1, gain = 0, loss = 0;
    int has_elevation = 0;
    size_t start = 0;
    for (size_t s = 0; s < segment_count; s++) {
        size_t end = segment_ends[s];
        if (end <= start) continue;
        // Each segment's climb alone: the first altitude is the reference (finite or
        // not), later ones that are not finite are skipped.
        double reference = 0, climbed = 0, descended = 0;
        int started = 0, direction = 0;
        for (size_t i = start; i < end; i++) {
            const double *p = points + i * stride;
            double a = p[altitude];
            if (!absent(a, absent_bits)) {
                if (!started) {
                    reference = a;
                    started = 1;
                } else if (isfinite(a)) {
                    double change = a - reference;
                    if ((direction == 1 && change > 0) || (direction != 1 && change >= threshold)) {
                        climbed += change;
                        reference = a;
                        direction = 1;
                    } else if ((direction == -1 && change < 0) || (direction != -1 && change <= -threshold)) {
                        descended -= change;
                        reference = a;
                        direction = -1;
                    }
                }
            }
            double h = p[heart_rate], c = p[cadence], v = p[speed];
            if (!absent(h, absent_bits)) add(&hr, h);
            if (!absent(c, absent_bits)) add(&rpm, c);
            if (!absent(v, absent_bits) && isfinite(v)) reported = v >= reported ? v : reported;
        }
        if (started) {
            gain = (has_elevation ? gain : 0.0) + climbed;
            loss = (has_elevation ? loss : 0.0) + descended;
            has_elevation = 1;
        }
        start = end;
    }
    out->has_elevation = has_elevation;
    out->elevation_gain = gain;
    out->elevation_loss = loss;
    out->heart_rate_count = hr.count;
    out->heart_rate_sum = hr.sum;
    out->heart_rate_max = hr.largest;
    out->cadence_count = rpm.count;
    out->cadence_sum = rpm.sum;
    out->cadence_max = rpm.largest;
    out->reported_speed = reported;
}
