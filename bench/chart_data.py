#!/usr/bin/env python3
"""make charts: turns a bench CSV into what bench/ladder.gp and bench/scaling.gp draw:
ladder.dat (GB/s per step at n = 2^25), steps.dat (GB/s against n, one block per step),
cub.dat (CUB's), and settings.gp (names, the CUB and peak lines, the output paths).

usage: bench/chart_data.py CSV DIRECTORY LADDER_SVG SCALING_SVG"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "chart_data"


def gnuplot_string(text):
    """A gnuplot string literal: single quotes, with a quote doubled."""
    return "'" + str(text).replace("'", "''") + "'"


def write_ladder(rows, path):
    ladder = bench_csv.at_size(rows, bench_csv.LADDER_N)
    steps = [row for row in ladder if row["step"] != bench_csv.CUB]
    if not steps:
        bench_csv.fail(PROGRAM, "the CSV has no step rows at n = 2^25: run the whole `make bench`")
    with open(path, "w") as out:
        out.write("# index step gb_per_s\n")
        for index, row in enumerate(steps):
            out.write(f"{index} {row['step']} {row['gb_per_s']:.2f}\n")
    cub = [row for row in ladder if row["step"] == bench_csv.CUB]
    return len(steps), (cub[0]["gb_per_s"] if cub else None)


def step_names(rows):
    names = []
    for row in rows:
        if row["step"] != bench_csv.CUB and row["step"] not in names:
            names.append(row["step"])
    return names


def write_series(rows, names, path):
    """One block per name, blocks separated by two blank lines (gnuplot's `index`)."""
    with open(path, "w") as out:
        for name in names:
            out.write(f"# {name}: n gb_per_s\n")
            for row in sorted((r for r in rows if r["step"] == name), key=lambda r: r["n"]):
                out.write(f"{row['n']} {row['gb_per_s']:.2f}\n")
            out.write("\n\n")


def write_settings(path, values):
    with open(path, "w") as out:
        for name, value in values.items():
            text = gnuplot_string(value) if isinstance(value, str) else repr(value)
            out.write(f"{name} = {text}\n")


def main(argv):
    if len(argv) != 5:
        bench_csv.fail(PROGRAM, "usage: bench/chart_data.py CSV DIRECTORY LADDER_SVG SCALING_SVG")
    csv_path, directory, ladder_svg, scaling_svg = argv[1:]
    rows = bench_csv.load(csv_path, PROGRAM)
    bar_count, cub_ladder = write_ladder(rows, os.path.join(directory, "ladder.dat"))
    names = step_names(rows)
    write_series(rows, names, os.path.join(directory, "steps.dat"))
    write_series(rows, [bench_csv.CUB], os.path.join(directory, "cub.dat"))
    peak = bench_csv.peak_gb_per_s(rows)
    first = rows[0]
    write_settings(os.path.join(directory, "settings.gp"), {
        "ladder_data": os.path.join(directory, "ladder.dat"),
        "steps_data": os.path.join(directory, "steps.dat"),
        "cub_data": os.path.join(directory, "cub.dat"),
        "ladder_svg": ladder_svg,
        "scaling_svg": scaling_svg,
        "step_names": " ".join(names),
        "bar_count": bar_count,
        "cub_gb_per_s": float(cub_ladder or 0),
        "peak_gb_per_s": float(peak or 0),
        "device": first["device"],
        "cuda_version": first["cuda_version"],
        "date": first["date"],
    })


if __name__ == "__main__":
    main(sys.argv)
