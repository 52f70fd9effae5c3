#!/usr/bin/env python3
"""make charts: rewrites the results table of README.md, between
<!-- RESULTS:BEGIN --> and <!-- RESULTS:END -->, from the rows at n = 2^25 of a bench CSV:
every step (ms median, GB/s, % of peak, x CUB) and CUB's own row, under a line naming the GPU,
the CUDA version and the date. Everything between the markers is replaced; everything
outside them is left as it was.

usage: bench/readme_table.py CSV [README]   (README defaults to README.md)"""
import glob
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "readme_table"
BEGIN = "<!-- RESULTS:BEGIN -->"
END = "<!-- RESULTS:END -->"
MIB = 1024 * 1024


def step_directory(name, readme_directory):
    """step03 -> step03_bank: the directory the link stepNN points at, else the one
    stepNN_* directory beside the README; None when that is not clear."""
    link = os.path.join(readme_directory, name)
    if os.path.islink(link) and os.path.isdir(link):
        return os.path.basename(os.path.realpath(link))
    found = [path for path in glob.glob(os.path.join(readme_directory, f"{name}_*"))
             if os.path.isdir(path)]
    return os.path.basename(found[0]) if len(found) == 1 else None


def step_cell(row, keys, readme_directory):
    text = bench_csv.label((row["step"], row["variant"]), keys)
    directory = step_directory(row["step"], readme_directory)
    if directory is None:
        return text
    return f"[{row['step']}]({directory}/){text[len(row['step']):]}"


def ratio(value):
    return "-" if value is None else f"{value:.2f}×"


def table(rows, csv_path, readme_directory):
    n = bench_csv.LADDER_N
    ladder = bench_csv.at_size(rows, n)
    if not ladder:
        bench_csv.fail(PROGRAM, f"{csv_path} has no rows at n = 2^25: run the whole `make bench`")
    device, cuda, date = bench_csv.context(ladder)
    peak = bench_csv.peak_gb_per_s(rows)
    cub = bench_csv.cub_at(rows, n, peak)
    keys = bench_csv.series_keys(ladder)
    peak_text = f" (peak {peak:.0f} GB/s)" if peak else ""
    source = os.path.relpath(csv_path, readme_directory)
    lines = [
        f"Measured on {device}{peak_text}, CUDA {cuda}, {date}: n = 2^25 floats "
        f"({n * bench_csv.BYTES_PER_FLOAT // MIB} MiB), uniform integers 0..99, the L2 cache "
        "emptied by reading before every run (`--flush read`), the runs rotating over up to 4 copies of the input, median "
        "of the timed runs. GB/s = bytes read / time. ×CUB: `cub::DeviceReduce::Sum`'s median "
        "time over the step's, both timed in the step's program on the same copies (above 1: "
        "faster than CUB); CUB's row: the median of its times beside every step. Written by "
        f"`make charts` from [{source}]({source}).",
        "",
        "| step | ms (median) | GB/s | % of peak | ×CUB |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in ladder:
        lines.append(f"| {step_cell(row, keys, readme_directory)} | {row['ms_median']:.4f} | "
                     f"{row['gb_per_s']:.1f} | {row['peak_pct']:.1f} % | {ratio(row['ratio_to_cub'])} |")
    if cub:
        lines.append(f"| CUB | {cub['ms_median']:.4f} | {cub['gb_per_s']:.1f} | "
                     f"{cub['peak_pct']:.1f} % | 1.00× |")
    return "\n".join(lines)


def replace_between_markers(text, replacement, readme):
    begin = text.find(BEGIN)
    end = text.find(END)
    if begin < 0 or end < 0 or end < begin:
        bench_csv.fail(PROGRAM, f"{readme} needs the markers {BEGIN} and then {END} "
                                "around the results table")
    return text[:begin + len(BEGIN)] + "\n" + replacement + "\n" + text[end:]


def main(argv):
    if len(argv) not in (2, 3):
        bench_csv.fail(PROGRAM, "usage: bench/readme_table.py CSV [README]")
    csv_path = argv[1]
    readme = argv[2] if len(argv) == 3 else "README.md"
    rows = bench_csv.with_flush(bench_csv.distinct(bench_csv.load(csv_path, PROGRAM)), bench_csv.READ_FLUSH)
    try:
        with open(readme, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        bench_csv.fail(PROGRAM, f"cannot read {readme}: {error.strerror}")
    readme_directory = os.path.dirname(os.path.abspath(readme))
    updated = replace_between_markers(
        text, table(rows, os.path.abspath(csv_path), readme_directory), readme)
    if updated != text:
        with open(readme, "w", encoding="utf-8") as handle:
            handle.write(updated)
    print(f"{PROGRAM}: {readme}'s results table now shows {csv_path}")


if __name__ == "__main__":
    main(sys.argv)
