#include "harness.h"
#include "toolbox.h"
#include "../step13_gather/reduce.h"

#include <criterion/criterion.h>
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

enum { MAX_ARGUMENTS = 24, PATH_SIZE = 256 };

/* An empty CUDA_VISIBLE_DEVICES hides every GPU: the no-device path runs on any machine. */
static const char HIDE_EVERY_GPU[] = "CUDA_VISIBLE_DEVICES=";

const struct ladder_step LADDER[LADDER_STEPS] = {
    {"step00", "step00_global", 32, 1024, true, false, {NULL}, {NULL}},
    {"step01", "step01_shared", 32, 1024, true, false, {NULL}, {NULL}},
    {"step02", "step02_divergence", 32, 1024, true, false, {NULL}, {NULL}},
    {"step03", "step03_bank", 32, 1024, true, false, {NULL}, {NULL}},
    {"step04", "step04_idle", 32, 1024, true, false, {"pairs"}, {"plan-a"}},
    {"step05",
     "step05_unroll_warp",
     64,
     1024,
     true,
     false,
     {"syncwarp", "volatile"},
     {"wrong-loop", "wrong-unrolled"}},
    {"step06", "step06_full_unroll", 64, 1024, true, false, {NULL}, {NULL}},
    {"step07", "step07_blocks", 64, 1024, true, true, {"tree", "thread0"}, {NULL}},
    {"step08", "step08_shuffle", 32, 1024, true, true, {NULL}, {NULL}},
    {"step09", "step09_last_block", 32, 1024, false, true, {"fence", "atomic-ref"}, {"atomic-add"}},
    {"step10",
     "step10_vector_loads",
     32,
     1024,
     false,
     true,
     {"fence", "atomic-ref"},
     {"atomic-add"}},
    {"step11", "step11_in_flight", 32, 1024, false, false, {"ticket"}, {"atomic-add"}},
    {"step12", "step12_small_n", 32, 1024, false, false, {"ticket"}, {"atomic-add"}},
    {"step13", "step13_gather", 32, 1024, false, false, {"gather", "ticket"}, {"atomic-add"}},
};

struct criterion_test_params ladder_indices(void)
{
    static int indices[LADDER_STEPS];
    for (int s = 0; s < LADDER_STEPS; s++) indices[s] = s;
    return cr_make_param_array(int, indices, LADDER_STEPS);
}

/* The quoted field at *rest, without its quotes; *rest moves past the comma after it. */
static char *quoted_field(char **rest)
{
    char *field = *rest + 1, *closing = **rest == '"' ? strchr(field, '"') : NULL;
    if (closing == NULL || closing[1] != ',') return NULL;
    *closing = '\0';
    *rest = closing + 2;
    return field;
}

bool csv_split(char *line, char *fields[CSV_COLUMNS])
{
    char *rest = line, *last_comma;
    for (int c = 0; c < COL_DEVICE; c++) {
        fields[c] = c == COL_KERNEL ? quoted_field(&rest) : strsep(&rest, ",");
        if (fields[c] == NULL || rest == NULL) return false;
    }
    last_comma = strrchr(rest, ',');
    if (last_comma == NULL) return false;
    *last_comma = '\0';
    fields[COL_DEVICE] = rest;
    fields[COL_CUDA] = last_comma + 1;
    return true;
}

/* ---- running a program ----------------------------------------------------------------- */

/* environ without any CUDA_VISIBLE_DEVICES, then the empty one. */
static char **environment_without_gpus(void)
{
    size_t count = 0, kept = 0;
    while (environ[count] != NULL) count++;
    char **environment = calloc(count + 2, sizeof *environment);
    cr_assert_not_null(environment);
    for (size_t i = 0; i < count; i++)
        if (!starts_with(environ[i], HIDE_EVERY_GPU)) environment[kept++] = environ[i];
    environment[kept] = (char *)HIDE_EVERY_GPU;
    return environment;
}

char *read_and_close(FILE *file)
{
    cr_assert_eq(fseek(file, 0, SEEK_END), 0, "fseek: %s", strerror(errno));
    long size = ftell(file);
    cr_assert_geq(size, 0);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    cr_assert_not_null(text);
    text[fread(text, 1, (size_t)size, file)] = '\0';
    fclose(file);
    return text;
}

static int wait_for_exit(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0) cr_assert_eq(errno, EINTR, "waitpid: %s", strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

struct finished program_run(const char *path, enum gpus gpus, const char *const *args)
{
    char *argv[MAX_ARGUMENTS + 2] = {(char *)path};
    for (int i = 0; args[i] != NULL; i++) {
        cr_assert_lt(i, MAX_ARGUMENTS, "too many arguments for program_run");
        argv[i + 1] = (char *)args[i];
    }
    FILE *out = tmpfile(), *err = tmpfile();
    cr_assert(out != NULL && err != NULL, "tmpfile: %s", strerror(errno));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fileno(out), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fileno(err), STDERR_FILENO);
    char **environment = gpus == GPUS_HIDDEN ? environment_without_gpus() : environ;
    pid_t pid;
    int spawn_error = posix_spawnp(&pid, path, &actions, NULL, argv, environment);
    posix_spawn_file_actions_destroy(&actions);
    if (environment != environ) free(environment);
    cr_assert_eq(spawn_error, 0, "cannot start %s: %s", path, strerror(spawn_error));
    struct finished finished = {.exit_code = wait_for_exit(pid)};
    finished.out = read_and_close(out);
    finished.err = read_and_close(err);
    return finished;
}

/* Processes that share a GPU take turns on it, and a turn is long beside a launch: a run that
 * waits for the GPU after every small launch, as --check does, is many times slower beside
 * another (four step14 --check at once on one H200 had not finished after 518 s, one alone
 * takes under 40 s: docs/results/2026-11-28). So such runs take turns here instead, while
 * the tests' own work, builds and reading, and their programs' single runs go on side by side. */
const char *tests_gpu_lock(void)
{
    static char path[PATH_SIZE];
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char folder[PATH_SIZE];
    cr_assert_not_null(getcwd(folder, sizeof folder - sizeof "/build/tests"), "getcwd: %s",
                       strerror(errno));
    strcat(folder, "/build");
    cr_assert(mkdir(folder, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", folder, strerror(errno));
    strcat(folder, "/tests");
    cr_assert(mkdir(folder, 0777) == 0 || errno == EEXIST, "mkdir %s: %s", folder, strerror(errno));
    if (visible != NULL)
        snprintf(path, sizeof path, "%s/gpu-%s.lock", folder, visible);
    else
        snprintf(path, sizeof path, "%s/gpu.lock", folder);
    return path;
}

/* Holds the tests' GPU lock, exclusive or shared, while the program runs. */
static struct finished program_run_holding(const char *path, const char *const *args, int how)
{
    const char *lock = tests_gpu_lock();
    int fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0666);
    cr_assert_geq(fd, 0, "cannot open %s: %s", lock, strerror(errno));
    while (flock(fd, how) != 0)
        cr_assert_eq(errno, EINTR, "cannot lock %s: %s", lock, strerror(errno));
    struct finished finished = program_run(path, GPUS_VISIBLE, args);
    close(fd); /* the lock goes with it */
    return finished;
}

struct finished program_run_alone(const char *path, const char *const *args)
{
    return program_run_holding(path, args, LOCK_EX);
}

struct finished program_run_beside(const char *path, const char *const *args)
{
    return program_run_holding(path, args, LOCK_SH);
}

/* A --check waits for the GPU after every small launch: it runs alone. */
static bool waits_after_every_launch(const char *const *args)
{
    for (size_t i = 0; args[i] != NULL; i++)
        if (strcmp(args[i], "--check") == 0) return true;
    return false;
}

struct finished program_run_taking_turns(const char *path, const char *const *args)
{
    return waits_after_every_launch(args) ? program_run_alone(path, args)
                                          : program_run_beside(path, args);
}

struct finished step_run(const struct ladder_step *step, enum gpus gpus, const char *const *args)
{
    char path[PATH_SIZE];
    snprintf(path, sizeof path, "%s/run", step->directory);
    cr_assert_eq(access(path, X_OK), 0,
                 "%s is not built: run the tests from the repository root "
                 "after make (make test does both)",
                 path);
    return gpus == GPUS_VISIBLE ? program_run_taking_turns(path, args)
                                : program_run(path, gpus, args);
}

void finished_free(struct finished *finished)
{
    free(finished->out);
    free(finished->err);
}

void require_gpu(const char *step)
{
    const char *reason = no_device_reason();
    if (reason != NULL) cr_skip_test("%s: no CUDA device: %s", step, reason);
}

void require_gpus(const char *step, int wanted)
{
    int count = 0;
    require_gpu(step);
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (count < wanted)
        cr_skip_test("%s: this test needs %d GPUs and this machine shows %d "
                     "(CUDA_VISIBLE_DEVICES chooses which): the paths with several GPUs are "
                     "not tried here",
                     step, wanted, count);
}

const char *step13_loads_suffix(size_t n)
{
    int l2_bytes = 0;
    cr_assert_eq(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, 0), cudaSuccess);
    return n * sizeof(float) <= STREAMING_MOST_L2S * (size_t)l2_bytes ? ", STREAMING_LOADS" : "";
}

/* ---- what a toolbox function prints ----------------------------------------------------- */

void capture_begin(struct capture *capture, int fd)
{
    FILE *file = tmpfile();
    cr_assert_not_null(file, "tmpfile: %s", strerror(errno));
    fflush(fd == STDOUT_FILENO ? stdout : stderr);
    capture->fd = fd;
    capture->saved = dup(fd);
    capture->file = file;
    cr_assert(capture->saved >= 0 && dup2(fileno(file), fd) >= 0, "dup: %s", strerror(errno));
}

char *capture_end(struct capture *capture)
{
    fflush(capture->fd == STDOUT_FILENO ? stdout : stderr);
    cr_assert_geq(dup2(capture->saved, capture->fd), 0, "dup2: %s", strerror(errno));
    close(capture->saved);
    return read_and_close(capture->file);
}

/* ---- text ----------------------------------------------------------------------------- */

int line_count(const char *text)
{
    int lines = 0;
    for (; *text != '\0'; text++) lines += *text == '\n';
    return lines;
}

bool starts_with(const char *text, const char *prefix)
{
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

bool ends_with(const char *text, const char *suffix)
{
    size_t length = strlen(text), tail = strlen(suffix);
    return length >= tail && strcmp(text + length - tail, suffix) == 0;
}

bool next_line(const char **cursor, char *buffer, size_t size)
{
    if (**cursor == '\0') return false;
    size_t length = strcspn(*cursor, "\n");
    snprintf(buffer, size, "%.*s", (int)length, *cursor);
    *cursor += length + ((*cursor)[length] == '\n');
    return true;
}

const char *last_line(const char *text, char *buffer, size_t size)
{
    char line[PATH_SIZE * 4];
    buffer[0] = '\0';
    while (next_line(&text, line, sizeof line))
        if (line[0] != '\0') snprintf(buffer, size, "%s", line);
    return buffer;
}

int lines_starting(const char *text, const char *prefix)
{
    char line[PATH_SIZE * 4];
    int count = 0;
    while (next_line(&text, line, sizeof line)) count += starts_with(line, prefix);
    return count;
}
