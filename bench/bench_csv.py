"""Reading docs/results/<gpu>.csv, the file bench/run writes: shared by readme_table.py and
chart_data.py."""
import csv
import sys

LADDER_N = 2 ** 25          # the documents' N: the ladder's rows
CUB = "cub"                 # the step name of CUB's rows
COLUMNS = ["step", "n", "ms_median", "ms_min", "ms_max", "gb_per_s", "peak_pct",
           "ratio_to_cub", "device", "cuda_version", "date"]
NUMBERS = ["n", "ms_median", "ms_min", "ms_max", "gb_per_s", "peak_pct", "ratio_to_cub"]


def fail(program, message):
    print(f"{program}: {message}", file=sys.stderr)
    sys.exit(1)


def load(path, program):
    """The rows, numbers converted (an empty ratio_to_cub becomes None)."""
    try:
        with open(path, newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                fail(program, f"{path} lacks the columns {', '.join(missing)}: "
                              "was it written by bench/run?")
            rows = [convert(row) for row in reader]
    except OSError as error:
        fail(program, f"cannot read {path}: {error.strerror}")
    if not rows:
        fail(program, f"{path} has no rows")
    return rows


def convert(row):
    for column in NUMBERS:
        text = row[column]
        row[column] = None if text == "" else (int(text) if column == "n" else float(text))
    return row


def at_size(rows, n):
    return [row for row in rows if row["n"] == n]


def peak_gb_per_s(rows):
    """The device's peak, recovered from the rows: gb_per_s is peak_pct percent of it. The
    row with the largest percentage has the most significant digits."""
    best = max(rows, key=lambda row: row["peak_pct"] or 0)
    if not best["peak_pct"]:
        return None
    return best["gb_per_s"] * 100.0 / best["peak_pct"]


def power_of_two_label(n):
    exponent = n.bit_length() - 1
    return f"2^{exponent}" if n == 1 << exponent else str(n)
