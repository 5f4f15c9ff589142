// A save's count of a version 2 column's zero runs by run token: what its choice
// between plain tokens and zero runs weighs (Codec/V2/CodePlan.swift).
#include "CRouteLogSystem.h"
#include "zero_runs.h"

void routelog_count_zero_runs(const uint8_t *tokens, size_t k, uint32_t *run_counts) {
    routelog_zero_run_scan scan = routelog_zero_runs(tokens, k);
    size_t start, length;
    while (routelog_next_zero_run(&scan, &start, &length)) {
        for (; length > ROUTELOG_LONGEST_RUN; length -= ROUTELOG_LONGEST_RUN) run_counts[routelog_run_token(ROUTELOG_LONGEST_RUN)]++;
        run_counts[routelog_run_token(length)]++;
    }
}
