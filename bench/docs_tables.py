#!/usr/bin/env python3
"""make docs: writes every table of measured figures in the student-facing Markdown from the
results files, and checks every figure a sentence cites against its row.

A generated table sits between two markers; everything between them is replaced, everything
outside is left as it is:

    <!-- generated: KIND key=value ... -->
    ...
    <!-- end generated -->

KIND is one of
  ladder   every step at n = 2^25 (ms, GB/s, % of peak, x CUB, x the step before, x step00)
           beside the speed-ups Harris's slides report on a G80 (docs/results/harris_g80.csv),
           and the sentence that compares the two. Keys: csv, device (default: the CSV's first),
           caption=short (one line of caption, pointing to docs/results.md, no sentence).
  columns  one row per n, one column per cell spec, from a bench CSV. Keys: csv, device, flush
           (default read), n (a list: 2^25,2^30 or a range 2^10..2^14). The marker's body holds
           two more lines: `header: a ; b ; ...` and `cells: SPEC ; SPEC ; ...`, where SPEC is
           `n` (the size), or `STEP[/VARIANT][@FLUSH]: EXPR[, EXPR] : FORMAT`, EXPR an
           arithmetic expression of the CSV's numeric columns, FORMAT a Python format string
           (`{:.2f} µs ({:.1f} %)`). A row the CSV lacks leaves its cell empty.
  accuracy every step's error / bound on the real-valued patterns, and the CPU sums', from
           docs/results/accuracy.csv (rows with the same cells share a line). Keys: csv, device.
  low_precision  step14's sums of 2^20 values in float, bf16 and half (bench/low_precision.sh):
           one row per pattern and input type, one column per accumulation (float, the input
           type as a tree, as 32 chains); each cell the result, its error and its bound.
           Keys: csv, device.
  step     a step beside the step before, one row per card in the bench CSV: the two steps'
           default rows at n = 2^25 with --flush read (ms, speed-up, % of peak, x CUB, date).
           Keys: step, before (omitted for step00), csv.
  report   the report a step's program prints with its default options, as bench/reports.sh
           recorded it on a GPU (docs/results/reports.txt), in a fenced block with the card,
           CUDA version and date under it. Keys: step, csv (the reports file).
  checks   docs/instructors.md's expected results: for each step of `steps` (a range, 01..09),
           its default run at n = 2^25 from the bench CSV (ms, % of peak, x CUB) beside the
           last line of its --check (docs/results/checks.txt, bench/checks.sh), and the lab that
           completes it (labs/steps.txt); with variants=yes, instead every other variant's
           --check line of those steps. Keys: steps, device, csv, variants.
  options  README's options table: its `steps` column is rewritten from every step program's
           --help (the programs must be built: make); the other columns are kept.
  rows     step16's rows (docs/results/bench_rows.csv): a line per shape and type, the kernel
           the chooser launched, and for each flush ms, % of peak, x cub::DeviceSegmentedReduce
           and x CUB's flat sum; a figure that misses a target of bench/rows_table.py is bold.
           Keys: csv (default docs/results/bench_rows.csv), device.
  torch    the torch.sum(x, dim=1) rows of that CSV beside step16's at the same shape and
           flush. Keys: csv, device.

A figure in a sentence names its source in a comment right after it:

    1.07×<!-- cite docs/results/bench.csv step=step13 n=2^25 flush=read: ratio_to_cub -->

The selectors (column=value; n takes 2^k and ranges A..B; a value with spaces is quoted) must
match exactly one row, unless the expression is min(...) or max(...) over the rows matched.
Without a device selector, of the rows matched those of the first device among them count.
The expression is arithmetic (+ - * /) of the row's columns; STEP.column is that column in
the row of another step that the other selectors match (step09.ms_median - ms_median). The
number printed before the comment must equal the expression rounded to the decimals printed.

usage: bench/docs_tables.py [--check | --cited] [--bench-csv CSV] [FILE.md ...]
  (no option)  rewrite the generated tables of the files (default: every tracked *.md)
  --check      write nothing; print what differs and exit 1 if a file is not what make docs
               writes
  --cited      check every cited figure against its row; exit 1 on the first list of misses
  --bench-csv  read this CSV wherever a marker names docs/results/bench.csv (make charts
               BENCH_CSV=...)"""
import ast
import csv
import difflib
import glob
import math
import os
import re
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)
import rows_table  # noqa: E402  (the rows step's targets)

PROGRAM = "docs"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH_CSV = "docs/results/bench.csv"
ROWS_CSV = "docs/results/bench_rows.csv"
HARRIS_CSV = "docs/results/harris_g80.csv"
REPORTS = "docs/results/reports.txt"
CHECKS = "docs/results/checks.txt"
LAB_STEPS = "labs/steps.txt"
HARRIS_SOURCE = ("Mark Harris, \"Optimizing Parallel Reduction in CUDA\", NVIDIA, 2007, "
                 "<https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf>")
BEGIN = re.compile(r"(?m)^<!-- generated: (\w+)([^\n]*?)(?:-->|\n)")
END = "<!-- end generated -->"
CITE = re.compile(r"<!-- cite ([^\s:]+)((?:\s+[^\s:=]+=(?:\"[^\"]*\"|[^\s:]+))*)\s*:\s*(.+?)\s*-->")
NUMBER_BEFORE = re.compile(r"(-?[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:×|%|µs|ms|s|GB/s|GiB|MiB)?\s*\**$")
MIB = 1024 * 1024
SAME_AS_G80 = 0.85   # a lesson gains "about as much" when our speed-up is at least this share


# ---- reading -------------------------------------------------------------------------------

def power(text):
    text = text.strip()
    if text.startswith("2^"):
        return 2 ** int(text[2:])
    return int(text)


def sizes(text):
    """2^25,2^30 -> [2^25, 2^30]; 2^10..2^14 -> a range test."""
    if ".." in text:
        low, high = (power(part) for part in text.split(".."))
        return lambda n: low <= n <= high
    wanted = {power(part) for part in text.split(",")}
    return lambda n: n in wanted


def bench_rows(path, device=None):
    rows = bench_csv.distinct(bench_csv.load(path, PROGRAM))
    chosen = device or rows[0]["device"]
    rows = [row for row in rows if row["device"] == chosen]
    if not rows:
        bench_csv.fail(PROGRAM, f"{path} has no rows of the device {chosen!r}")
    return rows


def plain_rows(path):
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except OSError as error:
        bench_csv.fail(PROGRAM, f"cannot read {path}: {error.strerror}")


def arguments(text):
    pairs = {}
    for word in shlex.split(text):
        key, _, value = word.partition("=")
        pairs[key] = value
    return pairs


# ---- expressions of a row's columns --------------------------------------------------------

OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
             ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b}


def number(value):
    if isinstance(value, (int, float)):
        return value
    return float(value)


def evaluate(node, row, neighbours=()):
    """A column is a name (ms_median), or STEP.column: that column of the row of another step
    that the other selectors match (step09.ms_median), from `neighbours`."""
    def again(child):
        return evaluate(child, row, neighbours)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in row:
            raise ValueError(f"no column {node.id}")
        return number(row[node.id])
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        found = [other for other in neighbours if other.get("step") == node.value.id]
        if len(found) != 1:
            raise ValueError(f"{len(found)} rows of {node.value.id} match, not one")
        return evaluate(ast.Name(node.attr), found[0])
    if isinstance(node, ast.BinOp) and type(node.op) in OPERATORS:
        return OPERATORS[type(node.op)](again(node.left), again(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -again(node.operand)
    raise ValueError(f"not an arithmetic expression of columns: {ast.dump(node)}")


def value_of(expression, rows, neighbours=()):
    """The expression over one row, or min(...)/max(...) over all of them."""
    tree = ast.parse(expression, mode="eval").body
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) and tree.func.id in ("min", "max"):
        values = [evaluate(tree.args[0], row, [other for other in neighbours
                                                if other.get("n") == row.get("n")])
                  for row in rows]
        if not values:
            raise ValueError("no row matches")
        return min(values) if tree.func.id == "min" else max(values)
    if len(rows) != 1:
        raise ValueError(f"{len(rows)} rows match, not one (add a selector)")
    return evaluate(tree, rows[0], neighbours)


# ---- the ladder: README's results table and scoreboard -------------------------------------

def step_directory(name):
    found = [path for path in glob.glob(os.path.join(ROOT, f"{name}_*")) if os.path.isdir(path)]
    return os.path.basename(found[0]) if len(found) == 1 else None


def step_cell(row, keys, relative):
    text = bench_csv.label((row["step"], row["variant"]), keys)
    directory = step_directory(row["step"])
    if directory is None:
        return text
    return f"[{row['step']}]({relative}{directory}/){text[len(row['step']):]}"


def times(value):
    return "" if value is None else f"{value:.2f}×"


def harris_by_step():
    return {row["step"]: row for row in plain_rows(os.path.join(ROOT, HARRIS_CSV))}


def dates_of(rows):
    """The run the rows come from, or, where several runs wrote them, the first run and the
    steps of each later one: "2026-11-27 14:52 UTC (step10, step13: 2026-11-27 19:38 UTC)"."""
    def when(stamp):
        return f"{stamp[:10]} {stamp[11:16]} UTC" if len(stamp) >= 16 else stamp[:10]
    runs = sorted({row[bench_csv.DATE] for row in rows})
    steps_of = {run: sorted({row["step"] for row in rows if row[bench_csv.DATE] == run})
                for run in runs[1:]}
    later = [f"{', '.join(steps)}: a later run, {when(run)}" for run, steps in steps_of.items()]
    return when(runs[0]) + (f" ({'; '.join(later)})" if later else "")


def ladder(options, relative, csv_path):
    n = bench_csv.LADDER_N
    rows = bench_csv.with_flush(bench_rows(csv_path, options.get("device")), bench_csv.READ_FLUSH)
    # sorted by step (stable: a step's variants keep their order), whatever run wrote them
    at_n = sorted(bench_csv.at_size(rows, n), key=lambda row: row["step"])
    if not at_n:
        bench_csv.fail(PROGRAM, f"{csv_path} has no rows at n = 2^25: run the whole `make bench`")
    device, cuda, _ = bench_csv.context(at_n)
    date = dates_of(at_n)
    peak = bench_csv.peak_gb_per_s(rows)
    cub = bench_csv.cub_at(rows, n, peak)
    keys = bench_csv.series_keys(at_n)
    harris = harris_by_step()
    source = relative + os.path.relpath(csv_path, ROOT)
    short = options.get("caption") == "short"
    caption = (f"{device} (peak {peak:.0f} GB/s), CUDA {cuda}, {date}; n = 2^25 floats, the L2 "
               f"emptied before every run, the median. From [{os.path.relpath(csv_path, ROOT)}]"
               f"({source}); the method and the full table: [docs/results.md]"
               f"({relative}docs/results.md).")
    lines = [caption if short else
        f"Measured on {device} (peak {peak:.0f} GB/s), CUDA {cuda}, {date}: n = 2^25 floats "
        f"({n * bench_csv.BYTES_PER_FLOAT // MIB} MiB), uniform integers 0..99, the L2 cache "
        "emptied by reading before every run (`--flush read`), the runs rotating over up to 4 "
        "copies of the input, median of the timed runs. GB/s = bytes read / time. ×CUB: "
        "`cub::DeviceReduce::Sum`'s median time over the step's, both timed in the step's "
        "program on the same copies (above 1: faster than CUB); CUB's row: the median of its "
        "times beside every step. × previous: the step before's time over this step's; × step00: "
        "step00's time over this step's. The last two columns: the kernel of Harris's slides that "
        "teaches the same lesson, and the speed-up over his kernel before it that the slides "
        f"report on a G80 (4M integers; {HARRIS_SOURCE}, [{relative}{HARRIS_CSV}]"
        f"({relative}{HARRIS_CSV})). Written by `make docs` from [{source}]({source}).",
        "",
        "| step | ms (median) | GB/s | % of peak | ×CUB | × previous | × step00 | Harris (G80) "
        "| × previous (G80) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    first, previous = at_n[0], None
    compared = []
    for row in at_n:
        step_speedup = previous["ms_median"] / row["ms_median"] if previous else None
        cumulative = first["ms_median"] / row["ms_median"]
        theirs = harris.get(row["step"])
        kernel = f"kernel {theirs['kernel']}: {theirs['name']}" if theirs else ""
        their_step = theirs["step_speedup"] + "×" if theirs and theirs["step_speedup"] else ""
        if theirs and theirs["step_speedup"] and step_speedup:
            compared.append((row["step"], step_speedup, theirs["step_speedup"]))
        lines.append(f"| {step_cell(row, keys, relative)} | {row['ms_median']:.4f} | "
                     f"{row['gb_per_s']:.1f} | {row['peak_pct']:.1f} % | "
                     f"{times(row['ratio_to_cub']) or '-'} | {times(step_speedup)} | "
                     f"{times(cumulative)} | {kernel} | {their_step} |")
        previous = row
    if cub:
        lines.append(f"| CUB | {cub['ms_median']:.4f} | {cub['gb_per_s']:.1f} | "
                     f"{cub['peak_pct']:.1f} % | 1.00× | | | | |")
    if not short:
        lines += ["", comparison(compared, device)]
    return "\n".join(lines)


def comparison(compared, device):
    """The sentence under the scoreboard: which lessons gain as much here as on the G80."""
    def listed(items):
        return ", ".join(f"{step} ({ours:.2f}× here, {theirs}× there)" for step, ours, theirs in items)
    same = [item for item in compared if item[1] >= SAME_AS_G80 * float(item[2])]
    less = [item for item in compared if item[1] < SAME_AS_G80 * float(item[2])]
    text = (f"Step over step, on the {device} against the G80: the lessons that gain at least "
            f"{SAME_AS_G80:.2f} of what they gained there are {listed(same) or 'none'}; those that "
            f"gain less are {listed(less) or 'none'}.")
    return text


# ---- columns: a table of sizes from a bench CSV --------------------------------------------

CELL = re.compile(r"^\s*(\w+)(?:/([\w:-]+))?(?:@(\w+))?\s*:([^{]*):\s*(\{.*?)\s*$")


def columns(options, body, csv_path):
    header = cells = None
    for line in body.splitlines():
        if line.strip().startswith("header:"):
            header = [cell.strip() for cell in line.split(":", 1)[1].split(";")]
        if line.strip().startswith("cells:"):
            cells = [cell.strip() for cell in line.split(":", 1)[1].split(";")]
    if not header or not cells or len(header) != len(cells):
        raise ValueError("a columns table needs a header: line and a cells: line of as many cells")
    rows = bench_rows(csv_path, options.get("device"))
    flush = options.get("flush", bench_csv.READ_FLUSH)
    wanted = sizes(options["n"])
    ns = sorted({row["n"] for row in rows if wanted(row["n"])})
    lines = ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
    for n in ns:
        lines.append("| " + " | ".join(cell(spec, rows, n, flush) for spec in cells) + " |")
    return "\n".join(lines)


def cell(spec, rows, n, flush):
    if spec == "n":
        return bench_csv.power_of_two_label(n)
    match = CELL.match(spec)
    if not match:
        raise ValueError(f"a cell is `n` or STEP[/VARIANT][@FLUSH]: EXPR : FORMAT, not {spec!r}")
    step, variant, row_flush, expressions, form = match.groups()
    found = [row for row in rows if row["n"] == n and row["step"] == step
             and row["flush"] == (row_flush or flush) and (variant is None or row["variant"] == variant)]
    if not found:
        return ""
    values = [value_of(expression.strip(), found[:1]) for expression in expressions.split(",")]
    return form.format(*values)


# ---- accuracy: every step's error and bound on the real-valued patterns --------------------

CPU_SUMS = {"naive": "CPU, naive float loop", "pairwise": "CPU, pairwise float sum",
            "kahan": "CPU, Kahan in float"}
ACCURACY_PATTERNS = ["real", "normal", "wide", "cancel"]
SIGNIFICANT = 3
LARGE = 1e3   # from here on a figure is written as 1.19e3


def three_digits(value):
    """3 significant digits: -0.0000961, 36.1, -305, then 1.19e3, -5.36e5."""
    if value == 0:
        return "0"
    exponent = math.floor(math.log10(abs(value)))
    if abs(value) >= LARGE:
        mantissa = value / 10 ** exponent
        if round(abs(mantissa), SIGNIFICANT - 1) >= 10:
            mantissa, exponent = mantissa / 10, exponent + 1
        return f"{mantissa:.{SIGNIFICANT - 1}f}e{exponent}"
    decimals = max(0, SIGNIFICANT - 1 - exponent)
    return f"{value:.{decimals}f}"


def accuracy_cell(row):
    error = three_digits(float(row["error"]))
    bound = row["bound"].strip()
    if not bound or math.isinf(float(bound)):
        return error
    return f"{error} / {three_digits(float(bound))}"


def accuracy_label(key, keys, runs):
    step, variant, run = key
    if step == "cpu":
        return CPU_SUMS.get(variant, f"CPU, {variant}")
    several = sum(1 for other in {(k[0], k[1]) for k in keys} if other[0] == step) > 1
    default = [k[1] for k in keys if k[0] == step][0]
    label = step if not several or variant == default else f"{step} `{variant}`"
    return label + (f", run {run}" if runs[(step, variant)] > 1 else "")


def accuracy(options, csv_path):
    rows = [row for row in plain_rows(csv_path) if row["pattern"] in ACCURACY_PATTERNS]
    steps = [row for row in rows if row["step"] != "cpu"]
    device = options.get("device") or steps[0]["device"]
    rows = [row for row in rows if row["step"] == "cpu" or row["device"] == device]
    keys = []
    for row in rows:
        key = (row["step"], row["variant"], row["run"])
        if key not in keys:
            keys.append(key)
    keys.sort(key=lambda k: (k[0] == "cpu", k[0]))   # stable: the file's order within a step
    runs = {}
    for step, variant, _ in keys:
        runs[(step, variant)] = runs.get((step, variant), 0) + 1
    cells = {(row["step"], row["variant"], row["run"], row["pattern"]): accuracy_cell(row)
             for row in rows}
    lines = ["| step | " + " | ".join(f"`{p}`" for p in ACCURACY_PATTERNS) + " |",
             "|---|" + "---:|" * len(ACCURACY_PATTERNS)]
    merged = []   # consecutive rows with the same cells share a line: step00, step01, step02
    for key in keys:
        row_cells = [cells.get(key + (pattern,), "") for pattern in ACCURACY_PATTERNS]
        label = accuracy_label(key, keys, runs)
        if merged and merged[-1][1] == row_cells and key[0] != "cpu" and "`" not in label \
                and "`" not in merged[-1][0][-1]:
            merged[-1][0].append(label)
        else:
            merged.append(([label], row_cells))
    for labels, row_cells in merged:
        lines.append(f"| {', '.join(labels)} | " + " | ".join(row_cells) + " |")
    return "\n".join(lines)


# ---- low_precision: step14's 16-bit sums kept in float and in their own type --------------

ACCUMULATIONS = [("float", "float accumulator"), ("input-tree", "input type, tree"),
                 ("input-chain", "input type, 32 chains")]
EXACT_DIGITS = 9   # a result or exact sum that is not an integer: as many digits as the CSV's


def plain_figure(text):
    """1,048,576 for an integer, inf, or 9 significant digits: 8.49025691."""
    value = float(text)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.{EXACT_DIGITS}g}"


def low_precision_cell(row):
    """result (error / bound), and ✗ where the program called the result WRONG."""
    if row is None:
        return ""
    error = float(row["error"])
    shown = plain_figure(row["error"]) if math.isinf(error) or error == int(error) \
        else three_digits(error)
    bound = float(row["bound"])
    limit = "no bound" if math.isinf(bound) else three_digits(bound)
    wrong = "" if int(row["ok"]) == 1 else " ✗"
    return f"{plain_figure(row['result'])} ({shown} / {limit}){wrong}"


def input_type(variant):
    """sum:bf16:accumulate-input -> bf16"""
    return variant.split(":")[1]


def low_precision(options, csv_path, link):
    rows = plain_rows(csv_path)
    device = options.get("device") or rows[0]["device"]
    rows = [row for row in rows if row["device"] == device]
    known = [accumulation for accumulation, _ in ACCUMULATIONS]
    cells, order = {}, []
    for row in rows:
        if row["accumulation"] not in known:
            raise ValueError(f"{csv_path}: no column for the accumulation {row['accumulation']!r}")
        key = (row["pattern"], input_type(row["variant"]))
        if key not in order:
            order.append(key)
        cells[key + (row["accumulation"],)] = row
    sizes_seen = sorted({bench_csv.power_of_two_label(int(row["n"])) for row in rows})
    lines = [f"Measured on {device}, CUDA {rows[0]['cuda']}, n = {', '.join(sizes_seen)}, one run "
             f"each ([{link}]({link})). Each cell: the result, then (its "
             "error, the result minus the exact sum / the bound the program accepts it within, 0 where "
             "it must be exact); ✗: the program calls it `WRONG`.",
             "",
             "| pattern | input | exact sum | " + " | ".join(name for _, name in ACCUMULATIONS) + " |",
             "|---|---|---:|" + "---:|" * len(ACCUMULATIONS)]
    for pattern, kind in order:
        found = [cells.get((pattern, kind, accumulation)) for accumulation in known]
        exact = {row["expected"] for row in found if row}
        if len(exact) != 1:
            raise ValueError(f"{csv_path}: `{pattern}` in {kind} has the exact sums {sorted(exact)}")
        lines.append(f"| `{pattern}` | {kind} | {plain_figure(exact.pop())} | "
                     + " | ".join(low_precision_cell(row) for row in found) + " |")
    return "\n".join(lines)


# ---- options: README's options table against every step's --help ---------------------------

OPTION = re.compile(r"^\s+(--?[\w-]+)")


# What each row of the options table claims, as arguments a program must accept: a row holds
# for a step when its --help lists every option of the row and the step's program, given the
# row's arguments, does not answer with a usage error (exit 2). Without a GPU (the programs run
# with CUDA_VISIBLE_DEVICES="") an accepted command line exits 3, "no GPU".
CLAIMS = {
    "-n N": ["-n", "1000003"], "-n A..B": ["-n", "2^10..2^12"],
    "--pattern P": ["--pattern", "onehot:last"], "--seed S": ["--seed", "7"],
    "--iters I": ["--iters", "2"], "--warmup W": ["--warmup", "0"],
    "--buffers K": ["--buffers", "2"], "--flush read|write": ["--flush", "write"],
    "--threads T": ["--threads", "256"], "--blocks B": ["--blocks", "3"],
    "--finish gpu|cpu": ["--finish", "cpu"], "--variant V": [], "--check": ["--check"],
    "--no-cub": ["--no-cub"], "--csv": ["--csv"], "--quiet": ["--quiet"], "--help": ["--help"],
}
USAGE_ERROR = 2
NOT_BUILT_EXIT = 3   # --check could not read a program: it judged nothing


class NotBuilt(ValueError):
    """A step program the options table needs is not built."""


def program_exit(program, arguments):
    run = subprocess.run([program] + arguments, capture_output=True, text=True,
                         env=dict(os.environ, CUDA_VISIBLE_DEVICES=""), timeout=60)
    return run.returncode


def step_programs():
    """(stepNN, its program, the options its --help lists), in order. A step that is not
    built raises NotBuilt, naming it (and the Makefile's reason, where it left it out)."""
    programs, missing = [], []
    for directory in sorted(glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*"))):
        if not os.path.exists(os.path.join(directory, "host.c")) or not re.match(
                r"step\d\d_[a-z0-9_]+$", os.path.basename(directory)):
            continue
        name = os.path.basename(directory).split("_")[0]
        program = os.path.join(directory, "run")
        if not os.access(program, os.X_OK):
            missing.append(os.path.relpath(program, ROOT))
            continue
        run = subprocess.run([program, "--help"], capture_output=True, text=True,
                             env=dict(os.environ, CUDA_VISIBLE_DEVICES=""))
        if run.returncode != 0:
            bench_csv.fail(PROGRAM, f"{program} --help exited {run.returncode}: {run.stderr}")
        offered = {match.group(1) for match in map(OPTION.match, run.stdout.splitlines()) if match}
        programs.append((name, program, offered))
    if missing:
        raise NotBuilt(f"the options table reads every step's --help: {', '.join(missing)} "
                       "not built (run make; make says why it leaves a step out)")
    return programs


def accepted_rows(program, offered, claims):
    """The rows (keys of claims) whose options the program offers and whose arguments it
    accepts: all rows' arguments in one run first, each row alone only when that run is refused."""
    offered_rows = [row for row, (options, _) in claims.items()
                    if all(option in offered for option in options)]
    together = [word for row in offered_rows for word in claims[row][1]
                if claims[row][1] != ["--help"]]
    if program_exit(program, together) != USAGE_ERROR:
        return set(offered_rows)
    return {row for row in offered_rows if program_exit(program, claims[row][1]) != USAGE_ERROR}


def step_list(numbers, every):
    """[0..8, 14] -> `00–08, 14`; all of them -> `every step`."""
    if numbers == every:
        return "every step"
    runs, start = [], None
    for index, number in enumerate(numbers):
        if start is None:
            start = number
        if index + 1 == len(numbers) or numbers[index + 1] != number + 1:
            if start == number:
                runs.append(f"{start:02d}")
            elif number == start + 1:
                runs.append(f"{start:02d}, {number:02d}")
            else:
                runs.append(f"{start:02d}–{number:02d}")
            start = None
    return ", ".join(runs)


def listed_numbers(text):
    numbers = set()
    if text.strip() == "every step":
        return None
    for part in text.split(","):
        bounds = [int(value) for value in re.findall(r"\d\d", part)]
        if len(bounds) == 2 and "–" in part:
            numbers |= set(range(bounds[0], bounds[1] + 1))
        else:
            numbers |= set(bounds)
    return numbers


def options_table(body):
    lines = [line for line in body.strip().splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    if "steps" not in header:
        raise ValueError("the options table needs a `steps` column")
    column = header.index("steps")
    programs = step_programs()
    every = sorted(int(name[4:]) for name, _, _ in programs)
    rows, claims = [], {}
    for line in lines[2:]:
        cells = re.split(r"(?<!\\)\|", line.strip()[1:-1])
        named = [text.replace("\\", "") for text in re.findall(r"`(--?[^`]+)`", cells[0])]
        unknown = [text for text in named if text not in CLAIMS]
        if unknown:
            raise ValueError(f"the options table's row {', '.join(unknown)} has no claim in "
                             "bench/docs_tables.py's CLAIMS: say what it must accept")
        claims[cells[0]] = ([text.split()[0] for text in named],
                            [word for text in named for word in CLAIMS[text]])
        rows.append(cells)
    holds = {name: accepted_rows(program, offered, claims) for name, program, offered in programs}
    out = lines[:2]
    for cells in rows:
        numbers = [int(name[4:]) for name, _, _ in programs if cells[0] in holds[name]]
        cells[column] = f" {step_list(numbers, every)} "
        out.append("|" + "|".join(cells) + "|")
    counts = {}
    for _, _, offered in programs:
        for option in offered:
            counts[option] = counts.get(option, 0) + 1
    listed = {option for options, _ in claims.values() for option in options}
    shared = sorted(option for option, count in counts.items() if count > len(programs) // 2)
    missing = [option for option in shared if option not in listed]
    if missing:
        raise ValueError(f"options most steps offer have no row: {', '.join(missing)}")
    return "\n".join(out)


# ---- rows: step16's bench rows beside CUB's segmented and flat sums ------------------------

ROWS_STEP, TORCH_STEP = "step16", "torch"
FLUSHES = [bench_csv.READ_FLUSH, bench_csv.WRITE_FLUSH]
SHORTEST_POWER_LABEL = 4096   # 4096 and up as 2^12 (as the README's -n 2^12x2^14), below as is


def count_label(text):
    count = int(text)
    return bench_csv.power_of_two_label(count) if count >= SHORTEST_POWER_LABEL else str(count)


def shape_label(row):
    return f"{count_label(row['rows'])} × {count_label(row['cols'])}"


def rows_of_device(csv_path, device):
    rows = plain_rows(csv_path)
    if not rows:
        raise ValueError(f"{csv_path} has no rows")
    chosen = device or rows[0]["device"]
    rows = [row for row in rows if row["device"] == chosen]
    if not rows:
        raise ValueError(f"{csv_path} has no rows of the device {chosen!r}")
    return rows


def by_shape(rows, step):
    """{(rows, cols, type): {flush: row}} of one step, and those keys in the file's order."""
    found, order = {}, []
    for row in rows:
        if row["step"] != step:
            continue
        key = (row["rows"], row["cols"], row["type"])
        if key not in found:
            found[key] = {}
            order.append(key)
        found[key].setdefault(row["flush"], row)
    return found, order


def bold_if(missed, text):
    return f"**{text}**" if missed else text


def flush_cells(row):
    if row is None:
        return ["", "", "", ""]
    flat = float(row["ratio_to_flat_cub"])
    return [f"{float(row['ms_median']):.4f}",
            bold_if(rows_table.misses_peak(row), f"{float(row['peak_pct']):.1f} %"),
            bold_if(rows_table.misses_ratio(row), f"{float(row['ratio_to_cub']):.2f}×"),
            f"{flat:.2f}×" if flat > 0 else "-"]


def rows_context(rows, relative, csv_path):
    """The line above the table: GPU, its peak, CUDA, date, and what the columns are."""
    measured = [row for row in rows if row["step"] == ROWS_STEP and float(row["peak_pct"]) > 0]
    best = max(measured, key=lambda row: float(row["peak_pct"]))
    peak = float(best["gb_per_s"]) * bench_csv.PERCENT / float(best["peak_pct"])
    source = relative + os.path.relpath(csv_path, ROOT)
    return (f"Measured on {best['device']} (peak {peak:.0f} GB/s), CUDA {best['cuda']}, "
            f"{best['date'][:10]}, by `BENCH_STEPS=16 bash bench/bench.sh`: the kernel the "
            "chooser launched, uniform integers 0..99, median of the timed runs; `read`: the L2 "
            "emptied by reading before every run, `write`: left full of dirty lines. % of peak "
            "counts the matrix read and the row sums written. × seg: "
            "`cub::DeviceSegmentedReduce`'s time over step16's; × flat: the time of CUB's flat "
            "sum of the same elements over step16's (floats only: `-` for bf16); above 1, step16 "
            f"is faster. **Bold**: below {rows_table.TARGET_RATIO:.1f}× seg, or below "
            f"{rows_table.TARGET_PEAK_PCT:.0f} % of peak where rows × cols ≥ 2^26 and cols ≥ "
            f"{rows_table.LONG_ENOUGH_COLS} (the targets of `bench/rows_table.py`). Written by "
            f"`make docs` from [{source}]({source}).")


def rows_bench(options, relative, csv_path):
    rows = rows_of_device(csv_path, options.get("device"))
    found, order = by_shape(rows, ROWS_STEP)
    if not order:
        raise ValueError(f"{csv_path} has no {ROWS_STEP} rows")
    header = ["rows × cols", "type", "kernel"]
    for flush in FLUSHES:
        header += [f"{flush}: ms", "% of peak", "× seg", "× flat"]
    lines = [rows_context(rows, relative, csv_path), "",
             "| " + " | ".join(header) + " |", "| --- | --- | --- |" + " ---: |" * 8]
    for key in order:
        by_flush = found[key]
        first = next(iter(by_flush.values()))
        cells = [shape_label(first), first["type"], first["kernel"]]
        for flush in FLUSHES:
            cells += flush_cells(by_flush.get(flush))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def rows_torch(options, relative, csv_path):
    rows = rows_of_device(csv_path, options.get("device"))
    torch, order = by_shape(rows, TORCH_STEP)
    if not order:
        raise ValueError(f"{csv_path} has no {TORCH_STEP} rows (PyTorch was not importable)")
    step16, _ = by_shape(rows, ROWS_STEP)
    source = relative + os.path.relpath(csv_path, ROOT)
    first = torch[order[0]][next(iter(torch[order[0]]))]
    lines = [f"`torch.sum(x, dim=1)` on {first['device']} (PyTorch built for CUDA "
             f"{first['cuda']}), {first['date'][:10]}, by `bench/torch_rows.py`: float32, uniform integers 0..99, "
             "the L2 emptied as step16 empties it, CUDA events around each call, median of 50 "
             "runs; rows ≠ exact sum: rows whose float sum differs from the exact one (no error "
             f"bound); step16 ms: the chooser's kernel at the same shape and flush. Written by "
             f"`make docs` from [{source}]({source}).", "",
             "| rows × cols | flush | torch.sum ms | GB/s | rows ≠ exact sum | step16 ms | "
             "torch.sum ms / step16 ms |", "| --- | --- |" + " ---: |" * 5]
    for key in order:
        for flush in FLUSHES:
            theirs = torch[key].get(flush)
            if theirs is None:
                continue
            ours = step16.get(key, {}).get(flush)
            ms = float(theirs["ms_median"])
            cells = [shape_label(theirs), flush, f"{ms:.4f}", f"{float(theirs['gb_per_s']):.1f}",
                     theirs["rows_wrong"]]
            if ours is None:
                cells += ["", ""]
            else:
                cells += [f"{float(ours['ms_median']):.4f}",
                          f"{ms / float(ours['ms_median']):.2f}×"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---- the files -----------------------------------------------------------------------------

# ---- step: this step beside the one before, per card; report: what the program prints ------

def default_row(rows, step, n):
    """The step's default run at n: its first row there (bench.sh runs the default first)."""
    found = [row for row in rows if row["step"] == step and row["n"] == n]
    return found[0] if found else None


def step_table(options, relative, csv_path):
    step, before, n = options["step"], options.get("before"), bench_csv.LADDER_N
    rows = bench_csv.with_flush(bench_csv.distinct(bench_csv.load(csv_path, PROGRAM)),
                                bench_csv.READ_FLUSH)
    devices = []
    for row in rows:
        if row["device"] not in devices:
            devices.append(row["device"])
    header = ["card"] + ([f"{before} (ms)"] if before else []) + \
        [f"{step} (ms)"] + (["speed-up"] if before else []) + ["% of peak", "× CUB", "measured"]
    lines = ["| " + " | ".join(header) + " |", "| --- |" + " ---: |" * (len(header) - 2) + " --- |"]
    for device in devices:
        on = [row for row in rows if row["device"] == device]
        this, previous = default_row(on, step, n), default_row(on, before, n) if before else None
        if this is None or (before and previous is None):
            continue
        cells = [device] + ([f"{previous['ms_median']:.4f}"] if before else [])
        cells.append(f"{this['ms_median']:.4f}")
        if before:
            cells.append(f"{previous['ms_median'] / this['ms_median']:.2f}×")
        cells += [f"{this['peak_pct']:.1f} %", times(this["ratio_to_cub"]) or "-",
                  f"CUDA {this['cuda']}, {this[bench_csv.DATE][:10]}"]
        lines.append("| " + " | ".join(cells) + " |")
    if len(lines) == 2:
        raise ValueError(f"{csv_path} has no default rows of {step} at n = 2^25")
    source = relative + os.path.relpath(csv_path, ROOT)
    lines += ["", f"n = 2^25 floats, the L2 emptied before every run, the median of the timed "
                  f"runs; × CUB above 1 is faster than `cub::DeviceReduce::Sum` on the same data. "
                  f"From [{os.path.relpath(csv_path, ROOT)}]({source}) by `make docs`."]
    return "\n".join(lines)


def recorded_reports(path):
    """{step: (header, report lines)} from the reports file: a `## stepNN DEVICE | CUDA | DATE`
    line before each report."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}")
    reports = {}
    for part in text.split("\n## ")[1:]:
        head, _, body = part.partition("\n")
        step, _, where = head.partition(" ")
        reports[step] = (where.strip(), body.rstrip("\n"))
    return reports


def report_block(options, path):
    reports = recorded_reports(path)
    if options["step"] not in reports:
        raise ValueError(f"{os.path.relpath(path, ROOT)} has no report of {options['step']}: "
                         "run bench/reports.sh on a GPU")
    where, body = reports[options["step"]]
    return f"```\n{body}\n```\n\n({where}.)"


# ---- checks: each step's time and --check, the labs' expected results ---------------------

def recorded_checks(path):
    """{"stepNN" or "stepNN VARIANT": its --check line} from bench/checks.sh's file."""
    checks = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#") or " | " not in line:
                continue
            run, _, verdict = line.rstrip("\n").partition(" | ")
            checks[run.strip()] = verdict.removeprefix("check: ")
    return checks


def labs_of_steps():
    """{stepNN: labNN} for the step whose kernel each lab completes."""
    labs = {}
    with open(os.path.join(ROOT, LAB_STEPS), encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if fields and not line.startswith("#"):
                labs[fields[1][:6]] = fields[0]
    return labs


def step_range(text):
    low, high = (int(part) for part in text.split(".."))
    return [f"step{number:02d}" for number in range(low, high + 1)]


def checks_table(options, csv_path):
    steps, labs = step_range(options["steps"]), labs_of_steps()
    checks_path = os.path.join(ROOT, CHECKS)
    checks = recorded_checks(checks_path)
    with open(checks_path, encoding="utf-8") as handle:
        where = handle.readline().lstrip("# ").strip()
    if options.get("variants") == "yes":
        lines = ["| run | `--check` |", "|---|---|"]
        for run in checks:
            step, _, variant = run.partition(" ")
            if variant and step in steps:
                lab = f" ({labs[step]})" if step in labs else ""
                lines.append(f"| {step} `--variant {variant}`{lab} | {checks[run]} |")
        return "\n".join(lines + ["", f"From [{CHECKS}](../{CHECKS}): {where}."])
    rows = bench_rows(csv_path, options.get("device"))
    lines = ["| program | ms (median) | % of peak | × CUB | `--check` |", "|---|---:|---:|---:|---|"]
    for step in steps:
        row = default_row(bench_csv.with_flush(rows, bench_csv.READ_FLUSH), step,
                          bench_csv.LADDER_N)
        if row is None or step not in checks:
            raise ValueError(f"no default row or no --check line of {step}")
        lab = f" ({labs[step]})" if step in labs else ""
        lines.append(f"| {step}{lab} | {row['ms_median']:.4f} | {row['peak_pct']:.1f} | "
                     f"{times(row['ratio_to_cub'])} | {checks[step]} |")
    device, cuda, date = bench_csv.context(rows)
    return "\n".join(lines + ["", f"Times: {device}, CUDA {cuda}, {date}, n = 2^25, the L2 "
                               f"emptied before every run ([{BENCH_CSV}](../{BENCH_CSV})). "
                               f"`--check`: [{CHECKS}](../{CHECKS}), {where}."])


def markdown_files():
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode != 0:
        return sorted(glob.glob(os.path.join(ROOT, "**", "*.md"), recursive=True))
    paths = [os.path.join(ROOT, path) for path in listed.stdout.split()]
    return [path for path in paths if os.path.exists(path)]  # a file deleted, not yet committed


def generate(path, text, bench_csv_path):
    relative = os.path.relpath(ROOT, os.path.dirname(os.path.abspath(path)))
    relative = "" if relative == "." else relative + "/"
    out, position = [], 0
    for match in BEGIN.finditer(text):
        if match.start() < position:
            continue
        end = text.find(END, match.end())
        if end < 0:
            raise ValueError(f"{path}: a `generated: {match.group(1)}` marker without {END}")
        kind, options = match.group(1), arguments(match.group(2).replace("-->", ""))
        head_end = text.find("-->", match.start()) + len("-->")
        body = text[head_end:end]
        csv_path = options.get("csv", BENCH_CSV)
        if csv_path == BENCH_CSV and bench_csv_path:
            csv_path = bench_csv_path
        csv_path = csv_path if os.path.isabs(csv_path) else os.path.join(ROOT, csv_path)
        if kind == "ladder":
            table = ladder(options, relative, csv_path)
        elif kind == "columns":
            spec_end = text.find("-->", match.start())
            table = columns(options, text[match.end():spec_end], csv_path)
        elif kind == "accuracy":
            table = accuracy(options, csv_path)
        elif kind == "low_precision":
            link = os.path.relpath(csv_path, os.path.dirname(os.path.abspath(path)))
            table = low_precision(options, csv_path, link)
        elif kind == "step":
            table = step_table(options, relative, csv_path)
        elif kind == "report":
            reports_path = options.get("csv", REPORTS)
            table = report_block(options, os.path.join(ROOT, reports_path))
        elif kind == "checks":
            table = checks_table(options, csv_path)
        elif kind == "options":
            table = options_table(body)
        elif kind in ("rows", "torch"):
            rows_path = options.get("csv", ROWS_CSV)
            rows_path = rows_path if os.path.isabs(rows_path) else os.path.join(ROOT, rows_path)
            table = (rows_bench(options, relative, rows_path) if kind == "rows"
                     else rows_torch(options, relative, rows_path))
        else:
            raise ValueError(f"{path}: no table kind {kind!r}")
        out.append(text[position:head_end] + "\n" + table + "\n")
        position = end
    out.append(text[position:])
    return "".join(out)


def selected(rows, selectors):
    """The rows the selectors match; without a device selector, those of the first device
    among them."""
    for key, wanted in selectors.items():
        test = sizes(wanted) if key == "n" else None
        rows = [row for row in rows if (test(int(row.get(key, -1))) if test else row.get(key) == wanted)]
    if rows and "device" in rows[0] and "device" not in selectors:
        rows = [row for row in rows if row["device"] == rows[0]["device"]]
    return rows


def cited(path, text):
    """Every cited figure of the file against its row: a list of misses."""
    misses = []
    for match in CITE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        source, selectors, expression = match.group(1), arguments(match.group(2)), match.group(3)
        before = text[:match.start()]
        printed = NUMBER_BEFORE.search(before)
        where = f"{os.path.relpath(path, ROOT)}:{line}"
        if not printed:
            misses.append(f"{where}: no number right before the citation of {source}")
            continue
        figure = printed.group(1).replace(",", "")
        decimals = len(figure.split(".")[1]) if "." in figure else 0
        rows = selected(plain_rows(os.path.join(ROOT, source)), selectors)
        others = {key: wanted for key, wanted in selectors.items() if key not in ("step", "variant")}
        if rows and "device" in rows[0]:
            others.setdefault("device", rows[0]["device"])
        try:
            value = value_of(expression, rows, selected(plain_rows(os.path.join(ROOT, source)), others))
        except (ValueError, SyntaxError, ZeroDivisionError) as error:
            misses.append(f"{where}: {source} {match.group(2).strip()}: {expression}: {error}")
            continue
        if abs(value - float(figure)) > 0.5 * 10 ** -decimals + 1e-9:
            misses.append(f"{where}: the text says {figure}, {source} gives {value:.{decimals + 3}f} "
                          f"({match.group(2).strip()}: {expression})")
    return misses


def main(argv):
    mode, bench_csv_path, files = "write", None, []
    arguments_left = list(argv[1:])
    while arguments_left:
        word = arguments_left.pop(0)
        if word in ("--check", "--cited"):
            mode = word[2:]
        elif word == "--bench-csv" and arguments_left:
            bench_csv_path = os.path.abspath(arguments_left.pop(0))
        elif word.startswith("-"):
            bench_csv.fail(PROGRAM, "usage: bench/docs_tables.py [--check | --cited] "
                                    "[--bench-csv CSV] [FILE.md ...]")
        else:
            files.append(os.path.abspath(word))
    files = files or markdown_files()
    problems = []
    for path in files:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        if mode == "cited":
            problems += cited(path, text)
            continue
        try:
            updated = generate(path, text, bench_csv_path)
        except NotBuilt as error:
            print(f"{PROGRAM}: {os.path.relpath(path, ROOT)}: {error}", file=sys.stderr)
            sys.exit(NOT_BUILT_EXIT)
        except ValueError as error:
            bench_csv.fail(PROGRAM, f"{os.path.relpath(path, ROOT)}: {error}")
        if updated == text:
            continue
        name = os.path.relpath(path, ROOT)
        if mode == "check":
            problems.append(f"{name} differs from what make docs writes:")
            problems += list(difflib.unified_diff(text.splitlines(), updated.splitlines(),
                                                  name, name + " (make docs)", lineterm=""))
        else:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(updated)
            print(f"{PROGRAM}: rewrote the generated tables of {name}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv)
