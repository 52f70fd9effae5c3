#include "pattern.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ONEHOT_PREFIX[] = "onehot:";

uint64_t random_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool parse_index(const char *text, size_t *index)
{
    if (*text < '0' || *text > '9') return false;
    errno = 0;
    char *end = NULL;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || value > SIZE_MAX) return false;
    *index = (size_t)value;
    return true;
}

bool pattern_parse(const char *text, struct pattern *pattern)
{
    memset(pattern, 0, sizeof *pattern);
    if (strcmp(text, "uniform") == 0) {
        pattern->kind = PATTERN_UNIFORM;
        return true;
    }
    if (strcmp(text, "ones") == 0) {
        pattern->kind = PATTERN_ONES;
        return true;
    }
    if (strncmp(text, ONEHOT_PREFIX, sizeof ONEHOT_PREFIX - 1) != 0) return false;
    const char *where = text + sizeof ONEHOT_PREFIX - 1;
    pattern->kind = PATTERN_ONEHOT;
    if (strcmp(where, "last") == 0) {
        pattern->onehot_last = true;
        return true;
    }
    return parse_index(where, &pattern->onehot_index);
}

const char *pattern_describe(const struct pattern *pattern, char *buffer, size_t size)
{
    switch (pattern->kind) {
    case PATTERN_UNIFORM: snprintf(buffer, size, "uniform"); break;
    case PATTERN_ONES: snprintf(buffer, size, "ones"); break;
    case PATTERN_ONEHOT:
        if (pattern->onehot_last)
            snprintf(buffer, size, "onehot:last");
        else
            snprintf(buffer, size, "onehot:%zu", pattern->onehot_index);
        break;
    }
    return buffer;
}

bool pattern_onehot_position(const struct pattern *pattern, size_t n, size_t *position)
{
    if (n == 0) return false;
    *position = pattern->onehot_last ? n - 1 : pattern->onehot_index;
    return *position < n;
}

void pattern_fill(float *data, size_t n, const struct pattern *pattern, uint64_t seed)
{
    switch (pattern->kind) {
    case PATTERN_UNIFORM: {
        uint64_t state = seed;
        for (size_t i = 0; i < n; i++) data[i] = (float)(random_next(&state) % UNIFORM_VALUES);
        break;
    }
    case PATTERN_ONES:
        for (size_t i = 0; i < n; i++) data[i] = 1.0f;
        break;
    case PATTERN_ONEHOT: {
        memset(data, 0, n * sizeof *data);
        size_t position;
        if (pattern_onehot_position(pattern, n, &position)) data[position] = 1.0f;
        break;
    }
    }
}
