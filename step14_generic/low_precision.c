/* step14_generic: half (IEEE binary16) and bfloat16 on the host, in plain C. The host works
 * out the expected results from exactly the values the GPU reads, so it rounds each float to
 * the type the way the GPU's conversion does (__float2half_rn, __float2bfloat16_rn: round to
 * nearest, ties to even) and widens it back, which is exact: every half and every bf16 is a
 * float. The bf16 conversions are the toolbox's (common/bf16.c); the half ones are here.
 *   float:    1 sign bit, 8 exponent bits (bias 127), 23 fraction bits
 *   half:     1 sign bit, 5 exponent bits (bias 15),  10 fraction bits
 *   bfloat16: 1 sign bit, 8 exponent bits (bias 127),  7 fraction bits: a float's top half */
#include <math.h>
#include <string.h>

#include "generic.h"

enum {
    FLOAT_SIGN = 0x80000000u,
    FLOAT_INFINITY = 0x7f800000u,
    HALF_SIGN = 0x8000u,
    HALF_INFINITY = 0x7c00u,
    HALF_QUIET_NAN = 0x7e00u,
    HALF_FRACTION = 0x03ffu,
    HALF_FRACTION_BITS = 10,
    FLOAT_FRACTION_BITS = 23,
    DROPPED_BITS = FLOAT_FRACTION_BITS - HALF_FRACTION_BITS, /* 13 */
    HALF_SUBNORMAL_SCALE = 24, /* a half subnormal is k * 2^-24, k = 1 .. 1023 */
    BF16_SHIFT = 16            /* a bf16 is the high 16 bits of a float */
};
/* |x| >= 65520, halfway from the largest half (65504) to 2^16, rounds to infinity (the tie
 * goes to the even neighbour, 2^16, which overflows); |x| < 2^-14 is a half subnormal. */
static const uint32_t HALF_OVERFLOWS_FROM = 0x477ff000u; /* 65520.0f */
static const uint32_t HALF_NORMAL_FROM = 0x38800000u;    /* 2^-14 */
static const uint32_t EXPONENT_REBIAS = (127u - 15u) << FLOAT_FRACTION_BITS;

static uint32_t bits_of(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    return bits;
}

static float float_of(uint32_t bits)
{
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Keep the high bits of `bits`, dropping `dropped` low bits, rounded to nearest with ties to
 * the even result; a carry out of the fraction moves to the exponent, as it should. */
static uint32_t round_off(uint32_t bits, int dropped)
{
    uint32_t half_way = 1u << (dropped - 1), kept = bits >> dropped;
    uint32_t rest = bits & ((1u << dropped) - 1);
    return kept + (rest > half_way || (rest == half_way && (kept & 1u)));
}

uint16_t half_from_float(float x)
{
    uint32_t bits = bits_of(x), magnitude = bits & ~FLOAT_SIGN;
    uint16_t sign = (uint16_t)((bits & FLOAT_SIGN) >> BF16_SHIFT);
    if (magnitude > FLOAT_INFINITY) return sign | HALF_QUIET_NAN;
    if (magnitude >= HALF_OVERFLOWS_FROM) return sign | HALF_INFINITY; /* infinity too */
    if (magnitude < HALF_NORMAL_FROM) /* k * 2^-24: scaling by 2^24 is exact, then rint */
        return sign | (uint16_t)nearbyintf(ldexpf(float_of(magnitude), HALF_SUBNORMAL_SCALE));
    return sign | (uint16_t)round_off(magnitude - EXPONENT_REBIAS, DROPPED_BITS);
}

float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & HALF_SIGN) << BF16_SHIFT, exponent = (h & HALF_INFINITY);
    uint32_t fraction = h & HALF_FRACTION;
    if (exponent == 0) { /* zero or subnormal: fraction * 2^-24, exact in float */
        float magnitude = ldexpf((float)fraction, -HALF_SUBNORMAL_SCALE);
        return sign ? -magnitude : magnitude;
    }
    if (exponent == HALF_INFINITY) /* infinity, or a NaN that keeps its payload */
        return float_of(sign | FLOAT_INFINITY | fraction << DROPPED_BITS);
    return float_of(sign | (((uint32_t)(h & ~HALF_SIGN) << DROPPED_BITS) + EXPONENT_REBIAS));
}

float as_read(enum element_type type, float x)
{
    switch (type) {
    case TYPE_HALF:
        return half_to_float(half_from_float(x));
    case TYPE_BF16:
        return bf16_to_float(bf16_from_float(x));
    default:
        return x;
    }
}
