#!/usr/bin/env python3
"""The rule of the labs (GUIDE: "a lab's handout, starter comments and assigned reading never
contain its answer"), read by tests/labs_handouts.c.

  labs_handouts.py runs LAB [--extra-text FILE]
      Every run of six or more tokens of the model answer's code (the reduce.cu of the step the
      lab completes, labs/steps.txt; comments left out) that the student has not already been
      shown, and that the handout, the starter's comments or a section the handout links to
      contains. Shown already: every six tokens in a row of the code of the steps before the
      lab (their reduce.cu) and of the starter's own code outside its comments; these are
      taken out of the answer's runs, and a stretch of the text in which every six tokens in
      a row are one of the answer's remaining runs is reported, whole. --extra-text adds a
      file to what the student reads (the test plants the answer there to see that a run is
      found). Exit 1 when there is one, with each run printed.

  labs_handouts.py reading LAB
      The words of what "Read first" assigns (the linked sections, each heading with the text
      under it down to the next heading of its level or above; a link with no anchor is the
      whole file) against the handout's own statement "(about W words, about M minutes)":
      W within 10% of the count, and M at least the count at 150 words a minute and at most
      twice that (plus 5 minutes); "**Time:** about H hours: M minutes of reading, A for ...,
      B for ..." gives the same M, and its parts add up to H hours. Exit 1 otherwise.

C tokens: identifiers, numbers (preprocessing numbers: 1u, 0.0f, 0xffffffffu), string and
character literals in code, and punctuators, the longest first. Prose is cut into tokens the
same way, so that a line of code quoted in a sentence, in backticks or wrapped over lines, is
found whatever its spacing.
"""
import os
import re
import sys

RUN_LENGTH = 6
WORDS_PER_MINUTE = 150
WORD_COUNT_TOLERANCE = 0.10
PUNCTUATORS = sorted(
    "... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## :: "
    "[ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , # ' \" @ $ `".split(),
    key=len, reverse=True)
TOKEN = re.compile(
    r"[A-Za-z_][A-Za-z_0-9]*"
    r"|\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*"
    r"|" + "|".join(re.escape(p) for p in PUNCTUATORS))
CODE_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])+\'|' + TOKEN.pattern)
COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])+\'',
                                re.S)
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) +(.*?) *#*$")


def read(path):
    with open(path, encoding="utf-8") as file:
        return file.read()


def split_code(source):
    """(code, comments) of a C or CUDA file: the code with each comment replaced by a space,
    and the comments' text without the "*" that opens each line of a block comment."""
    code, comments, end = [], [], 0
    for match in COMMENT_OR_LITERAL.finditer(source):
        if match.group().startswith("/"):
            code.append(source[end:match.start()] + " ")
            body = match.group()[2:-2] if match.group().startswith("/*") else match.group()[2:]
            comments.append(re.sub(r"\n[ \t]*\*(?!/)", "\n", body))
            end = match.end()
    code.append(source[end:])
    return "".join(code), "\n".join(comments)


def code_tokens(code):
    return CODE_TOKEN.findall(code)


def text_tokens(text):
    """Prose cut into C tokens; Markdown's backticks, which are no part of any code, are
    dropped, so that code split over two spans is found too."""
    return [token for token in TOKEN.findall(text) if token != "`"]


def runs_of(tokens, length):
    return {tuple(tokens[i:i + length]) for i in range(len(tokens) - length + 1)}


# ---- the labs and their files -----------------------------------------------------------------

def lab_line(lab):
    for line in read("labs/steps.txt").splitlines():
        words = line.split()
        if words and words[0] == lab:
            return words
    sys.exit(f"labs/steps.txt has no {lab}")


def step_number(step):
    return int(re.match(r"step(\d+)_", step).group(1))


def steps_before(lab):
    """The steps the student has done before the lab: those numbered below its first step."""
    first = min(step_number(step) for step in lab_line(lab)[2:])
    return sorted(entry for entry in os.listdir(".")
                  if re.match(r"step\d+_", entry) and step_number(entry) < first
                  and os.path.isfile(os.path.join(entry, "reduce.cu")))


def anchor_of(heading):
    """The anchor a heading gets on a rendered Markdown page (as tests/labs_handouts.c)."""
    out = []
    for c in heading:
        if c.isascii() and c.isalnum():
            out.append(c.lower())
        elif c in " -":
            out.append("-")
        elif c == "_" or not c.isascii():
            out.append(c)
    return "".join(out)


def section(text, anchor):
    """The lines of the section of a Markdown text that has this anchor: its heading and what
    follows down to the next heading of its level or above; None where there is none."""
    lines, fenced = text.split("\n"), False
    for number, line in enumerate(lines):
        fenced = fenced != line.startswith("```")
        heading = None if fenced else HEADING.match(line)
        if heading is None or anchor_of(heading.group(2)) != anchor:
            continue
        level, end, inner = len(heading.group(1)), len(lines), False
        for later in range(number + 1, len(lines)):
            inner = inner != lines[later].startswith("```")
            other = None if inner else HEADING.match(lines[later])
            if other is not None and len(other.group(1)) <= level:
                end = later
                break
        return range(number, end)
    return None


def linked(handout_path, part):
    """{file: set of line numbers} that the links of this part of a handout send the student to
    read. A link outside the repository cannot be read here and is left out; the handout's
    own file is left out (it is read whole anyway)."""
    wanted = {}
    base = os.path.dirname(handout_path)
    for target in LINK.findall(part):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        file = os.path.normpath(os.path.join(base, path)) if path else handout_path
        if file == os.path.normpath(handout_path):
            continue
        if not os.path.isfile(file):
            sys.exit(f"{handout_path} links to {target}: no such file")
        lines = read(file).split("\n")
        if anchor:
            found = section(read(file), anchor)
            if found is None:
                sys.exit(f"{handout_path} links to {target}: no such heading")
        else:
            found = range(len(lines))
        wanted.setdefault(file, set()).update(found)
    return wanted


def linked_text(wanted):
    return {file: "\n".join(read(file).split("\n")[number] for number in sorted(numbers))
            for file, numbers in wanted.items()}


# ---- the two checks -----------------------------------------------------------------------------

def handed_out_runs(lab, extra):
    line = lab_line(lab)
    answer_code, _ = split_code(read(os.path.join(line[1], "reduce.cu")))
    answer = code_tokens(answer_code)
    starter_code, starter_comments = split_code(read(f"labs/{lab}/reduce.cu"))
    shown = [code_tokens(split_code(read(os.path.join(step, "reduce.cu")))[0])
             for step in steps_before(lab)]
    shown.append(code_tokens(starter_code))

    handout_path = f"labs/{lab}/README.md"
    handout = read(handout_path)
    texts = {handout_path: handout, f"labs/{lab}/reduce.cu (comments)": starter_comments}
    texts.update(linked_text(linked(handout_path, handout)))
    for path in extra:
        texts[path] = read(path)

    shown_runs = set()
    for tokens in shown:
        shown_runs.update(runs_of(tokens, RUN_LENGTH))
    new_runs = set(runs_of(answer, RUN_LENGTH)) - shown_runs
    found = []
    for where, text in texts.items():
        tokens = text_tokens(text)
        # Each stretch of the text whose every six tokens in a row are a new run of the answer,
        # once, from its first token to its last.
        hits = [tuple(tokens[i:i + RUN_LENGTH]) in new_runs
                for i in range(len(tokens) - RUN_LENGTH + 1)]
        i = 0
        while i < len(hits):
            if not hits[i]:
                i += 1
                continue
            end = i
            while end + 1 < len(hits) and hits[end + 1]:
                end += 1
            found.append((where, " ".join(tokens[i:end + RUN_LENGTH])))
            i = end + 1
    return found


def words(text):
    return len(text.split())


def reading(lab):
    handout_path = f"labs/{lab}/README.md"
    handout = read(handout_path)
    start = handout.find("**Read first**")
    end = handout.find("**Time:**", start)
    if start < 0 or end < 0:
        sys.exit(f"{handout_path}: no \"**Read first**\" followed by \"**Time:**\"")
    part = handout[start:end]
    stated = re.match(r"\*\*Read first\*\* \(about ([0-9,]+) words, about ([0-9]+) minutes\)",
                      part)
    if stated is None:
        sys.exit(f"{handout_path}: \"**Read first**\" does not open with "
                 "\"(about W words, about M minutes)\"")
    stated_words, minutes = int(stated.group(1).replace(",", "")), int(stated.group(2))
    texts = linked_text(linked(handout_path, part))
    counted = sum(words(text) for text in texts.values())
    for file, text in sorted(texts.items()):
        print(f"  {words(text):6d} words  {file}")
    print(f"{lab}: {counted} words; the handout says about {stated_words} words, "
          f"about {minutes} minutes")
    problems = []
    if abs(stated_words - counted) > WORD_COUNT_TOLERANCE * counted:
        problems.append(f"it says {stated_words} words, the linked sections hold {counted}")
    if minutes * WORDS_PER_MINUTE < counted:
        problems.append(f"{minutes} minutes for {counted} words is more than "
                        f"{WORDS_PER_MINUTE} words a minute")
    if minutes * WORDS_PER_MINUTE > 2 * counted + 5 * WORDS_PER_MINUTE:
        problems.append(f"{minutes} minutes for {counted} words: the time is not the reading's")
    time_line = re.search(r"\*\*Time:\*\* about ([0-9.]+) hours?: ([0-9]+) minutes of reading"
                          r"((?:, [0-9]+ for [^,]*)+)", " ".join(handout.split()))
    if time_line is None or int(time_line.group(2)) != minutes:
        problems.append("\"**Time:** about H hours: M minutes of reading, A for ..., B for ...\" "
                        "does not give the same minutes of reading")
    else:
        parts = [minutes] + [int(part)
                             for part in re.findall(r", ([0-9]+) for", time_line.group(3))]
        if sum(parts) != round(float(time_line.group(1)) * 60):
            problems.append(f"\"**Time:**\" says {time_line.group(1)} hours, its parts add up to "
                            f"{sum(parts)} minutes")
    for problem in problems:
        print(f"{handout_path}: {problem}")
    return not problems


def main(argv):
    if len(argv) < 3 or argv[1] not in ("runs", "reading"):
        sys.exit(__doc__)
    lab = argv[2]
    if argv[1] == "reading":
        return 0 if reading(lab) else 1
    extra = argv[4:] if argv[3:4] == ["--extra-text"] else []
    found = handed_out_runs(lab, extra)
    for where, run in found:
        print(f"{where}: {run}")
    print(f"{lab}: {len(found)} run(s) of {RUN_LENGTH} or more tokens of the answer not shown "
          "before the lab")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
