/* common/memory.c on the host: how many copies of the input a run plans, from its fixed
 * bytes, the bytes of one copy and the free memory. The cases are the sizes that matter: n =
 * 2^32 in float and in double on a card with 80 GiB, with and without dot's second array; and
 * fixed bytes made of several allocations (step16's row sums, CUB's), each rounded and named. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "toolbox.h"

#define MIB ((size_t)1 << 20)
#define GIB ((size_t)1 << 30)
static const size_t TWO_TO_32 = (size_t)1 << 32, FREE_ON_80_GIB = 79 * GIB;
enum { WANTED = 4, FLOAT_BYTES = 4, DOUBLE_BYTES = 8 };

Test(memory, rounding_is_whole_granules_and_at_least_one)
{
    cr_expect_eq(memory_rounded(0), ALLOCATION_GRANULE);
    cr_expect_eq(memory_rounded(1), ALLOCATION_GRANULE);
    cr_expect_eq(memory_rounded(ALLOCATION_GRANULE), ALLOCATION_GRANULE);
    cr_expect_eq(memory_rounded(ALLOCATION_GRANULE + 1), 2 * ALLOCATION_GRANULE);
    cr_expect_eq(memory_rounded(16 * GIB), 16 * GIB);
}

Test(memory, float_input_at_2_to_32_gets_every_wanted_copy_on_80_gib)
{
    struct memory_plan plan = memory_plan_make(0, TWO_TO_32 * FLOAT_BYTES, FREE_ON_80_GIB, WANTED);
    cr_expect_eq(plan.copies, WANTED); /* 4 x 16 GiB + the headroom: 64.25 GiB of 79 */
}

Test(memory, the_second_array_takes_the_place_of_one_copy)
{
    size_t copy = TWO_TO_32 * FLOAT_BYTES; /* 16 GiB: 4 copies and b would be 80 GiB */
    struct memory_plan plan = memory_plan_make(copy, copy, FREE_ON_80_GIB, WANTED);
    cr_expect_eq(plan.copies, 3);
    cr_expect_eq(memory_plan_need(&plan, 3), 4 * copy + RUNTIME_HEADROOM);
}

Test(memory, double_dot_at_2_to_32_fits_one_copy_on_80_gib)
{
    size_t copy = TWO_TO_32 * DOUBLE_BYTES, staging = 64 * MIB; /* 32 GiB each */
    struct memory_plan plan = memory_plan_make(copy + staging, copy, FREE_ON_80_GIB, WANTED);
    cr_expect_eq(plan.copies, 1);
    cr_expect_eq(memory_plan_need(&plan, 1), 2 * copy + staging);
}

Test(memory, double_sum_at_2_to_32_fits_two_copies_on_80_gib)
{
    struct memory_plan plan = memory_plan_make(64 * MIB, TWO_TO_32 * DOUBLE_BYTES, FREE_ON_80_GIB,
                                               WANTED);
    cr_expect_eq(plan.copies, 2); /* 64 GiB + 320 MiB; three would be 96 GiB */
}

Test(memory, the_first_copy_needs_no_headroom_and_the_second_does)
{
    size_t copy = GIB;
    cr_expect_eq(memory_plan_make(0, copy, copy, WANTED).copies, 1);
    cr_expect_eq(memory_plan_make(0, copy, 2 * copy, WANTED).copies, 1);
    cr_expect_eq(memory_plan_make(0, copy, 2 * copy + RUNTIME_HEADROOM, WANTED).copies, 2);
}

Test(memory, no_copy_when_even_one_does_not_fit_and_the_message_names_the_need)
{
    size_t copy = TWO_TO_32 * DOUBLE_BYTES;
    struct memory_plan plan = memory_plan_make(copy, copy, 40 * GIB, WANTED);
    cr_assert_eq(plan.copies, 0);
    struct capture capture;
    capture_begin(&capture, STDERR_FILENO);
    memory_plan_explain(&plan, "the input in double", "dot's second array", "a test GPU");
    char *text = capture_end(&capture);
    cr_expect_str_eq(text, "not enough device memory for one copy of the input in double: it "
                           "needs 65536 MiB (32768 MiB the copy, 32768 MiB dot's second array), "
                           "and 40960 MiB are free on a test GPU\n");
    free(text);
}

Test(memory, never_more_than_wanted_and_zero_wanted_gives_zero)
{
    cr_expect_eq(memory_plan_make(0, MIB, 1024 * GIB, WANTED).copies, WANTED);
    cr_expect_eq(memory_plan_make(0, MIB, 1024 * GIB, 0).copies, 0);
}

/* Each fixed allocation counted in whole granules, as the driver rounds it: a 1-byte buffer
 * takes a granule, 3 MiB two; the names in the order added, for the message. */
Test(memory, fixed_allocations_count_whole_granules_each_and_are_named)
{
    struct memory_fixed fixed = {0, ""};
    memory_fixed_add(&fixed, 1, "the row sums");
    memory_fixed_add(&fixed, 3 * MIB, "CUB's temporary storage");
    cr_expect_eq(fixed.bytes, 3 * ALLOCATION_GRANULE);
    cr_expect_str_eq(fixed.names, "the row sums, CUB's temporary storage");
}

/* A matrix that fits alone does not fit beside its buffers: the plan counts them, makes no
 * copy, and the message names each of them. */
Test(memory, a_copy_that_fits_alone_but_not_beside_the_buffers_is_refused_naming_them)
{
    struct memory_fixed fixed = {0, ""};
    memory_fixed_add(&fixed, 8 * GIB, "the row sums");
    memory_fixed_add(&fixed, 8 * GIB, "CUB's row sums");
    size_t copy = 16 * GIB, free_bytes = 30 * GIB;
    cr_assert_eq(memory_plan_make(0, copy, free_bytes, WANTED).copies, 1);
    struct memory_plan plan = memory_plan_make(fixed.bytes, copy, free_bytes, WANTED);
    cr_assert_eq(plan.copies, 0);
    struct capture capture;
    capture_begin(&capture, STDERR_FILENO);
    memory_plan_explain(&plan, "the matrix", fixed.names, "a test GPU");
    char *text = capture_end(&capture);
    cr_expect_str_eq(text, "not enough device memory for one copy of the matrix: it needs 32768 "
                           "MiB (16384 MiB the copy, 16384 MiB the row sums, CUB's row sums), and "
                           "30720 MiB are free on a test GPU\n");
    free(text);
}

/* Names past the room for them are cut, never written beyond it; the bytes still count. */
Test(memory, many_fixed_names_are_cut_to_their_room)
{
    struct memory_fixed fixed = {0, ""};
    for (int i = 0; i < MEMORY_FIXED_NAMES; i++) memory_fixed_add(&fixed, 1, "a buffer");
    cr_expect_lt(strlen(fixed.names), (size_t)MEMORY_FIXED_NAMES);
    cr_expect_eq(fixed.bytes, (size_t)MEMORY_FIXED_NAMES * ALLOCATION_GRANULE);
}
