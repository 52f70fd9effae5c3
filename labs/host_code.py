#!/usr/bin/env python3
"""Says whether a lab submission's host code is the lab's own: only device code may differ.

    python3 labs/host_code.py [--name NAME] SUBMISSION.cu REFERENCE.cu [REFERENCE.cu ...]

A submission is C++ as well as CUDA: a launcher that copies the input back and adds it on
the CPU, an extra host function, or a global object whose constructor runs before main()
would pass every check of the sums. So the part of the file that runs on the host must be,
token for token, the part of one of the REFERENCE files (the lab's starter, the step's own
kernel file) that runs on the host. The file is cut into its top-level declarations; these
may differ freely, be added or removed:

  - a function or function template whose declaration says __device__ or __global__ and not
    __host__ (with no __attribute__), and a __device__, __shared__ or __constant__ variable;
  - an enum, a typedef or using alias, a static_assert, a constexpr variable, a struct,
    class or union whose member functions are all __device__;
  - an #include of a system header or of a file beside it (no absolute path, no ".."),
    #pragma, and an object- or function-like #define whose name the host code does not use
    and whose body holds no braces, no semicolon and no __host__ or __attribute__.

Everything else is host code and must equal a reference's host code in the same order:
functions (the launchers, extern "C"), variables, their initialisers, the other preprocessor
directives (#if, #undef, ...), a namespace or an extern "C" { } block. Comments and spacing
do not count. Prints "ok: ..." and exits 0, or one "host: ..." line per difference (the
first few, each with the line of SUBMISSION, named NAME: default its file name) and exits 1;
2 when a file cannot be read.
"""
import re
import sys

TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>(?:u8|[uUL])?R"(?P<delimiter>[^(\s]*)\(.*?\)(?P=delimiter)"
               |(?:u8|[uUL])?"(?:\\.|[^"\\\n])*"|(?:u8|[uUL])?'(?:\\.|[^'\\\n])*')
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.'])*)
  | (?P<word>[A-Za-z_]\w*)
  | (?P<punct><<=|>>=|->\*|\.\.\.|::|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\S)
""", re.VERBOSE | re.DOTALL)
DEVICE_SPACE = {"__device__", "__global__"}
DEVICE_VARIABLE = {"__shared__", "__constant__"}
FORBIDDEN_IN_DEVICE_HEAD = {"__host__", "__attribute__", "__declspec", "__managed__"}
DECLARATION_START = {"enum", "typedef", "using", "static_assert"}
RECORD = {"struct", "class", "union"}
MAX_FINDINGS = 3
SHOWN_TOKENS = 12


class Item:
    """A top-level declaration: its tokens and the line it starts on."""

    def __init__(self, tokens, line):
        self.tokens, self.line = tokens, line

    def text(self):
        words = [t for t, _ in self.tokens[:SHOWN_TOKENS]]
        return " ".join(words) + (" ..." if len(self.tokens) > SHOWN_TOKENS else "")

    def words(self):
        return tuple(t for t, _ in self.tokens)


def lex(source):
    """Tokens (text, line) of the code, and the preprocessor directives (text, line), a
    directive continued with backslashes read as one."""
    tokens, directives, line, position, at_line_start = [], [], 1, 0, True
    while position < len(source):
        directive = re.compile(r"[ \t]*#((?:[^\n\\]|\\\n|\\.)*)").match(source, position) \
            if at_line_start else None
        if directive:
            text = re.sub(r"/\*.*?\*/|//.*|\\\n", " ", directive.group(1), flags=re.DOTALL)
            directives.append((" ".join(text.split()), line))
            line += directive.group(0).count("\n")
            position = directive.end()
            continue
        match = TOKEN.match(source, position)
        if match is None:
            position += 1
            continue
        text, blank = match.group(0), match.lastgroup in ("space", "comment")
        if not blank:
            tokens.append((text, line))
        line += text.count("\n")
        at_line_start = blank and (at_line_start or "\n" in text)
        position = match.end()
    return tokens, directives


def items(tokens):
    """The top-level declarations: each ends at a ';' outside brackets, or at the '}' that
    closes a body (with the ';' that may follow it)."""
    result, current, depth, index = [], [], 0, 0
    while index < len(tokens):
        token = tokens[index]
        current.append(token)
        if token[0] in "({[":
            depth += 1
        elif token[0] in ")}]":
            depth -= 1
        ended = depth == 0 and token[0] in (";", "}")
        if ended and token[0] == "}" and index + 1 < len(tokens) and tokens[index + 1][0] == ";":
            index += 1
            current.append(tokens[index])
        if ended:
            result.append(Item(current, current[0][1]))
            current = []
        index += 1
    if current:
        result.append(Item(current, current[0][1]))
    return result


def head(item):
    """The tokens before the item's body or initialiser."""
    words, depth = [], 0
    for text, _ in item.tokens:
        if depth == 0 and text in ("{", "=", ";"):
            break
        depth += text in "(["
        depth -= text in ")]"
        words.append(text)
    return words


def without_template(words):
    """`template <...> rest` -> rest."""
    while words[:2] == ["template", "<"]:
        depth, index = 0, 1
        for index in range(1, len(words)):
            depth += words[index] == "<"
            depth -= words[index] == ">"
            depth -= 2 * (words[index] == ">>")
            if depth <= 0:
                break
        words = words[index + 1:]
    return words


def record_members_are_device(item):
    """A struct/class/union whose member functions (a ')' and then a body) are __device__."""
    words = [t for t, _ in item.tokens]
    if "{" not in words:
        return True
    body = words[words.index("{") + 1:]
    member, depth = [], 0
    for word in body:
        if depth == 0 and word in (";", "}"):
            member = []
            continue
        if depth == 0 and word == "{":
            if ")" in member and not (DEVICE_SPACE & set(member)) or FORBIDDEN_IN_DEVICE_HEAD & set(member):
                return False
        depth += word == "{"
        depth -= word == "}"
        if depth == 0 and word == "}":
            member = []
        elif depth == 0:
            member.append(word)
    return True


def kind(item):
    """'device' for what may differ, 'host' for what must be a reference's."""
    words = without_template(head(item))
    names = set(words)
    if names & FORBIDDEN_IN_DEVICE_HEAD:
        return "host"
    if names & (DEVICE_SPACE | DEVICE_VARIABLE):
        return "device"
    first = words[0] if words else ""
    closed = [t for t, _ in item.tokens[-2:]] == ["}", ";"]
    if first in DECLARATION_START:
        return "device" if first != "enum" or closed or "{" not in names else "host"
    if first in RECORD and closed and "=" not in words and record_members_are_device(item):
        return "device"
    if "constexpr" in names and "(" not in words:
        return "device"
    return "host"


def directive_findings(directives, reference, host_words):
    """#include and #pragma may be added; a #define that is not the reference's must keep out
    of the host code; the other directives must be the reference's, in its order."""
    findings, others = [], []
    wanted = [text for text, _ in reference if text.split(None, 1)[0] not in ("include", "pragma", "define")]
    theirs = {text for text, _ in reference}
    for text, line in directives:
        name = text.split(None, 1)[0] if text else ""
        if name == "include":
            path = re.sub(r'^include\s*[<"]([^>"]*)[>"].*$', r"\1", text)
            if path.startswith("/") or ".." in path.split("/"):
                findings.append(f"reduce.cu:{line}: #{text} reads a file outside the compiler's "
                                f"include folders: include a system header or one beside the step")
        elif name == "define" and text not in theirs:
            match = re.match(r"define\s+(\w+)(\([^)]*\))?\s*(.*)$", text)
            macro, body = (match.group(1), match.group(3)) if match else ("", text)
            if macro in host_words:
                findings.append(f"reduce.cu:{line}: #define {macro} changes the host code, which "
                                f"uses the name {macro}")
            elif re.search(r"[{};]|__host__|__attribute__|__declspec", body):
                findings.append(f"reduce.cu:{line}: #{text[:80]} holds braces, a ';', __host__ "
                                f"or __attribute__: a macro may only name a value or an expression")
        elif name not in ("pragma", "define"):
            others.append((text, line))
    extra = [(text, line) for text, line in others if text not in wanted]
    if extra:
        findings.append(f"reduce.cu:{extra[0][1]}: a preprocessor directive the starter does not "
                        f"have: #{extra[0][0][:80]} (only #include, #pragma and #define may be added)")
    elif [text for text, _ in others] != wanted:
        findings.append("the starter's preprocessor directives (#if, #undef, ...) were removed or "
                        "reordered")
    return findings


def host_part(path):
    with open(path, encoding="utf-8") as source:
        tokens, directives = lex(source.read())
    return [item for item in items(tokens) if kind(item) == "host"], directives


def differences(submission_path, reference_path):
    submission, directives = host_part(submission_path)
    reference, reference_directives = host_part(reference_path)
    host_words = {word for item in submission for word in item.words()}
    findings = directive_findings(directives, reference_directives, host_words)
    expected = [item.words() for item in reference]
    got = [item.words() for item in submission]
    missing = [item for item in reference if item.words() not in got]
    for item in submission:
        if item.words() in expected:
            continue
        same_head = [old for old in missing if head(old) == head(item)]
        if same_head:
            missing.remove(same_head[0])
            findings.append(f"reduce.cu:{item.line}: the starter's host code was changed: "
                            f"`{item.text()}` (only __device__ and __global__ code may change)")
        else:
            findings.append(f"reduce.cu:{item.line}: host code that the starter does not have: "
                            f"`{item.text()}` (only __device__ and __global__ code may change)")
    findings += [f"the starter's host code is missing: `{item.text()}`" for item in missing]
    if not findings and got != expected:
        findings.append("the starter's host code is in another order")
    return findings


def compare(submission_path, reference_paths):
    """The differences from the reference that the submission is closest to."""
    return min((differences(submission_path, path) for path in reference_paths), key=len)


def main(arguments):
    name = None
    if arguments[:1] == ["--name"] and len(arguments) > 1:
        name, arguments = arguments[1], arguments[2:]
    if len(arguments) < 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        findings = compare(arguments[0], arguments[1:])
    except (OSError, UnicodeDecodeError) as error:
        print(f"host_code.py: {error}", file=sys.stderr)
        return 2
    shown = name or arguments[0].rsplit("/", 1)[-1]
    for finding in findings[:MAX_FINDINGS]:
        print(f"host: {re.sub(r'^reduce.cu:', shown + ':', finding)}")
    if len(findings) > MAX_FINDINGS:
        print(f"host: ... and {len(findings) - MAX_FINDINGS} more differences")
    if not findings:
        print("ok: the host code is the starter's; only device code differs")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
