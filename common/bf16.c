/* bfloat16 on the host: a float's upper 16 bits (its sign, its 8 exponent bits and the top 7 of
 * its 23 fraction bits), rounded as the GPU's __float2bfloat16_rn rounds (CUDA Math API,
 * "Bfloat16 Precision Conversion and Data Movement"). */
#include <string.h>

#include "toolbox.h"

enum { BF16_SHIFT = 16 }; /* the bits a float has below its bf16 */
static const uint32_t DROPPED = 0xffffu, HALF_WAY = 0x8000u;
static const uint32_t MAGNITUDE = 0x7fffffffu, FLOAT_INFINITY = 0x7f800000u;
static const uint32_t QUIET_BIT = 0x00400000u; /* the top fraction bit: set in a quiet NaN */

uint16_t bf16_from_float(float x)
{
    uint32_t bits;
    memcpy(&bits, &x, sizeof bits);
    /* A NaN keeps its sign and its top payload bits, made quiet: rounded like a number, one
     * whose payload lies in the dropped bits would become infinity. */
    if ((bits & MAGNITUDE) > FLOAT_INFINITY) return (uint16_t)((bits | QUIET_BIT) >> BF16_SHIFT);
    /* To nearest, ties to even; a carry out of the fraction moves into the exponent, so the
     * largest floats round to infinity, as they should. */
    uint32_t kept = bits >> BF16_SHIFT, rest = bits & DROPPED;
    return (uint16_t)(kept + (rest > HALF_WAY || (rest == HALF_WAY && (kept & 1u))));
}

float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << BF16_SHIFT;
    float x;
    memcpy(&x, &bits, sizeof x);
    return x;
}
