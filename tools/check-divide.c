// Every stored integer of a range, divided by routelog_divide_integers, against the
// processor's own division: the exhaustive check behind the multiply-add path of
// Sources/CRouteLogSystem/divide.c (DivideIntegersTests samples; this covers every
// latitude and longitude there is, and the other scales around their common values).
//
//   make check-divide                    the format's scales over their ranges (a minute or two)
//   check-divide DIVISOR FIRST LAST      one divisor over FIRST...LAST
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "CRouteLogSystem.h"

// Mismatches of `divisor` over first...last, the first few printed.
static long long check(double divisor, int64_t first, int64_t last) {
    enum { batch = 1 << 16 };
    static int64_t values[batch];
    static double quotients[batch];
    long long mismatches = 0;
    for (int64_t start = first; start <= last; start += batch) {
        size_t n = (uint64_t)(last - start) < batch ? (size_t)(last - start) + 1 : batch;
        for (size_t i = 0; i < n; i++) values[i] = start + (int64_t)i;
        routelog_divide_integers(values, n, divisor, quotients);
        for (size_t i = 0; i < n; i++) {
            double expected = (double)values[i] / divisor;
            if (memcmp(&expected, &quotients[i], sizeof expected) == 0) continue;
            if (mismatches++ < 5) printf("  %lld / %g: %a, the division gives %a\n", (long long)values[i], divisor,
                                         quotients[i], expected);
        }
        if (last - start < batch) break;
    }
    printf("%-6g %20lld ... %-20lld %lld mismatches\n", divisor, (long long)first, (long long)last, mismatches);
    return mismatches;
}

int main(int argc, char **argv) {
    if (argc == 4) return check(atof(argv[1]), atoll(argv[2]), atoll(argv[3])) != 0;
    if (argc != 1) {
        fprintf(stderr, "usage: check-divide [DIVISOR FIRST LAST]\n");
        return 2;
    }
    printf("multiply-add path: %s\n", routelog_divide_multiplies() ? "yes" : "no (this processor has no AVX2 and FMA3)");
    long long mismatches = 0;
    mismatches += check(1e7, -1800000000, 1800000000);         // every latitude and longitude
    mismatches += check(1000, -2147483648LL, 2147483647LL);    // times and elapsed milliseconds
    mismatches += check(1000, 4102444800000LL - 1000000000LL, 4102444800000LL + 1000000000LL);  // around 2100
    mismatches += check(100, -2147483648LL, 2147483647LL);     // elevations, accuracies, speeds, courses
    mismatches += check(1, -100000000, 100000000);             // heart rates, cadences
    return mismatches != 0;
}
