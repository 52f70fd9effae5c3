#include "registry.h"

#include <string.h>

extern const struct step step00, step01, step02, step03, step04, step05, step06, step07, step08,
    step09, step10;

const struct step *const all_steps[] = {&step00, &step01, &step02, &step03, &step04, &step05,
                                         &step06, &step07, &step08, &step09, &step10};
const int all_steps_count = sizeof all_steps / sizeof all_steps[0];

const struct step *find_step(const char *name)
{
    for (int i = 0; i < all_steps_count; i++)
        if (strcmp(all_steps[i]->name, name) == 0) return all_steps[i];
    return NULL;
}
