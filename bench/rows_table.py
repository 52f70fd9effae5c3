#!/usr/bin/env python3
"""make bench's table of step16 (bench/bench.sh calls it).

  rows_table.py CSV
      prints every row of the rows step's CSV (docs/results/bench_rows.csv): the shape, the
      kernel the chooser launched, ms, GB/s, % of peak, x cub::DeviceSegmentedReduce and x CUB's
      flat sum of the same elements; and, under it, every row that misses the targets of
      step16_rows/README.md: below 1.0x CUB's segmented sum anywhere, below 85 % of peak where
      rows x cols >= 2^26 and cols >= 32. bench/docs_tables.py marks the same misses in the
      README's table (misses_ratio, misses_peak)."""
import csv
import sys

TARGET_RATIO = 1.0
TARGET_PEAK_PCT = 85.0
LARGE_ELEMENTS = 1 << 26
LONG_ENOUGH_COLS = 32


def number(text):
    try:
        return float(text)
    except ValueError:
        return 0.0


def misses_ratio(row):
    """Below 1.0x CUB's segmented sum (torch rows have no CUB column: never)."""
    return row["step"] == "step16" and number(row["ratio_to_cub"]) < TARGET_RATIO


def misses_peak(row):
    """Below 85 % of peak where the target holds: 2^26 elements or more, 32 columns or more."""
    elements = int(row["rows"]) * int(row["cols"])
    return (row["step"] == "step16" and elements >= LARGE_ELEMENTS
            and int(row["cols"]) >= LONG_ENOUGH_COLS and number(row["peak_pct"]) < TARGET_PEAK_PCT)


def misses(row):
    """The targets this row misses, in words."""
    found = []
    if misses_ratio(row):
        found.append("%.2fx CUB's segmented sum" % number(row["ratio_to_cub"]))
    if misses_peak(row):
        found.append("%.1f %% of peak" % number(row["peak_pct"]))
    return found


def main(argv):
    if len(argv) != 2:
        print("usage: rows_table.py CSV", file=sys.stderr)
        return 2
    with open(argv[1], newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    header = ["shape", "type", "flush", "kernel", "ms", "GB/s", "% peak", "x CUB seg", "x CUB flat"]
    body = [["%sx%s" % (r["rows"], r["cols"]), r["type"], r["flush"], r["kernel"], r["ms_median"],
             r["gb_per_s"], r["peak_pct"], r["ratio_to_cub"], r["ratio_to_flat_cub"]] for r in rows]
    widths = [max(len(str(line[i])) for line in [header] + body) for i in range(len(header))]
    for line in [header] + body:
        print("  ".join(str(v).ljust(w) if i < 4 else str(v).rjust(w)
                        for i, (v, w) in enumerate(zip(line, widths))))
    missed = [(r, misses(r)) for r in rows if misses(r)]
    print()
    if not missed:
        print("rows: every step16 row meets the targets (>= %.1fx CUB's segmented sum; >= %.0f %% of "
              "peak at 2^26 elements or more with 32 columns or more)" % (TARGET_RATIO, TARGET_PEAK_PCT))
    for r, what in missed:
        print("rows: %sx%s %s --flush %s (%s): %s" % (r["rows"], r["cols"], r["type"], r["flush"],
                                                   r["kernel"], "; ".join(what)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
