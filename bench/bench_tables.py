#!/usr/bin/env python3
"""make bench's helpers (bench/bench.sh calls them).

  bench_tables.py merge OUT DATE CSV...
      joins the step binaries' --csv outputs into one CSV: the columns of common/report.c
      (a binary's extra columns are dropped) and a date column holding DATE
  bench_tables.py summary CSV [STEP]
      prints the ladder at n = 2^25 (every step and CUB: ms, GB/s, % of peak, x CUB) and STEP
      (default step13) over every n
  bench_tables.py accuracy OUT DATE RUN=CSV...
      joins step binaries' --csv outputs and build/bench/cpu_sums' (RUN: which run of the
      same step and variant it was) into the accuracy CSV, and prints its errors"""
import csv
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "bench"
SPEED_STEP = "step13"
DATE_COLUMN = bench_csv.DATE


def merge(out, date, inputs):
    """Writes the new rows to `out`, after the rows already there that they do not replace: a
    row is replaced by a new one of the same step, variant, n, flush and device, so that each
    card keeps its own rows and a partial run updates only what it measured."""
    rows = []
    for path in inputs:
        rows += [[row[c] for c in bench_csv.STEP_COLUMNS] + [date]
                 for row in bench_csv.read(path, PROGRAM, bench_csv.STEP_COLUMNS)]
    measured = {key_of(dict(zip(bench_csv.COLUMNS, row))) for row in rows}
    kept = [row for row in earlier_rows(out)
            if key_of(dict(zip(bench_csv.COLUMNS, row))) not in measured]
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(bench_csv.COLUMNS)
        writer.writerows(kept + rows)
    print(f"{PROGRAM}: wrote {len(rows)} rows to {out}, kept {len(kept)} of other runs",
          file=sys.stderr)


def key_of(row):
    return (row["step"], row["variant"], row["n"], row.get("flush") or bench_csv.READ_FLUSH,
            row["device"])


def earlier_rows(path):
    """The rows `path` holds now, in today's columns (a column it lacks is NOT_RECORDED)."""
    if not os.path.exists(path):
        return []
    with open(path, newline="", encoding="utf-8") as handle:
        return [[row.get(c) or default(c) for c in bench_csv.COLUMNS]
                for row in csv.DictReader(handle)]


def default(column):
    return bench_csv.READ_FLUSH if column == bench_csv.FLUSH else bench_csv.NOT_RECORDED


def aligned(header, body, left=1):
    """The first `left` columns (names) left-aligned, the others (numbers) right-aligned."""
    table = [header] + body
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return ["  ".join(cell.ljust(widths[i]) if i < left else cell.rjust(widths[i])
                      for i, cell in enumerate(row)).rstrip() for row in table]


def ratio(value):
    return "-" if value is None else f"{value:.2f}"


def ladder_table(rows, peak):
    n = bench_csv.LADDER_N
    at_n = bench_csv.at_size(rows, n)
    if not at_n:
        return [f"(no rows at n = {bench_csv.power_of_two_label(n)})"]
    body = [[row["step"], row["variant"], f"{row['ms_median']:.4f}", f"{row['gb_per_s']:.1f}",
             f"{row['peak_pct']:.1f}", ratio(row["ratio_to_cub"]), "yes" if row["ok"] else "NO"]
            for row in at_n]
    cub = bench_csv.cub_at(rows, n, peak)
    if cub:
        body.append([bench_csv.CUB, f"median of {cub['runs']}", f"{cub['ms_median']:.4f}",
                     f"{cub['gb_per_s']:.1f}", f"{cub['peak_pct']:.1f}", "1.00", ""])
    header = ["step", "variant", "ms median", "GB/s", "% of peak", "x CUB", "correct"]
    title = (f"n = 2^25 ({n * bench_csv.BYTES_PER_FLOAT >> 20} MiB), pattern uniform; x CUB: "
             "CUB's median time over the step's, both in the step's process")
    return [title, ""] + aligned(header, body, left=2)


def speed_table(rows, step, flush):
    rows = bench_csv.with_flush(rows, flush)
    keys = [key for key in bench_csv.series_keys(rows) if key[0] == step]
    if not keys:
        return [f"(no {step} rows with --flush {flush})"]
    series = [row for row in rows if (row["step"], row["variant"]) == keys[0]]
    body = []
    for row in sorted(series, key=lambda r: r["n"]):
        cub = row["cub_ms_median"]
        cub_pct = row["peak_pct"] * row["ms_median"] / cub if cub else None
        body.append([bench_csv.power_of_two_label(row["n"]), f"{row['ms_median']:.6f}",
                     f"{row['gb_per_s']:.1f}", f"{row['peak_pct']:.2f}",
                     "-" if cub is None else f"{cub:.6f}", "-" if cub_pct is None else f"{cub_pct:.2f}",
                     ratio(row["ratio_to_cub"])])
    header = ["n", "ms median", "GB/s", "% of peak", "CUB ms", "CUB % of peak", "x CUB"]
    return [f"{step} ({keys[0][1]}) over n, the L2 emptied by {'writing' if flush == bench_csv.WRITE_FLUSH else 'reading'} before each run", ""] + aligned(header, body)


def summary(path, step):
    rows = bench_csv.distinct(bench_csv.load(path, PROGRAM))
    device, cuda, date = bench_csv.context(rows)
    peak = bench_csv.peak_gb_per_s(rows)
    peak_text = f"peak {peak:.0f} GB/s" if peak else "peak unknown"
    lines = [f"{device}, CUDA {cuda}, {peak_text}, {date}", ""]
    lines += ladder_table(bench_csv.with_flush(rows, bench_csv.READ_FLUSH), peak)
    for flush in (bench_csv.READ_FLUSH, bench_csv.WRITE_FLUSH):
        lines += [""] + speed_table(rows, step, flush)
    print("\n".join(lines))


ACCURACY_COLUMNS = ["step", "variant", "run", "n", "pattern", "result", "expected", "error",
                    "bound", "ok", "device", "cuda", DATE_COLUMN]
RESULT_COLUMNS = ["step", "variant", "n", "pattern", "result", "expected", "error", "bound", "ok"]


def cpu_name():
    """The host CPU's model name (Linux), for the rows of cpu_sums."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return "CPU " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU"


def accuracy(out, date, specs):
    rows = []
    for spec in specs:
        run, _, path = spec.partition("=")
        for row in bench_csv.read(path, PROGRAM, RESULT_COLUMNS):
            row["run"] = run
            row.setdefault("device", None)
            row.setdefault("cuda", None)
            if row["step"] == "cpu":
                row["device"], row["cuda"] = cpu_name(), "-"
            row[DATE_COLUMN] = date
            rows.append(row)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(ACCURACY_COLUMNS)
        for row in rows:
            writer.writerow([row[c] for c in ACCURACY_COLUMNS])
    print(f"accuracy: wrote {len(rows)} rows to {out}", file=sys.stderr)
    header = ["pattern", "step", "variant", "run", "result", "expected", "error", "bound"]
    body = [[r["pattern"], r["step"], r["variant"], r["run"], r["result"], r["expected"],
             r["error"], r["bound"] or "-"] for r in rows]
    print("\n".join(aligned(header, body, left=3)))


def main(argv):
    if len(argv) >= 5 and argv[1] == "merge":
        merge(argv[2], argv[3], argv[4:])
    elif len(argv) in (3, 4) and argv[1] == "summary":
        summary(argv[2], argv[3] if len(argv) == 4 else SPEED_STEP)
    elif len(argv) >= 5 and argv[1] == "accuracy":
        accuracy(argv[2], argv[3], argv[4:])
    else:
        bench_csv.fail(PROGRAM, "usage: bench_tables.py merge OUT DATE CSV... | summary CSV [STEP]"
                                " | accuracy OUT DATE RUN=CSV...")


if __name__ == "__main__":
    main(sys.argv)
