/* step16_rows — every row of a matrix: a warp, a block or several blocks per row
 *
 * Before: step13 sums one flat array, as fast as the memory delivers it. Most reductions in
 *         practice run along one axis of a matrix instead (softmax, layer norm,
 *         sum(dim=-1)): many sums at once, from millions of short rows to one long row, and
 *         step13's kernel has one sum per launch.
 * Here:   three kernels, each for a range of row lengths (plan.h's chooser picks by the bytes
 *         of a row and, for rows longer than one block pass, by the rows each SM gets):
 *         - warp:  a warp, or a group of 2 to 16 of its lanes, per row; rows_per_warp
 *                  neighbouring rows per warp (plan.h), every row's first pass of loads
 *                  issued before the first add (a short row is too few bytes to keep the
 *                  memory busy on its own);
 *         - block: a block per row, every thread's vectors loaded at once (step11's loads,
 *                  with a block sized to the row); a longer row pass after pass, where
 *                  every SM gets two rows or more;
 *         - split: several 64 KiB chunks of a row, a block each, for a few long rows or
 *                  very long ones, finished as step13 finishes:
 *                  each block publishes its sum with a flag, and the block that draws the
 *                  row's last ticket adds the row's sums in index order.
 *         A row whose length is not a multiple of a vector starts anywhere in a 16-byte
 *         vector: each row is cut at its own boundaries (plan.h's row_pieces_of), as step10
 *         cuts the flat array. bf16 input arrives as 16-bit patterns and is added in float.
 * Profile: with short rows, the warp kernel's bytes in flight per SM (achieved occupancy x
 *         rows_per_warp rows) and its issue slots (a row's head and tail are most of its
 *         instructions where a lane loads one vector of each row); with medium rows, the block
 *         kernel's idle threads at the end of a row; with long rows, the split kernel's
 *         atomics (one per 64 KiB), the gather, and its registers (no local memory). */
#include <stdint.h>
#include <cuda/atomic>

#include "reduce.h"

/* The warp kernel's loads take 32 registers a thread; asking for 4 blocks of 256 threads per
 * SM (at most 64 registers each) keeps 32 warps, half the SM's 64, resident. */
enum { WARP_BLOCKS_PER_SM = 4 };
/* Two split blocks of 512 threads per SM (at most 64 registers each): left to itself, ptxas
 * fits the bf16 kernel in 40 registers and spills to local memory, which cost it 8 points of
 * the peak on the H200 (step16's NOTES.md). */
enum { SPLIT_BLOCKS_PER_SM = 2 };
/* Every lane of the warp takes part in every shuffle. */
static constexpr unsigned FULL_WARP_MASK = 0xffffffffu;
/* A bf16 is the upper half of a float: its 16 bits shifted up are the float of equal value
 * (the same sign, exponent and leading significand bits). */
enum { BF16_SHIFT = 16 };
static constexpr unsigned UPPER_HALF = 0xffff0000u;

/* What the kernels need of an element type: how many fill a vector, one element's value, and
 * the sum of one vector's elements (a tree: the same order on every run). */
template <typename T>
struct element;

template <>
struct element<float> {
    static constexpr unsigned PER_VECTOR = VECTOR_BYTES / sizeof(float);
    static __device__ float value(const float *at) { return __ldg(at); }
    static __device__ float vector_sum(uint4 v)
    {
        return (__uint_as_float(v.x) + __uint_as_float(v.y)) +
               (__uint_as_float(v.z) + __uint_as_float(v.w));
    }
};

/* bf16 as its bit pattern, an unsigned short; two of them in each 32-bit word of a vector.
 * pair_sum adds both halves of a word, so which half holds which element does not matter
 * (float addition is commutative). A bf16 keeps a float's sign, 8 exponent bits and the top 7
 * fraction bits (CUDA Math API, "Bfloat16 Precision Conversion and Data Movement"). */
template <>
struct element<unsigned short> {
    static constexpr unsigned PER_VECTOR = VECTOR_BYTES / sizeof(unsigned short);
    static __device__ float value(const unsigned short *at)
    {
        return __uint_as_float((unsigned)__ldg(at) << BF16_SHIFT);
    }
    static __device__ float pair_sum(unsigned word)
    {
        return __uint_as_float(word << BF16_SHIFT) + __uint_as_float(word & UPPER_HALF);
    }
    static __device__ float vector_sum(uint4 v)
    {
        return (pair_sum(v.x) + pair_sum(v.y)) + (pair_sum(v.z) + pair_sum(v.w));
    }
};

/* Row `row` of the matrix cut at 16-byte boundaries: head elements, whole vectors, tail
 * elements. A row at or past `rows` is empty, and nothing of it is read. WHOLE_VECTORS: the
 * matrix starts on a boundary and its rows are whole vectors (the launch checks both), so every
 * row starts on one: no head, no tail, and none of their arithmetic. */
template <typename T>
struct row_view {
    const T *head, *tail;
    const uint4 *body;
    struct row_pieces pieces;
};

template <typename T, bool WHOLE_VECTORS = false>
static __device__ row_view<T> view_row(const T *in, size_t row, size_t rows, size_t cols)
{
    const T *start = in + (row < rows ? row : 0) * cols;
    row_view<T> v;
    if constexpr (WHOLE_VECTORS) {
        v.pieces = {0, row < rows ? cols / element<T>::PER_VECTOR : 0, 0};
    } else {
        size_t past_boundary = reinterpret_cast<uintptr_t>(start) % VECTOR_BYTES /
                               sizeof(T); /* elements */
        v.pieces = row_pieces_of(past_boundary, row < rows ? cols : 0, element<T>::PER_VECTOR);
    }
    v.head = start;
    v.body = reinterpret_cast<const uint4 *>(start + v.pieces.head);
    v.tail = start + v.pieces.head + v.pieces.vectors * element<T>::PER_VECTOR;
    return v;
}

/* Thread `t` of those that share a row loads head element t and tail element t (0..7 each). */
template <typename T>
static __device__ float head_element(const row_view<T> &v, unsigned t)
{
    return t < v.pieces.head ? element<T>::value(v.head + t) : 0.0f;
}

template <typename T>
static __device__ float tail_element(const row_view<T> &v, unsigned t)
{
    return t < v.pieces.tail ? element<T>::value(v.tail + t) : 0.0f;
}

template <typename T>
static __device__ float edges_sum(const row_view<T> &v, unsigned t)
{
    return head_element(v, t) + tail_element(v, t);
}

/* Vectors first, first + stride, ... of the row's body up to `end` (exclusive), COUNT loads
 * issued before the first add; the loop for what a first pass left over. Each run of
 * passes_per_partial passes adds into a partial sum of its own, and the partials into the
 * total: on a long row the chain of additions, and with it the error bound, stays short. */
template <typename T, unsigned COUNT>
static __device__ float strided_sum(const uint4 *body, size_t first, size_t end, size_t stride)
{
    size_t pass = COUNT * stride, passes = first < end ? (end - first + pass - 1) / pass : 0;
    size_t partial_span = pass * passes_per_partial(passes, COUNT);
    float sum = 0.0f;
    for (size_t start = first; start < end; start += partial_span) {
        float partial = 0.0f;
        for (size_t i = start; i < end && i < start + partial_span; i += pass) {
            uint4 loaded[COUNT];
#pragma unroll
            for (unsigned k = 0; k < COUNT; k++)
                loaded[k] = i + k * stride < end ? __ldg(body + i + k * stride)
                                                 : make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
            for (unsigned k = 0; k < COUNT; k++) partial += element<T>::vector_sum(loaded[k]);
        }
        sum += partial;
    }
    return sum;
}

/* Lane l adds the value of lane l ^ mask, for mask 16, 8, 4, 2, 1: every lane ends with the
 * sum of all 32, the same bits in every lane (each pair adds the same two values, and float
 * addition is commutative). */
static __device__ float warp_total(float value)
{
#pragma unroll
    for (unsigned mask = WARP_SIZE / 2; mask > 0; mask /= 2)
        value += __shfl_xor_sync(FULL_WARP_MASK, value, mask);
    return value;
}

/* The block's sum, in every thread of warp 0: each warp's total, then warp 0 adds those. */
template <unsigned BLOCK_SIZE>
static __device__ float block_sum(float sum)
{
    static_assert(BLOCK_SIZE >= WARP_SIZE && BLOCK_SIZE <= 1024 &&
                      (BLOCK_SIZE & (BLOCK_SIZE - 1)) == 0,
                  "a power of two from one warp to 1024 threads");
    __shared__ float warp_sums[WARP_SIZE];
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    sum = warp_total(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) sum = warp_total(lane < BLOCK_SIZE / WARP_SIZE ? warp_sums[lane] : 0.0f);
    return sum;
}

/* ---- warp: a warp, or a group of its lanes, per row ------------------------------------- */

/* Lane l adds the value of lane l ^ mask for mask LANES/2 .. 1: within each group of LANES
 * lanes, every lane ends with the group's sum, the same bits in each (the two lanes of a pair
 * add the same two values, and float addition is commutative). */
template <unsigned LANES>
static __device__ float group_total(float value)
{
#pragma unroll
    for (unsigned mask = LANES / 2; mask > 0; mask /= 2)
        value += __shfl_xor_sync(FULL_WARP_MASK, value, mask);
    return value;
}

/* Warp w of the grid owns rows_per_warp(LANES, VECTORS) neighbouring rows; its lanes form
 * 32 / LANES groups, and in pass p group g sums row p * (32 / LANES) + g of them, so each pass of
 * the warp reads neighbouring rows. Lane t of a group loads vectors t, t + LANES, ... (VECTORS
 * of them) of its row, and its head and tail elements t, t + LANES, ... (EDGE_ROUNDS rounds): the
 * loads of all PASSES passes, WARP_LOADS_PER_LANE vectors a lane, are issued before the first
 * add. A row longer than one pass (only when --kernel warp forces it) then loops. Lane 0 of
 * each group writes its row's sum. */
template <typename T, unsigned LANES, unsigned VECTORS, bool WHOLE_VECTORS>
__global__ __launch_bounds__(WARP_THREADS,
                             WARP_BLOCKS_PER_SM) void rows_by_warp(const T *in, size_t rows,
                                                                   size_t cols, float *out)
{
    constexpr unsigned GROUPS = WARP_SIZE / LANES, PASSES = WARP_LOADS_PER_LANE / VECTORS;
    constexpr unsigned ROUNDS = EDGE_ROUNDS(element<T>::PER_VECTOR, LANES);
    unsigned lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
    unsigned group = lane / LANES, t = lane % LANES;
    size_t first_row =
        ((size_t)blockIdx.x * WARPS_PER_BLOCK + warp) * rows_per_warp(LANES, VECTORS) + group;
    uint4 loaded[PASSES][VECTORS];
    float heads[PASSES][ROUNDS], tails[PASSES][ROUNDS], sums[PASSES];
#pragma unroll
    for (unsigned p = 0; p < PASSES; p++) {
        row_view<T> v = view_row<T, WHOLE_VECTORS>(in, first_row + p * GROUPS, rows, cols);
#pragma unroll
        for (unsigned k = 0; k < VECTORS; k++) {
            size_t i = t + k * LANES;
            loaded[p][k] = i < v.pieces.vectors ? __ldg(v.body + i) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (unsigned r = 0; r < ROUNDS; r++) { /* added below: an add here would wait */
            heads[p][r] = head_element(v, t + r * LANES);
            tails[p][r] = tail_element(v, t + r * LANES);
        }
    }
#pragma unroll
    for (unsigned p = 0; p < PASSES; p++) {
        sums[p] = heads[p][0] + tails[p][0];
#pragma unroll
        for (unsigned r = 1; r < ROUNDS; r++) sums[p] += heads[p][r] + tails[p][r];
#pragma unroll
        for (unsigned k = 0; k < VECTORS; k++) sums[p] += element<T>::vector_sum(loaded[p][k]);
    }
    if (most_vectors(cols, element<T>::PER_VECTOR) > LANES * VECTORS) {
#pragma unroll
        for (unsigned p = 0; p < PASSES; p++) {
            row_view<T> v = view_row<T, WHOLE_VECTORS>(in, first_row + p * GROUPS, rows, cols);
            sums[p] += strided_sum<T, VECTORS>(v.body, t + LANES * VECTORS, v.pieces.vectors,
                                               LANES);
        }
    }
#pragma unroll
    for (unsigned p = 0; p < PASSES; p++) {
        float total = group_total<LANES>(sums[p]);
        size_t row = first_row + p * GROUPS;
        if (t == 0 && row < rows) out[row] = total;
    }
}

/* ---- block: a block per row ----------------------------------------------------------- */

/* Block b sums row b. Thread t loads vectors t, t + BLOCK_SIZE, ... (a warp's load covers 512
 * contiguous bytes), BLOCK_VECTORS_PER_THREAD of them before the first add; launch_plan sizes
 * the block so that this one pass covers the row. Without a test per load when all are in
 * bounds, as in step11. */
template <typename T, unsigned BLOCK_SIZE>
__global__ __launch_bounds__(BLOCK_SIZE) void rows_by_block(const T *in, size_t rows, size_t cols,
                                                            float *out)
{
    constexpr size_t PASS = (size_t)BLOCK_SIZE * BLOCK_VECTORS_PER_THREAD;
    size_t row = blockIdx.x;
    row_view<T> v = view_row(in, row, rows, cols);
    uint4 loaded[BLOCK_VECTORS_PER_THREAD];
    if (v.pieces.vectors >= PASS) { /* all in bounds */
#pragma unroll
        for (unsigned k = 0; k < BLOCK_VECTORS_PER_THREAD; k++)
            loaded[k] = __ldg(v.body + threadIdx.x + k * BLOCK_SIZE);
    } else {
#pragma unroll
        for (unsigned k = 0; k < BLOCK_VECTORS_PER_THREAD; k++) {
            size_t i = threadIdx.x + k * BLOCK_SIZE;
            loaded[k] = i < v.pieces.vectors ? __ldg(v.body + i) : make_uint4(0u, 0u, 0u, 0u);
        }
    }
    float sum = edges_sum(v, threadIdx.x);
#pragma unroll
    for (unsigned k = 0; k < BLOCK_VECTORS_PER_THREAD; k++)
        sum += element<T>::vector_sum(loaded[k]);
    /* A row longer than one pass: the chooser's long rows, or any row --kernel block forces. */
    if (v.pieces.vectors > PASS)
        sum += strided_sum<T, BLOCK_VECTORS_PER_THREAD>(v.body, PASS + threadIdx.x,
                                                        v.pieces.vectors, BLOCK_SIZE);
    sum = block_sum<BLOCK_SIZE>(sum);
    if (threadIdx.x == 0) out[row] = sum;
}

/* ---- split: several blocks per row, step13's finish per row ----------------------------- */

/* A block's sum as the row's gatherer sees it: the float's bits in the low half, WRITTEN in
 * the high half. 0 is "not yet": the gatherer leaves every word 0 for the next launch. */
static constexpr unsigned long long WRITTEN = 1ull << 32;
using published_sum = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

/* The gatherer's thread t adds the sums of the row's blocks t, t + SPLIT_THREADS, ... in that
 * order, loading TAGS_IN_FLIGHT words at a time and again until all are written; then it
 * clears them. */
static __device__ float gather_row(unsigned long long *words, size_t count)
{
    float sum = 0.0f;
    for (size_t first = threadIdx.x; first < count; first += TAGS_IN_FLIGHT * SPLIT_THREADS) {
        unsigned long long word[TAGS_IN_FLIGHT];
        bool all_written;
        do {
            all_written = true;
#pragma unroll
            for (unsigned k = 0; k < TAGS_IN_FLIGHT; k++) {
                size_t i = first + k * SPLIT_THREADS;
                word[k] = i < count ? published_sum(words[i]).load(cuda::memory_order_relaxed)
                                    : WRITTEN;
                all_written = all_written && word[k] >= WRITTEN;
            }
        } while (!all_written);
#pragma unroll
        for (unsigned k = 0; k < TAGS_IN_FLIGHT; k++) {
            size_t i = first + k * SPLIT_THREADS;
            sum += __uint_as_float((unsigned)word[k]);
            if (i < count) words[i] = 0;
        }
    }
    return sum;
}

/* Block b is part b % blocks_per_row of row b / blocks_per_row: it reads the part's chunk of
 * the row's body (split_chunk) once, all loads issued at once; part 0 also adds the row's head
 * and tail. Thread 0 draws a ticket of the row when the block starts (a relaxed atomicAdd that
 * overlaps the loads) and publishes the block's sum as one 64-bit word. The block that drew
 * the row's last ticket knows that every block of its row has started, so they all finish: it
 * adds their words in index order (the same order on every run), writes the row's sum and
 * leaves the row's ticket 0. */
template <typename T>
__global__ __launch_bounds__(SPLIT_THREADS, SPLIT_BLOCKS_PER_SM) void rows_by_split(
    const T *in, size_t rows, size_t cols, size_t blocks_per_row, float *out,
    unsigned long long *tagged_sums, unsigned *tickets)
{
    __shared__ unsigned start_ticket;
    size_t row = blockIdx.x / blocks_per_row, part = blockIdx.x % blocks_per_row;
    unsigned drawn = 0;
    /* Drawn before the loads are issued, used after them: the loads do not wait for it. */
    if (threadIdx.x == 0) drawn = atomicAdd(tickets + row, 1u);
    row_view<T> v = view_row(in, row, rows, cols);
    struct chunk c = split_chunk(part, v.pieces.vectors);
    const uint4 *body = v.body + c.first;
    uint4 loaded[SPLIT_VECTORS_PER_THREAD];
    if (c.count == SPLIT_CHUNK_VECTORS) { /* all in bounds */
#pragma unroll
        for (unsigned k = 0; k < SPLIT_VECTORS_PER_THREAD; k++)
            loaded[k] = __ldg(body + threadIdx.x + k * SPLIT_THREADS);
    } else {
#pragma unroll
        for (unsigned k = 0; k < SPLIT_VECTORS_PER_THREAD; k++) {
            size_t i = threadIdx.x + k * SPLIT_THREADS;
            loaded[k] = i < c.count ? __ldg(body + i) : make_uint4(0u, 0u, 0u, 0u);
        }
    }
    float sum = part == 0 ? edges_sum(v, threadIdx.x) : 0.0f;
#pragma unroll
    for (unsigned k = 0; k < SPLIT_VECTORS_PER_THREAD; k++)
        sum += element<T>::vector_sum(loaded[k]);
    if (threadIdx.x == 0) start_ticket = drawn;
    sum = block_sum<SPLIT_THREADS>(sum);
    /* start_ticket was written before block_sum's barrier, so every thread reads it. */
    unsigned long long *row_words = tagged_sums + row * blocks_per_row;
    if (threadIdx.x == 0)
        published_sum(row_words[part])
            .store(WRITTEN | __float_as_uint(sum), cuda::memory_order_relaxed);
    if (start_ticket != blocks_per_row - 1) return;
    __syncthreads(); /* warp 0 is done reading warp_sums before block_sum again */
    sum = block_sum<SPLIT_THREADS>(gather_row(row_words, blocks_per_row));
    if (threadIdx.x == 0) {
        out[row] = sum;
        tickets[row] = 0; /* every block of the row has drawn its ticket */
    }
}

/* ---- the launch ---------------------------------------------------------------------- */

/* Where every row starts on a 16-byte boundary (whole_vectors), the kernel without a head and
 * tail, wherever those are a large share of its instructions (plan.h's WARP_DROPS_EDGES: bf16,
 * or one vector a lane). There the kernel waits on the issue of instructions, not on the
 * memory; with float rows of 2 or 4 vectors a lane the kernel without
 * them measured level or slower (step16's NOTES.md), so those keep one kernel. */
template <typename T, unsigned LANES, unsigned VECTORS>
static cudaError_t launch_shape(const T *in, struct matrix_shape s, bool whole_vectors,
                                size_t blocks, float *out, cudaStream_t stream)
{
    constexpr bool DROPS_EDGES = WARP_DROPS_EDGES(sizeof(T), VECTORS);
    if constexpr (DROPS_EDGES)
        if (whole_vectors) {
            rows_by_warp<T, LANES, VECTORS, true>
                <<<(unsigned)blocks, WARP_THREADS, 0, stream>>>(in, s.rows, s.cols, out);
            return cudaGetLastError();
        }
    rows_by_warp<T, LANES, VECTORS, false>
        <<<(unsigned)blocks, WARP_THREADS, 0, stream>>>(in, s.rows, s.cols, out);
    return cudaGetLastError();
}

/* A group of LANES lanes with the vectors a lane that vectors_per_lane gives it: 1 only to the
 * fewest lanes lanes_per_row gives the type (a row of one vector a lane or less), 4 only to a
 * warp per row (a row of more than 64 vectors), 2 to any group. */
template <typename T, unsigned LANES>
static cudaError_t launch_lanes(const T *in, struct matrix_shape s, unsigned count,
                                bool whole_vectors, size_t blocks, float *out, cudaStream_t stream)
{
    constexpr unsigned PER_VECTOR = element<T>::PER_VECTOR;
    constexpr bool FEWEST = LANES == MIN_LANES_PER_ROW ||
                            EDGE_ROUNDS(PER_VECTOR, LANES / 2) > MOST_EDGE_ROUNDS;
    if constexpr (EDGE_ROUNDS(PER_VECTOR, LANES) > MOST_EDGE_ROUNDS) {
        return cudaErrorInvalidConfiguration; /* bf16 on 2 lanes: four rounds for its edges */
    } else {
        if constexpr (FEWEST)
            if (count == 1)
                return launch_shape<T, LANES, 1>(in, s, whole_vectors, blocks, out, stream);
        if constexpr (LANES == WARP_SIZE)
            if (count == WARP_MOST_VECTORS_PER_LANE)
                return launch_shape<T, LANES, WARP_MOST_VECTORS_PER_LANE>(in, s, whole_vectors,
                                                                          blocks, out, stream);
        if (count == WARP_VECTORS_PER_LANE)
            return launch_shape<T, LANES, WARP_VECTORS_PER_LANE>(in, s, whole_vectors, blocks, out,
                                                                 stream);
        return cudaErrorInvalidConfiguration;
    }
}

template <typename T>
static cudaError_t launch_warp(const T *in, struct matrix_shape s, const struct rows_launch *l,
                               float *out, cudaStream_t stream)
{
    unsigned count = l->vectors_per_lane;
    bool whole = reinterpret_cast<uintptr_t>(in) % VECTOR_BYTES == 0 &&
                 s.cols % element<T>::PER_VECTOR == 0;
    switch (l->lanes_per_row) {
    case 2:
        return launch_lanes<T, 2>(in, s, count, whole, l->blocks, out, stream);
    case 4:
        return launch_lanes<T, 4>(in, s, count, whole, l->blocks, out, stream);
    case 8:
        return launch_lanes<T, 8>(in, s, count, whole, l->blocks, out, stream);
    case 16:
        return launch_lanes<T, 16>(in, s, count, whole, l->blocks, out, stream);
    case 32:
        return launch_lanes<T, 32>(in, s, count, whole, l->blocks, out, stream);
    default:
        return cudaErrorInvalidConfiguration;
    }
}

template <typename T>
static cudaError_t launch_block(const T *in, struct matrix_shape s, unsigned threads, size_t blocks,
                                float *out, cudaStream_t stream)
{
    switch (threads) {
    case 64:
        rows_by_block<T, 64><<<(unsigned)blocks, 64, 0, stream>>>(in, s.rows, s.cols, out);
        break;
    case 128:
        rows_by_block<T, 128><<<(unsigned)blocks, 128, 0, stream>>>(in, s.rows, s.cols, out);
        break;
    case 256:
        rows_by_block<T, 256><<<(unsigned)blocks, 256, 0, stream>>>(in, s.rows, s.cols, out);
        break;
    case 512:
        rows_by_block<T, 512><<<(unsigned)blocks, 512, 0, stream>>>(in, s.rows, s.cols, out);
        break;
    default:
        return cudaErrorInvalidConfiguration;
    }
    return cudaGetLastError();
}

template <typename T>
static cudaError_t launch(const T *in, struct matrix_shape s, const struct rows_launch *l,
                          float *out, unsigned long long *tagged_sums, unsigned *tickets,
                          cudaStream_t stream)
{
    switch (l->kernel) {
    case KERNEL_WARP:
        return launch_warp(in, s, l, out, stream);
    case KERNEL_BLOCK:
        return launch_block(in, s, l->threads, l->blocks, out, stream);
    case KERNEL_SPLIT:
        rows_by_split<T><<<(unsigned)l->blocks, SPLIT_THREADS, 0, stream>>>(
            in, s.rows, s.cols, l->blocks_per_row, out, tagged_sums, tickets);
        return cudaGetLastError();
    default:
        return cudaErrorInvalidValue;
    }
}

/* The most blocks a one-dimensional grid has (CUDA Programming Guide, "Compute Capabilities",
 * maximum x-dimension of a grid of thread blocks: 2^31 - 1). */
static constexpr size_t MOST_GRID_BLOCKS = 0x7fffffff;

extern "C" cudaError_t rows_reduce(const void *in, enum element_type type,
                                   struct matrix_shape shape, const struct rows_launch *l,
                                   float *out, unsigned long long *tagged_sums, unsigned *tickets,
                                   cudaStream_t stream)
{
    if (l->blocks == 0) return cudaSuccess; /* no rows: no sums to write */
    if (l->blocks > MOST_GRID_BLOCKS) return cudaErrorInvalidConfiguration;
    if (type == ELEMENT_BF16)
        return launch(static_cast<const unsigned short *>(in), shape, l, out, tagged_sums, tickets,
                      stream);
    return launch(static_cast<const float *>(in), shape, l, out, tagged_sums, tickets, stream);
}
