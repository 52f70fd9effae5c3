#!/usr/bin/env python3
"""step15's two-GPU table, from the CSV of bench/step15_two_gpus.sh: for n = 2^26 .. 2^32 the
time of one GPU alone and of each way on two GPUs, in one process and under mpirun, each
with its speed-up over one GPU; then, for each way, the crossover: the smallest n of the CSV
from which on two GPUs are faster than one at every larger n measured. The table goes
between <!-- STEP15_TWO_GPUS:BEGIN --> and <!-- STEP15_TWO_GPUS:END --> in step15's README
(everything between them is replaced, nothing outside), or to stdout with --print.

usage: bench/step15_table.py CSV [README] [--print]
       (README defaults to step15_multi_gpu/README.md)"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "step15_table"
BEGIN = "<!-- STEP15_TWO_GPUS:BEGIN -->"
END = "<!-- STEP15_TWO_GPUS:END -->"
DEFAULT_README = os.path.join("step15_multi_gpu", "README.md")
FIRST_SHOWN, LAST_SHOWN = 26, 32  # the table's rows: n = 2^26 .. 2^32
ONE_GPU = "one-gpu"
MODES = [("one-process", "one process"), ("mpirun", "mpirun")]
VARIANTS = ["local", "gather", "elementwise"]
EXTRA_COLUMNS = ["mode", "gpus"]


def exponent(n):
    return n.bit_length() - 1 if n > 0 and n & (n - 1) == 0 else None


def power(n):
    e = exponent(n)
    return f"2^{e}" if e is not None else str(n)


def times(rows):
    """(mode, variant) -> {n: median ms}; one GPU alone under (ONE_GPU, None)."""
    found = {}
    for row in rows:
        key = (ONE_GPU, None) if row["mode"] == ONE_GPU else (row["mode"], row["variant"])
        found.setdefault(key, {})[row["n"]] = row["ms_median"]
    return found


def crossover(two, one):
    """The smallest n from which two GPUs beat one at every larger n measured by both; None
    when they do not at the largest."""
    sizes = sorted(set(two) & set(one), reverse=True)
    start = None
    for n in sizes:
        if two[n] >= one[n]:
            break
        start = n
    return start


def crossover_text(found, sizes):
    one = found.get((ONE_GPU, None), {})
    smallest, largest = power(sizes[0]), power(sizes[-1])
    lines = []
    for variant in VARIANTS:
        parts = []
        for mode, label in MODES:
            two = found.get((mode, variant))
            if not two:
                continue
            start = crossover(two, one)
            if start is None:
                parts.append(f"{label}: never from {smallest} to {largest}")
            elif start == sizes[0]:
                parts.append(f"{label}: at every n measured, from {smallest}")
            else:
                parts.append(f"{label}: from n = {power(start)} on")
        if parts:
            lines.append(f"- `{variant}` beats one GPU: " + "; ".join(parts) + ".")
    return lines


def cell(ms, one_ms):
    if ms is None:
        return "—"
    if one_ms is None:
        return f"{ms:.3f}"
    return f"{ms:.3f} ({one_ms / ms:.2f}×)"


def table(rows, csv_path, readme_directory):
    wrong = [row for row in rows if row["ok"] != 1]
    if wrong:
        bench_csv.fail(PROGRAM, f"{csv_path}: {len(wrong)} row(s) with a wrong result, e.g. "
                                f"{wrong[0]['mode']} {wrong[0]['variant']} n = {wrong[0]['n']}")
    found = times(rows)
    one = found.get((ONE_GPU, None))
    if not one:
        bench_csv.fail(PROGRAM, f"{csv_path} has no one-gpu rows: was it written by "
                                "bench/step15_two_gpus.sh?")
    two_rows = [row for row in rows if row["mode"] != ONE_GPU]
    if not two_rows:
        bench_csv.fail(PROGRAM, f"{csv_path} has no rows on two GPUs")
    device = two_rows[0]["device"]
    cuda = two_rows[0]["cuda"]
    date = two_rows[0][bench_csv.DATE][:10]
    sizes = sorted({row["n"] for row in rows})
    shown = [n for n in sizes if exponent(n) is not None and FIRST_SHOWN <= exponent(n) <= LAST_SHOWN]
    columns = [(mode, variant, f"`{variant}`, {label}") for variant in VARIANTS
               for mode, label in MODES if (mode, variant) in found]
    source = os.path.relpath(csv_path, readme_directory)
    lines = [
        f"Measured on {device}, CUDA {cuda}, {date} ([CSV]({source})): the median time in ms "
        "of the timed runs, the L2 of every GPU flushed before each run, uniform integers "
        "0..99; in brackets the speed-up over one GPU alone (`--gpus 1`, the same kernel "
        "and the same timing).",
        "",
        "| n | one GPU | " + " | ".join(title for _, _, title in columns) + " |",
        "|---|---:|" + "---:|" * len(columns),
    ]
    for n in shown:
        one_ms = one.get(n)
        cells = [cell(found[(mode, variant)].get(n), one_ms) for mode, variant, _ in columns]
        lines.append(f"| {power(n)} | {cell(one_ms, None)} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"Where two GPUs start to pay (every size from {power(sizes[0])} to "
                 f"{power(sizes[-1])} measured):")
    lines.append("")
    lines.extend(crossover_text(found, sizes))
    return "\n".join(lines)


def replace_between_markers(readme, text):
    try:
        with open(readme, encoding="utf-8") as handle:
            content = handle.read()
    except OSError as error:
        bench_csv.fail(PROGRAM, f"cannot read {readme}: {error.strerror}")
    start, end = content.find(BEGIN), content.find(END)
    if start < 0 or end < start:
        bench_csv.fail(PROGRAM, f"{readme} lacks the markers {BEGIN} ... {END}")
    content = content[:start + len(BEGIN)] + "\n" + text + "\n" + content[end:]
    with open(readme, "w", encoding="utf-8") as handle:
        handle.write(content)


def main(arguments):
    printing = "--print" in arguments
    arguments = [a for a in arguments if a != "--print"]
    if not 1 <= len(arguments) <= 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    csv_path = arguments[0]
    readme = arguments[1] if len(arguments) > 1 else DEFAULT_README
    bench_csv.read(csv_path, PROGRAM, EXTRA_COLUMNS)
    rows = bench_csv.load(csv_path, PROGRAM)
    for row in rows:
        row["gpus"] = int(row["gpus"])
    text = table(rows, csv_path, os.path.dirname(os.path.abspath(readme)))
    if printing:
        print(text)
    else:
        replace_between_markers(readme, text)
        print(f"{PROGRAM}: wrote the two-GPU table into {readme}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
