/* Timers that keep samples measured some other way: step15 times several GPUs with their own
 * events and keeps one figure per run (toolbox.h, timing section). */
#include <string.h>

#include "toolbox.h"

bool timer_make_samples(struct timer *timer, int capacity)
{
    memset(timer, 0, sizeof *timer);
    timer->capacity = capacity;
    timer->samples = malloc(((size_t)capacity + 1) * sizeof *timer->samples);
    return timer->samples != NULL;
}

void timer_keep(struct timer *timer, double milliseconds)
{
    if (timer->runs < timer->capacity) timer->samples[timer->runs++] = milliseconds;
}
