#!/usr/bin/env python3
"""step15's two-GPU table, from the CSV of bench/step15_two_gpus.sh: for n = 2^26 .. 2^32 the
time of one GPU alone and of each way on two GPUs, in one process and under mpirun, each
with its speed-up over one GPU; then, for each way, the crossover: the smallest n of the CSV
from which on two GPUs are faster than one at every larger n measured. The table goes
between <!-- STEP15_TWO_GPUS:BEGIN csv=CSV --> and <!-- STEP15_TWO_GPUS:END --> in step15's
README (everything between them is replaced, nothing outside; the begin marker records the
CSV, relative to the repository), or to stdout with --print. --check writes nothing: it
makes the table again from the CSV its begin marker names and exits 1, showing the
difference, where the README holds something else (tests/docs_generated.c runs it).

usage: bench/step15_table.py CSV [README] [--print]
       bench/step15_table.py --check [README]
       (README defaults to step15_multi_gpu/README.md)"""
import difflib
import os
import re
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "step15_table"
BEGIN = "<!-- STEP15_TWO_GPUS:BEGIN"
BEGIN_MARKER = re.compile(r"<!-- STEP15_TWO_GPUS:BEGIN(?: csv=(\S+))? -->")
END = "<!-- STEP15_TWO_GPUS:END -->"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def only_value(rows, column, csv_path):
    """The one value every row has in `column` (the pattern, the flush)."""
    values = sorted({row[column] for row in rows})
    if len(values) != 1:
        bench_csv.fail(PROGRAM, f"{csv_path}: the rows differ in {column} ({', '.join(values)}); "
                                "one table needs one")
    return values[0]


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
    pattern = only_value(rows, "pattern", csv_path)
    flush = only_value(rows, bench_csv.FLUSH, csv_path)
    sizes = sorted({row["n"] for row in rows})
    shown = [n for n in sizes if exponent(n) is not None and FIRST_SHOWN <= exponent(n) <= LAST_SHOWN]
    columns = [(mode, variant, f"`{variant}`, {label}") for variant in VARIANTS
               for mode, label in MODES if (mode, variant) in found]
    source = os.path.relpath(csv_path, readme_directory)
    lines = [
        f"Measured on {device}, CUDA {cuda}, {date} ([CSV]({source})): the median time in ms "
        f"of the timed runs, the L2 of every GPU flushed before each run (`--flush {flush}`), "
        f"`--pattern {pattern}`; in brackets the speed-up over one GPU alone (`--gpus 1`, the "
        "same kernel and the same timing).",
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


def read_readme(readme):
    try:
        with open(readme, encoding="utf-8") as handle:
            content = handle.read()
    except OSError as error:
        bench_csv.fail(PROGRAM, f"cannot read {readme}: {error.strerror}")
    begin, end = BEGIN_MARKER.search(content), content.find(END)
    if begin is None or end < begin.end():
        bench_csv.fail(PROGRAM, f"{readme} lacks the markers {BEGIN} csv=CSV --> ... {END}")
    return content, begin, end


def with_table(content, begin, end, csv_path, text):
    """The README's text with the table between the markers, the begin marker naming the CSV."""
    source = os.path.relpath(os.path.abspath(csv_path), ROOT)
    return f"{content[:begin.start()]}{BEGIN} csv={source} -->\n{text}\n{content[end:]}"


def table_from(csv_path, readme):
    bench_csv.read(csv_path, PROGRAM, EXTRA_COLUMNS)
    rows = bench_csv.load(csv_path, PROGRAM)
    for row in rows:
        row["gpus"] = int(row["gpus"])
    return table(rows, csv_path, os.path.dirname(os.path.abspath(readme)))


def check(readme):
    """Exit 1 where the README's table is not what the CSV its marker names gives."""
    content, begin, end = read_readme(readme)
    if begin.group(1) is None:
        return   # not measured yet: no CSV to make the table from
    csv_path = os.path.join(ROOT, begin.group(1))
    expected = with_table(content, begin, end, csv_path, table_from(csv_path, readme))
    if expected != content:
        difference = difflib.unified_diff(content.splitlines(), expected.splitlines(), readme,
                                          f"{readme} ({PROGRAM})", lineterm="")
        print("\n".join(difference), file=sys.stderr)
        bench_csv.fail(PROGRAM, f"{readme}'s two-GPU table is not what {begin.group(1)} gives: "
                                f"run python3 bench/step15_table.py {begin.group(1)}")


def main(arguments):
    printing = "--print" in arguments
    checking = "--check" in arguments
    arguments = [a for a in arguments if a not in ("--print", "--check")]
    if not (checking and len(arguments) <= 1 or not checking and 1 <= len(arguments) <= 2):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if checking:
        check(arguments[0] if arguments else os.path.join(ROOT, DEFAULT_README))
        return
    csv_path = arguments[0]
    readme = arguments[1] if len(arguments) > 1 else DEFAULT_README
    text = table_from(csv_path, readme)
    if printing:
        print(text)
    else:
        content, begin, end = read_readme(readme)
        with open(readme, "w", encoding="utf-8") as handle:
            handle.write(with_table(content, begin, end, csv_path, text))
        print(f"{PROGRAM}: wrote the two-GPU table into {readme}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
