#!/usr/bin/env python3
"""Replaces the result markers of docs/instructors.md and the step READMEs by the figures of
docs/results/2026-11-27/exercises.txt (written by bench/exercises.sh on a GPU).

A marker is [[exercises:HEADING:FIELD]], FIELD optionally followed by @n (the row or report
for that n, written 2^k) or by x5 spelled with the multiplication sign (every result of a
section that runs a command five times). FIELD is read from the output under "## HEADING":
  exit                         the section's exit status
  a --csv column (ms_median)   that column of the row (of n, with @n)
  a report line's key          time, cub: its first number; result: its value; check, launch,
                               bandwidth, combine, one GPU, clock, error: the rest of the line
  ceiling lines (@n)           write, copy, launch, read: the ms; copy%, read%, write%: the
                               share of the peak
  an ncu metric name           its value and unit
  hazards, errors              racecheck's hazards, another tool's errors, from the summary
  registers                    ptxas's registers for reduce_last_block<512, 0>, or the only
                               kernel
  a column of the variants program's table (@n)   its % of the peak
Prints every marker it could not fill and exits 1 if there was one.
    python3 bench/exercises_fill.py [exercises.txt]
"""
import glob
import re
import sys

RESULTS = "docs/results/2026-11-27/exercises.txt"
MARKER = re.compile(r"\[\[exercises:([^:\]]+):([^\]]+)\]\]")
FIRST_NUMBER = re.compile(r"[-+]?\d[\d.,]*(?:e[-+]?\d+)?")


def sections(text):
    found, heading, lines = {}, None, []
    for line in text.split("\n"):
        if line.startswith("## "):
            if heading is not None:
                found[heading] = lines
            heading, lines = line[3:].strip(), []
        elif heading is not None:
            lines.append(line)
    if heading is not None:
        found[heading] = lines
    return found


def power(n_text):
    base, _, exponent = n_text.partition("^")
    return int(base) ** int(exponent) if exponent else int(n_text)


def csv_value(lines, column, n):
    header = next((line.split(",") for line in lines if line.startswith("step,variant,n,")), None)
    if header is None or column not in header:
        return None
    rows = [line.split(",") for line in lines if re.match(r"^step\d\d[^,]*,", line)]
    rows = [row for row in rows if n is None or row[header.index("n")] == str(n)]
    return rows[-1][header.index(column)] if rows else None


def report_of(lines, n):
    """The lines of the human report for n (a range prints one report per n)."""
    if n is None:
        return lines
    chosen, inside = [], False
    for line in lines:
        if line.startswith("input "):
            inside = re.search(r"n = (\d+) ", line) is not None and int(
                re.search(r"n = (\d+) ", line).group(1)) == n
        if inside:
            chosen.append(line)
    return chosen


def line_value(lines, key):
    for line in lines:
        if line.startswith(key + " ") or line.startswith(key + ":"):
            rest = line[len(key):].lstrip(": ").strip()
            if key in ("time", "cub"):
                return FIRST_NUMBER.search(rest).group(0)
            if key == "result":
                return rest.split()[0]
            return rest
    return None


def ceiling_value(lines, key):
    name = key.rstrip("%")
    for line in lines:
        match = re.match(r"ceiling\s+" + name + r"\s+(?:step\d\d\s+)?([\d.]+) ms", line)
        if match:
            if key.endswith("%"):
                share = re.search(r"= ([\d.]+)% of peak", line)
                return share.group(1) if share else None
            return match.group(1)
    return None


def variants_value(lines, column, n):
    header = next((line.split() for line in lines if line.split()[:2] == ["n", "cub"]), None)
    if header is None or column not in header:
        return None
    for line in lines:
        cells = line.split()
        if cells and cells[0] == str(n):
            index = header.index(column)  # n, cub, then two cells (% and ratio) per variant
            cell = cells[index] if index < 2 else cells[2 + 2 * (index - 2)]
            return cell.rstrip("%")
    return None


def value(lines, field):
    field, _, at = field.partition("@")
    n = power(at) if at else None
    if field == "exit":
        return next((line.split()[1] for line in reversed(lines) if line.startswith("exit ")), None)
    if field == "result\u00d75":
        results = [m.group(1) for line in lines for m in [re.search(r"result=(\S+)", line)] if m]
        return ", ".join(results) if results else None
    if field == "hazards":
        m = next((re.search(r"RACECHECK SUMMARY: (\d+) hazard", line) for line in lines
                  if "RACECHECK SUMMARY" in line), None)
        return m.group(1) if m else None
    if field == "errors":
        m = next((re.search(r"ERROR SUMMARY: (\d+) error", line) for line in lines
                  if "ERROR SUMMARY" in line), None)
        return m.group(1) if m else None
    if field == "registers":
        entries, current = {}, None
        for line in lines:
            if "Compiling entry" in line:
                current = line
            m = re.search(r"Used (\d+) registers", line)
            if m and current:
                entries[current] = m.group(1)
        wanted = [v for k, v in entries.items() if "Lj512ELi0E" in k and "reduce_last_block" in k]
        return wanted[0] if wanted else (next(iter(entries.values())) if len(entries) == 1 else None)
    if field == "error":
        return next((line.strip() for line in lines if re.search(r"error", line, re.I)
                     and not line.startswith("exit")), None)
    if "." in field and "__" in field:  # an ncu metric
        for line in lines:
            cells = line.split()
            if cells and cells[0] == field:
                return " ".join(reversed(cells[1:])) if len(cells) == 3 else " ".join(cells[1:])
        return None
    found = csv_value(lines, field, n)
    if found is not None:
        return found
    found = variants_value(lines, field, n) if n is not None else None
    if found is not None:
        return found
    report = report_of(lines, n)
    found = ceiling_value(report, field)
    if found is not None:
        return found
    return line_value(report, field)


def main():
    results = sys.argv[1] if len(sys.argv) > 1 else RESULTS
    found = sections(open(results).read())
    missing = 0
    for path in ["docs/instructors.md"] + sorted(glob.glob("step[0-9][0-9]_*/README.md")):
        text = open(path).read()

        def fill(match):
            nonlocal missing
            heading, field = match.group(1), match.group(2)
            figure = value(found[heading], field) if heading in found else None
            if figure is None:
                missing += 1
                print(f"{path}: no figure for {match.group(0)}", file=sys.stderr)
                return match.group(0)
            return figure

        filled = MARKER.sub(fill, text)
        if filled != text:
            open(path, "w").write(filled)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
