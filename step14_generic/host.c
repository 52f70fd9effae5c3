/* step14_generic: the program.
 * It reads top to bottom like the other steps: the options, the data, device memory, the
 * launch and the finish, the check, the time, the report; the error bound's depth comes last.
 * It is longer than they are because it runs five operators on five types; what those need
 * besides (their names, the data in each type, the expected results, the report lines) is in
 * data.c and verdict.c (generic.h), and the kernel template in reduce.cu. A call that fails
 * has said why: the program frees what it holds and exits 3. */
#include <stdio.h>
#include <string.h>

#include "generic.h"
#include "reduce.h"
#include "toolbox.h"

enum { MIN_ELEMENTS = 8 }; /* per thread, at least: see blocks_for */
/* the step's own options, in the order of STEP.extras */
enum { OP_OPTION, TYPE_OPTION, ACCUMULATE_OPTION };

static const struct step_info STEP = {
    .name = "step14",
    .title = "Any type, any operator: one kernel template (document 002)",
    .min_threads = 32,
    .max_threads = 1024,
    .default_threads = 256,
    .host_finish = true,
    .grid_size = true,
    .extras =
        (const struct extra_option[]){
            {"op", "O",
             "sum, min, max, sumsq (sum and sum of squares) or dot   [sum; --check: all]"},
            {"type", "T",
             "the elements' type: int, float, double, half or bf16   [float; --check: all]\n"
             "                 every op takes every type; int takes integer data only, half\n"
             "                 magnitudes up to 65504 (no --pattern wide or cancel); int sums\n"
             "                 accumulate in long long, half and bf16 sums in float"},
            {"accumulate", "A",
             "float or input   [float]: input adds a sum of half or bf16 up in that type\n"
             "                 (--op sum only, no --check), to measure what it loses"},
            {NULL, NULL, NULL}},
};

/* The (op, type) pairs to run: op_first..op_last times type_first..type_last; with
 * input_accumulator, the one sum of half or bf16 in its own type. */
struct pairs {
    int op_first, op_last, type_first, type_last;
    bool input_accumulator;
};

/* --accumulate: false for float (or absent), true for input; -1 for anything else or for
 * input where it has no instantiation (a sum of half or bf16, never in --check). */
static int input_accumulator_chosen(const struct options *o, int op_index, int type_index)
{
    const char *accumulate = o->extra[ACCUMULATE_OPTION];
    if (accumulate == NULL || strcmp(accumulate, "float") == 0) return false;
    if (strcmp(accumulate, "input") != 0)
        fprintf(stderr, "%s: --accumulate takes float or input, not '%s'\n", STEP.name, accumulate);
    else if (o->check || op_index != OP_SUM || (type_index != TYPE_HALF && type_index != TYPE_BF16))
        fprintf(stderr,
                "%s: --accumulate input is a measurement of one sum: it takes --op sum with "
                "--type half or bf16, and no --check\n",
                STEP.name);
    else
        return true;
    return -1;
}

/* A name picks one; without a name a run takes sum and float, --check every one. --type int
 * refuses a real-valued pattern: the conversion would drop its fractions; --type half a
 * pattern whose magnitudes pass 65504 (wide, cancel): they would read as infinity. */
static int pairs_choose(const struct options *o, struct pairs *chosen)
{
    const char *op = o->extra[OP_OPTION], *type = o->extra[TYPE_OPTION];
    int op_index = op ? name_index(op, OP_NAMES, OPS) : OP_SUM;
    int type_index = type ? name_index(type, TYPE_NAMES, TYPES) : TYPE_FLOAT;
    bool every_op = o->check && op == NULL, every_type = o->check && type == NULL;
    enum pattern_kind kind = o->pattern.kind;
    bool integer_pattern = kind == PATTERN_UNIFORM || kind == PATTERN_ONES ||
                           kind == PATTERN_ONEHOT;
    bool beyond_half = kind == PATTERN_WIDE || kind == PATTERN_CANCEL;
    int input_accumulator = -1;
    char pattern[48];
    pattern_name(&o->pattern, pattern, sizeof pattern);
    if (op_index < 0)
        fprintf(stderr, "%s: --op takes sum, min, max, sumsq or dot, not '%s'\n", STEP.name, op);
    else if (type_index < 0)
        fprintf(stderr, "%s: --type takes int, float, double, half or bf16, not '%s'\n", STEP.name,
                type);
    else if (type_index == TYPE_INT && !integer_pattern && !o->check)
        fprintf(
            stderr,
            "%s: --type int takes integer data, and the pattern '%s' is real-valued (uniform, ones "
            "and onehot are integers)\n",
            STEP.name, pattern);
    else if (type_index == TYPE_HALF && beyond_half && !o->check)
        fprintf(stderr,
                "%s: --type half holds magnitudes up to 65504, and the pattern '%s' goes beyond "
                "(wide and cancel do)\n",
                STEP.name, pattern);
    else if ((input_accumulator = input_accumulator_chosen(o, op_index, type_index)) >= 0) {
        *chosen = (struct pairs){every_op ? 0 : op_index, every_op ? OPS - 1 : op_index,
                                 every_type ? 0 : type_index, every_type ? TYPES - 1 : type_index,
                                 input_accumulator};
        return OPTIONS_RUN;
    }
    fprintf(stderr, "(%s/run --help lists the options)\n", STEP.name);
    return EXIT_USAGE;
}

/* How the kernel is launched: block size, the most blocks (--blocks B, or by default the GPU
 * filled once: blocks_or_filling), and who finishes: the last block, or the host (document
 * 001). */
struct shape {
    unsigned threads, most_blocks;
    enum finish finish;
};

/* step09's grid: shape->most_blocks blocks, but never so many that a thread gets fewer than
 * MIN_ELEMENTS elements. */
static unsigned blocks_for(size_t n, const struct shape *shape)
{
    unsigned enough = blocks_to_cover(n, (size_t)shape->threads * MIN_ELEMENTS);
    return enough < shape->most_blocks ? enough : shape->most_blocks;
}

/* Device memory beside the input: the total, then a partial per block; the ticket counter. */
struct buffers {
    void *partials, *total;
    unsigned *ticket_counter;
};

static bool buffers_create(struct buffers *b, unsigned blocks)
{
    CUDA_TRY(cudaMalloc(&b->total, ((size_t)blocks + 1) * MAX_ACCUMULATOR_BYTES));
    CUDA_TRY(cudaMalloc((void **)&b->ticket_counter, sizeof(unsigned)));
    b->partials = (char *)b->total + MAX_ACCUMULATOR_BYTES;
    return CUDA_OK(cudaMemset(b->ticket_counter, 0, sizeof(unsigned)));
}

static void buffers_free(struct buffers *b)
{
    CUDA_OK(cudaFree(b->total));
    CUDA_OK(cudaFree(b->ticket_counter));
}

/* What a launch writes and its finish reads, poisoned before each: from the total, its
 * partials (a NaN in every floating type; -1 in int and long long, which no int case
 * expects); never the ticket counter, which a launch needs at 0. */
static size_t outputs_bytes(const struct generic_launch *job)
{
    return ((size_t)job->blocks + 1) * MAX_ACCUMULATOR_BYTES;
}

static struct generic_launch launch_for(struct pair p, const void *a, const void *b, size_t n,
                                        const struct shape *s, const struct buffers *buffers)
{
    return (struct generic_launch){p.op,
                                   p.type,
                                   p.input_accumulator,
                                   a,
                                   b,
                                   n,
                                   blocks_for(n, s),
                                   s->threads,
                                   buffers->partials,
                                   s->finish == FINISH_CPU ? NULL : buffers->total,
                                   buffers->ticket_counter};
}

/* One run: the launch; finishing on the host, also the copy of the partials and their merge
 * there, which are part of what that finish costs. *launched names the kernel and the finish. */
static bool reduce(const struct generic_launch *job, double result[MAX_RESULT_VALUES],
                   struct launched *launched)
{
    CUDA_TRY(reduce_generic(job, launched));
    return job->total != NULL || CUDA_OK(result_read(job, result));
}

/* The depth of the error bound (the longest chain of merges): at the end of the file. */
static unsigned depth(size_t n, const struct shape *s);

/* One size: device memory, the data in its type, timed runs (then CUB's, for a float sum),
 * the check against the host's expected result, and the report. */
static int measure(const struct options *o, const struct device_info *device, struct pair p,
                   size_t n)
{
    struct shape shape = {o->threads, blocks_or_filling(device, o->threads, o->blocks), o->finish};
    unsigned blocks = blocks_for(n, &shape);
    size_t grid_threads = (size_t)blocks * o->threads;
    struct report report = report_start(&STEP, device, o, n);
    struct typed_input input = {0};
    struct timer timer = {0};
    struct buffers buffers = {0};
    struct generic_launch job = {0};
    double result[MAX_RESULT_VALUES] = {0};
    int status = EXIT_ENVIRONMENT;

    if (!buffers_create(&buffers, blocks)) goto done;
    if (!timer_make(&timer, device, o)) goto done;
    if (!typed_input_create(&input, o, n, p, device)) goto done;
    for (int run = 0; run < o->warmup + o->iters; run++) {
        job = launch_for(p, input.a[run % input.count], input.b, n, &shape, &buffers);
        if (!outputs_poison(buffers.total, outputs_bytes(&job))) goto done;
        if (!timer_start(&timer)) goto done;
        if (!reduce(&job, result, &report.launched)) goto done;
        if (!timer_stop(&timer, run >= o->warmup)) goto done;
    }
    report.time = timer_summary(&timer);
    if (job.total != NULL && !CUDA_OK(result_read(&job, result))) goto done;
    if (cub_runs(o, p) && !cub_time(&input.floats, o, &timer, &report.cub, NULL)) goto done;

    snprintf(report.launch, sizeof report.launch,
             "%u blocks x %u threads, up to %zu element(s) per thread; 1 launch, %s", blocks,
             o->threads, (n + grid_threads - 1) / grid_threads,
             o->finish == FINISH_CPU ? "the host merges the partials (document 001)"
                                     : "the last block merges the partials");
    struct expectation expected = expect(p, &input.values, depth(n, &shape));
    pair_report(&report, p, &expected, result, o);
    status = report.ok ? EXIT_CORRECT : EXIT_WRONG;
done:
    buffers_free(&buffers);
    timer_free(&timer);
    typed_input_free(&input);
    return status;
}

/* The (op, type) pairs that this case runs: the chosen ones whose type takes its data. */
static bool case_runs(const struct pairs *chosen, const struct host_values values[TYPES],
                      struct pair p)
{
    bool op_chosen = (int)p.op >= chosen->op_first && (int)p.op <= chosen->op_last;
    bool type_chosen = (int)p.type >= chosen->type_first && (int)p.type <= chosen->type_last;
    return op_chosen && type_chosen && type_takes(p.type, &values[p.type]);
}

/* --check: every case of the matrix, each through every chosen (op, type) whose type takes
 * the case's data; dot multiplies the case's array by itself. */
static int check_all(const struct options *o, const struct device_info *device,
                     const struct pairs *chosen)
{
    struct check *check = check_start(&STEP, o, device);
    struct shape largest = {STEP.min_threads, ~0u, FINISH_GPU}; /* the most blocks */
    struct buffers buffers = {0};
    struct case_arrays arrays = {0};
    struct check_case c;
    double previous[OPS][TYPES][MAX_RESULT_VALUES] = {{{0}}};
    struct host_values values[TYPES]; /* as each type reads the case's data */
    bool ran = false;

    if (check == NULL) return EXIT_ENVIRONMENT;
    if (!buffers_create(&buffers, blocks_for(CHECK_LARGEST_N, &largest))) goto done;
    if (!case_arrays_create(&arrays, CHECK_LARGEST_N)) goto done;
    while (check_next(check, &c)) {
        struct shape shape = {c.threads, blocks_or_filling(device, c.threads, c.blocks), c.finish};
        bool runs[TYPES];
        if (c.fresh &&
            !case_values_compute(values, &arrays, &c, chosen->type_first, chosen->type_last))
            goto done; /* once per data set: the host's values ... */
        for (int t = 0; t < TYPES; t++)
            runs[t] = t >= chosen->type_first && t <= chosen->type_last &&
                      type_takes((enum element_type)t, &values[t]);
        if (c.fresh && !case_arrays_fill(&arrays, &c, runs)) goto done; /* ... the typed copies */
        for (int k = 0; k < OPS * TYPES; k++) {
            struct pair p = {(enum op)(k / TYPES), (enum element_type)(k % TYPES), false};
            if (!case_runs(chosen, values, p)) continue;
            const void *a = case_array(&arrays, &c, p.type);
            struct generic_launch job = launch_for(p, a, a, c.n, &shape, &buffers);
            double result[MAX_RESULT_VALUES] = {0};
            struct launched launched;
            if (!outputs_poison(buffers.total, outputs_bytes(&job))) goto done;
            if (!reduce(&job, result, &launched)) goto done;
            if (job.total != NULL && !CUDA_OK(result_read(&job, result))) goto done;
            struct expectation expected = expect(p, &values[p.type], depth(c.n, &shape));
            check_pair(check, &c, p, &expected, result, previous[p.op][p.type]);
        }
    }
    ran = true;
done:
    buffers_free(&buffers);
    case_arrays_free(&arrays);
    return check_finish(check, ran);
}

int main(int argc, char **argv)
{
    struct options options;
    struct device_info device;
    struct pairs chosen;
    int status = options_parse(argc, argv, &STEP, &options);
    if (status == OPTIONS_RUN) status = pairs_choose(&options, &chosen);
    if (status != OPTIONS_RUN) return status;
    if (!device_open(&device, STEP.name)) return EXIT_ENVIRONMENT;
    if (options.check) return check_all(&options, &device, &chosen);

    if (options.csv) report_csv_header();
    struct pair pair = {(enum op)chosen.op_first, (enum element_type)chosen.type_first,
                        chosen.input_accumulator};
    int worst = EXIT_CORRECT;
    for (size_t n = options.n; n <= options.n_last; n = n ? 2 * n : 1) {
        status = measure(&options, &device, pair, n);
        if (status > worst) worst = status;
        if (status == EXIT_ENVIRONMENT) break;
    }
    return worst;
}

/* ---- The error bound's depth (docs/verification.md): the program does not need it to run. ---- */

enum { WARP_LEVELS = 5 }; /* shuffles within a warp, and again over the warp results */

/* The longest chain of merges any element goes through (docs/verification.md; verdict.c adds
 * one for a product): a thread's rounds and its tree of ELEMENTS_PER_ROUND, the shuffles of
 * its block; then the last block's rounds over the partials, their tree and the shuffles
 * again; or, finishing on the host, a chain through every partial. */
static unsigned depth(size_t n, const struct shape *s)
{
    size_t blocks = blocks_for(n, s), per_round = blocks * s->threads * ELEMENTS_PER_ROUND;
    size_t per_pass = (size_t)s->threads * PARTIALS_IN_FLIGHT;
    unsigned own = (unsigned)((n + per_round - 1) / per_round) + tree_levels(ELEMENTS_PER_ROUND) +
                   2 * WARP_LEVELS;
    if (s->finish == FINISH_CPU) return own + (unsigned)blocks;
    if (blocks == 1) return own;
    return own + (unsigned)((blocks + per_pass - 1) / per_pass) + tree_levels(PARTIALS_IN_FLIGHT) +
           2 * WARP_LEVELS;
}
