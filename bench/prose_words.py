#!/usr/bin/env python3
"""The lesson's size and its sources, read by tests/docs_words.c.

  prose_words.py count FILE...     each file's prose words, a line each: WORDS FILE
  prose_words.py limits [ROOT]     every limit below against the files of ROOT (default: this
                                   repository), and step13's and step16's host.c within their lines;
                                   exit 1 on a miss
  prose_words.py quotes [SEEDS]    every README of steps 00-08 quotes its document: a line of a
                                   block quotation (`> `) that holds non-ASCII text and stands,
                                   character for character, in one of SEEDS/*.txt (default
                                   ../shared/seeds); exit 1 on a miss, 2 when SEEDS is missing

Prose words: what is left of a Markdown file without its fenced code blocks, its table rows
and its HTML comments (the generated tables and citations), split at white space; headings,
lists and block quotations count, their markers (#, -, >, 1.) too.
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = HERE
LADDER_STEPS = [f"step{k:02d}" for k in range(9)]   # the ladder a student reads in an hour
LADDER_README_MOST = 1000
LATER_README_MOST = 1500
ROOT_README_MOST = 1500
ROOT_COMMANDS_WITHIN = 300        # the two commands, within the root README's first words
LADDER_PATH_MOST = 10000          # the root README and the READMEs of steps 00-08 together
HOST_LINES_MOST = 230             # the host.c of the speed step and the rows step, the longest
HOST_LINES_STEPS = ("step13", "step16")   # programs read top to bottom
FIRST_COMMANDS = (("make stepNN", re.compile(r"make step\d\d")),
                  ("make test", re.compile(r"make (-j ?\d+ )?test")))
COMMENT = re.compile(r"<!--.*?-->", re.S)
FENCE = re.compile(r"^```")  # a fence that opens a line; an indented one is part of its list item


def prose(text):
    """The prose lines of a Markdown text."""
    lines, fenced = [], False
    for line in COMMENT.sub("", text).splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("|"):
            continue
        lines.append(line)
    return lines


def words(lines):
    return [word for line in lines for word in line.split()]


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def step_readmes():
    """{stepNN: path} of every stepNN_<name>/README.md."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*", "README.md"))):
        found[os.path.basename(os.path.dirname(path))[:6]] = path
    return found


def limits():
    misses, readmes = [], step_readmes()
    ladder_words = 0
    for step, path in readmes.items():
        count = len(words(prose(read(path))))
        most = LADDER_README_MOST if step in LADDER_STEPS else LATER_README_MOST
        if step in LADDER_STEPS:
            ladder_words += count
        if count > most:
            misses.append(f"{os.path.relpath(path, ROOT)}: {count} prose words, at most {most}")
    root_text = read(os.path.join(ROOT, "README.md"))
    root_words = words(prose(root_text))
    ladder_words += len(root_words)
    if len(root_words) > ROOT_README_MOST:
        misses.append(f"README.md: {len(root_words)} prose words, at most {ROOT_README_MOST}")
    for command, pattern in FIRST_COMMANDS:
        found = pattern.search(root_text)
        at = found.start() if found else -1
        before = len(words(prose(root_text[:at]))) if at >= 0 else None
        if before is None or before > ROOT_COMMANDS_WITHIN:
            misses.append(f"README.md: `{command}` is not within its first "
                          f"{ROOT_COMMANDS_WITHIN} prose words"
                          + ("" if before is None else f" (after {before})"))
    if ladder_words > LADDER_PATH_MOST:
        misses.append(f"README.md and steps 00-08: {ladder_words} prose words together, "
                      f"at most {LADDER_PATH_MOST}")
    for path in sorted(glob.glob(os.path.join(ROOT, "step[0-9][0-9]_*", "host.c"))):
        if os.path.basename(os.path.dirname(path))[:6] not in HOST_LINES_STEPS:
            continue
        with open(path, encoding="utf-8") as handle:
            lines = sum(1 for _ in handle)
        if lines > HOST_LINES_MOST:
            misses.append(f"{os.path.relpath(path, ROOT)}: {lines} lines, at most {HOST_LINES_MOST}")
    missing = [step for step in LADDER_STEPS if step not in readmes]
    misses += [f"{step}: no README.md" for step in missing]
    return misses


def quotes(seeds_folder):
    seeds = [read(path) for path in sorted(glob.glob(os.path.join(seeds_folder, "*.txt")))]
    if not seeds:
        print(f"prose_words: no documents in {seeds_folder}", file=sys.stderr)
        sys.exit(2)
    misses, readmes = [], step_readmes()
    for step in LADDER_STEPS:
        path = readmes.get(step)
        quoted = [line.lstrip()[1:].strip() for line in prose(read(path)) if path
                  and line.lstrip().startswith(">") and re.search(r"[^\x00-\x7f]", line)] \
            if path else []
        found = [line for line in quoted if any(line in seed for seed in seeds)]
        if not found:
            misses.append(f"{step}: its README quotes no line of the documents verbatim "
                          f"({len(quoted)} quoted lines with non-ASCII text, none in {seeds_folder})")
    return misses


def main(argv):
    if len(argv) >= 2 and argv[1] == "count":
        for path in argv[2:]:
            print(len(words(prose(read(path)))), path)
        return 0
    global ROOT
    if len(argv) in (2, 3) and argv[1] == "limits":
        ROOT = os.path.abspath(argv[2]) if len(argv) == 3 else HERE
        misses = limits()
    elif len(argv) in (2, 3) and argv[1] == "quotes":
        misses = quotes(argv[2] if len(argv) == 3 else os.path.join(HERE, "..", "shared", "seeds"))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    print("\n".join(misses), file=sys.stderr)
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
