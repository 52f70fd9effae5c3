/* The host's conversions, a float rounded to half or bf16 and widened back: half in
 * step14_generic/low_precision.c, bf16 in common/bf16.c (the toolbox's, used by steps 14 and 16).
 * Every one of the 65,536 bit patterns of each type must survive the round trip; the point
 * halfway between any two neighbours must round to the one whose last bit is 0 (ties to
 * even), and the floats just beside it to the nearer one; too large a magnitude gives
 * infinity, and a NaN stays a NaN. The neighbours and midpoints come from the encodings,
 * independently of the code under test. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "../step14_generic/generic.h" /* half_from_float, as_read; bf16's through toolbox.h */

enum {
    PATTERNS = 1 << 16,
    SIGN = 0x8000,
    HALF_INFINITY = 0x7c00,
    HALF_LARGEST = 0x7bff,
    HALF_EXPONENT = 0x7c00,
    HALF_FRACTION = 0x03ff,
    BF16_INFINITY = 0x7f80,
    BF16_LARGEST = 0x7f7f,
    BF16_EXPONENT = 0x7f80,
    BF16_FRACTION = 0x007f
};

static bool half_is_nan(uint16_t h)
{
    return (h & HALF_EXPONENT) == HALF_EXPONENT && (h & HALF_FRACTION) != 0;
}

static bool bf16_is_nan(uint16_t b)
{
    return (b & BF16_EXPONENT) == BF16_EXPONENT && (b & BF16_FRACTION) != 0;
}

static float float_of(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

static uint32_t bits_of(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

Test(low_precision, every_half_survives_the_round_trip)
{
    for (uint32_t h = 0; h < PATTERNS; h++) {
        float wide = half_to_float((uint16_t)h);
        uint16_t back = half_from_float(wide);
        if (half_is_nan((uint16_t)h))
            cr_expect(isnan(wide) && half_is_nan(back), "NaN 0x%04x: %g, back 0x%04x", h, wide,
                      back);
        else
            cr_expect_eq(back, h, "0x%04x -> %.9g -> 0x%04x", h, wide, back);
    }
}

Test(low_precision, every_bf16_survives_the_round_trip)
{
    for (uint32_t b = 0; b < PATTERNS; b++) {
        float wide = bf16_to_float((uint16_t)b);
        uint16_t back = bf16_from_float(wide);
        if (bf16_is_nan((uint16_t)b))
            cr_expect(isnan(wide) && bf16_is_nan(back), "NaN 0x%04x: %g, back 0x%04x", b, wide,
                      back);
        else
            cr_expect_eq(back, b, "0x%04x -> %.9g -> 0x%04x", b, wide, back);
    }
}

/* Values whose encodings follow from the formats' definitions (IEEE 754 binary16; bfloat16:
 * the high half of a float). */
Test(low_precision, known_encodings_widen_to_their_values)
{
    static const struct {
        uint16_t half;
        float value;
    } HALVES[] = {{0x3c00, 1.0f},        {0xc000, -2.0f},    {0x7bff, 65504.0f},
                  {0x0400, 0x1p-14f},    {0x0001, 0x1p-24f}, {0x03ff, 1023 * 0x1p-24f},
                  {0x3555, 0x1.554p-2f}, {0x7c00, INFINITY}, {0xfc00, -INFINITY}};
    static const struct {
        uint16_t bf16;
        float value;
    } BF16S[] = {{0x3f80, 1.0f},        {0x4380, 256.0f},    {0x4381, 258.0f},
                 {0x7f7f, 0x1.fep127f}, {0x0001, 0x1p-133f}, {0xff80, -INFINITY}};
    for (size_t k = 0; k < sizeof HALVES / sizeof HALVES[0]; k++)
        cr_expect_eq(half_to_float(HALVES[k].half), HALVES[k].value, "half 0x%04x: %.9g, not %.9g",
                     HALVES[k].half, half_to_float(HALVES[k].half), HALVES[k].value);
    for (size_t k = 0; k < sizeof BF16S / sizeof BF16S[0]; k++)
        cr_expect_eq(bf16_to_float(BF16S[k].bf16), BF16S[k].value, "bf16 0x%04x: %.9g, not %.9g",
                     BF16S[k].bf16, bf16_to_float(BF16S[k].bf16), BF16S[k].value);
    float zero = half_to_float(SIGN);
    cr_expect(zero == 0 && signbit(zero), "half 0x8000 is -0, not %g", zero);
}

/* Between neighbours low and high = low + 1 (as encodings, of either sign): the midpoint goes
 * to the even one, the float just above it to high, the float just below it to low. */
static void expect_ties_to_even(uint16_t (*from_float)(float), float (*to_float)(uint16_t),
                                uint16_t low, const char *type)
{
    uint16_t high = (uint16_t)(low + 1), even = (low & 1) ? high : low;
    float a = to_float(low), b = to_float(high);
    float middle = a / 2 + b / 2; /* exact: one bit more than a or b, and a + b may overflow */
    cr_assert(a < middle && middle < b, "%s 0x%04x: no float between %g and %g", type, low, a, b);
    cr_expect_eq(from_float(middle), even, "%s: the tie %.9g between 0x%04x and 0x%04x gave 0x%04x",
                 type, middle, low, high, from_float(middle));
    cr_expect_eq(from_float(nextafterf(middle, INFINITY)), high, "%s: just above %.9g", type,
                 middle);
    cr_expect_eq(from_float(nextafterf(middle, 0)), low, "%s: just below %.9g", type, middle);
    cr_expect_eq(from_float(-middle), even | SIGN, "%s: the tie -%.9g", type, middle);
}

Test(low_precision, half_ties_go_to_even_and_others_to_the_nearest)
{
    for (uint16_t low = 0; low < HALF_LARGEST; low++)
        expect_ties_to_even(half_from_float, half_to_float, low, "half");
}

Test(low_precision, bf16_ties_go_to_even_and_others_to_the_nearest)
{
    for (uint16_t low = 0; low < BF16_LARGEST; low++)
        expect_ties_to_even(bf16_from_float, bf16_to_float, low, "bf16");
}

/* Past the largest finite value: the midpoint to the next power of two is a tie whose even
 * side is that power, which overflows; anything below it stays finite. */
Test(low_precision, too_large_a_magnitude_rounds_to_infinity)
{
    const float half_tie = 65520.0f, bf16_tie = float_of(0x7f7f8000u);
    cr_expect_eq(half_from_float(half_tie), HALF_INFINITY);
    cr_expect_eq(half_from_float(-half_tie), HALF_INFINITY | SIGN);
    cr_expect_eq(half_from_float(nextafterf(half_tie, 0)), HALF_LARGEST);
    cr_expect_eq(half_from_float(1e6f), HALF_INFINITY);
    cr_expect_eq(half_from_float(INFINITY), HALF_INFINITY);
    cr_expect_eq(bf16_from_float(bf16_tie), BF16_INFINITY);
    cr_expect_eq(bf16_from_float(nextafterf(bf16_tie, 0)), BF16_LARGEST);
    cr_expect_eq(bf16_from_float(FLT_MAX), BF16_INFINITY);
    cr_expect_eq(bf16_from_float(-INFINITY), BF16_INFINITY | SIGN);
}

/* Below the smallest subnormal: half of it is a tie that goes to 0 (even), a little more
 * goes to it; the sign stays. */
Test(low_precision, tiny_magnitudes_round_to_zero_or_the_smallest_subnormal)
{
    cr_expect_eq(half_from_float(0x1p-25f), 0);
    cr_expect_eq(half_from_float(-0x1p-25f), SIGN);
    cr_expect_eq(half_from_float(nextafterf(0x1p-25f, 1)), 1);
    cr_expect_eq(half_from_float(1e-30f), 0);
    cr_expect_eq(bf16_from_float(0x1p-134f), 0);
    cr_expect_eq(bf16_from_float(nextafterf(0x1p-134f, 1)), 1);
    cr_expect_eq(bf16_from_float(FLT_TRUE_MIN), 0);
}

/* A NaN whose high bits are all ones would carry into the sign if it were rounded like a
 * number; one with only low fraction bits would become infinity. */
Test(low_precision, a_nan_stays_a_nan)
{
    static const uint32_t NANS[] = {0x7fc00000u, 0x7fffffffu, 0x7f800001u, 0xffc00000u,
                                    0xff800001u};
    for (size_t k = 0; k < sizeof NANS / sizeof NANS[0]; k++) {
        float nan = float_of(NANS[k]);
        cr_expect(half_is_nan(half_from_float(nan)), "float 0x%08x -> half 0x%04x", NANS[k],
                  half_from_float(nan));
        cr_expect(bf16_is_nan(bf16_from_float(nan)), "float 0x%08x -> bf16 0x%04x", NANS[k],
                  bf16_from_float(nan));
    }
}

/* as_read: half and bf16 give the rounded value, the other types the float itself. */
Test(low_precision, as_read_rounds_only_half_and_bf16)
{
    const float third = 1.0f / 3;
    cr_expect_eq(bits_of(as_read(TYPE_HALF, third)), bits_of(0x1.554p-2f));
    cr_expect_eq(bits_of(as_read(TYPE_BF16, third)), bits_of(0x1.56p-2f));
    cr_expect_eq(as_read(TYPE_BF16, 257.0f), 256.0f, "257 is a tie in bf16: 256 is even");
    cr_expect_eq(as_read(TYPE_HALF, 2049.0f), 2048.0f, "2049 is a tie in half: 2048 is even");
    for (int t = TYPE_INT; t <= TYPE_DOUBLE; t++)
        cr_expect_eq(bits_of(as_read((enum element_type)t, third)), bits_of(third), "%s",
                     t == TYPE_INT     ? "int"
                     : t == TYPE_FLOAT ? "float"
                                       : "double");
}
