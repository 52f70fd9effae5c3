#!/usr/bin/env python3
"""The figures of the step READMEs: what every thread of each step's kernel does.

Each figure is computed, not drawn by hand: the functions under "The kernels' index
arithmetic" transcribe the index formulas of the steps' reduce.cu (each names the line it
mirrors), and the drawing only colours what they return. The counts a figure shows (warps
issuing per level, bank rounds, elements per thread) come from the same functions.

    python3 docs/figures/make_figures.py              writes docs/figures/*.svg
    python3 docs/figures/make_figures.py --out DIR    writes them into DIR instead
    python3 docs/figures/make_figures.py --counts     prints the counts, one `name value` a line

Python 3 standard library only. The output is deterministic: the same SVG bytes every run.
"""

import argparse
import os
import struct
import sys
from xml.sax.saxutils import escape

# ---- the kernels' constants (each named as the kernel names it) ----------------------------

WARP_SIZE = 32                  # every reduce.cu
BANKS = 32                      # shared memory: word w lives in bank w % 32
WORD_BYTES = 4                  # sizeof(float)
LOADS_IN_FLIGHT = 4             # step07..step09 reduce.cu: enum { LOADS_IN_FLIGHT = 4 }
STEP04_ELEMENTS_PER_THREAD = 2  # step04_idle/host.c: enum { ELEMENTS_PER_THREAD = 2 }
FLOATS_PER_VECTOR = 4           # step12_small_n/reduce.h: FLOATS_PER_VECTOR = 4 (a float4)
VECTOR_BYTES = FLOATS_PER_VECTOR * WORD_BYTES
VECTORS_PER_THREAD = 8          # step12_small_n/reduce.h: VECTORS_PER_THREAD = 8
ONE_BLOCK_THREADS = 256         # step12_small_n/reduce.h: ONE_BLOCK_THREADS = 256
ONE_BLOCK_VECTORS = 4           # step12_small_n/reduce.h: ONE_BLOCK_VECTORS = 4
ONE_BLOCK_ELEMENTS = ONE_BLOCK_THREADS * ONE_BLOCK_VECTORS * FLOATS_PER_VECTOR
TAGS_IN_FLIGHT = 8              # step13_gather reduce.cu: TAGS_IN_FLIGHT = 8
WARP_GATHER_MOST_BLOCKS = 128   # step13_gather reduce.h: up to here warp 0 alone gathers
WARP_GATHER_TAGS = WARP_GATHER_MOST_BLOCKS // WARP_SIZE  # reduce.cu: its words a lane
SIGNIFICAND_BITS = 23           # step13_gather reduce.cu: SIGNIFICAND_BITS = 23
FLOAT_EXPONENT_BIAS = 127       # step13_gather reduce.cu: FLOAT_EXPONENT_BIAS = 127
SCALE_OFFSET = FLOAT_EXPONENT_BIAS + SIGNIFICAND_BITS
COUNT_BITS = 20                 # step13_gather/reduce.h: COUNT_BITS = 20
WORD_MODULUS = 2 ** 64          # a bin is an unsigned long long
ROWS_VECTORS_PER_LANE = 2       # step16_rows/plan.h: WARP_VECTORS_PER_LANE = 2
ROWS_MOST_VECTORS_PER_LANE = 4  # step16_rows/plan.h: WARP_MOST_VECTORS_PER_LANE = 4
ROWS_LOADS_PER_LANE = 8         # step16_rows/plan.h: WARP_LOADS_PER_LANE = 8
ROWS_MIN_LANES = 2              # step16_rows/plan.h: MIN_LANES_PER_ROW = 2
ROWS_MOST_EDGE_ROUNDS = 2       # step16_rows/plan.h: MOST_EDGE_ROUNDS = 2
SPLIT_THREADS = 512             # step16_rows/plan.h: SPLIT_THREADS = 512
SPLIT_VECTORS_PER_THREAD = 8    # step16_rows/plan.h: SPLIT_VECTORS_PER_THREAD = 8
SPLIT_CHUNK_VECTORS = SPLIT_THREADS * SPLIT_VECTORS_PER_THREAD

# The examples the READMEs count with.
README_BLOCK = 256              # step02's "Counting it": a 256-thread block (8 warps)
PROFILE_BLOCKS = 4096           # step02/03's profile: n = 2^20 in blocks of 256
H100_SMS = 132                  # step07's README: a 132-SM H100
H100_THREADS_PER_SM = 2048
H100_BLOCKS_PER_SM = 32
N_DEFAULT = 2 ** 25             # the steps' default n

# ---- one palette for every figure ------------------------------------------------------------

WARP_COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1",
                "#76b7b2", "#edc948", "#9c755f", "#a0cbe8"]
BLOCK_COLOURS = ["#9ecae1", "#fdae6b", "#a1d99b", "#bcbddc", "#c7e9e5", "#e7cb94"]
IDLE = "#d9d9d9"          # a lane or thread with nothing to do
IDLE_WARP = "#f2f2f2"     # a warp that issues nothing
EXTRA = "#e15759"         # an extra round, a wrong read, an overhead that goes away
UNUSED = "#c6d4e3"        # a lane that computes a value nobody reads
NEVER = "#ffffff"         # an element nobody reads
EDGE = "#ffbe7d"          # the head and tail floats of an unaligned input
GLOBAL_BAND = "#fbe3bd"   # global memory (DRAM, through L2)
SHARED_BAND = "#d3ebcb"   # shared memory (on chip)
REGISTER_BAND = "#eceffa" # registers
BARRIER = "#222222"       # __syncthreads()
INK = "#222222"
MUTED = "#666666"
GRID_LINE = "#bbbbbb"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
WIDTH = 830


def fmt(value):
    """Coordinates with at most two decimals and no trailing zeros: stable text."""
    text = "%.2f" % value
    text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def grouped(number):
    return "{:,}".format(number)


class Figure:
    """An SVG drawing of WIDTH pixels on a white background."""

    def __init__(self):
        self.items = []

    def rect(self, x, y, w, h, fill, stroke=None, width=1.0, dash=None, rx=0):
        extra = ""
        if stroke:
            extra += ' stroke="%s" stroke-width="%s"' % (stroke, fmt(width))
        if dash:
            extra += ' stroke-dasharray="%s"' % dash
        if rx:
            extra += ' rx="%s"' % fmt(rx)
        self.items.append('<rect x="%s" y="%s" width="%s" height="%s" fill="%s"%s/>'
                          % (fmt(x), fmt(y), fmt(w), fmt(h), fill, extra))

    def text(self, x, y, content, size=13, anchor="start", weight="normal", fill=INK):
        bold = ' font-weight="bold"' if weight == "bold" else ""
        self.items.append('<text x="%s" y="%s" font-size="%s" text-anchor="%s" fill="%s"%s>%s</text>'
                          % (fmt(x), fmt(y), fmt(size), anchor, fill, bold, escape(content)))

    def line(self, x1, y1, x2, y2, stroke=INK, width=1.0, dash=None):
        extra = ' stroke-dasharray="%s"' % dash if dash else ""
        self.items.append('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>'
                          % (fmt(x1), fmt(y1), fmt(x2), fmt(y2), stroke, fmt(width), extra))

    def arrow(self, x1, y1, x2, y2, stroke=INK, width=1.2, head=6.0):
        """A line from (x1, y1) whose arrowhead ends at (x2, y2)."""
        dx, dy = x2 - x1, y2 - y1
        length = (dx * dx + dy * dy) ** 0.5
        ux, uy = dx / length, dy / length
        bx, by = x2 - ux * head, y2 - uy * head
        self.line(x1, y1, bx, by, stroke, width)
        half = head * 0.45
        points = [(x2, y2), (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
        self.items.append('<polygon points="%s" fill="%s"/>'
                          % (" ".join("%s,%s" % (fmt(px), fmt(py)) for px, py in points), stroke))

    def title(self, heading, subtitle):
        self.text(16, 26, heading, size=17, weight="bold")
        self.text(16, 47, subtitle, size=13, fill=MUTED)
        return 62

    def legend(self, y, entries):
        """Swatches with their meaning, wrapped over as many lines as they need; returns y below."""
        x = 16
        for colour, label, stroke in entries:
            width = 26 + 7.2 * len(label)
            if x + width > WIDTH - 10:
                x, y = 16, y + 22
            self.rect(x, y - 11, 14, 14, colour, stroke or "#888888", 1.0)
            self.text(x + 20, y + 1, label, size=12)
            x += width + 14
        return y + 16

    def svg(self, height):
        head = ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
                'font-family="%s">\n' % (WIDTH, height, WIDTH, height, FONT))
        background = '<rect x="0" y="0" width="%d" height="%d" fill="#ffffff"/>\n' % (WIDTH, height)
        return head + background + "\n".join(self.items) + "\n</svg>\n"


def chip(figure, x, y, label, fill, ink=INK, size=11):
    """A rounded box with a label; returns its right edge."""
    width = 10 + 6.6 * len(label)
    figure.rect(x, y, width, 17, fill, "#888888", 0.8, rx=3)
    figure.text(x + width / 2, y + 12.5, label, size=size, anchor="middle", fill=ink)
    return x + width


def lane_strip(figure, x0, y, lane_width, height, colours):
    """A row of lanes, each lane_width wide: runs of one colour drawn as one rectangle, so that
    no seams show between lanes of the same colour. None leaves a lane blank."""
    start = 0
    for index in range(1, len(colours) + 1):
        if index == len(colours) or colours[index] != colours[start]:
            if colours[start] is not None:
                figure.rect(x0 + start * lane_width, y, (index - start) * lane_width, height, colours[start])
            start = index


def warp_colour(thread):
    return WARP_COLOURS[(thread // WARP_SIZE) % len(WARP_COLOURS)]


# ---- the kernels' index arithmetic ---------------------------------------------------------

def tree_levels_upward(block):
    """step00/01/02: for (unsigned len = 1; len < blockDim.x; len *= 2)"""
    length = 1
    while length < block:
        yield length
        length *= 2


def tree_levels_downward(block, stop=1):
    """step03/04: for (unsigned len = blockDim.x / 2; len > 0; len /= 2); step05 stops at 32."""
    length = block // 2
    while length >= stop:
        yield length
        length //= 2


def step00_adds(block, length, n):
    """step00 reduce.cu: if (threadIdx.x % (2 * len) == 0 && i + len < n) data[i] += data[i + len];
    (block 0, so i = threadIdx.x). Returns (thread, slot written, slot read)."""
    return [(t, t, t + length) for t in range(block) if t % (2 * length) == 0 and t + length < n]


def step01_adds(block, length):
    """step01 reduce.cu: if (t % (2 * len) == 0) partial[t] += partial[t + len];"""
    return [(t, t, t + length) for t in range(block) if t % (2 * length) == 0]


def step02_adds(block, length):
    """step02 reduce.cu: unsigned index = 2 * len * t; if (index < blockDim.x)
    partial[index] += partial[index + len];"""
    return [(t, 2 * length * t, 2 * length * t + length)
            for t in range(block) if 2 * length * t < block]


def step03_adds(block, length):
    """step03 reduce.cu: if (t < len) partial[t] += partial[t + len];"""
    return [(t, t, t + length) for t in range(block) if t < length]


def warps_issuing(adds):
    return len({t // WARP_SIZE for t, _, _ in adds})


def bank_rounds(words):
    """The rounds one warp's access takes: the most distinct words any one bank must serve
    (lanes reading the same word are served together). Returns (rounds, banks used)."""
    per_bank = {}
    for word in words:
        per_bank.setdefault(word % BANKS, set()).add(word)
    return max(len(w) for w in per_bank.values()), len(per_bank)


def warp_accesses(adds, warp):
    """The words warp `warp` writes and reads at one level: (stores, second loads)."""
    mine = [(slot, other) for t, slot, other in adds if t // WARP_SIZE == warp]
    return [slot for slot, _ in mine], [other for _, other in mine]


def extra_rounds_per_block(adds, which):
    """Extra rounds over the whole block at one level, for the store/first load (which=0) or
    the second load (which=1): each working warp's rounds - 1."""
    total = 0
    for warp in sorted({t // WARP_SIZE for t, _, _ in adds}):
        words = warp_accesses(adds, warp)[which]
        total += bank_rounds(words)[0] - 1
    return total


def step04_reads(block, grid, n, plan_a):
    """step04 reduce.cu: i = blockIdx.x * (PLAN_A ? blockDim.x : 2 * blockDim.x) + t;
    partner = i + (PLAN_A ? gridDim.x : blockDim.x); each read only when < n.
    Returns [(block, thread, i, partner)]."""
    reads = []
    for b in range(grid):
        for t in range(block):
            i = b * (block if plan_a else 2 * block) + t
            partner = i + (grid if plan_a else block)
            reads.append((b, t, i if i < n else None, partner if partner < n else None))
    return reads


def read_counts(reads, n):
    counts = [0] * n
    for _, _, i, partner in reads:
        for element in (i, partner):
            if element is not None:
                counts[element] += 1
    return counts


def step04_read_intervals(block, grid, n, plan_a):
    """The same reads as step04_reads, as [start, end) intervals per block, for sizes too large
    to list element by element: (elements read twice, elements never read)."""
    events = {}
    for b in range(grid):
        start = b * (block if plan_a else 2 * block)
        shift = grid if plan_a else block
        for low in (start, start + shift):
            low, high = min(low, n), min(low + block, n)
            events[low] = events.get(low, 0) + 1
            events[high] = events.get(high, 0) - 1
    twice = never = 0
    depth, previous = 0, 0
    for position in sorted(events) + [n]:
        span = position - previous
        if depth >= 2:
            twice += span
        if depth == 0:
            never += span
        depth += events.get(position, 0) if position < n else 0
        previous = position
    return twice, never


def step05_barriers(block):
    """step05 reduce.cu: for (len = blockDim.x / 2; len >= WARP_SIZE; len /= 2) { ...
    __syncthreads(); } then reduce_last_warp: two __syncwarp() per level for 16, 8, 4, 2, 1."""
    block_levels = list(tree_levels_downward(block, WARP_SIZE))
    warp_levels = list(tree_levels_downward(WARP_SIZE))
    return len(block_levels), 2 * len(warp_levels)


def step05_loop_tests(block):
    """step05's block loop tests len >= WARP_SIZE once per level and once more to leave."""
    return len(list(tree_levels_downward(block, WARP_SIZE))) + 1


def step06_rungs(block_size):
    """step06 reduce.cu: if (BLOCK_SIZE >= 1024) { if (t < 512) ... } ... down to 64: a rung
    the block does not have is `if (false)`, no code. Returns [(rung, kept, working threads)]."""
    return [(rung, block_size >= rung, rung // 2) for rung in (1024, 512, 256, 128, 64)]


def filling_grid(threads):
    """common/device.c filling_grid: sm_count * min(max_threads_per_sm / threads, max_blocks_per_sm)"""
    per_sm = H100_THREADS_PER_SM // threads
    return H100_SMS * min(per_sm, H100_BLOCKS_PER_SM)


def grid_stride_elements(g, n, stride):
    """step07 reduce.cu: for (i = blockIdx.x * BLOCK_SIZE + t; i < n; i += LOADS_IN_FLIGHT * stride)
    with loaded[k] = i + k * stride < n ? in[i + k * stride] : 0: the elements thread g adds,
    as (loop pass, k, element or None when the load is skipped)."""
    out = []
    i, loop_pass = g, 0
    while i < n:
        for k in range(LOADS_IN_FLIGHT):
            element = i + k * stride
            out.append((loop_pass, k, element if element < n else None))
        i += LOADS_IN_FLIGHT * stride
        loop_pass += 1
    return out


def elements_per_thread_range(n, stride):
    """Fewest and most real elements any thread of the grid adds in the grid-stride loop."""
    most = (n + stride - 1) // stride
    fewest = n // stride
    return fewest, most


def shuffle_down_tree():
    """step08 reduce.cu warp_sum: value += __shfl_down_sync(FULL_WARP_MASK, value, offset) for
    offset = 16, 8, 4, 2, 1; a lane past 31 - offset gets its own value back. Tracks how many
    of the warp's 32 inputs each lane's value holds (own value back: it doubles)."""
    counts = [1] * WARP_SIZE
    steps = []
    offset = WARP_SIZE // 2
    while offset > 0:
        counts = [counts[lane] + (counts[lane + offset] if lane + offset < WARP_SIZE else counts[lane])
                  for lane in range(WARP_SIZE)]
        steps.append((offset, list(counts)))
        offset //= 2
    return steps


def lane_feeds_lane0(lane, offset):
    """After the shuffle at `offset`, lane 0 still reads lanes below `offset`."""
    return lane < offset


def tickets(arrival_order):
    """step09 reduce.cu last_block_fence: last = atomicAdd(ticket_counter, 1u) == gridDim.x - 1,
    in whatever order the blocks get there; the last block resets the counter to 0."""
    grid = len(arrival_order)
    counter = 0
    drawn = {}
    for block in arrival_order:
        drawn[block] = counter
        counter += 1
    last = [block for block in arrival_order if drawn[block] == grid - 1]
    counter = 0                  # *ticket_counter = 0 by the last block
    return drawn, last, counter


def last_block_reads(grid, block_size):
    """step09: for (i = threadIdx.x; i < gridDim.x; i += BLOCK_SIZE) sum += block_sums[i];"""
    return {t: list(range(t, grid, block_size)) for t in range(block_size)}


def split_at_alignment(past_boundary, n):
    """step12_small_n reduce.cu split_at_alignment, for an input `past_boundary` floats past a
    16-byte boundary: head = past_boundary ? FLOATS_PER_VECTOR - past_boundary : 0, cut at n;
    body_vectors = (n - head_length) / FLOATS_PER_VECTOR; tail = what is left.
    Returns (head_length, body_vectors, tail_length)."""
    head = FLOATS_PER_VECTOR - past_boundary if past_boundary else 0
    head_length = min(head, n)
    body_vectors = (n - head_length) // FLOATS_PER_VECTOR
    tail_length = n - head_length - body_vectors * FLOATS_PER_VECTOR
    return head_length, body_vectors, tail_length


def block_vectors(block, threads, thread):
    """step12_small_n reduce.cu thread_sum: first = blockIdx.x * THREADS * VECTORS_PER_THREAD +
    threadIdx.x; group[k] = body[first + k * THREADS], k < VECTORS_PER_THREAD."""
    first = block * threads * VECTORS_PER_THREAD + thread
    return [first + k * threads for k in range(VECTORS_PER_THREAD)]


def persistent_vector_owner(vector, grid, threads):
    """A persistent grid-stride loop over float4 (step09's loop, read as vectors): vector v goes
    to thread v % (gridDim.x * THREADS), whose block is that thread / THREADS."""
    return (vector % (grid * threads)) // threads


def small_n_vectors(thread, vectors):
    """step12_small_n reduce.cu reduce_small: i = threadIdx.x + k * ONE_BLOCK_THREADS;
    group[k] = i < vectors ? body[i] : 0, k < ONE_BLOCK_VECTORS."""
    return [(k, thread + k * ONE_BLOCK_THREADS, thread + k * ONE_BLOCK_THREADS < vectors)
            for k in range(ONE_BLOCK_VECTORS)]


def gather_finish(start_order, load_time):
    """step13_gather reduce.cu reduce_last_block, VARIANT_GATHER. A block draws its ticket as it
    starts: start_ticket = atomicAdd(ticket_counter, 1u), in start order, one START_STEP apart
    here. After its loads it publishes WRITTEN | its sum's bits (publish) and leaves, except the
    block with start_ticket == gridDim.x - 1: it gathers (gather_block_sums), waiting for the
    words not yet written when it gets there, and leaves every word and the counter 0.
    Returns a dict: ticket, start, published (by block), gatherer, waited_for (the blocks whose
    word the gatherer must re-read), gather_done, words_after, counter_after."""
    grid = len(start_order)
    ticket = {block: drawn for drawn, block in enumerate(start_order)}
    start = {block: ticket[block] * START_STEP for block in start_order}
    published = {block: start[block] + load_time[block] for block in start_order}
    gatherer = [block for block in start_order if ticket[block] == grid - 1][0]
    arrives = published[gatherer]
    waited_for = sorted(block for block in start_order if published[block] > arrives)
    gather_done = max([arrives] + [published[block] for block in waited_for])
    return {"ticket": ticket, "start": start, "published": published, "gatherer": gatherer,
            "waited_for": waited_for, "gather_done": gather_done,
            "words_after": [0] * grid, "counter_after": 0}


def gather_readers(grid, block_size):
    """step13 reduce_last_block: up to WARP_GATHER_MOST_BLOCKS blocks warp 0 alone gathers,
    WARP_GATHER_TAGS words a lane at a time; past that the whole block, TAGS_IN_FLIGHT a thread."""
    if grid <= WARP_GATHER_MOST_BLOCKS:
        return WARP_SIZE, WARP_GATHER_TAGS
    return block_size, TAGS_IN_FLIGHT


def gather_order(grid, block_size):
    """step13 gather_block_sums<READERS, TAGS>: reader t adds words t, t + READERS, ... in that
    order, and the shuffles (warp_sum, or block_sum) add the readers' sums by their index: the
    words in index order, whatever order they were written in."""
    readers, _ = gather_readers(grid, block_size)
    return [i for t in range(readers) for i in range(t, grid, readers)]


# The trips to memory, one after another, that follow the last block's loads (step13's header):
# the ticket finish waits for its release, then for the atomic's answer, then reads the sums;
# the gatherer only reads the words (its ticket was drawn at its start, during its loads).
FINISH_TRIPS = {"ticket": ["release", "ticket", "read the sums"], "gather": ["read the words"]}


# ---- the counts ------------------------------------------------------------------------------

def float_bits(value):
    """The 32 bits of value as a float (__float_as_uint)."""
    return struct.unpack("<I", struct.pack("<f", value))[0]


def as_float(value):
    """value rounded to a float, as a float addition rounds its result."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def bin_and_significand(value):
    """add_to_bins for a finite float: its exponent field is its bin, and its significand (the
    hidden bit set unless subnormal) the signed integer the bin adds."""
    bits = float_bits(value)
    exponent = bits >> SIGNIFICAND_BITS & 0xFF
    fraction = bits & ((1 << SIGNIFICAND_BITS) - 1)
    significand = fraction | 1 << SIGNIFICAND_BITS if exponent else fraction
    return exponent, -significand if bits >> 31 else significand


def bins_after(block_sums):
    """The bins' words once every block has added: significand * 2^COUNT_BITS + 1 each, as
    64-bit integers, so the order of the adds cannot change them."""
    words = {}
    for value in block_sums:
        b, significand = bin_and_significand(value)
        words[b] = (words.get(b, 0) + significand * 2 ** COUNT_BITS + 1) % WORD_MODULUS
    return words


def bin_fields(word):
    """total_of_bins: a word's count (its low COUNT_BITS) and its significands (signed, above)."""
    count = word % 2 ** COUNT_BITS
    significands = word - count
    if significands >= WORD_MODULUS // 2:
        significands -= WORD_MODULUS
    return significands // 2 ** COUNT_BITS, count


def bins_total(words):
    """Each bin's significands times 2^(bin - SCALE_OFFSET) (subnormals at bin 1's scale),
    added exactly here; the kernel adds doubles, exact for sums like these."""
    total = 0
    for b, word in words.items():
        significands, _ = bin_fields(word)
        total += significands * 2.0 ** (max(b, 1) - SCALE_OFFSET)
    return total


def float_sum_in_order(values):
    """The sums added one after another as floats, each result rounded: an atomicAdd order."""
    total = 0.0
    for value in values:
        total = as_float(total + value)
    return total


def row_pieces(past_boundary, cols, per_vector=FLOATS_PER_VECTOR):
    """step16_rows/plan.h row_pieces_of: to_boundary = past_boundary ? per_vector - past_boundary
    : 0; head = min(to_boundary, cols); vectors = (cols - head) / per_vector; tail = the rest.
    Returns (head, vectors, tail)."""
    to_boundary = per_vector - past_boundary if past_boundary else 0
    head = min(to_boundary, cols)
    vectors = (cols - head) // per_vector
    return head, vectors, cols - head - vectors * per_vector


def row_past_boundary(row, cols, per_vector=FLOATS_PER_VECTOR):
    """step16_rows/reduce.cu view_row, for a matrix that starts on a boundary: row r starts
    r * cols elements in, (r * cols) % per_vector past a boundary."""
    return row * cols % per_vector


def edge_rounds(per_vector, lanes):
    """step16_rows/plan.h EDGE_ROUNDS: the rounds in which `lanes` lanes read a head or tail."""
    return (per_vector - 1 + lanes - 1) // lanes


def lanes_per_row(vectors, per_vector):
    """step16_rows/plan.h lanes_per_row: the fewest of 2, 4, ... 32 lanes whose
    WARP_VECTORS_PER_LANE vectors each cover the row, and whose MOST_EDGE_ROUNDS rounds cover
    a head or tail."""
    lanes = ROWS_MIN_LANES
    while edge_rounds(per_vector, lanes) > ROWS_MOST_EDGE_ROUNDS:
        lanes *= 2
    while lanes < WARP_SIZE and lanes * ROWS_VECTORS_PER_LANE < vectors:
        lanes *= 2
    return lanes


def vectors_per_lane(vectors, lanes):
    """step16_rows/plan.h vectors_per_lane: the fewest of 1, 2 and 4 vectors a lane whose one
    pass of `lanes` lanes covers the row (4 for longer rows)."""
    count = 1
    while count < ROWS_MOST_VECTORS_PER_LANE and lanes * count < vectors:
        count *= 2
    return count


def warp_passes(vectors, lanes):
    """step16_rows/reduce.cu rows_by_warp: PASSES = WARP_LOADS_PER_LANE / VECTORS."""
    return ROWS_LOADS_PER_LANE // vectors_per_lane(vectors, lanes)


def warp_rows(vectors, lanes):
    """step16_rows/reduce.cu rows_by_warp: group = lane / LANES reads, in pass p, row
    first_row + p * (32 / LANES) + group of its warp's rows_per_warp = (32 / LANES) * PASSES.
    Returns {row within the warp: (pass, group, lanes of the group)}."""
    groups = WARP_SIZE // lanes
    return {p * groups + g: (p, g, list(range(g * lanes, (g + 1) * lanes)))
            for p in range(warp_passes(vectors, lanes)) for g in range(groups)}


def split_blocks_per_row(cols, per_vector=FLOATS_PER_VECTOR):
    """step16_rows/plan.c launch_plan, split: one block per SPLIT_CHUNK_VECTORS of the most
    whole vectors a row holds (cols / per_vector), at least one."""
    vectors = cols // per_vector
    return -(-vectors // SPLIT_CHUNK_VECTORS) if vectors > SPLIT_CHUNK_VECTORS else 1


def split_chunk(part, vectors):
    """step16_rows/plan.h split_chunk: part p reads vectors [p * CHUNK, p * CHUNK + count)."""
    first = part * SPLIT_CHUNK_VECTORS
    return first, max(0, min(SPLIT_CHUNK_VECTORS, vectors - first))


STEP16_SHORT_COLS = 32        # the figure's short rows: 32 floats, 8 float4
STEP16_ODD_COLS = 13          # rows that start anywhere in a vector
STEP16_ODD_ROWS = 4
STEP16_SPLIT_COLS = 5 * SPLIT_CHUNK_VECTORS * FLOATS_PER_VECTOR - 6   # five chunks, the last short
STEP16_TICKETS = [0, 2, 1, 4, 3]   # the ticket each block of the split row draws as it starts


def counts():
    """Every number the figures show, and the ones the READMEs state, as (name, value)."""
    out = []
    block = README_BLOCK
    # step00/01: global and shared accesses per block of 256
    adds = sum(len(step00_adds(block, length, block)) for length in tree_levels_upward(block))
    out += [("step00.adds_per_block", adds),
            ("step00.global_loads_per_block", 2 * adds + 1),     # + thread 0's read of data[i]
            ("step00.global_stores_per_block", adds + 1),        # + the block sum
            ("step01.global_loads_per_block", block),
            ("step01.global_stores_per_block", 1)]
    # step02: warps issuing per level, step01 against step02
    totals = {"step01": 0, "step02": 0}
    working_total = 0
    for length in tree_levels_upward(block):
        a01, a02 = step01_adds(block, length), step02_adds(block, length)
        out += [("step02.working_threads.len%d" % length, len(a02)),
                ("step02.warps_issuing.step01.len%d" % length, warps_issuing(a01)),
                ("step02.warps_issuing.step02.len%d" % length, warps_issuing(a02))]
        totals["step01"] += warps_issuing(a01)
        totals["step02"] += warps_issuing(a02)
        working_total += len(a02)
    out += [("step02.working_threads.total", working_total),
            ("step02.warps_issuing.step01.total", totals["step01"]),
            ("step02.warps_issuing.step02.total", totals["step02"])]
    # step03: warp 0's bank rounds per level, step02 against step03; extra rounds per block
    store_extra = load_extra = 0
    for length in tree_levels_upward(block):
        adds = step02_adds(block, length)
        stores, _ = warp_accesses(adds, 0)
        rounds, banks = bank_rounds(stores)
        out += [("step03.step02.active_lanes_warp0.len%d" % length, len(stores)),
                ("step03.step02.distinct_banks_warp0.len%d" % length, banks),
                ("step03.step02.rounds_warp0.len%d" % length, rounds),
                ("step03.step02.store_extra_rounds_block.len%d" % length, extra_rounds_per_block(adds, 0))]
        store_extra += extra_rounds_per_block(adds, 0)
        load_extra += extra_rounds_per_block(adds, 0) + extra_rounds_per_block(adds, 1)
    step03_extra = 0
    for length in tree_levels_downward(block):
        adds = step03_adds(block, length)
        out.append(("step03.step03.rounds_warp0.len%d" % length, bank_rounds(warp_accesses(adds, 0)[0])[0]))
        step03_extra += extra_rounds_per_block(adds, 0) + extra_rounds_per_block(adds, 1)
    out += [("step03.step02.store_extra_rounds_per_block", store_extra),
            ("step03.step02.load_extra_rounds_per_block", load_extra),
            ("step03.step02.store_conflicts_profile", store_extra * PROFILE_BLOCKS),
            ("step03.step02.load_conflicts_profile", load_extra * PROFILE_BLOCKS),
            ("step03.step03.extra_rounds_per_block", step03_extra)]
    # step04: elements per thread; plan A's tiny case and the document's size
    tiny = read_counts(step04_reads(4, 2, 16, True), 16)
    out += [("step04.elements_per_thread", STEP04_ELEMENTS_PER_THREAD),
            ("step04.correct.max_reads", max(read_counts(step04_reads(4, 2, 16, False), 16))),
            ("step04.correct.min_reads", min(read_counts(step04_reads(4, 2, 16, False), 16))),
            ("step04.plan_a_tiny.read_twice", " ".join(str(e) for e, c in enumerate(tiny) if c == 2)),
            ("step04.plan_a_tiny.never_read", " ".join(str(e) for e, c in enumerate(tiny) if c == 0))]
    grid = N_DEFAULT // (2 * block)
    twice, never = step04_read_intervals(block, grid, N_DEFAULT, True)
    out += [("step04.plan_a.blocks", grid), ("step04.plan_a.read_twice", twice),
            ("step04.plan_a.never_read", never),
            ("step04.correct.read_twice", step04_read_intervals(block, grid, N_DEFAULT, False)[0]),
            ("step04.correct.never_read", step04_read_intervals(block, grid, N_DEFAULT, False)[1])]
    # step05/06: barriers and loop tests
    barriers05, syncwarps05 = step05_barriers(block)
    out += [("step05.block_barriers_after_load.step04", len(list(tree_levels_downward(block)))),
            ("step05.block_barriers_after_load.step05", barriers05),
            ("step05.syncwarps", syncwarps05),
            ("step06.loop_tests.step05", step05_loop_tests(block)),
            ("step06.loop_tests.step06", 0),
            ("step06.block_barriers_after_load.step06",
             sum(1 for _, kept, _ in step06_rungs(block) if kept)),
            ("step06.rungs_without_code", sum(1 for _, kept, _ in step06_rungs(block) if not kept))]
    # step07: the grid that fills the H100, elements per thread at the default n
    blocks = filling_grid(block)
    stride = blocks * block
    fewest, most = elements_per_thread_range(N_DEFAULT, stride)
    out += [("step07.blocks_per_sm", blocks // H100_SMS), ("step07.blocks", blocks),
            ("step07.threads", stride), ("step07.elements_per_thread.max", most),
            ("step07.elements_per_thread.min", fewest),
            ("step07.example.elements_per_thread.max",
             max(sum(1 for _, _, e in grid_stride_elements(g, STEP07_EXAMPLE_N, STEP07_STRIDE) if e is not None)
                 for g in range(STEP07_STRIDE)))]
    # step08: the shuffles
    steps = shuffle_down_tree()
    out += [("step08.shuffle_steps", len(steps)), ("step08.lane0_inputs", steps[-1][1][0]),
            ("step08.useful_adds", sum(offset for offset, _ in steps))]
    # step09: tickets
    drawn, last, counter = tickets(STEP09_ARRIVALS)
    out += [("step09.tickets", " ".join(str(drawn[b]) for b in range(len(STEP09_ARRIVALS)))),
            ("step09.last_block", last[0]), ("step09.counter_after", counter)]
    # step10: float4
    out += [("step10.bytes_per_warp_load", WARP_SIZE * VECTOR_BYTES)]
    for past in range(FLOATS_PER_VECTOR):
        out.append(("step10.head_floats.offset%d" % past, split_at_alignment(past, 1000)[0]))
    # step11: in flight
    out += [("step11.vectors_per_thread", VECTORS_PER_THREAD),
            ("step11.bytes_in_flight_per_thread", VECTORS_PER_THREAD * VECTOR_BYTES),
            ("step09.bytes_in_flight_per_thread", LOADS_IN_FLIGHT * WORD_BYTES),
            ("step11.blocks.n2^25.threads512", N_DEFAULT // (512 * VECTORS_PER_THREAD * FLOATS_PER_VECTOR)),
            ("step11.block_bytes.threads512", 512 * VECTORS_PER_THREAD * VECTOR_BYTES)]
    # step12: one block
    out += [("step12.one_block_elements", ONE_BLOCK_ELEMENTS),
            ("step12.one_block_threads", ONE_BLOCK_THREADS),
            ("step12.vectors_per_thread", ONE_BLOCK_VECTORS)]
    # step13: the gatherer
    gather = gather_finish(STEP13_START_ORDER, STEP13_LOAD_TIME)
    blocks13 = range(len(STEP13_START_ORDER))
    out += [("step13.start_tickets", " ".join(str(gather["ticket"][b]) for b in blocks13)),
            ("step13.finish_times", " ".join(str(gather["published"][b]) for b in blocks13)),
            ("step13.gatherer_block", gather["gatherer"]),
            ("step13.words_waited_for", len(gather["waited_for"])),
            ("step13.late_words", " ".join(str(b) for b in gather["waited_for"])),
            ("step13.gather_order", " ".join(str(i) for i in gather_order(len(STEP13_START_ORDER), README_BLOCK))),
            ("step13.words_after", " ".join(str(w) for w in gather["words_after"])),
            ("step13.counter_after", gather["counter_after"]),
            ("step13.trips_after_last_loads.ticket", len(FINISH_TRIPS["ticket"])),
            ("step13.trips_after_last_loads.gather", len(FINISH_TRIPS["gather"]))]
    # step13: the bins
    words = bins_after(STEP13_BIN_SUMS)
    out += [("step13.bin_sums", " ".join(repr(v) for v in STEP13_BIN_SUMS)),
            ("step13.bins", " ".join("%d:%d:%d" % ((b,) + bin_fields(words[b])) for b in sorted(words))),
            ("step13.float_orders", " ".join(repr(float_sum_in_order([STEP13_BIN_SUMS[i] for i in order]))
                                            for order in STEP13_BIN_ORDERS)),
            ("step13.bins_total", repr(bins_total(words)))]
    # step16: the warp kernel's groups, the pieces of odd rows, a split row's chunks
    short_lanes = lanes_per_row(STEP16_SHORT_COLS // FLOATS_PER_VECTOR, FLOATS_PER_VECTOR)
    out += [("step16.short_cols", STEP16_SHORT_COLS),
            ("step16.short_lanes_per_row", short_lanes),
            ("step16.short_rows_per_warp",
             len(warp_rows(STEP16_SHORT_COLS // FLOATS_PER_VECTOR, short_lanes)))]
    for row in range(STEP16_ODD_ROWS):
        out.append(("step16.odd_pieces.row%d" % row,
                    "%d %d %d" % row_pieces(row_past_boundary(row, STEP16_ODD_COLS), STEP16_ODD_COLS)))
    out += [("step16.odd_cols", STEP16_ODD_COLS),
            ("step16.split_cols", STEP16_SPLIT_COLS),
            ("step16.split_blocks_per_row", split_blocks_per_row(STEP16_SPLIT_COLS)),
            ("step16.split_last_chunk",
             split_chunk(split_blocks_per_row(STEP16_SPLIT_COLS) - 1,
                         STEP16_SPLIT_COLS // FLOATS_PER_VECTOR)[1]),
            ("step16.split_gatherer", STEP16_TICKETS.index(len(STEP16_TICKETS) - 1)),
            ("step16.blocks_per_row.one_row_of_2^30_floats", split_blocks_per_row(2 ** 30))]
    return out


# ---- the figures -----------------------------------------------------------------------------

TREE_BLOCK = 32      # steps 00-01 drawn for one block of 32 threads: one warp


def draw_tree_rows(figure, top, x0, cell, adds_for_level, band_colour, levels):
    """Rows of the block's slots, one per level; a working thread's arrows go from its two
    slots to the slot it writes. Returns the y under the last row."""
    row_gap, height = 40, 18
    written = set()
    figure.text(x0 - 8, top + 13, "before", size=11, anchor="end", fill=MUTED)
    for slot in range(TREE_BLOCK):
        figure.rect(x0 + slot * cell, top, cell - 2, height, "#ffffff", GRID_LINE)
        figure.text(x0 + slot * cell + (cell - 2) / 2, top + 13, str(slot), size=10, anchor="middle")
    y = top
    for length in levels:
        adds = adds_for_level(length)
        y += row_gap
        figure.rect(x0 - 4, y - 4, TREE_BLOCK * cell + 6, height + 8, band_colour)
        figure.text(x0 - 8, y + 13, "len %d" % length, size=12, anchor="end")
        targets = {slot: t for t, slot, _ in adds}
        for slot in range(TREE_BLOCK):
            fill = warp_colour(targets[slot]) if slot in targets else IDLE
            figure.rect(x0 + slot * cell, y, cell - 2, height, fill, GRID_LINE)
        for t, slot, other in adds:
            cx = x0 + slot * cell + (cell - 2) / 2
            ox = x0 + other * cell + (cell - 2) / 2
            figure.line(cx, y - row_gap + height, cx, y, stroke=INK, width=1)
            figure.arrow(ox, y - row_gap + height, cx + 2, y, stroke=INK, width=1)
            written.add(slot)
        figure.text(x0 + TREE_BLOCK * cell + 8, y + 13, "%d adds" % len(adds), size=12)
    return y + height


def figure_step00():
    f = Figure()
    y = f.title("step00: the tree in place in global memory",
                "One block of 32 threads (one warp). Every level reads and writes data[] in global memory.")
    x0, cell = 70, 21
    y += 8
    f.text(x0, y + 10, "data[] in global memory: the input itself, overwritten level by level", size=12, weight="bold")
    bottom = draw_tree_rows(f, y + 22, x0, cell,
                            lambda length: step00_adds(TREE_BLOCK, length, TREE_BLOCK),
                            GLOBAL_BAND, tree_levels_upward(TREE_BLOCK))
    adds = sum(len(step00_adds(TREE_BLOCK, length, TREE_BLOCK)) for length in tree_levels_upward(TREE_BLOCK))
    y = bottom + 26
    f.text(16, y, "if (threadIdx.x %% (2*len) == 0 && i + len < n) data[i] += data[i + len];  (%d adds)" % adds,
           size=12, fill=INK)
    y += 20
    adds256 = sum(len(step00_adds(README_BLOCK, length, README_BLOCK)) for length in tree_levels_upward(README_BLOCK))
    f.text(16, y, "Global memory: %d loads and %d stores for these 32 elements (%d and %d for a block of 256)."
           % (2 * adds + 1, adds + 1, 2 * adds256 + 1, adds256 + 1), size=12)
    y += 20
    f.text(16, y, "The input is gone afterwards: slot 0 holds the block's sum, the others partial sums.",
           size=12, fill=MUTED)
    y = f.legend(y + 26, [(GLOBAL_BAND, "global memory", None),
                          (WARP_COLOURS[0], "written by a working thread (warp 0)", None),
                          (IDLE, "idle thread this level", None)])
    return f.svg(y + 8)


def figure_step01():
    f = Figure()
    y = f.title("step01: the same tree on a shared-memory copy",
                "One block of 32 threads. One read of the input, the tree on chip, one write of the sum.")
    x0, cell, height = 70, 21, 18
    y += 30
    f.rect(x0 - 4, y - 4, TREE_BLOCK * cell + 6, height + 8, GLOBAL_BAND)
    f.text(x0 - 8, y + 13, "in[]", size=12, anchor="end")
    for slot in range(TREE_BLOCK):
        f.rect(x0 + slot * cell, y, cell - 2, height, "#ffffff", GRID_LINE)
        f.text(x0 + slot * cell + (cell - 2) / 2, y + 13, str(slot), size=10, anchor="middle")
    f.text(x0 + TREE_BLOCK * cell + 8, y + 13, "global", size=12)
    f.text(x0, y - 12, "partial[t] = in[i]: 32 consecutive floats, one coalesced load; the input is left as it was",
           size=12, weight="bold")
    top = y + 40
    for slot in range(TREE_BLOCK):
        cx = x0 + slot * cell + (cell - 2) / 2
        f.arrow(cx, y + height, cx, top - 1, stroke=WARP_COLOURS[0], width=1)
    f.rect(x0 - 4, top - 4, TREE_BLOCK * cell + 6, height + 8, SHARED_BAND)
    for slot in range(TREE_BLOCK):
        f.rect(x0 + slot * cell, top, cell - 2, height, "#ffffff", GRID_LINE)
        f.text(x0 + slot * cell + (cell - 2) / 2, top + 13, str(slot), size=10, anchor="middle")
    f.text(x0 - 8, top + 13, "partial[]", size=12, anchor="end")
    f.text(x0 + TREE_BLOCK * cell + 8, top + 13, "shared", size=12)
    levels = list(tree_levels_upward(TREE_BLOCK))
    row_gap = 40
    y = top
    for length in levels:
        adds = step01_adds(TREE_BLOCK, length)
        y += row_gap
        f.rect(x0 - 4, y - 4, TREE_BLOCK * cell + 6, height + 8, SHARED_BAND)
        f.text(x0 - 8, y + 13, "len %d" % length, size=12, anchor="end")
        targets = {slot: t for t, slot, _ in adds}
        for slot in range(TREE_BLOCK):
            fill = warp_colour(targets[slot]) if slot in targets else IDLE
            f.rect(x0 + slot * cell, y, cell - 2, height, fill, GRID_LINE)
        for t, slot, other in adds:
            cx = x0 + slot * cell + (cell - 2) / 2
            ox = x0 + other * cell + (cell - 2) / 2
            f.line(cx, y - row_gap + height, cx, y, stroke=INK, width=1)
            f.arrow(ox, y - row_gap + height, cx + 2, y, stroke=INK, width=1)
        f.text(x0 + TREE_BLOCK * cell + 8, y + 13, "%d adds" % len(adds), size=12)
    y += height + 34
    cx = x0 + (cell - 2) / 2
    f.arrow(cx, y - 34, cx, y - 1, stroke=WARP_COLOURS[0], width=1.2)
    f.rect(x0 - 4, y - 4, 5 * cell + 6, height + 8, GLOBAL_BAND)
    f.rect(x0, y, 5 * cell - 2, height, "#ffffff", GRID_LINE)
    f.text(x0 + (5 * cell - 2) / 2, y + 13, "block_sums[b]", size=11, anchor="middle")
    f.text(x0 + 5 * cell + 12, y + 13, "thread 0 writes the block's sum: the one store to global memory",
           size=12)
    y += height + 30
    adds = sum(len(step01_adds(TREE_BLOCK, length)) for length in levels)
    f.text(16, y, "Global memory: %d loads and 1 store for these 32 elements (step00: %d and %d)."
           % (TREE_BLOCK, 2 * adds + 1, adds + 1), size=12)
    y += 20
    f.text(16, y, "The tree's %d loads and %d stores now go to shared memory; its pattern is step00's."
           % (2 * adds + 1, TREE_BLOCK + adds), size=12, fill=MUTED)
    y = f.legend(y + 26, [(GLOBAL_BAND, "global memory", None), (SHARED_BAND, "shared memory", None),
                          (WARP_COLOURS[0], "written by a working thread (warp 0)", None),
                          (IDLE, "idle thread this level", None)])
    return f.svg(y + 8)


def warp_row(f, x0, y, block, working, lane_width, warp_width, gap, height=14):
    """One level: every warp as a box of 32 lanes; a warp with a working lane issues the add."""
    issuing = 0
    for warp in range(block // WARP_SIZE):
        wx = x0 + warp * (warp_width + gap)
        lanes = [warp * WARP_SIZE + lane for lane in range(WARP_SIZE)]
        busy = any(t in working for t in lanes)
        if busy:
            issuing += 1
            lane_strip(f, wx, y, lane_width, height, [warp_colour(t) if t in working else IDLE for t in lanes])
            f.rect(wx - 1, y - 1, warp_width + 2, height + 2, "none", INK, 1.4)
        else:
            f.rect(wx, y, warp_width, height, IDLE_WARP, "#dddddd", 0.6)
    return issuing


def figure_step02():
    f = Figure()
    y = f.title("step02: which warps issue the add, level by level",
                "A block of 256 threads = 8 warps of 32 lanes. Same 255 adds; count the outlined warps.")
    x0, lane_width, gap = 62, 2.5, 6
    warp_width = WARP_SIZE * lane_width
    panels = [("step01:  if (t % (2*len) == 0)   the workers are spread over every warp",
               lambda length: {t for t, _, _ in step01_adds(README_BLOCK, length)}),
              ("step02:  index = 2*len*t; if (index < blockDim.x)   the workers are threads 0, 1, 2, ...",
               lambda length: {t for t, _, _ in step02_adds(README_BLOCK, length)})]
    for heading, workers in panels:
        y += 26
        f.text(16, y, heading, size=13, weight="bold")
        y += 20
        for warp in range(README_BLOCK // WARP_SIZE):
            f.text(x0 + warp * (warp_width + gap) + warp_width / 2, y, "warp %d" % warp, size=11,
                   anchor="middle", fill=INK)
        f.text(x0 + 8 * (warp_width + gap) + 4, y, "warps issuing", size=11)
        y += 8
        total = 0
        for length in tree_levels_upward(README_BLOCK):
            working = workers(length)
            f.text(x0 - 8, y + 11, "len %d" % length, size=11, anchor="end")
            issuing = warp_row(f, x0, y, README_BLOCK, working, lane_width, warp_width, gap)
            f.text(x0 + 8 * (warp_width + gap) + 40, y + 11, str(issuing), size=12, anchor="end")
            total += issuing
            y += 20
        f.text(x0 + 8 * (warp_width + gap) + 40, y + 12, "%d" % total, size=14, anchor="end", weight="bold")
        f.text(x0 + 8 * (warp_width + gap) - 8, y + 12, "warp issues for 255 adds:", size=12,
               anchor="end")
        y += 20
    y = f.legend(y + 22, [(WARP_COLOURS[0], "working lane (coloured by its warp)", None),
                          (IDLE, "idle lane in an issuing warp", None),
                          ("#ffffff", "outlined: the warp issues the add", INK),
                          (IDLE_WARP, "warp skips the add", "#dddddd")])
    return f.svg(y + 8)


def bank_panel(f, x0, y, words, rows, cell):
    """32 bank columns, `rows` rounds: round 1 of each bank in warp 0's colour, every further
    round (another word in the same bank) in red."""
    per_bank = {}
    for word in words:
        per_bank.setdefault(word % BANKS, []).append(word)
    for bank in range(BANKS):
        served = sorted(set(per_bank.get(bank, [])))
        for r in range(rows):
            if r < len(served):
                fill = WARP_COLOURS[0] if r == 0 else EXTRA
            else:
                fill = "#f7f7f7"
            f.rect(x0 + bank * cell, y + r * 9, cell - 1, 8, fill)
    return bank_rounds(words)[0] if words else 0


def figure_step03():
    f = Figure()
    y = f.title("step03: the banks warp 0 touches, one level per band",
                "Block of 256, warp 0's store partial[...] (the loads look the same). Each row is one round.")
    cell = 9
    left, right = 66, 502
    y += 26
    f.text(left, y, "step02: partial[2*len*t]", size=13, weight="bold")
    f.text(right, y, "step03: partial[t]", size=13, weight="bold")
    y += 18
    for x in (left, right):
        for bank in (0, 8, 16, 24, 31):
            f.text(x + bank * cell + cell / 2, y, str(bank), size=10, anchor="middle", fill=MUTED)
        f.text(x - 6, y, "bank", size=10, anchor="end", fill=MUTED)
    f.text(left + BANKS * cell + 6, y, "extra x warps", size=10, fill=MUTED)
    y += 6
    levels02 = list(tree_levels_upward(README_BLOCK))
    levels03 = list(tree_levels_downward(README_BLOCK))
    for length02, length03 in zip(levels02, levels03):
        adds02 = step02_adds(README_BLOCK, length02)
        stores02 = warp_accesses(adds02, 0)[0]
        stores03 = warp_accesses(step03_adds(README_BLOCK, length03), 0)[0]
        rows = max(bank_rounds(stores02)[0], bank_rounds(stores03)[0])
        f.text(left - 6, y + 8, "len %d" % length02, size=11, anchor="end")
        rounds02 = bank_panel(f, left, y, stores02, rows, cell)
        rounds03 = bank_panel(f, right, y, stores03, rows, cell)
        f.text(left + BANKS * cell + 6, y + 8, "+%d x %d" % (rounds02 - 1, warps_issuing(adds02)), size=11,
               fill=EXTRA if rounds02 > 1 else MUTED, weight="bold")
        f.text(right - 6, y + 8, "len %d" % length03, size=11, anchor="end")
        f.text(right + BANKS * cell + 6, y + 8, "+%d" % (rounds03 - 1), size=11, fill=MUTED, weight="bold")
        y += rows * 9 + 8
    store_extra = sum(extra_rounds_per_block(step02_adds(README_BLOCK, length), 0) for length in levels02)
    y += 14
    f.text(16, y, "+k x w: k extra rounds (rounds - 1) in each of the w warps that work at that level;",
           size=12)
    y += 18
    f.text(16, y, "Nsight Compute counts the extra rounds as bank conflicts.", size=12)
    y += 20
    f.text(16, y, "step02: %d extra rounds per block for the store, %d for the two loads; x %d blocks = %s and %s."
           % (store_extra, 2 * store_extra, PROFILE_BLOCKS, grouped(store_extra * PROFILE_BLOCKS),
              grouped(2 * store_extra * PROFILE_BLOCKS)), size=12)
    y += 20
    f.text(16, y, "step03: 32 consecutive words, one per bank, at every level: no extra round.", size=12)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "round 1: a bank serves one word", None),
                          (EXTRA, "extra round: another word in the same bank", None),
                          ("#f7f7f7", "bank not used", "#cccccc")])
    return f.svg(y + 8)


def figure_step04():
    f = Figure()
    y = f.title("step04: two elements per thread, added during the load",
                "N = 16 elements, blocks of 4 threads, 2 blocks (the README's small case).")
    n, block, grid = 16, 4, 2
    x0, cell = 110, 42
    panels = [("step04:  i = b*(2*blockDim.x) + t,  partner = i + blockDim.x", False),
              ("document 003's plan A:  i = b*blockDim.x + t,  partner = i + gridDim.x", True)]
    for heading, plan_a in panels:
        y += 30
        f.text(16, y, heading, size=13, weight="bold")
        y += 16
        reads = step04_reads(block, grid, n, plan_a)
        counts = read_counts(reads, n)
        ey = y
        f.text(x0 - 10, ey + 15, "in[]", size=12, anchor="end")
        for e in range(n):
            fill = "#ffffff" if counts[e] == 1 else (EXTRA if counts[e] >= 2 else NEVER)
            dash = "3,2" if counts[e] == 0 else None
            f.rect(x0 + e * cell, ey, cell - 4, 20, fill, INK if counts[e] else "#999999", 1, dash=dash)
            f.text(x0 + e * cell + (cell - 4) / 2, ey + 15, str(e), size=11, anchor="middle")
            label = {0: "never", 1: "once", 2: "twice"}[min(counts[e], 2)]
            f.text(x0 + e * cell + (cell - 4) / 2, ey + 34, label, size=10, anchor="middle",
                   fill=EXTRA if counts[e] >= 2 else MUTED)
        ty = ey + 88
        f.text(x0 - 10, ty + 15, "threads", size=12, anchor="end")
        slots = grid * block
        spacing = (n * cell) / slots
        for b, t, i, partner in reads:
            index = b * block + t
            tx = x0 + index * spacing + spacing / 2 - 4
            colour = BLOCK_COLOURS[b]
            f.rect(tx - 22, ty, 44, 20, colour, INK, 0.8, rx=3)
            f.text(tx, ty + 14, "b%d t%d" % (b, t), size=10, anchor="middle")
            for element in (i, partner):
                if element is not None:
                    f.line(tx, ty, x0 + element * cell + (cell - 4) / 2, ey + 40, stroke=INK, width=0.9)
        y = ty + 28
    y += 22
    twice, never = step04_read_intervals(README_BLOCK, N_DEFAULT // (2 * README_BLOCK), N_DEFAULT, True)
    f.text(16, y, "step04: block b owns elements [8b, 8b + 8); every element is read once; %d elements per thread."
           % STEP04_ELEMENTS_PER_THREAD, size=12)
    y += 20
    f.text(16, y, "plan A adds the number of blocks, not the block size: at n = 2^25 (65,536 blocks of 256)",
           size=12)
    y += 18
    f.text(16, y, "%s elements are read twice and %s never." % (grouped(twice), grouped(never)), size=12)
    y = f.legend(y + 26, [("#ffffff", "read once", INK), (EXTRA, "read twice", INK),
                          (NEVER, "never read", "#999999"),
                          (BLOCK_COLOURS[0], "thread of block 0", None),
                          (BLOCK_COLOURS[1], "thread of block 1", None)])
    return f.svg(y + 8)


def figure_step05():
    f = Figure()
    y = f.title("step05: the last five levels inside warp 0, without block barriers",
                "A block of 256 threads (8 warps). Black bar: __syncthreads(), every warp waits there.")
    box, gap, height = 30, 4, 14
    panel_width = 8 * (box + gap)
    left = 62
    middle = left + panel_width + 40
    right = middle + 56
    y += 28
    f.text(left, y, "step04: a barrier after every level", size=13, weight="bold")
    f.text(right, y, "step05: barriers down to len = 32", size=13, weight="bold")
    f.text(middle, y + 16, "threads", size=10, anchor="middle", fill=MUTED)
    y += 26
    levels = list(tree_levels_downward(README_BLOCK))
    barriers = {"step04": 0, "step05": 0}
    syncwarps = 0
    for length in levels:
        f.text(left - 8, y + 11, "len %d" % length, size=11, anchor="end")
        working = {t for t, _, _ in step03_adds(README_BLOCK, length)}
        f.text(middle, y + 11, str(len(working)), size=11, anchor="middle", fill=MUTED)
        for panel, x in (("step04", left), ("step05", right)):
            in_last_warp = panel == "step05" and length < WARP_SIZE
            for warp in range(README_BLOCK // WARP_SIZE):
                if in_last_warp and warp > 0:
                    continue            # warps 1..7 have left: nothing more to wait for
                lanes = [warp * WARP_SIZE + l for l in range(WARP_SIZE)]
                # in the last warp every lane runs the tail; lanes >= len compute unused sums
                lane_strip(f, x + warp * (box + gap), y, box / WARP_SIZE, height,
                           [warp_colour(t) if t in working else (UNUSED if in_last_warp else IDLE)
                            for t in lanes])
            if in_last_warp:
                f.line(x, y + height + 3, x + box, y + height + 3, stroke=BARRIER, width=1.2, dash="3,2")
                syncwarps += 2
            else:
                f.rect(x - 2, y + height + 2, panel_width - gap + 4, 3, BARRIER)
                barriers[panel] += 1
        y += height + 12
    y += 12
    f.text(16, y, "Block-wide barriers after the load: step04 %d, step05 %d. The dashed line under warp 0:"
           % (barriers["step04"], barriers["step05"]), size=12)
    y += 18
    f.text(16, y, "__syncwarp(), twice a level (%d in all): read, wait, write, wait, for warp 0 alone."
           % syncwarps, size=12)
    y += 18
    f.text(16, y, "Once len < 32, warps 1 to 7 are done and leave; in step04 they wait at five more barriers.",
           size=12, fill=MUTED)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "working lane (its warp's colour)", None),
                          (IDLE, "idle lane", None),
                          (UNUSED, "lane runs the tail, sum unused", None),
                          (BARRIER, "__syncthreads()", None)])
    return f.svg(y + 8)


def figure_step06():
    f = Figure()
    y = f.title("step06: what full unrolling removes, for a block of 256",
                "The work of each level, as step05's loop runs it and as step06's template compiles it.")
    col05, col06 = 150, 500
    y += 28
    f.text(col05, y, "step05: a loop over len", size=13, weight="bold")
    f.text(col06, y, "step06: BLOCK_SIZE = 256, constants", size=13, weight="bold")
    y += 14
    loop_tests = 0
    for rung, kept, threads in step06_rungs(README_BLOCK):
        label = "len %d" % threads
        f.text(col05 - 12, y + 13, label, size=12, anchor="end")
        if kept:
            x = chip(f, col05, y, "len >= 32 ?", EXTRA, ink="#ffffff")
            loop_tests += 1
            x = chip(f, x + 4, y, "t < len", IDLE)
            x = chip(f, x + 4, y, "add", WARP_COLOURS[0], ink="#ffffff")
            x = chip(f, x + 4, y, "sync", BARRIER, ink="#ffffff")
            chip(f, x + 4, y, "len /= 2", EXTRA, ink="#ffffff")
            x = chip(f, col06, y, "t < %d" % threads, IDLE)
            x = chip(f, x + 4, y, "add", WARP_COLOURS[0], ink="#ffffff")
            chip(f, x + 4, y, "sync", BARRIER, ink="#ffffff")
        else:
            f.text(col05, y + 13, "never entered: len starts at blockDim.x / 2", size=11, fill=MUTED)
            f.text(col06, y + 13, "if (256 >= %d): false, no code at all" % rung, size=11, fill=MUTED)
        y += 26
    f.text(col05 - 12, y + 13, "leave", size=12, anchor="end")
    chip(f, col05, y, "len >= 32 ?", EXTRA, ink="#ffffff")
    loop_tests += 1
    f.text(col06, y + 13, "nothing to leave", size=11, fill=MUTED)
    y += 26
    f.text(col05 - 12, y + 13, "last warp", size=12, anchor="end")
    f.text(col05, y + 13, "16, 8, 4, 2, 1: unrolled by nvcc already", size=11, fill=MUTED)
    f.text(col06, y + 13, "16, 8, 4, 2, 1: #pragma unroll", size=11, fill=MUTED)
    y += 40
    f.text(16, y, "Loop tests per block: step05 %d, step06 0. Barriers after the load: %d in both."
           % (loop_tests, sum(1 for _, kept, _ in step06_rungs(README_BLOCK) if kept)), size=12)
    y += 18
    f.text(16, y, "t < len compares two registers; t < 128 compares a register with a constant.",
           size=12, fill=MUTED)
    y = f.legend(y + 26, [(EXTRA, "loop overhead: gone in step06", None),
                          (IDLE, "which threads work", None),
                          (WARP_COLOURS[0], "the add", None),
                          (BARRIER, "__syncthreads()", None)])
    return f.svg(y + 8)


STEP07_BLOCKS, STEP07_THREADS = 4, 8        # the drawn grid: 4 blocks of 8 threads
STEP07_STRIDE = STEP07_BLOCKS * STEP07_THREADS
STEP07_EXAMPLE_N = 300


def figure_step07():
    f = Figure()
    y = f.title("step07: the grid-stride loop, drawn for a grid of 4 blocks x 8 threads",
                "n = 300. Column g = thread g = blockIdx.x*8 + t; row = one step of stride = 32 elements.")
    x0, cell, height = 130, 21, 17
    y += 22
    for b in range(STEP07_BLOCKS):
        bx = x0 + b * STEP07_THREADS * cell
        f.rect(bx, y - 12, STEP07_THREADS * cell - 2, 16, BLOCK_COLOURS[b], rx=2)
        f.text(bx + STEP07_THREADS * cell / 2, y + 1, "block %d" % b, size=11, anchor="middle")
    y += 16
    f.text(x0 - 8, y, "thread g", size=10, anchor="end", fill=MUTED)
    for g in range(STEP07_STRIDE):
        f.text(x0 + g * cell + (cell - 2) / 2, y, str(g), size=9, anchor="middle", fill=MUTED)
    y += 6
    per_thread = {g: grid_stride_elements(g, STEP07_EXAMPLE_N, STEP07_STRIDE) for g in range(STEP07_STRIDE)}
    passes = max(p for loads in per_thread.values() for p, _, _ in loads) + 1
    for loop_pass in range(passes):
        top = y
        for k in range(LOADS_IN_FLIGHT):
            f.text(x0 - 8, y + 12, "k = %d" % k, size=10, anchor="end", fill=MUTED)
            for g in range(STEP07_STRIDE):
                entry = [e for p, kk, e in per_thread[g] if p == loop_pass and kk == k]
                element = entry[0] if entry else None
                if element is None:
                    f.rect(x0 + g * cell, y, cell - 2, height, IDLE)
                else:
                    f.rect(x0 + g * cell, y, cell - 2, height, BLOCK_COLOURS[g // STEP07_THREADS])
                    f.text(x0 + g * cell + (cell - 2) / 2, y + 12, str(element), size=8.5, anchor="middle")
            y += height + 2
        f.rect(18, top, 4, y - top - 2, WARP_COLOURS[0])
        f.text(28, top + 12, "pass %d" % (loop_pass + 1), size=11, weight="bold")
        f.text(28, top + 27, "4 loads,", size=10, fill=MUTED)
        f.text(28, top + 40, "then 4 adds", size=10, fill=MUTED)
        y += 8
    counts_drawn = sorted({sum(1 for _, _, e in loads if e is not None) for loads in per_thread.values()})
    y += 10
    f.text(16, y, "Thread g adds in[g], in[g + 32], in[g + 64], ...: %d or %d elements each; i >= n adds 0."
           % (counts_drawn[0], counts_drawn[-1]), size=12)
    y += 18
    f.text(16, y, "Each row: consecutive threads read consecutive floats, so every warp's load is coalesced.",
           size=12)
    blocks = filling_grid(README_BLOCK)
    stride = blocks * README_BLOCK
    fewest, most = elements_per_thread_range(N_DEFAULT, stride)
    y += 18
    f.text(16, y, "On the H100: 132 SMs x %d blocks of 256 = %s blocks, stride %s; at n = 2^25 each thread adds"
           % (blocks // H100_SMS, grouped(blocks), grouped(stride)), size=12)
    y += 18
    f.text(16, y, "%d or %d elements, four loads in flight at a time." % (fewest, most), size=12)
    y = f.legend(y + 26, [(BLOCK_COLOURS[0], "element read by a thread of block 0", None),
                          (BLOCK_COLOURS[1], "block 1", None), (BLOCK_COLOURS[2], "block 2", None),
                          (BLOCK_COLOURS[3], "block 3", None),
                          (IDLE, "i + k*stride >= n: load skipped, adds 0", None)])
    return f.svg(y + 8)


def figure_step08():
    f = Figure()
    y = f.title("step08: the shuffle-down tree inside one warp",
                "value += __shfl_down_sync(FULL_WARP_MASK, value, offset): lane l gets lane l + offset's value.")
    x0, cell, height, row_gap = 52, 23.5, 18, 46
    y += 22
    f.text(x0 - 8, y + 13, "lane", size=11, anchor="end", fill=MUTED)
    for lane in range(WARP_SIZE):
        f.rect(x0 + lane * cell, y, cell - 3, height, WARP_COLOURS[0])
        f.text(x0 + lane * cell + (cell - 3) / 2, y + 13, str(lane), size=10, anchor="middle", fill="#ffffff")
    for offset, lane_counts in shuffle_down_tree():
        y += row_gap
        f.text(x0 - 8, y + 13, "+%d" % offset, size=12, anchor="end", weight="bold")
        for lane in range(WARP_SIZE):
            cx = x0 + lane * cell + (cell - 3) / 2
            useful = lane_feeds_lane0(lane, offset)
            if useful:
                f.line(cx, y - row_gap + height, cx, y, stroke=INK, width=1)
            if lane + offset < WARP_SIZE:
                source = x0 + (lane + offset) * cell + (cell - 3) / 2
                f.arrow(source, y - row_gap + height, cx + 1.5, y, stroke=INK if useful else "#cccccc",
                        width=1 if useful else 0.7, head=5)
            f.rect(x0 + lane * cell, y, cell - 3, height, WARP_COLOURS[0] if useful else UNUSED)
            if useful:
                f.text(cx, y + 13, str(lane_counts[lane]), size=10, anchor="middle", fill="#ffffff")
    y += height + 28
    f.text(16, y, "The number in a lane: how many of the warp's 32 values it holds. After offsets 16, 8, 4, 2, 1",
           size=12)
    y += 18
    f.text(16, y, "lane 0 holds all 32: five shuffles, no shared memory, no barrier. Lanes past 31 - offset",
           size=12)
    y += 18
    f.text(16, y, "get their own value back; pale lanes compute sums that lane 0 never reads.", size=12)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "lane whose value reaches lane 0", None),
                          (UNUSED, "lane whose sum nobody reads", None)])
    return f.svg(y + 8)


STEP09_ARRIVALS = [2, 5, 0, 3, 1, 4]    # one possible order in which 6 blocks get their ticket


def figure_step09():
    f = Figure()
    grid = len(STEP09_ARRIVALS)
    y = f.title("step09: blocks finish in any order; the last ticket adds the block sums",
                "A grid of 6 blocks in one launch, drawn in one possible order (time runs to the right).")
    drawn, last, _ = tickets(STEP09_ARRIVALS)
    x0, slot, height = 110, 62, 22
    y += 30
    f.text(x0, y - 8, "sum the block's elements", size=11, fill=MUTED)
    rows_top = y
    for b in range(grid):
        ry = y + b * 34
        f.text(x0 - 10, ry + 16, "block %d" % b, size=12, anchor="end")
        finish = x0 + 130 + drawn[b] * slot
        f.rect(x0, ry, finish - x0, height, BLOCK_COLOURS[b], rx=2)
        f.text(finish - 6, ry + 15, "block_sums[%d]" % b, size=10, anchor="end")
        ticket_x = finish + 4
        is_last = b in last
        f.rect(ticket_x, ry, 62, height, EXTRA if is_last else "#ffffff", INK, 1, rx=8)
        f.text(ticket_x + 31, ry + 15, "ticket %d" % drawn[b], size=11, anchor="middle",
               fill="#ffffff" if is_last else INK, weight="bold" if is_last else "normal")
        if not is_last:
            f.text(ticket_x + 68, ry + 15, "leaves", size=10, fill=MUTED)
    y = rows_top + grid * 34 + 12
    last_block = last[0]
    sums_x = x0 + 130 + (grid - 1) * slot + 100
    ly = rows_top + last_block * 34
    f.text(sums_x, rows_top - 8, "the last block reads", size=11, fill=MUTED)
    reads = last_block_reads(grid, 256)
    for t in range(grid):
        for i in reads[t]:
            cy = rows_top + i * 34
            f.rect(sums_x, cy, 40, height, BLOCK_COLOURS[i], INK, 0.6)
            f.text(sums_x + 20, cy + 15, "[%d]" % i, size=10, anchor="middle")
            f.arrow(sums_x + 40, cy + height / 2, sums_x + 92, ly + height / 2, stroke=INK, width=0.9, head=5)
    f.rect(sums_x + 94, ly, 60, height, EXTRA, INK, 1, rx=3)
    f.text(sums_x + 124, ly + 15, "total", size=11, anchor="middle", fill="#ffffff", weight="bold")
    y += 16
    f.text(16, y, "atomicAdd(ticket_counter, 1) returns 0, 1, ..., %d in arrival order; ticket %d == gridDim.x - 1"
           % (grid - 1, grid - 1), size=12)
    y += 18
    f.text(16, y, "tells block %d that every other block has written its sum. It adds block_sums[0..%d]"
           % (last_block, grid - 1), size=12)
    y += 18
    f.text(16, y, "with step08's block_sum (thread i reads block_sums[i]), writes the total, sets the counter to 0.",
           size=12)
    y += 18
    f.text(16, y, "No block waits for another: a block whose ticket is not the last simply leaves.",
           size=12, fill=MUTED)
    y = f.legend(y + 26, [(BLOCK_COLOURS[0], "a block's own work (colour per block)", None),
                          ("#ffffff", "ticket: counter's old value", INK),
                          (EXTRA, "the last ticket, and the total it writes", INK)])
    return f.svg(y + 8)


def figure_step10():
    f = Figure()
    y = f.title("step10: 16-byte loads: one warp's load covers 512 contiguous bytes",
                "Each lane loads one float4 (4 floats). Lane l of the warp reads float4 number base + l.")
    x0, lane_cell = 30, 24
    y += 30
    f.text(x0, y - 10, "one load instruction of a warp (float4 *body; lane l reads body[base + l])", size=12,
           weight="bold")
    for lane in range(WARP_SIZE):
        lx = x0 + lane * lane_cell
        for part in range(FLOATS_PER_VECTOR):
            shade = WARP_COLOURS[0] if lane % 2 == 0 else WARP_COLOURS[7]
            f.rect(lx + part * (lane_cell - 2) / 4, y, (lane_cell - 2) / 4 - 0.6, 20, shade)
        if lane % 4 == 0 or lane == WARP_SIZE - 1:
            f.text(lx + (lane_cell - 2) / 2, y + 34, str(lane), size=10, anchor="middle")
    f.text(x0 - 4, y + 34, "lane", size=10, anchor="end", fill=MUTED)
    total = WARP_SIZE * VECTOR_BYTES
    for byte in range(0, total + 1, 128):
        bx = x0 + (byte // VECTOR_BYTES) * lane_cell - (2 if byte == total else 0)
        f.line(bx, y + 40, bx, y + 48, stroke=INK)
        f.text(bx, y + 61, "%d B" % byte, size=10, anchor="middle", fill=MUTED)
    f.line(x0, y + 44, x0 + WARP_SIZE * lane_cell - 2, y + 44, stroke=INK)
    y += 90
    past, n = 1, 30
    head, vectors, tail = split_at_alignment(past, n)
    f.text(x0, y, "An input in[] that starts %d float past a 16-byte boundary, n = %d: split_at_alignment"
           % (past, n), size=12, weight="bold")
    y += 14
    cell = 22
    total_floats = past + n + (-(past + n)) % FLOATS_PER_VECTOR
    for position in range(total_floats):
        element = position - past
        px = x0 + position * cell
        if element < 0 or element >= n:
            f.rect(px, y, cell - 2, 20, "#ffffff", "#cccccc", 1, dash="3,2")
            continue
        if element < head:
            fill = EDGE
        elif element < head + vectors * FLOATS_PER_VECTOR:
            v = (element - head) // FLOATS_PER_VECTOR
            fill = WARP_COLOURS[0] if v % 2 == 0 else WARP_COLOURS[7]
        else:
            fill = EDGE
        f.rect(px, y, cell - 2, 20, fill)
        f.text(px + (cell - 2) / 2, y + 14, str(element), size=9, anchor="middle",
               fill="#ffffff" if fill == WARP_COLOURS[0] else INK)
    for boundary in range(0, total_floats + 1, FLOATS_PER_VECTOR):
        bx = x0 + boundary * cell - 1
        f.line(bx, y - 6, bx, y + 26, stroke=INK, width=1.6)
    y += 44
    head_mid = x0 + (past + head / 2) * cell
    body_mid = x0 + (past + head + vectors * FLOATS_PER_VECTOR / 2) * cell
    tail_mid = x0 + (past + head + vectors * FLOATS_PER_VECTOR + tail / 2) * cell
    f.text(head_mid, y, "head: %d" % head, size=11, anchor="middle", weight="bold")
    f.text(body_mid, y, "body: %d float4 (%d floats)" % (vectors, vectors * FLOATS_PER_VECTOR), size=11,
           anchor="middle", weight="bold")
    f.text(tail_mid, y, "tail: %d" % tail, size=11, anchor="middle", weight="bold")
    y += 16
    f.text(head_mid, y, "threads 0..%d" % (head - 1), size=10, anchor="middle", fill=MUTED)
    f.text(tail_mid, y, "threads 0..%d" % (tail - 1), size=10, anchor="middle", fill=MUTED)
    y += 28
    heads = [split_at_alignment(p, 1000)[0] for p in range(FLOATS_PER_VECTOR)]
    f.text(16, y, "Thick lines: 16-byte boundaries. Starting 0, 1, 2 or 3 floats past one, the head is %s floats;"
           % ", ".join(str(h) for h in heads), size=12)
    y += 18
    f.text(16, y, "the tail is what is left after whole float4 (0 to 3 floats). Thread t < head adds head[t],",
           size=12)
    y += 18
    f.text(16, y, "thread t < tail adds tail[t]: the grid's first threads, one float each.", size=12)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "a float4 (lanes alternate shades)", None),
                          (EDGE, "head or tail float, loaded alone", None),
                          ("#ffffff", "not part of the input", "#cccccc")])
    return f.svg(y + 8)


STEP11_THREADS = 32       # a block drawn as one warp; the real default is 512
STEP11_BLOCKS = 4


def figure_step11():
    f = Figure()
    y = f.title("step11: every load in flight before the first add; short blocks in address order",
                "THREADS = 32 here so that it fits (512 by default); VECTORS_PER_THREAD = 8 float4 per thread.")
    x0, cell, height = 100, 19, 16
    y += 24
    f.text(16, y, "block 0: thread t reads float4 number first + k*THREADS, first = blockIdx.x*THREADS*8 + t",
           size=12, weight="bold")
    y += 16
    f.text(x0 - 8, y, "thread t", size=10, anchor="end", fill=MUTED)
    for t in range(0, STEP11_THREADS, 4):
        f.text(x0 + t * cell + (cell - 2) / 2, y, str(t), size=9, anchor="middle", fill=MUTED)
    y += 6
    vectors = {t: block_vectors(0, STEP11_THREADS, t) for t in range(STEP11_THREADS)}
    for k in range(VECTORS_PER_THREAD):
        f.text(x0 - 8, y + 12, "load k = %d" % k, size=11, anchor="end")
        for t in range(STEP11_THREADS):
            shade = WARP_COLOURS[0] if t % 2 == 0 else WARP_COLOURS[7]
            f.rect(x0 + t * cell, y, cell - 2, height, shade)
            f.text(x0 + t * cell + (cell - 2) / 2, y + 12, str(vectors[t][k]), size=8.5, anchor="middle",
                   fill="#ffffff" if t % 2 == 0 else INK)
        y += height + 2
    f.rect(x0 + STEP11_THREADS * cell + 4, y - 8 * (height + 2), 4, 8 * (height + 2) - 2, EXTRA)
    f.text(x0 + STEP11_THREADS * cell + 12, y - 4 * (height + 2) - 4, "all 8", size=11, weight="bold")
    f.text(x0 + STEP11_THREADS * cell + 12, y - 4 * (height + 2) + 10, "issued", size=11)
    f.text(x0 + STEP11_THREADS * cell + 12, y - 4 * (height + 2) + 24, "at once", size=11)
    y += 22
    f.text(16, y, "Each row is one warp load of 512 contiguous bytes. A thread holds %d x 16 B = %d B in flight"
           % (VECTORS_PER_THREAD, VECTORS_PER_THREAD * VECTOR_BYTES), size=12)
    y += 18
    f.text(16, y, "(step09: %d loads of 4 B = %d B), then adds its group, and the block is done."
           % (LOADS_IN_FLIGHT, LOADS_IN_FLIGHT * WORD_BYTES), size=12)
    # the address line: which block reads which float4
    y += 34
    per_block = STEP11_THREADS * VECTORS_PER_THREAD
    count = STEP11_BLOCKS * per_block
    line_x, line_width = 150, 640
    scale = line_width / count
    f.text(16, y, "Which block reads each float4 of the input (%d float4 drawn)" % count, size=12, weight="bold")
    y += 12
    rows = [("short blocks (step11)", lambda v: v // per_block),
            ("persistent grid", lambda v: persistent_vector_owner(v, 2, STEP11_THREADS))]
    for label, owner in rows:
        f.text(line_x - 8, y + 14, label, size=11, anchor="end")
        start = 0
        for v in range(1, count + 1):
            if v == count or owner(v) != owner(start):
                f.rect(line_x + start * scale, y, (v - start) * scale, 20, BLOCK_COLOURS[owner(start)])
                start = v
        y += 28
    f.text(line_x - 8, y + 2, "(step09, step10)", size=11, anchor="end", fill=MUTED)
    f.text(line_x, y + 2, "address 0", size=10, fill=MUTED)
    f.text(line_x + line_width, y + 2, "address %d x 16 B" % count, size=10, anchor="end", fill=MUTED)
    y += 24
    f.text(16, y, "Short blocks: block b reads one contiguous run of THREADS x 8 float4 and leaves. CUDA promises no",
           size=12)
    y += 18
    f.text(16, y, "order of blocks; in practice they start roughly by index, so the blocks in flight read neighbouring",
           size=12)
    y += 18
    f.text(16, y, "addresses. A persistent grid (here 2 blocks) loops instead: its blocks take turns along the whole",
           size=12)
    y += 18
    f.text(16, y, "array, one stride a pass.", size=12)
    y += 18
    f.text(16, y, "With 512 threads: %s KiB per block, %s blocks at n = 2^25."
           % (grouped(512 * VECTORS_PER_THREAD * VECTOR_BYTES // 1024),
              grouped(N_DEFAULT // (512 * VECTORS_PER_THREAD * FLOATS_PER_VECTOR))), size=12, fill=MUTED)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "thread's float4 (shades alternate)", None),
                          (BLOCK_COLOURS[0], "block 0", None), (BLOCK_COLOURS[1], "block 1", None),
                          (BLOCK_COLOURS[2], "block 2", None), (BLOCK_COLOURS[3], "block 3", None)])
    return f.svg(y + 8)


STEP12_PAST, STEP12_N = 1, 2500     # the drawn input: one float past a boundary, 2500 floats


def figure_step12():
    f = Figure()
    y = f.title("step12: small n, one block does it all",
                "n <= ONE_BLOCK_ELEMENTS = %d: reduce_small, one block of %d threads, %d float4 each."
                % (ONE_BLOCK_ELEMENTS, ONE_BLOCK_THREADS, ONE_BLOCK_VECTORS))
    head, vectors, tail = split_at_alignment(STEP12_PAST, STEP12_N)
    x0, lane = 150, 2.3
    y += 26
    f.text(16, y, "Drawn: n = %d, starting %d float past a 16-byte boundary: head %d, %d float4, tail %d."
           % (STEP12_N, STEP12_PAST, head, vectors, tail), size=12, weight="bold")
    y += 20
    for warp in range(ONE_BLOCK_THREADS // WARP_SIZE):
        f.text(x0 + (warp * WARP_SIZE + WARP_SIZE / 2) * lane, y, "warp %d" % warp, size=10, anchor="middle")
    y += 6
    for k in range(ONE_BLOCK_VECTORS):
        f.text(x0 - 8, y + 13, "k = %d: body[t + %d]" % (k, k * ONE_BLOCK_THREADS), size=11, anchor="end")
        lane_strip(f, x0, y, lane, 18, [warp_colour(t) if small_n_vectors(t, vectors)[k][2] else IDLE
                                        for t in range(ONE_BLOCK_THREADS)])
        real_count = sum(1 for t in range(ONE_BLOCK_THREADS) if small_n_vectors(t, vectors)[k][2])
        f.text(x0 + ONE_BLOCK_THREADS * lane + 8, y + 13, "%d of %d" % (real_count, ONE_BLOCK_THREADS), size=11)
        y += 24
    f.text(x0 - 8, y + 13, "head, tail", size=11, anchor="end")
    lane_strip(f, x0, y, lane, 18, [EDGE if t < head or t < tail else None for t in range(ONE_BLOCK_THREADS)])
    f.text(x0 + 14, y + 13, "thread t < %d adds head[t], thread t < %d adds tail[t]" % (head, tail), size=11)
    y += 34
    f.text(16, y, "Thread t loads float4 t, t + 256, t + 512, t + 768 (a guarded group: i < %d), all before it adds;"
           % vectors, size=12)
    y += 18
    f.text(16, y, "each row is 8 warp loads of 512 contiguous bytes. Then step08's block sum: shuffles in each warp,",
           size=12)
    y += 18
    f.text(16, y, "8 warp sums in shared memory, one barrier, warp 0 shuffles again, thread 0 writes *total.",
           size=12)
    y += 18
    f.text(16, y, "One launch, one block, one trip to memory; no block sums, no ticket, 32-bit indices.",
           size=12, fill=MUTED)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "float4 loaded (colour of the thread's warp)", None),
                          (IDLE, "i >= float4 count: not loaded, adds 0", None),
                          (EDGE, "head or tail float", None)])
    return f.svg(y + 8)


# The drawn launch of step13: 6 blocks, the order they start in (so the tickets they draw), one
# START_STEP apart, and how long each takes from its start to its published word (time units).
STEP13_START_ORDER = [2, 0, 4, 1, 5, 3]
STEP13_LOAD_TIME = {0: 9, 1: 14, 2: 8, 3: 8, 4: 10, 5: 7}
START_STEP = 1


def word_chip(figure, x, y, block, late=False):
    """A published word: the WRITTEN flag (high half) beside the sum's bits (low half)."""
    figure.rect(x, y, 16, 22, INK, INK, 1)
    figure.text(x + 8, y + 15, "1", size=11, anchor="middle", fill="#ffffff", weight="bold")
    figure.rect(x + 16, y, 38, 22, BLOCK_COLOURS[block], INK, 2 if late else 1)
    figure.text(x + 35, y + 15, "sum %d" % block, size=10, anchor="middle")
    return x + 54


def figure_step13():
    f = Figure()
    grid = len(STEP13_START_ORDER)
    y = f.title("step13: the finish without a fence; the block that starts last gathers",
                "A grid of 6 blocks in one launch, drawn in one possible order (time runs to the right).")
    g = gather_finish(STEP13_START_ORDER, STEP13_LOAD_TIME)
    gatherer = g["gatherer"]
    x0, unit, height, pitch = 110, 24, 22, 40
    y += 30
    rows_top = y

    def at(time):
        return x0 + time * unit

    def row_y(block):
        return rows_top + block * pitch

    words = {}
    for b in range(grid):
        ry = row_y(b)
        f.text(x0 - 10, ry + 16, "block %d" % b, size=12, anchor="end")
        start, done = at(g["start"][b]), at(g["published"][b])
        is_gatherer = b == gatherer
        f.rect(start, ry, done - start, height, BLOCK_COLOURS[b], rx=2)
        f.rect(start, ry, 58, height, EXTRA if is_gatherer else "#ffffff", INK, 1, rx=8)
        f.text(start + 29, ry + 15, "ticket %d" % g["ticket"][b], size=11, anchor="middle",
               fill="#ffffff" if is_gatherer else INK, weight="bold" if is_gatherer else "normal")
        f.text(start + 64, ry + 15, "loads, block sum", size=10, fill=MUTED)
        late = b in g["waited_for"]
        words[b] = (done, word_chip(f, done, ry, b, late))
        if not is_gatherer:
            f.text(words[b][1] + 6, ry + 15, "leaves", size=10, fill=MUTED)
    # the gatherer: it waits for the late words, then adds all of them in index order
    gy = row_y(gatherer)
    wait_from, wait_to = words[gatherer][1] + 4, at(g["gather_done"]) + 60
    f.rect(wait_from, gy, wait_to - wait_from, height, IDLE, "#888888", 0.8, dash="3,2")
    f.text((wait_from + wait_to) / 2, gy + 15, "waits for word %s"
           % ", ".join(str(b) for b in g["waited_for"]), size=10, anchor="middle")
    cell = 20
    cells_x = wait_to + 4
    order = gather_order(grid, README_BLOCK)
    for slot, i in enumerate(order):
        cx = cells_x + slot * cell
        f.rect(cx, gy, cell, height, BLOCK_COLOURS[i], INK, 0.6)
        f.text(cx + cell / 2, gy + 15, str(i), size=10, anchor="middle")
        word_x, word_right = words[i]
        wy = row_y(i)
        if i == gatherer:
            continue
        source_y = wy + height if wy < gy else wy
        target_y = gy if wy < gy else gy + height
        late = i in g["waited_for"]
        f.arrow(word_right - 27, source_y, cx + cell / 2, target_y, stroke=EXTRA if late else INK,
                width=1.6 if late else 0.9, head=5)
    total_x = cells_x + grid * cell + 6
    f.rect(total_x, gy, 46, height, EXTRA, INK, 1, rx=3)
    f.text(total_x + 23, gy + 15, "total", size=11, anchor="middle", fill="#ffffff", weight="bold")
    y = rows_top + grid * pitch + 4
    f.arrow(x0, y, at(max(g["published"].values())) + 120, y, stroke=MUTED, width=1, head=6)
    f.text(at(max(g["published"].values())) + 126, y + 4, "time", size=11, fill=MUTED)
    y += 26
    late_words = ", ".join(str(b) for b in g["waited_for"])
    f.text(16, y, "Each block draws its ticket as it starts (a relaxed atomicAdd, during its loads): 0..%d in start order."
           % (grid - 1), size=12)
    y += 18
    f.text(16, y, "At its end it stores one 64-bit word, WRITTEN | the sum's bits, and leaves: no fence, no ticket.",
           size=12)
    y += 18
    f.text(16, y, "Ticket %d == gridDim.x - 1 tells block %d that every block has started, so every word will come."
           % (grid - 1, gatherer), size=12)
    y += 18
    readers, tags = gather_readers(grid, README_BLOCK)
    who, each = ("its warp 0 reads", "lane") if readers == WARP_SIZE else ("it reads", "thread")
    f.text(16, y, "After its own loads %s the %d words (%d at a time per %s), re-reads word %s until written,"
           % (who, grid, tags, each, late_words), size=12)
    y += 18
    f.text(16, y, "adds them in a fixed order (here, index order: the same every run, the same bits), writes the total, zeroes the words.",
           size=12)
    y += 18
    y += 8
    f.text(16, y, "Trips to memory after the last block's loads, each waiting for the one before:", size=12,
           weight="bold")
    y += 18
    for step, finish in (("step12, the ticket at the end", "ticket"), ("step13, the gatherer", "gather")):
        f.text(32, y, "%s: %s (%s)" % (step, NUMBER_NAMES[len(FINISH_TRIPS[finish])], " -> ".join(FINISH_TRIPS[finish])),
               size=12, weight="bold")
        y += 18
    y -= 18
    y = f.legend(y + 26, [(BLOCK_COLOURS[0], "a block's loads and sum (colour per block)", None),
                          ("#ffffff", "start ticket", INK),
                          (EXTRA, "the last start ticket, its gather and total", INK),
                          (INK, "WRITTEN flag (high half) beside the sum's bits (low half)", INK),
                          (IDLE, "the gatherer waits for a word not yet written", None)])
    return f.svg(y + 8)


NUMBER_NAMES = ["no", "one", "two", "three", "four", "five"]

# Six block sums where the order of float additions shows: 2^24 + 1 rounds back to 2^24.
STEP13_BIN_SUMS = [16777216.0, 1.0, 1.0, 3.5, -16777216.0, 0.5]
STEP13_BIN_ORDERS = [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0]]


def figure_step13_bins():
    f = Figure()
    y = f.title("step13 past 2048 blocks: integer bins add in any order to the same bits",
                "Six block sums, split as add_to_bins splits them; one bin per exponent (make_figures.py transcribes it).")
    words = bins_after(STEP13_BIN_SUMS)
    columns = [16, 96, 210, 330, 480]
    y += 30
    for x, head in zip(columns, ["block", "its sum", "exponent field", "significand", "the one atomic adds to that bin"]):
        f.text(x, y, head, size=12, weight="bold")
    for b, value in enumerate(STEP13_BIN_SUMS):
        y += 22
        exponent, significand = bin_and_significand(value)
        f.rect(columns[0], y - 14, 60, 19, BLOCK_COLOURS[b], rx=2)
        f.text(columns[0] + 30, y, "block %d" % b, size=11, anchor="middle")
        f.text(columns[1], y, "%.10g" % value, size=12)
        f.text(columns[2], y, "%d" % exponent, size=12)
        f.text(columns[3], y, grouped(significand), size=12)
        f.text(columns[4], y, "bin %d += %s x 2^%d + 1" % (exponent, grouped(significand), COUNT_BITS), size=12)
    y += 34
    f.text(16, y, "The bins after all six, whatever order the atomics land in:", size=12, weight="bold")
    for b in sorted(words, reverse=True):
        y += 22
        significands, count = bin_fields(words[b])
        scale = max(b, 1) - SCALE_OFFSET
        f.rect(16, y - 14, 70, 19, WARP_COLOURS[0], rx=2)
        f.text(51, y, "bin %d" % b, size=11, anchor="middle", fill="#ffffff")
        f.text(100, y, "significands %s, count %d: %s x 2^%d = %.10g"
               % (grouped(significands), count, grouped(significands), scale, significands * 2.0 ** scale),
               size=12)
    y += 26
    f.rect(16, y - 14, 70, 19, EXTRA, rx=2)
    f.text(51, y, "total", size=11, anchor="middle", fill="#ffffff", weight="bold")
    f.text(100, y, "%.10g on every run: the words are exact, and warp 0 converts them in a fixed order" % bins_total(words), size=12, weight="bold")
    y += 34
    f.text(16, y, "The same six as float atomicAdds: each addition rounds, so the order the blocks land in decides.",
           size=12, weight="bold")
    for order in STEP13_BIN_ORDERS:
        y += 20
        f.text(32, y, "blocks %s: %.10g" % (", ".join(str(i) for i in order),
                                         float_sum_in_order([STEP13_BIN_SUMS[i] for i in order])), size=12)
    y += 20
    f.text(32, y, "(2^24 + 1 is not a float: it rounds back to 2^24, and the 1 is lost.)", size=12, fill=MUTED)
    y += 26
    y = f.legend(y, [(BLOCK_COLOURS[0], "a block and its sum", None),
                     (WARP_COLOURS[0], "a bin: one 64-bit word, count in its low 20 bits", None),
                     (EXTRA, "the block that drew the last start ticket converts the bins", None)])
    return f.svg(y + 8)


def figure_step16():
    f = Figure()
    y = f.title("step16: a sum per row: a group of lanes, a block, or several blocks per row",
                "Every box is computed from plan.h's index arithmetic (make_figures.py transcribes it).")
    x0 = 30
    # (a) the warp kernel on rows of 32 floats
    vectors = STEP16_SHORT_COLS // FLOATS_PER_VECTOR
    lanes = lanes_per_row(vectors, FLOATS_PER_VECTOR)
    rows = warp_rows(vectors, lanes)
    passes = warp_passes(vectors, lanes)
    y += 26
    f.text(x0, y, "(a) warp: rows of %d floats (%d float4) take %d lanes each; one warp reads %d rows, %d passes"
           % (STEP16_SHORT_COLS, vectors, lanes, len(rows), passes), size=12, weight="bold")
    y += 12
    cell, height = 22, 14
    for row in sorted(rows):
        p, g, group_lanes = rows[row]
        ry = y + row * (height + 3) + p * 6
        f.text(x0 + 58, ry + 11, "row %d" % row, size=10, anchor="end", fill=MUTED)
        for v in range(vectors):
            lane = group_lanes[v % lanes]
            f.rect(x0 + 64 + v * cell, ry, cell - 2, height, WARP_COLOURS[g])
            f.text(x0 + 64 + v * cell + (cell - 2) / 2, ry + 11, str(lane), size=9, anchor="middle",
                   fill="#ffffff")
        if g == 0:
            f.text(x0 + 64 + vectors * cell + 10, ry + 11,
                   "pass %d: loads issued before any add" % p, size=10, fill=MUTED)
    y += len(rows) * (height + 3) + passes * 6 + 10
    f.text(x0, y, "A box is one float4; the number is the lane that loads it. Group g = lanes %d g .. %d g + %d reads"
           % (lanes, lanes, lanes - 1), size=12)
    y += 17
    f.text(x0, y, "rows g, g + %d, g + %d, g + %d: %d bytes of %d rows in flight per warp, where a warp on one row"
           % (WARP_SIZE // lanes, 2 * WARP_SIZE // lanes, 3 * WARP_SIZE // lanes,
              len(rows) * STEP16_SHORT_COLS * WORD_BYTES, len(rows)), size=12)
    y += 17
    f.text(x0, y, "would have %d." % (STEP16_SHORT_COLS * WORD_BYTES), size=12)
    # (b) rows that start anywhere in a vector
    y += 34
    cols = STEP16_ODD_COLS
    f.text(x0, y, "(b) rows of %d floats start 0, 1, 2, 3 floats past a 16-byte boundary: each is cut at its own"
           % cols, size=12, weight="bold")
    y += 12
    cell = 22
    for row in range(STEP16_ODD_ROWS):
        past = row_past_boundary(row, cols)
        head, body, tail = row_pieces(past, cols)
        ry = y + row * 24
        f.text(x0 + 58, ry + 14, "row %d" % row, size=10, anchor="end", fill=MUTED)
        for col in range(cols):
            px = x0 + 64 + (col + past) * cell
            if col < head or col >= head + body * FLOATS_PER_VECTOR:
                fill = EDGE
            else:
                fill = WARP_COLOURS[0] if (col - head) // FLOATS_PER_VECTOR % 2 == 0 else WARP_COLOURS[7]
            f.rect(px, ry, cell - 2, 18, fill)
            f.text(px + (cell - 2) / 2, ry + 13, str(col), size=9, anchor="middle",
                   fill="#ffffff" if fill == WARP_COLOURS[0] else INK)
        for boundary in range(0, cols + 2 * FLOATS_PER_VECTOR, FLOATS_PER_VECTOR):
            bx = x0 + 64 + boundary * cell - 1
            if boundary <= cols + past + FLOATS_PER_VECTOR - 1:
                f.line(bx, ry - 3, bx, ry + 21, stroke=INK, width=1.6)
        f.text(x0 + 64 + (cols + FLOATS_PER_VECTOR + 1) * cell, ry + 14,
               "head %d, %d float4, tail %d" % (head, body, tail), size=11)
    y += STEP16_ODD_ROWS * 24 + 12
    f.text(x0, y, "Row r starts %d r floats in, (%d r) mod 4 past a boundary (thick lines): row_pieces_of gives its head,"
           % (cols, cols), size=12)
    y += 17
    f.text(x0, y, "whole float4 and tail. The first threads of the row's group or block add the head and tail floats.",
           size=12)
    # (c) a split row
    y += 34
    blocks = split_blocks_per_row(STEP16_SPLIT_COLS)
    total_vectors = STEP16_SPLIT_COLS // FLOATS_PER_VECTOR
    gatherer = STEP16_TICKETS.index(blocks - 1)
    f.text(x0, y, "(c) split: a row of %s floats is %d chunks of up to %s float4 (64 KiB), a block each"
           % (grouped(STEP16_SPLIT_COLS), blocks, grouped(SPLIT_CHUNK_VECTORS)), size=12, weight="bold")
    y += 14
    width = 140
    for part in range(blocks):
        first, count = split_chunk(part, total_vectors)
        bx = x0 + part * (width + 16)
        fill = BLOCK_COLOURS[part % len(BLOCK_COLOURS)]
        f.rect(bx, y, width * count / SPLIT_CHUNK_VECTORS, 24, fill, "#888888", 1)
        f.text(bx + 6, y + 16, "block %d: float4 %s.." % (part, grouped(first)), size=10)
        f.text(bx + 4, y + 40, "ticket %d" % STEP16_TICKETS[part], size=10, fill=MUTED)
        chip(f, bx + width / 2 - 16, y + 50, "word %d" % part, WARP_COLOURS[7])
        f.arrow(bx + width / 2, y + 70, WIDTH / 2 - 120 + part * 60, y + 100, stroke=MUTED, width=1.0)
    f.rect(WIDTH / 2 - 250, y + 102, 500, 24, EXTRA, rx=4)
    f.text(WIDTH / 2, y + 118, "block %d drew the row's last ticket: it adds words 0, 1, ..., %d in that order"
           % (gatherer, blocks - 1), size=11, anchor="middle", fill="#ffffff", weight="bold")
    y += 150
    f.text(x0, y, "Each block draws a ticket of its row as it starts and publishes its sum with a flag (step13's finish,",
           size=12)
    y += 17
    f.text(x0, y, "per row). The block with ticket %d knows that all %d blocks of its row have started: it waits for their"
           % (blocks - 1, blocks), size=12)
    y += 17
    f.text(x0, y, "words and adds them in index order, the same order on every run. One row of 2^30 floats has %s blocks."
           % grouped(split_blocks_per_row(2 ** 30)), size=12)
    y = f.legend(y + 26, [(WARP_COLOURS[0], "a float4 (shades alternate)", None),
                          (EDGE, "head or tail float, loaded alone", None),
                          (WARP_COLOURS[7], "a published 64-bit word", None),
                          (EXTRA, "the row's gatherer", None)])
    return f.svg(y + 8)


FIGURES = [
    ("step00_global_tree.svg", figure_step00),
    ("step01_shared_copy.svg", figure_step01),
    ("step02_warps_issuing.svg", figure_step02),
    ("step03_bank_rounds.svg", figure_step03),
    ("step04_first_add.svg", figure_step04),
    ("step05_last_warp.svg", figure_step05),
    ("step06_unrolled.svg", figure_step06),
    ("step07_grid_stride.svg", figure_step07),
    ("step08_shuffle.svg", figure_step08),
    ("step09_tickets.svg", figure_step09),
    ("step10_vector_loads.svg", figure_step10),
    ("step11_in_flight.svg", figure_step11),
    ("step12_small_n.svg", figure_step12),
    ("step13_gather.svg", figure_step13),
    ("step13_bins.svg", figure_step13_bins),
    ("step16_rows.svg", figure_step16),
]


def main():
    parser = argparse.ArgumentParser(description="Draw the step READMEs' figures from the kernels' index arithmetic.")
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)),
                        help="directory for the SVG files (default: this script's directory)")
    parser.add_argument("--counts", action="store_true",
                        help="print the counts the figures show, one `name value` a line, and write nothing")
    args = parser.parse_args()
    if args.counts:
        for name, value in counts():
            print("%s %s" % (name, value))
        return 0
    if not os.path.isdir(args.out):
        print("make_figures.py: no directory %s" % args.out, file=sys.stderr)
        return 2
    for name, draw in FIGURES:
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as out:
            out.write(draw())
    return 0


if __name__ == "__main__":
    sys.exit(main())
