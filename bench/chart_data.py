#!/usr/bin/env python3
"""make charts: turns a bench CSV into what bench/ladder.gp and bench/scaling.gp draw:
ladder.dat (GB/s of every step at n = 2^25), steps.dat (GB/s against n, one block per step),
cub.dat (CUB's, the median of its times beside every step at each n) and settings.gp (the
names, the CUB and peak lines, the output paths).

usage: bench/chart_data.py CSV DIRECTORY LADDER_SVG SCALING_SVG"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
import bench_csv  # noqa: E402  (after the line above)

PROGRAM = "chart_data"


def gnuplot_string(text):
    """A gnuplot string literal: single quotes, with a quote doubled."""
    return "'" + str(text).replace("'", "''") + "'"


def data_string(text):
    """A string in a gnuplot data file: one column, in double quotes."""
    return '"' + str(text).replace('"', "'") + '"'


def write_ladder(rows, path):
    ladder = bench_csv.at_size(rows, bench_csv.LADDER_N)
    if not ladder:
        bench_csv.fail(PROGRAM, "the CSV has no rows at n = 2^25: run the whole `make bench`")
    keys = bench_csv.series_keys(ladder)
    with open(path, "w", encoding="utf-8") as out:
        out.write("# index label gb_per_s\n")
        for index, row in enumerate(ladder):
            name = bench_csv.label((row["step"], row["variant"]), keys)
            out.write(f"{index} {data_string(name)} {row['gb_per_s']:.2f}\n")
    return len(ladder)


def write_steps(rows, keys, path):
    """One block per series, blocks separated by two blank lines (gnuplot's `index`)."""
    with open(path, "w", encoding="utf-8") as out:
        for key in keys:
            out.write(f"# {bench_csv.label(key, keys)}: n gb_per_s\n")
            series = [r for r in rows if (r["step"], r["variant"]) == key]
            for row in sorted(series, key=lambda r: r["n"]):
                out.write(f"{row['n']} {row['gb_per_s']:.2f}\n")
            out.write("\n\n")


def write_cub(rows, peak, path):
    sizes = sorted({row["n"] for row in rows})
    with open(path, "w", encoding="utf-8") as out:
        out.write("# CUB: n gb_per_s (median of its times beside every step)\n")
        for n in sizes:
            cub = bench_csv.cub_at(rows, n, peak)
            if cub:
                out.write(f"{n} {cub['gb_per_s']:.2f}\n")


def gnuplot_value(value):
    if isinstance(value, str):
        return gnuplot_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(gnuplot_string(item) for item in value) + "]"
    return repr(value)


def write_settings(path, values):
    with open(path, "w", encoding="utf-8") as out:
        for name, value in values.items():
            if isinstance(value, list):
                out.write(f"array {name}[{len(value)}] = {gnuplot_value(value)}\n")
            else:
                out.write(f"{name} = {gnuplot_value(value)}\n")


def newest_device(rows):
    """The GPU of the newest rows: the charts show the ladder as it was last measured."""
    return max(rows, key=lambda row: row[bench_csv.DATE])["device"]


def main(argv):
    if len(argv) != 5:
        bench_csv.fail(PROGRAM, "usage: bench/chart_data.py CSV DIRECTORY LADDER_SVG SCALING_SVG")
    csv_path, directory, ladder_svg, scaling_svg = argv[1:]
    rows = bench_csv.distinct(bench_csv.load(csv_path, PROGRAM))
    rows = bench_csv.on_device(rows, os.environ.get("CHARTS_DEVICE") or newest_device(rows))
    rows = bench_csv.with_flush(rows, bench_csv.READ_FLUSH)
    peak = bench_csv.peak_gb_per_s(rows)
    cub_ladder = bench_csv.cub_at(rows, bench_csv.LADDER_N, peak)
    bar_count = write_ladder(rows, os.path.join(directory, "ladder.dat"))
    keys = bench_csv.series_keys(rows)
    write_steps(rows, keys, os.path.join(directory, "steps.dat"))
    write_cub(rows, peak, os.path.join(directory, "cub.dat"))
    device, cuda, date = bench_csv.context(rows)
    write_settings(os.path.join(directory, "settings.gp"), {
        "ladder_data": os.path.join(directory, "ladder.dat"),
        "steps_data": os.path.join(directory, "steps.dat"),
        "cub_data": os.path.join(directory, "cub.dat"),
        "ladder_svg": ladder_svg,
        "scaling_svg": scaling_svg,
        "series_count": len(keys),
        "series_titles": [bench_csv.label(key, keys) for key in keys],
        "bar_count": bar_count,
        "cub_gb_per_s": float(cub_ladder["gb_per_s"]) if cub_ladder else 0.0,
        "peak_gb_per_s": float(peak or 0),
        "device": device,
        "cuda_version": cuda,
        "date": date,
    })


if __name__ == "__main__":
    main(sys.argv)
