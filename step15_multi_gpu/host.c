/* step15_multi_gpu: the program.
 * It reads top to bottom like the other steps: the options, the data, device memory, the
 * runs, the check, the time, the report; the error bound's depth comes last. New here: the
 * data lies on K GPUs, each reduces its own shard with step13's kernel (reduce.c picks it),
 * and NCCL adds the K totals. team.c sets up the GPUs and NCCL and times several GPUs at
 * once; launched.c names each GPU's kernel; processes.c holds the MPI calls for mpirun. A
 * call that fails has said why: the program frees what it holds and exits 3. */
#include <stdlib.h>

#include "reduce.h"
#include "team.h"
#include "toolbox.h"

enum { GPUS_OPTION = 0, TIMEOUT_OPTION = 1 }; /* the step's own options, in .extras' order */

static const struct step_info STEP = {
    .name = "step15",
    .title = "Several GPUs: each reduces its own shard, NCCL adds the totals",
    .min_threads = FEWEST_THREADS,
    .max_threads = MOST_THREADS,
    .default_threads = DEFAULT_THREADS,
    .threads_about =
        "threads per block, a power of two in 128..1024   [as step13: 512, or 1024\n"
        "                 where 512 would make a shard's grid of more than 32768 blocks]",
    .variants =
        (const struct variant[]){
            {"local", "each GPU reduces its shard; ncclAllReduce adds one float per GPU"},
            {"gather", "every shard is copied to GPU 0 first, which reduces all n"},
            {"elementwise", "ncclAllReduce adds the shards elementwise; each GPU reduces the sums"},
            {NULL, NULL}},
    .extras =
        (const struct extra_option[]){
            {"gpus", "K",
             "GPUs to use, 1 .. the visible ones   [all; under mpirun: one per process]"},
            {"timeout", "S",
             "seconds any wait for the other GPUs or processes may last; then\n"
             "                 NCCL is aborted and the program exits with 3   [60]"},
            {NULL, NULL, NULL}},
};

/* Where a GPU's reduction reads, and how much: its shard (local), the elementwise sums of the
 * shards (elementwise), or all n on GPU 0 (gather). */
static const float *reduction_input(const struct gpu *g, int variant)
{
    return variant == DATA_SUMMED_ELEMENTWISE ? g->summed : g->shard;
}

static size_t reduction_length(const struct gpu *g, size_t n, int gpus, int variant)
{
    if (variant == DATA_LOCAL) return g->length;
    return variant == DATA_GATHERED ? n : shard_start(n, 1, gpus);
}

/* --threads where given; otherwise AUTO_THREADS, step13's choice for each launch's length. */
static unsigned threads_asked(const struct options *o)
{
    return o->threads_given ? o->threads : AUTO_THREADS;
}

/* One run of the chosen way, on every GPU's stream: the combine comes after the reductions
 * (local) or before them. The total ends on every GPU (gather: on GPU 0). Each GPU's
 * launched: the kernel it ran and its own finish, or nothing. */
static bool run_variant(struct team *t, size_t n, unsigned threads, int variant)
{
    if (variant == DATA_GATHERED && !team_gather(t, n)) return false;
    if (variant == DATA_SUMMED_ELEMENTWISE && !team_allreduce_arrays(t, shard_start(n, 1, t->size)))
        return false;
    for (int i = 0; i < t->count; i++) {
        struct gpu *g = &t->gpus[i];
        g->launched = (struct launched){NULL, NULL};
        if (variant == DATA_GATHERED && g->rank != 0) continue; /* its shard is on GPU 0 now */
        const float *in = reduction_input(g, variant);
        size_t length = reduction_length(g, n, t->size, variant);
        CUDA_TRY(cudaSetDevice(g->device));
        CUDA_TRY(reduce_on_stream(in, length, threads, &g->scratch, g->stream, &g->launched));
    }
    return variant != DATA_LOCAL || team_allreduce_totals(t);
}

/* The same data in every process (element i depends only on the seed and i), its exact sum,
 * and, once time_alone sets it, the copy on GPU 0 that CUB reads. */
static bool host_data(const struct options *o, size_t n, struct input *whole)
{
    *whole = (struct input){.n = n, .host = malloc(n > 0 ? n * sizeof(float) : 1), .count = 1};
    if (whole->host == NULL) {
        fprintf(stderr, "%s: not enough host memory for %zu floats\n", STEP.name, n);
        return false;
    }
    pattern_fill(whole->host, n, &o->pattern, o->seed);
    whole->reference = reference_compute(whole->host, n);
    return true;
}

/* The yardstick, in rank 0's process: the same n and kernel on GPU 0 alone, timed as every
 * step times itself (on stream 0, the L2 flushed before each run); then CUB on the same copy.
 * The report names what the team's runs launch, which overwrite GPU 0's launched. */
static bool time_alone(struct gpu *g, const struct options *o, struct input *whole,
                       struct report *report, struct timing *alone)
{
    CUDA_TRY(cudaSetDevice(g->device));
    whole->copies[0] = g->shard;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        if (!timer_start(&g->timer)) return false;
        CUDA_TRY(
            reduce_on_stream(g->shard, whole->n, threads_asked(o), &g->scratch, 0, &g->launched));
        if (!timer_stop(&g->timer, run >= o->warmup)) return false;
    }
    *alone = timer_summary(&g->timer);
    return !o->cub || cub_time(whole, o, &g->timer, &report->cub, NULL);
}

/* The depth of the error bound (the longest chain of additions): at the end of the file. */
static unsigned depth(size_t n, const struct team *t, unsigned threads, int variant);

/* One size: the data on every GPU, GPU 0 alone, the chosen way on all of them, the check
 * against the host's exact sum, and the report. */
static int measure(struct team *t, const struct options *o, size_t n)
{
    struct report report = report_start(&STEP, &t->together, o, n);
    struct gpu *first = team_first(t);
    struct input whole = {0};
    struct timing alone = {0}, combine = {0};
    bool held = false;
    int status = EXIT_ENVIRONMENT;

    if (!host_data(o, n, &whole)) goto done;
    if (!team_buffers(t, n, o->variant == DATA_SUMMED_ELEMENTWISE)) goto done;
    if (!team_scatter(t, whole.host, whole.host, n)) goto done;
    if (first != NULL && !time_alone(first, o, &whole, &report, &alone)) goto done;
    if (o->variant == DATA_GATHERED && !team_poison(t, n)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        if (!team_poison_totals(t) || !team_clock_start(t)) goto done;
        if (!run_variant(t, n, threads_asked(o), o->variant)) goto done;
        if (!team_clock_stop(t, run >= o->warmup)) goto done;
    }
    report.time = team_times(t, &combine);
    if (!team_launched(t, &report.launched)) goto done;
    if (!team_total(t, o->variant, &report.result, &held)) goto done;

    size_t longest = o->variant == DATA_GATHERED ? n : shard_start(n, 1, t->size);
    snprintf(report.launch, sizeof report.launch,
             "%d shard(s) of %zu .. %zu floats; step13's kernel (%u threads a block) on %s",
             t->size, n / t->size, shard_start(n, 1, t->size),
             reduce_threads(longest, threads_asked(o), team_card_vectors(t)),
             o->variant == DATA_GATHERED ? "GPU 0 over all n" : "every GPU over a shard's length");
    report_judge(&report, &whole.reference, depth(n, t, threads_asked(o), o->variant));
    status = EXIT_CORRECT; /* a process that holds no total has nothing to judge */
    if (!held) goto done;
    report_print(&report, o);
    if (!o->csv && !o->quiet) team_print(t, o->variant, &report, combine, alone);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    free(whole.host);
    team_buffers_free(t);
    return status;
}

/* --check: every case of the matrix, scattered over the GPUs, through the same run. */
static int check_all(struct team *t, const struct options *o, const struct device_info *device)
{
    struct check *check = NULL;
    struct check_case c;
    bool ran = false;

    if (!CUDA_OK(cudaSetDevice(t->gpus[0].device))) return EXIT_ENVIRONMENT;
    if ((check = check_start(&STEP, o, device)) == NULL) return EXIT_ENVIRONMENT;
    if (!team_buffers(t, CHECK_LARGEST_N, o->variant == DATA_SUMMED_ELEMENTWISE)) goto done;
    while (check_next(check, &c)) {
        float total = 0;
        bool held = false;
        if (!team_scatter(t, c.input, c.host, c.n)) goto done;
        if (o->variant == DATA_GATHERED && !team_poison(t, c.n)) goto done;
        if (!team_poison_totals(t) || !run_variant(t, c.n, c.threads, o->variant)) goto done;
        if (!team_total(t, o->variant, &total, &held)) goto done;
        if (held) check_record(check, &c, total, depth(c.n, t, c.threads, o->variant));
    }
    ran = true;
done:
    team_buffers_free(t);
    return check_finish(check, ran);
}

/* Every size of -n A..B, the worst exit code. */
static int measure_all(struct team *t, const struct options *o)
{
    int worst = EXIT_CORRECT;
    if (o->csv) report_csv_header();
    for (size_t n = o->n; n <= o->n_last; n = n ? 2 * n : 1) {
        int status = measure(t, o, n);
        if (status > worst) worst = status;
        if (status == EXIT_ENVIRONMENT) break;
    }
    return worst;
}

/* The process's GPUs are chosen before any CUDA call makes a context: under mpirun a context
 * on GPU 0 in every process would take memory there, and fail where GPUs are set to
 * exclusive-process mode. device_open_number touches only the first chosen GPU. */
int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    struct team team;
    int gpus = 0, timeout_s = DEFAULT_TIMEOUT_S;
    int status = options_parse(argc, argv, &STEP, &options);
    if (status == OPTIONS_RUN)
        status = team_number_option("gpus", options.extra[GPUS_OPTION], MAX_GPUS, STEP.name, &gpus);
    if (status == OPTIONS_RUN)
        status = team_number_option("timeout", options.extra[TIMEOUT_OPTION], MAX_TIMEOUT_S,
                                    STEP.name, &timeout_s);
    if (status != OPTIONS_RUN) return status;

    if (!team_begin(&team, STEP.name, timeout_s)) return team_end(&team, EXIT_ENVIRONMENT);
    status = team_choose(&team, gpus);
    if (status != OPTIONS_RUN) return team_end(&team, status);
    if (!device_open_number(&device, STEP.name, team.gpus[0].device))
        return team_end(&team, EXIT_ENVIRONMENT);
    status = team_open(&team, &device, &options);
    if (status != OPTIONS_RUN) return team_end(&team, status);
    status = options.check ? check_all(&team, &options, &device) : measure_all(&team, &options);
    return team_end(&team, status);
}

/* ---- The error bound's depth (docs/verification.md): the program does not need it to run. ---- */

/* K values meet in K - 1 additions, in whatever order NCCL takes them: after each GPU's
 * kernel (local) or before it (elementwise); gather has one kernel over all n. The longest
 * shard has the longest chain. */
static unsigned depth(size_t n, const struct team *t, unsigned threads, int variant)
{
    unsigned card = team_card_vectors(t);
    if (variant == DATA_GATHERED) return reduce_depth(n, threads, card);
    return (unsigned)t->size - 1 + reduce_depth(shard_start(n, 1, t->size), threads, card);
}
