/* common/device.c's arithmetic on the host: datasheet peak bandwidth and achieved
 * bandwidth. The expected peaks are the vendors' published figures, not a re-derivation. */
#include <criterion/criterion.h>
#include <math.h>

#include "device.h"

/* Relative difference allowed between a computed and a published figure: the published
 * ones are exact decimals of the same product, so only rounding separates them. */
static const double SAME_FIGURE = 1e-12;

struct card {
    const char *name;
    int memory_clock_khz;             /* as cudaDevAttrMemoryClockRate reports it */
    int bus_width_bits;
    double published_gb_per_s;
};

static const struct card KNOWN_CARDS[] = {
    {"H100 SXM5 80GB (HBM3)", 2619000, 5120, 3352.32},
    {"A100 40GB (HBM2)", 1215000, 5120, 1555.2},
};

static void expect_close(double actual, double expected, const char *what)
{
    cr_expect_leq(fabs(actual - expected), SAME_FIGURE * fabs(expected),
                  "%s: %.9f, expected %.9f", what, actual, expected);
}

Test(host_device_math, peak_bandwidth_matches_published_figures)
{
    for (size_t i = 0; i < sizeof KNOWN_CARDS / sizeof KNOWN_CARDS[0]; i++) {
        const struct card *card = &KNOWN_CARDS[i];
        expect_close(peak_bandwidth_gb_per_s(card->memory_clock_khz, card->bus_width_bits),
                     card->published_gb_per_s, card->name);
    }
}

Test(host_device_math, peak_bandwidth_scales_with_clock_and_bus)
{
    const struct card *h100 = &KNOWN_CARDS[0];
    double peak = peak_bandwidth_gb_per_s(h100->memory_clock_khz, h100->bus_width_bits);
    expect_close(peak_bandwidth_gb_per_s(2 * h100->memory_clock_khz, h100->bus_width_bits),
                 2 * peak, "twice the clock");
    expect_close(peak_bandwidth_gb_per_s(h100->memory_clock_khz, h100->bus_width_bits / 2),
                 peak / 2, "half the bus");
    cr_expect_eq(peak_bandwidth_gb_per_s(0, h100->bus_width_bits), 0.0,
                 "a card that reports no clock has no known peak");
}

Test(host_device_math, effective_bandwidth_is_bytes_over_time_in_gb_per_s)
{
    expect_close(effective_gb_per_s(1e9, 1000.0), 1.0, "1 GB in 1 s");
    expect_close(effective_gb_per_s(4e9, 2.0), 2000.0, "4 GB in 2 ms");
    /* The documents' input: 2^25 floats = 134217728 bytes, read in 0.1 ms. */
    expect_close(effective_gb_per_s(134217728.0, 0.1), 1342.17728, "2^25 floats in 0.1 ms");
    cr_expect_eq(effective_gb_per_s(0, 1.0), 0.0, "nothing read");
}

Test(host_device_math, effective_bandwidth_is_zero_for_no_time)
{
    cr_expect_eq(effective_gb_per_s(1e9, 0.0), 0.0, "0 ms");
    cr_expect_eq(effective_gb_per_s(1e9, -1.0), 0.0, "negative ms");
    cr_expect_eq(effective_gb_per_s(1e9, -0.0), 0.0, "-0 ms");
}
