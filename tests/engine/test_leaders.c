/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the node leaders' way of a reduction (lib/engine/leaders.h),
 * MPI-free and deterministic. The predicted times are checked against values
 * worked out by hand from the formulas in leaders.h (a link of 50 us and
 * 0.08 us per byte, 100 Mbit/s, and one of 20 us and 0.0008 us per byte,
 * 10 Gbit/s; 0.5 ns of local work per byte), the decisions on the cases
 * leaders.h describes, and the hold schedule call by call. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "engine/leaders.h"

#include "engine_test.h"

static int close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b) + 1e-6; }

/* predicted times against hand-worked values, and the way decided */
static void check_case(const char *what, const compi_net_link *link, compi_leaders_sizes z, double want_split,
                       double want_whole, compi_leaders_way want)
{
    compi_leaders_params pr;
    compi_leaders_params_default(&pr);
    double s, w;
    compi_leaders_times(&z, &pr, link, &s, &w);
    CHECK(close_to(s, want_split), "%s: split %.3f us, expected %.3f", what, s, want_split);
    CHECK(close_to(w, want_whole), "%s: whole %.3f us, expected %.3f", what, w, want_whole);
    compi_leaders_plan plan;
    compi_leaders_plan_init(&plan);
    compi_leaders_decide(&plan, &pr, &z, link);
    CHECK(plan.way == want, "%s: decided %s", what, plan.way == COMPI_LEADERS_WHOLE ? "whole" : "split");
}

static void test_times(void)
{
    const compi_net_link slow = flat_link(50, 80), fast = flat_link(20, 0.8);
    const double M8 = 8388608;
    /* 2 nodes x 2 ranks of double_r75 (leaders.h): partial sums of two ranks
     * compress 1.74x, the result of four 1.16x. split = 4 MiB / 1.74,
     * chunk = 4 MiB / 1.16 (rounded to bytes).
     * split: 50 + 2410519 x 0.08 + 50 + 3615779 x 0.08 + 0.5e-3 x 8388608 x 1.5
     *      = 192891.52 + 289312.32 + 6291.456 = 488495.296
     * whole: the whole partial 2 x 2410519 = 4821038 B:
     *        50 + 4821038 x 0.08 + 0.5e-3 x 8388608 x 2 = 385733.04 + 8388.608 */
    check_case("r75 2x2 100M", &slow, (compi_leaders_sizes){2, M8, 2410519, 3615779}, 488495.296, 394121.648,
               COMPI_LEADERS_WHOLE);
    /* the same at 10 Gbit/s: the leader's extra local work decides
     * split: 20 + 2410519 x 0.0008 + 20 + 3615779 x 0.0008 + 6291.456 = 11152.4944
     * whole: 20 + 4821038 x 0.0008 + 8388.608 = 12265.4384 */
    check_case("r75 2x2 10G", &fast, (compi_leaders_sizes){2, M8, 2410519, 3615779}, 11152.4944, 12265.4384,
               COMPI_LEADERS_SPLIT);
    /* random 8 MiB: frames = halves + 16 B headers; one latency against
     * 4 MiB more local work
     * split: 50 + 4194320 x 0.08 + 50 + 4194320 x 0.08 + 6291.456 = 677482.656
     * whole: 50 + 8388640 x 0.08 + 8388.608 = 679529.808 */
    check_case("random 8M", &slow, (compi_leaders_sizes){2, M8, 4194320, 4194320}, 677482.656, 679529.808,
               COMPI_LEADERS_SPLIT);
    /* random 4 KiB: one round less wins
     * split: 50 + 2064 x 0.08 + 50 + 2064 x 0.08 + 0.5e-3 x 4096 x 1.5 = 433.312
     * whole: 50 + 4128 x 0.08 + 0.5e-3 x 4096 x 2 = 384.336 (< 0.95 x 433.312) */
    check_case("random 4K", &slow, (compi_leaders_sizes){2, 4096, 2064, 2064}, 433.312, 384.336,
               COMPI_LEADERS_WHOLE);
    /* 4 nodes: whole sends p x split; it pays when partials compress more
     * than 3x better than results. split = 3/4 x 8 MiB / r, chunk = 1/4 x 8 MiB / f.
     * r = 3.44, f = 1: split = 1828911, chunk = 2097152
     *   split: 50 + 1828911 x 0.08 + 50 + 3 x 2097152 x 0.08 + 0.5e-3 x 8388608 x 2.25
     *        = 146362.88 + 503366.48 + 9437.184 = 659166.544
     *   whole: 50 + 4 x 1828911 x 0.08 + 0.5e-3 x 8388608 x 6 = 585301.52 + 25165.824 = 610467.344
     *   0.95 x 659166.544 = 626208.2 > 610467.3: whole */
    check_case("p4 r3.44", &slow, (compi_leaders_sizes){4, M8, 1828911, 2097152}, 659166.544, 610467.344,
               COMPI_LEADERS_WHOLE);
    /* r = 2.5: split = 2516582
     *   split: 50 + 201326.56 + 50 + 503316.48 + 9437.184 = 714180.224
     *   whole: 50 + 4 x 2516582 x 0.08 + 25165.824 = 805356.24 + 25165.824 = 830522.064 */
    check_case("p4 r2.5", &slow, (compi_leaders_sizes){4, M8, 2516582, 2097152}, 714180.224, 830522.064,
               COMPI_LEADERS_SPLIT);
    /* whole would win, but 3 partials of 100 MiB do not fit in 256 MiB */
    compi_leaders_params pr;
    compi_leaders_params_default(&pr);
    compi_leaders_plan plan;
    compi_leaders_plan_init(&plan);
    compi_leaders_sizes big = {4, 100.0 * 1048576, 100.0 * 1048576 * 0.75 / 10, 100.0 * 1048576 / 4};
    compi_leaders_decide(&plan, &pr, &big, &slow);
    CHECK(plan.way == COMPI_LEADERS_SPLIT, "memory bound ignored");
    big.raw = 80.0 * 1048576;   /* 240 MiB fits */
    big.split = big.raw * 0.75 / 10;
    big.chunk = big.raw / 4;
    compi_leaders_plan_init(&plan);
    compi_leaders_decide(&plan, &pr, &big, &slow);
    CHECK(plan.way == COMPI_LEADERS_WHOLE, "80 MiB x 3 within the bound but split");
}

/* The schedule: measure, hold 8, measure, hold 16 (decision confirmed), ...;
 * a change restarts at 8. Worked out by hand from leaders.h. */
static void test_schedule(void)
{
    const compi_net_link slow = flat_link(50, 80);
    compi_leaders_params pr;
    compi_leaders_params_default(&pr);
    compi_leaders_plan s;
    compi_leaders_plan_init(&s);
    const compi_leaders_sizes r75 = {2, 8388608, 2410519, 3615779}, rnd = {2, 8388608, 4194320, 4194320};
    char got[80] = {0}, want[80] = {0};
    int n = 0;
    /* calls 1..46: data r75 until call 27, random from call 28 */
    for (int call = 1; call <= 46; call++) {
        int measure;
        compi_leaders_way w = compi_leaders_begin(&s, COMPI_LEADERS_AUTO, &measure);
        got[n++] = measure ? 'm' : w == COMPI_LEADERS_WHOLE ? 'W' : 'S';
        if (measure) {
            CHECK(w == COMPI_LEADERS_SPLIT, "call %d measures on whole", call);
            compi_leaders_decide(&s, &pr, call < 28 ? &r75 : &rnd, &slow);
        }
    }
    /* m, 8 W, m (confirmed: 16 W), m (r75 still: call 27), then random from
     * call 28: the decision made at call 27 holds 32 W ... */
    strcpy(want, "m");
    strcat(want, "WWWWWWWW");          /* calls 2-9 */
    strcat(want, "m");                 /* call 10 */
    strcat(want, "WWWWWWWWWWWWWWWW");  /* calls 11-26 */
    strcat(want, "m");                 /* call 27: confirmed again, hold 32 */
    strcat(want, "WWWWWWWWWWWWWWWWWWW"); /* calls 28-46 */
    CHECK(strcmp(got, want) == 0, "schedule\n  got  %s\n  want %s", got, want);
    CHECK(s.hold == 32 && s.switches == 0 && s.decisions == 3, "hold %u switches %llu decisions %llu", s.hold,
          (unsigned long long)s.switches, (unsigned long long)s.decisions);
    /* calls 47-59 finish the hold of 32; call 60 measures random data:
     * split, the hold back to 8, a switch; calls 61-68 split */
    for (int call = 47; call <= 68; call++) {
        int measure;
        compi_leaders_begin(&s, COMPI_LEADERS_AUTO, &measure);
        if (measure) compi_leaders_decide(&s, &pr, &rnd, &slow);
    }
    CHECK(s.way == COMPI_LEADERS_SPLIT && s.hold == 8 && s.switches == 1, "after random: way %d hold %u switches %llu",
          s.way, s.hold, (unsigned long long)s.switches);
    CHECK(s.calls[COMPI_LEADERS_WHOLE] == 8 + 16 + 32 && s.calls[COMPI_LEADERS_SPLIT] == 3 + 1 + 8,
          "calls split %llu whole %llu", (unsigned long long)s.calls[0], (unsigned long long)s.calls[1]);
    /* hold_max bounds the doubling */
    compi_leaders_plan_init(&s);
    for (int i = 0; i < 12; i++) compi_leaders_decide(&s, &pr, &r75, &slow);
    CHECK(s.hold == pr.hold_max, "hold %u after 12 confirmations, expected %u", s.hold, pr.hold_max);
}

static void test_forced(void)
{
    compi_leaders_params pr;
    compi_leaders_params_default(&pr);
    for (int pol = COMPI_LEADERS_FORCE_SPLIT; pol <= COMPI_LEADERS_FORCE_WHOLE; pol++) {
        compi_leaders_plan s;
        compi_leaders_plan_init(&s);
        for (int i = 0; i < 20; i++) {
            int measure;
            compi_leaders_way w = compi_leaders_begin(&s, pol, &measure);
            CHECK(!measure, "forced %d measures", pol);
            CHECK(w == (pol == COMPI_LEADERS_FORCE_WHOLE ? COMPI_LEADERS_WHOLE : COMPI_LEADERS_SPLIT),
                  "forced %d ran %d", pol, w);
        }
    }
    int v = -1;
    CHECK(compi_parse_leaders_policy("auto", &v) == 0 && v == COMPI_LEADERS_AUTO, "auto");
    CHECK(compi_parse_leaders_policy("split", &v) == 0 && v == COMPI_LEADERS_FORCE_SPLIT, "split");
    CHECK(compi_parse_leaders_policy("whole", &v) == 0 && v == COMPI_LEADERS_FORCE_WHOLE, "whole");
    CHECK(compi_parse_leaders_policy("Whole", &v) != 0 && compi_parse_leaders_policy("", &v) != 0, "bad values");
}

/* compi_leaders_group against its definition, checked pair by pair on
 * random node ids: same node iff same id; nodes numbered by first
 * appearance; leader = lowest rank; members increasing and complete. */
static void test_group(void)
{
    unsigned long long x = 42;
    for (int t = 0; t < 500; t++) {
        int n = 1 + (int)(t % 40), ids = 1 + (int)(t % 7);
        int id[40], node_of[40], leader_of[40], first[41], members[40];
        for (int r = 0; r < n; r++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            id[r] = (int)((x >> 33) % (unsigned)ids) * 17 - 3;
        }
        int p = compi_leaders_group(n, id, node_of, leader_of, first, members);
        int next = 0, seen_ids[40], nseen = 0;
        for (int r = 0; r < n; r++) {
            int k = 0;
            while (k < nseen && seen_ids[k] != id[r]) k++;
            if (k == nseen) seen_ids[nseen++] = id[r], next++;
            CHECK(node_of[r] == k, "case %d: rank %d on node %d, expected %d", t, r, node_of[r], k);
        }
        CHECK(p == next, "case %d: %d nodes, expected %d", t, p, next);
        CHECK(first[0] == 0 && first[p] == n, "case %d: first[0] %d first[p] %d", t, first[0], first[p]);
        for (int k = 0; k < p; k++) {
            int lo = -1;
            for (int r = 0; r < n && lo < 0; r++)
                if (node_of[r] == k) lo = r;
            CHECK(leader_of[k] == lo, "case %d: node %d leader %d, expected %d", t, k, leader_of[k], lo);
            int prev = -1, cnt = 0;
            for (int j = first[k]; j < first[k + 1]; j++, cnt++) {
                CHECK(members[j] > prev && node_of[members[j]] == k, "case %d: node %d member %d", t, k, members[j]);
                prev = members[j];
            }
            int want = 0;
            for (int r = 0; r < n; r++) want += node_of[r] == k;
            CHECK(cnt == want, "case %d: node %d has %d members, expected %d", t, k, cnt, want);
        }
    }
}

int main(void)
{
    test_group();
    test_times();
    test_schedule();
    test_forced();
    if (failures) {
        fprintf(stderr, "test_leaders: %d failure(s)\n", failures);
        return 1;
    }
    printf("test_leaders: all passed\n");
    return 0;
}
