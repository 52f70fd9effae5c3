"""Reading the bench CSV (docs/results/bench.csv, written by bench/bench.sh): the step
binaries' --csv rows (the columns of common/report.c) and a date column. Shared by
bench_tables.py, docs_tables.py and chart_data.py."""
import csv
import statistics
import sys

LADDER_N = 2 ** 25          # the documents' N: the ladder's rows
READ_FLUSH, WRITE_FLUSH = "read", "write"   # the L2 emptied by reading (clean) or writing (dirty)
BYTES_PER_FLOAT = 4
BYTES_PER_GB = 1e9
MS_PER_S = 1e3
PERCENT = 100.0
CUB = "CUB"
# common/report.c's header, column for column; bench.sh appends DATE
STEP_COLUMNS = ["step", "variant", "n", "pattern", "flush", "result", "expected", "error", "bound", "ok",
                "ms_median", "ms_min", "gb_per_s", "peak_pct", "cub_ms_median", "ratio_to_cub",
                "kernel", "finish", "device", "cuda"]
DATE = "date"
FLUSH = "flush"
# What the program launched (the kernel's name is quoted: its template arguments hold commas).
# The rows of a CSV that lacks these columns get NOT_RECORDED.
LAUNCHED = ["kernel", "finish"]
NOT_RECORDED = "-"
COLUMNS = STEP_COLUMNS + [DATE]
INTEGERS = ["n", "ok"]
FLOATS = ["result", "expected", "error", "bound", "ms_median", "ms_min", "gb_per_s", "peak_pct",
          "cub_ms_median", "ratio_to_cub"]
NOT_MEASURED = ["cub_ms_median", "ratio_to_cub"]   # 0 in a row: CUB was not timed (--no-cub)


def fail(program, message):
    print(f"{program}: {message}", file=sys.stderr)
    sys.exit(1)


def read(path, program, columns):
    """The rows of a CSV as dicts of text, after checking that it has `columns`."""
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in columns if c not in (reader.fieldnames or [])]
            if missing:
                fail(program, f"{path} lacks the columns {', '.join(missing)}: was it written "
                              "by bench/bench.sh (or a step's --csv)?")
            return list(reader)
    except OSError as error:
        fail(program, f"cannot read {path}: {error.strerror}")


def load(path, program):
    """The rows of a bench CSV, numbers converted; a CUB time of 0 becomes None. A CSV from
    before --flush existed was measured with the L2 emptied by reading."""
    required = [column for column in COLUMNS if column != FLUSH and column not in LAUNCHED]
    rows = [convert(row, path, program) for row in read(path, program, required)]
    for row in rows:
        row[FLUSH] = row.get(FLUSH) or READ_FLUSH
        for column in LAUNCHED:
            row[column] = row.get(column) or NOT_RECORDED
    if not rows:
        fail(program, f"{path} has no rows")
    return rows


def convert(row, path, program):
    try:
        for column in INTEGERS:
            row[column] = int(row[column])
        for column in FLOATS:
            row[column] = float(row[column])
    except (TypeError, ValueError):
        fail(program, f"{path}: a row has a value that is not a number: {row}")
    for column in NOT_MEASURED:
        if row[column] == 0:
            row[column] = None
    return row




def with_flush(rows, flush):
    """The rows measured after the L2 was emptied that way (--flush)."""
    return [row for row in rows if row["flush"] == flush]


def distinct(rows):
    """The first row of each (step, variant, n, flush, device), in the file's order."""
    seen, kept = set(), []
    for row in rows:
        key = (row["step"], row["variant"], row["n"], row["flush"], row["device"])
        if key not in seen:
            seen.add(key)
            kept.append(row)
    return kept


def on_device(rows, device=None):
    """The rows of one GPU: `device`, or else the first the file names."""
    chosen = device or rows[0]["device"]
    return [row for row in rows if row["device"] == chosen]


def at_size(rows, n):
    return [row for row in rows if row["n"] == n]


def series_keys(rows):
    """(step, variant) in the file's order."""
    keys = []
    for row in rows:
        key = (row["step"], row["variant"])
        if key not in keys:
            keys.append(key)
    return keys


def label(key, keys):
    """The step's name, and the variant too where the CSV holds several of that step."""
    step, variant = key
    several = sum(1 for other in keys if other[0] == step) > 1
    return f"{step} {variant}" if several and variant != "-" else step


def peak_gb_per_s(rows):
    """The device's peak, recovered from the rows: gb_per_s is peak_pct percent of it. The
    row with the largest percentage has the most significant digits."""
    best = max(rows, key=lambda row: row["peak_pct"])
    if best["peak_pct"] <= 0:
        return None
    return best["gb_per_s"] * PERCENT / best["peak_pct"]


def gb_per_s(n, milliseconds):
    return n * BYTES_PER_FLOAT / (milliseconds / MS_PER_S) / BYTES_PER_GB


def cub_at(rows, n, peak):
    """CUB at n: every step's process timed it beside the step on the same copies; the
    median of those medians. None where no row at n timed CUB."""
    times = [row["cub_ms_median"] for row in at_size(rows, n) if row["cub_ms_median"]]
    if not times:
        return None
    ms = statistics.median(times)
    speed = gb_per_s(n, ms)
    return {"ms_median": ms, "gb_per_s": speed, "peak_pct": PERCENT * speed / peak if peak else 0,
            "runs": len(times)}


def power_of_two_label(n):
    exponent = n.bit_length() - 1
    return f"2^{exponent}" if n > 0 and n == 1 << exponent else str(n)


def context(rows):
    """(device, CUDA version, date) of the CSV's first row; the date without the time."""
    first = rows[0]
    return first["device"], first["cuda"], first[DATE][:10]
