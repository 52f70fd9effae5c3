#!/usr/bin/env python3
"""make profile's helpers (bench/profile.sh calls them).

  profile_table.py kernels STEP_DIRECTORY
      prints an ncu --kernel-name regex that matches every __global__ function of the step
      (each variant may have its own kernel; the first launch is the default variant's)
  profile_table.py table OUT TITLE LABEL=RAW_CSV [LABEL=RAW_CSV]
      reads `ncu --csv --page raw --print-units base` files, one per step, and writes an
      aligned table (rows = metrics, columns = steps) to stdout and to OUT"""
import csv
import glob
import os
import re
import sys

PROGRAM = "profile"

# (ncu metric, what the row is called), in the table's order; a metric the report lacks
# has no row. profile.sh picks one of the three barrier-stall metrics, the one this ncu
# offers.
ROWS = [
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared-load bank conflicts"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared-store bank conflicts"),
    ("smsp__thread_inst_executed_per_inst_executed.ratio", "threads per warp instruction (/32)"),
    ("smsp__inst_executed.sum", "warp instructions executed"),
    ("smsp__inst_executed_op_global_ld.sum", "global load instructions"),
    ("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio",
     "barrier stall (warps per issue)"),
    ("smsp__warp_issue_stalled_barrier_per_warp_active.pct", "barrier stall (% of warp time)"),
    ("smsp__average_warp_latency_issue_stalled_barrier.ratio", "barrier stall (cycles)"),
    ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
     "long-scoreboard stall (warps per issue)"),
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (%)"),
    ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput (% of peak)"),
    ("gpu__time_duration.sum", "kernel duration"),
]
IDENTITY_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
                    "Stream", "Block Size", "Grid Size", "Device", "CC"]
KERNEL_PATTERN = re.compile(r"__global__([^;{]*)")
LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
IDENTIFIER = re.compile(r"([A-Za-z_]\w*)\s*$")


def fail(message):
    print(f"{PROGRAM}: {message}", file=sys.stderr)
    sys.exit(1)


def kernel_names(directory):
    """The names of the __global__ functions in the step's CUDA sources, in file order."""
    names = []
    sources = sorted(glob.glob(os.path.join(directory, "*.cu")) +
                     glob.glob(os.path.join(directory, "*.cuh")))
    for path in sources:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        for match in KERNEL_PATTERN.finditer(text):
            # "__global__ void __launch_bounds__(256) name(...)": the name is what stands
            # before the first parenthesis once the launch bounds are gone
            declaration = LAUNCH_BOUNDS.sub(" ", match.group(1)).split("(")[0]
            name = IDENTIFIER.search(declaration)
            if name and name.group(1) not in names:
                names.append(name.group(1))
    return names


def kernels_command(directory):
    names = kernel_names(directory)
    if names:
        # ncu matches the function name (--kernel-name-base function); allow a namespace
        # or return type before it and template arguments or parameters after it, in
        # case this ncu shows more, and whether it searches for the pattern or matches
        # the whole name against it.
        print(f"regex:^(.*[ :])?({'|'.join(names)})([<(].*)?$")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        # ncu may print "==PROF==" lines before the CSV: keep the quoted lines only
        lines = [line for line in handle if line.startswith('"')]
    return [row for row in csv.reader(lines) if row]


def read_report(path):
    """{column or metric: (value, unit)} for the first launch in an ncu CSV: the raw page
    (a header, a units row, one row per launch), or the details page (one row per metric)
    should this ncu print that instead."""
    rows = read_rows(path)
    if len(rows) < 2:
        fail(f"{path}: ncu found no launch of the step's kernel (see the log above)")
    header = rows[0]
    if "Metric Name" in header and "Metric Value" in header:
        return details_page(header, rows[1:])
    if len(rows) < 3:
        fail(f"{path}: ncu found no launch of the step's kernel (see the log above)")
    return {name: (value, unit) for name, unit, value in zip(header, rows[1], rows[2])}


def details_page(header, rows):
    at = {name: index for index, name in enumerate(header)}
    first_id = rows[0][at["ID"]] if "ID" in at else None
    values = {}
    for row in rows:
        if first_id is not None and row[at["ID"]] != first_id:
            continue
        for name in IDENTITY_COLUMNS:
            if name in at:
                values[name] = (row[at[name]], "")
        unit = row[at["Metric Unit"]] if "Metric Unit" in at else ""
        values[row[at["Metric Name"]]] = (row[at["Metric Value"]], unit)
    return values


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


UNIT_NAMES = {"nsecond": "ns", "usecond": "us", "msecond": "ms", "second": "s"}
UNITS_SHOWN_IN_LABEL = ("", "%", "ratio", "inst", "warp")
DIMENSION = re.compile(r"\(\s*(\d+),\s*(\d+),\s*(\d+)\s*\)")


def format_value(value, unit):
    if value is None:
        return "n/a"
    if value == int(value):
        text = f"{int(value):,}"
    elif abs(value) >= 100:
        text = f"{value:,.0f}"
    else:
        text = f"{value:.2f}"
    if unit in UNITS_SHOWN_IN_LABEL:
        return text
    return f"{text} {UNIT_NAMES.get(unit, unit)}"


def launch_shape(column):
    """'4096 x 256' from ncu's '(4096, 1, 1)' and '(256, 1, 1)'."""
    def short(text):
        match = DIMENSION.fullmatch(text.strip())
        if match and match.group(2) == match.group(3) == "1":
            return match.group(1)
        return text
    return f"{short(column.identity('Grid Size'))} x {short(column.identity('Block Size'))}"


def change(old, new):
    if old is None or new is None or old == 0:
        return "-"
    return f"x{new / old:.3g}"


class Column:
    def __init__(self, label, path):
        self.label = label
        self.values = read_report(path)

    def identity(self, name):
        return self.values.get(name, ("", ""))[0]

    def metric(self, name):
        if name not in self.values:
            return None, ""
        value, unit = self.values[name]
        return number(value), unit


def metric_names(columns):
    return [name for name, _ in ROWS if any(name in c.values for c in columns)]


def table_lines(title, columns):
    labels = dict(ROWS)
    lines = [title, ""]
    header = ["", *[c.label for c in columns]]
    body = [["kernel", *[c.identity("Kernel Name") for c in columns]],
            ["grid x block", *[launch_shape(c) for c in columns]]]
    for name in metric_names(columns):
        measured = [c.metric(name) for c in columns]
        row = [labels.get(name, name), *[format_value(v, u) for v, u in measured]]
        if len(columns) == 2:
            row.append(change(measured[0][0], measured[1][0]))
        row.append(name)
        body.append(row)
    if len(columns) == 2:
        header.append("change")
    header.append("ncu metric")
    table = [row + [""] * (len(header) - len(row)) for row in [header] + body]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        cells = [cell.ljust(widths[i]) if i == 0 or i == len(row) - 1 else cell.rjust(widths[i])
                 for i, cell in enumerate(row)]
        lines.append("  ".join(cells).rstrip())
    return lines


def table_command(out, title, specs):
    columns = []
    for spec in specs:
        label, _, path = spec.partition("=")
        columns.append(Column(label, path))
    text = "\n".join(table_lines(title, columns)) + "\n"
    sys.stdout.write(text)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(text)


def main(argv):
    if len(argv) == 3 and argv[1] == "kernels":
        kernels_command(argv[2])
    elif len(argv) >= 5 and argv[1] == "table":
        table_command(argv[2], argv[3], argv[4:])
    else:
        fail("usage: profile_table.py kernels DIR | table OUT TITLE LABEL=CSV [LABEL=CSV]")


if __name__ == "__main__":
    main(sys.argv)
