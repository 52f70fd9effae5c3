#!/usr/bin/env python3
"""Reads a lab kernel's PTX and says whether the instructions its lesson requires are there.

    python3 labs/lesson.py LAB KERNEL.ptx

A GPU that forgives a mistake cannot show it: a missing fence, a shuffle with a partial mask
or a barrier that some threads skip may give the right sum on every run of one GPU. The PTX
names what the kernel asks of the memory model and of the warp, so this reads it (no GPU
needed). Every lab is checked for:

  - barriers (bar.sync, bar.red: __syncthreads and its _or/_and/_count forms) that every
    thread of the block reaches: none may sit behind a branch on a thread-dependent value
    (threadIdx, a lane, a value loaded through one) that lets some threads go past it. A
    loop from threadIdx.x (plus a multiple of the block) to a multiple of the block, by a
    multiple of the block, runs as often in every thread and splits nobody, unrolled or not
    (the block: blockDim.x, or the most threads __launch_bounds__ allows);
  - a full mask (0xffffffff) on every shuffle, __syncwarp() and warp vote, and every such
    instruction reached by the whole warp: none behind a branch on a value that differs
    between the lanes of a warp (threadIdx.x % 32, a lane's element; not threadIdx.x / 32,
    nor t < 32);

and each lab for what its lesson adds (LESSONS below; lab05: the ticket's release before it
and an acquire after it in every thread that reads the other blocks' sums). Prints one line per finding,
"missing: ..." or "ok: ...", and exits 0 when nothing is missing, 1 when something is, 2 when
it cannot read the PTX or the lab is unknown.
"""
import re
import sys

FULL_MASK = 0xFFFFFFFF
WARP_SIZE = 32
EXIT = "<exit>"

# Special registers whose value differs from thread to thread; %ctaid, %ntid, %nctaid do not.
THREAD_REGISTERS = re.compile(r"%(tid|laneid|warpid|lanemask_\w+|clock\w*|globaltimer\w*|smid)\b")
BLOCK_BARRIER = re.compile(r"^(bar|barrier)(\.cta)?\.(sync|red)\b")
WARP_SYNCING = re.compile(r"^(shfl\.sync|bar\.warp\.sync|vote\.sync|match\.sync|redux\.sync)")
FENCE = re.compile(r"^(membar\.(gl|sys)|fence\.(sc|acq_rel)\.(gpu|sys))\b")
TICKET = re.compile(r"^atom\b.*\.(add|inc)\b.*\.[us](32|64)\b")
ORDER_RELEASE = re.compile(r"\.(release|acq_rel)\b")
ORDER_ACQUIRE = re.compile(r"\.(acquire|acq_rel)\b")
NARROW_SCOPE = re.compile(r"\.cta\b")


class Instruction:
    source_file = "reduce.cu"            # the kernel's file, as the PTX's `.file 1` names it

    def __init__(self, line, guard, opcode, operands, source):
        self.line, self.guard, self.opcode, self.operands, self.source = line, guard, opcode, operands, source

    def where(self):
        return f"{self.source_file}:{self.source}" if self.source else f"PTX line {self.line}"


class Kernel:
    """One .entry: its instructions in order, its basic blocks and the registers' variance."""

    def __init__(self, name):
        self.name = name
        self.instructions = []
        self.labels = {}                 # label -> index of the instruction that follows it
        self.block_limit = None          # .maxntid / .reqntid: no block has more threads

    # ---- which values differ between the threads of a block ---------------------------
    def destinations(self, ins):
        if not ins.operands or re.match(r"^(st|red|bar\.warp|bra|ret|exit|membar|fence|call|prefetch)\b",
                                        ins.opcode) or re.match(r"^bar(rier)?(\.cta)?\.sync", ins.opcode):
            return []
        return [name for name in re.findall(r"%[\w$]+", ins.operands[0])]

    def sources(self, ins):
        first = 0 if not self.destinations(ins) else 1
        return [name for operand in ins.operands[first:] for name in re.findall(r"%[\w$]+", operand)]

    def varies(self, ins, variant, level="block", uniform=frozenset()):
        """Does this instruction's result differ between the threads of a block (level
        "block") or between the lanes of a warp (level "warp")?"""
        if ins.guard and ins.guard in variant:
            return True
        if id(ins) in uniform or BLOCK_BARRIER.match(ins.opcode):
            return False                 # bar.red gives every thread of the block one answer
        if level == "warp" and re.match(r"^(vote\.sync|redux\.sync)", ins.opcode):
            return False                 # one answer for the whole warp
        if level == "warp" and ins.opcode.startswith("shfl.sync.idx") and len(ins.operands) > 2 and \
                (number(ins.operands[2]) is not None or ins.operands[2] not in variant) and \
                ins.operands[1] not in variant:
            return False                 # every lane reads the same lane
        if re.match(r"^(atom|shfl|vote|match|redux|activemask|call)\b", ins.opcode):
            return True
        text = " ".join(ins.operands[1:])
        if THREAD_REGISTERS.search(text):
            return True
        return any(name in variant for name in self.sources(ins))

    def variant_registers(self, level="block"):
        uniform = self.uniform_instructions(level)
        variant, changed = set(), True
        while changed:
            changed = False
            for ins in self.instructions:
                if self.varies(ins, variant, level, uniform):
                    for name in self.destinations(ins):
                        if name not in variant:
                            variant.add(name)
                            changed = True
        return variant

    # ---- comparisons that split no group of threads ---------------------------------------
    # A thread's index t in a group of B threads (a block: B = blockDim.x, or the most threads
    # .maxntid allows; a warp: B = 32) is i = t + k*B with the same k in the whole group and
    # 0 <= t - (the group's first thread) < B; then i < m*B holds in all of the group or in
    # none of it. So a loop from threadIdx.x to a bound rounded up to the block, stepping by a
    # multiple of the block, runs the same number of times in every thread; and t < 32,
    # t / 32, t & ~31 are the same in every lane of a warp. The same holds for m*B - 1 - i
    # (= m*B + ~i): a compiler that unrolls such a loop counts its remaining trips from it
    # ((bound - 1 - i) / step, its low bits for the odd trip), and those counts split nobody.
    def definitions(self):
        defined = {}
        for ins in self.instructions:
            for name in self.destinations(ins):
                defined.setdefault(name, []).append(ins)
        return defined

    def canonical(self, operand, defined):
        """The register, special register or number a chain of mov and cvt copies."""
        seen = set()
        while operand in defined and len(defined[operand]) == 1 and operand not in seen:
            seen.add(operand)
            ins = defined[operand][0]
            if not re.match(r"^(mov|cvt)\.", ins.opcode) or len(ins.operands) != 2 or ins.guard:
                break
            operand = ins.operands[1]
        return operand

    def multiples(self, group):
        """(is_m, is_t, is_r, is_l): tests of an operand that always holds a multiple of the
        group's size (M), threadIdx.x plus such a multiple (T), such a multiple minus one minus
        threadIdx.x (R), or such a multiple minus one (L). group: "ntid", or a number of
        threads."""
        defined = self.definitions()

        def is_size(operand):
            root = self.canonical(operand, defined)
            return root == "%ntid.x" if group == "ntid" else number(root) == group

        def is_m(operand, m):
            value = number(operand)
            if value is not None:
                return group != "ntid" and value % group == 0 or value == 0
            root = self.canonical(operand, defined)
            return operand in m or root == "%ntid.x" and group in ("ntid", WARP_SIZE)

        def is_t(operand, t):
            return operand in t or self.canonical(operand, defined) == "%tid.x"

        def is_r(operand, r):
            return operand in r

        def is_l(operand, l):
            value = number(operand)
            if value is not None:
                return value == -1 or group != "ntid" and (value + 1) % group == 0
            return operand in l

        def is_one_more(operand):
            """a number that is one more than a multiple of the group's size"""
            value = number(operand)
            return value is not None and (value == 1 or group != "ntid" and (value - 1) % group == 0)

        remainder = {}
        for _ in range(4):
            for name, definitions in defined.items():
                found = set()
                for ins in definitions:
                    base = ins.opcode.split(".")[0]
                    whole_warps = group == WARP_SIZE and self.canonical(ins.operands[-1], defined) == "%ntid.x"
                    if base == "rem" and len(ins.operands) == 3 and (is_size(ins.operands[2]) or whole_warps):
                        found.add(self.canonical(ins.operands[1], defined))
                    elif base in ("mov", "cvt") and len(ins.operands) == 2:
                        found.add(remainder.get(ins.operands[1]))
                    else:
                        found.add(None)
                if len(found) == 1 and None not in found:
                    remainder[name] = found.pop()

        def gives(ins, m, t, r, l):
            """Whether the instruction's result is in M, in T, in R, in L."""
            base, ops = ins.opcode.split(".")[0], ins.operands
            if ins.guard or len(ops) < 2:
                return False, False, False, False
            a, b = ops[1], ops[2] if len(ops) > 2 else None
            if base in ("mov", "cvt") and len(ops) == 2:
                return is_m(a, m), is_t(a, t), is_r(a, r), is_l(a, l)
            if base == "not" and len(ops) == 2:
                return False, is_r(a, r), is_t(a, t), False      # ~x = -1 - x
            if base == "add" and b:
                return (is_m(a, m) and is_m(b, m),
                        is_t(a, t) and is_m(b, m) or is_m(a, m) and is_t(b, t),
                        is_r(a, r) and is_m(b, m) or is_m(a, m) and is_r(b, r),
                        is_l(a, l) and is_m(b, m) or is_m(a, m) and is_l(b, l))
            if base == "sub" and b:
                whole = remainder.get(b) == self.canonical(a, defined)
                return (whole or is_m(a, m) and is_m(b, m), is_t(a, t) and is_m(b, m),
                        is_r(a, r) and is_m(b, m) or is_l(a, l) and is_t(b, t),
                        is_l(a, l) and is_m(b, m) or is_m(a, m) and is_one_more(b))
            if base == "mul" and b:
                return any(is_m(x, m) or is_size(x) for x in (a, b)), False, False, False
            if base == "mad" and len(ops) == 4:
                product = any(is_m(x, m) or is_size(x) for x in (a, b))
                return (product and is_m(ops[3], m), product and is_t(ops[3], t),
                        product and is_r(ops[3], r), product and is_l(ops[3], l))
            if base == "shl" and b:
                shift = number(b)
                return (is_m(a, m) or group != "ntid" and shift is not None and (1 << shift) % group == 0,
                        False, False, False)
            if base == "and" and b:
                return is_m(a, m) or is_m(b, m), False, False, False
            return False, False, False, False

        # The largest sets that every definition keeps: a loop's index that starts in T and
        # steps by a multiple stays in T.
        sets = [set(defined) for _ in range(4)]
        while True:
            new = [{name for name in sets[k] if all(gives(ins, *sets)[k] for ins in defined[name])}
                   for k in range(4)]
            if new == sets:
                m, t, r, l = sets
                return (lambda x: is_m(x, m)), (lambda x: is_t(x, t)), (lambda x: is_r(x, r)), \
                    (lambda x: is_l(x, l))
            sets = new

    def uniform_instructions(self, level):
        """The instructions whose result is the same in every thread of the group (the
        block or the warp) although they read threadIdx.x."""
        groups = [WARP_SIZE] if level == "warp" else ["ntid"] + ([self.block_limit] if self.block_limit else [])
        uniform = set()
        for group in groups:
            is_m, is_t, is_r, is_l = self.multiples(group)
            # A power of two divides 2^32 and 2^64: m*B - 1 - i stays k*B plus a number below
            # B when the arithmetic wraps (m = 0: ~i), and the low bits of k*B are zero.
            power_of_two = group != "ntid" and group & (group - 1) == 0

            def within(operand):
                """k*B plus a number from 0 to B - 1, with the same k in the whole group"""
                return is_t(operand) or power_of_two and is_r(operand)

            for ins in self.instructions:
                parts = ins.opcode.split(".")
                ops = ins.operands
                if parts[0] == "setp" and len(parts) > 1 and len(ops) == 3:
                    a, b, compare = ops[1], ops[2], parts[1]
                    below = compare in ("lt", "lo", "ge", "hs")
                    above = compare in ("gt", "hi", "le", "ls")
                    if below and (within(a) and is_m(b) or is_l(a) and within(b)) or \
                            above and (is_m(a) and within(b) or within(a) and is_l(b)):
                        uniform.add(id(ins))
                elif power_of_two and len(ops) == 3 and within(ops[1]) and number(ops[2]) is not None:
                    # (k*B + r) / 2^s with 2^s a multiple of B, and (k*B + r) & (a multiple
                    # of B), do not depend on r
                    operand = number(ops[2])
                    if parts[0] == "shr" and operand >= 0 and (1 << operand) % group == 0 or \
                            parts[0] == "div" and operand > 0 and operand % group == 0 or \
                            parts[0] == "and" and operand % group == 0:
                        uniform.add(id(ins))
        return uniform

    def constants(self, name):
        """The values a register is given, when every definition is a mov of a number."""
        values = set()
        for ins in self.instructions:
            if name in self.destinations(ins):
                if not ins.opcode.startswith("mov") or len(ins.operands) != 2:
                    return None
                value = number(ins.operands[1])
                if value is None:
                    return None
                values.add(value & FULL_MASK)
        return values or None

    # ---- basic blocks and post-dominators ----------------------------------------------
    def blocks(self):
        starts = {0} | set(self.labels.values())
        for i, ins in enumerate(self.instructions):
            if re.match(r"^(bra|ret|exit|brx)\b", ins.opcode):
                starts.add(i + 1)
        starts = sorted(s for s in starts if s <= len(self.instructions))
        block_of, ranges = {}, []
        for b, start in enumerate(starts):
            end = starts[b + 1] if b + 1 < len(starts) else len(self.instructions)
            ranges.append((start, end))
            for i in range(start, end):
                block_of[i] = b
        successors = []
        for b, (start, end) in enumerate(ranges):
            following = b + 1 if b + 1 < len(ranges) else EXIT
            last = self.instructions[end - 1] if end > start else None
            nexts = set()
            if last is None:
                nexts.add(following)
            elif last.opcode.startswith("bra"):
                target = last.operands[0].strip() if last.operands else ""
                nexts.add(block_of.get(self.labels.get(target, -1), EXIT))
                if last.guard:
                    nexts.add(following)
            elif re.match(r"^(ret|exit)\b", last.opcode):
                nexts.add(EXIT)
                if last.guard:
                    nexts.add(following)
            else:
                nexts.add(following)
            successors.append(nexts)
        return ranges, block_of, successors

    @staticmethod
    def post_dominators(successors):
        everything = set(range(len(successors))) | {EXIT}
        pdom = {b: set(everything) for b in range(len(successors))}
        pdom[EXIT] = {EXIT}
        changed = True
        while changed:
            changed = False
            for b in reversed(range(len(successors))):
                meet = set(everything)
                for s in successors[b]:
                    meet &= pdom[s]
                new = {b} | meet
                if new != pdom[b]:
                    pdom[b], changed = new, True
        return pdom


def number(text):
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        match = re.fullmatch(r"0[xX]([0-9a-fA-F]+)", text)
        return int(match.group(1), 16) if match else None


def parse(text):
    """The kernels (.entry) of a PTX file, with nested { } scopes renamed apart."""
    named = re.search(r'^\s*\.file\s+1\s+"([^"]+)"', text, re.MULTILINE)
    if named:
        Instruction.source_file = named.group(1).rsplit("/", 1)[-1]
    kernels, kernel, depth, scopes, source = [], None, 0, [], ""
    for line_number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("//", 1)[0].strip()
        entry = re.match(r"^\.(visible\s+)?\.entry\s+([\w$]+)", line)
        if entry:
            kernel = Kernel(entry.group(2))
            kernels.append(kernel)
            continue
        if kernel is None:
            continue
        limit = re.match(r"^\.(maxntid|reqntid)\s+(\d+)", line)
        if limit:
            kernel.block_limit = int(limit.group(2))
            continue
        location = re.match(r"^\.loc\s+(\d+)\s+(\d+)", line)
        if location:
            source = location.group(2) if location.group(1) == "1" and location.group(2) != "0" else source
            continue
        for piece in re.split(r"(?<=[;{}])", line):
            piece = piece.strip()
            if not piece:
                continue
            if piece.startswith("{"):
                depth += 1
                scopes.append({})
                piece = piece[1:].strip()
                if not piece:
                    continue
            if piece.startswith("}"):
                depth -= 1
                if scopes:
                    scopes.pop()
                if depth == 0:
                    kernel = None
                    break
                continue
            label = re.match(r"^([\w$]+):$", piece)
            if label:
                kernel.labels[label.group(1)] = len(kernel.instructions)
                continue
            declaration = re.match(r"^\.reg\s+\.\w+\s+(.*);$", piece)
            if declaration:
                if depth > 1:
                    for name in re.findall(r"%[\w$]+", declaration.group(1)):
                        scopes[-1][name] = f"{name}_s{line_number}"
                continue
            if piece.startswith(".") or not piece.endswith(";"):
                continue
            for scope in reversed(scopes[1:]):
                for name, renamed in scope.items():
                    piece = re.sub(re.escape(name) + r"\b", renamed, piece)
            body = piece[:-1].strip()
            guard = re.match(r"^@(!?)(%[\w$]+)\s+", body)
            if guard:
                body = body[guard.end():]
            opcode, rest = re.match(r"(\S+)\s*(.*)", body).groups()
            operands = [o.strip() for o in rest.split(",")] if rest else []
            kernel.instructions.append(Instruction(line_number, guard.group(2) if guard else None, opcode,
                                                   operands, source))
    return kernels


# ---- the checks ---------------------------------------------------------------------------
def partly_reached(kernel, level, wanted):
    """(instruction, the branch or guard that splits the group) for each instruction `wanted`
    picks that some threads of the group (a block or a warp) may skip: guarded by a predicate
    that differs between them, or in a basic block that is control-dependent on a branch on
    such a predicate (it post-dominates one side of the branch but not the branch), or on a
    branch inside such a block. Branches on values the whole group shares split nobody."""
    variant = kernel.variant_registers(level)
    ranges, block_of, successors = kernel.blocks()
    pdom = kernel.post_dominators(successors)

    def dependent_on(x):
        strict = pdom[x] - {x}
        return set().union(*(pdom[s] - strict for s in successors[x])) - {EXIT}

    def branch_of(b):
        start, end = ranges[b]
        last = kernel.instructions[end - 1] if end > start else None
        return last if last is not None and re.match(r"^(bra|ret|exit)\b", last.opcode) and last.guard else None

    partial, todo = {}, []
    for b in range(len(ranges)):
        branch = branch_of(b)
        if branch is not None and branch.guard in variant:
            todo.append((b, branch))
    while todo:
        x, cause = todo.pop()
        for b in dependent_on(x):
            if b in partial:
                continue
            partial[b] = cause
            if branch_of(b) is not None:
                todo.append((b, cause))
    found = []
    for i, ins in enumerate(kernel.instructions):
        if not wanted(ins):
            continue
        if ins.guard in variant:
            found.append((ins, None))
        elif block_of[i] in partial:
            found.append((ins, partial[block_of[i]]))
    return found


def unreached_barriers(kernel):
    """Barriers (bar.sync, bar.red) that some threads of the block may skip."""
    findings = []
    for ins, cause in partly_reached(kernel, "block", lambda i: BLOCK_BARRIER.match(i.opcode)):
        if cause is None:
            findings.append(f"{ins.opcode} at {ins.where()} runs only where a thread-dependent condition holds")
        else:
            findings.append(f"{ins.opcode} at {ins.where()} is skipped by the threads that the branch at "
                            f"{cause.where()} (a thread-dependent condition) sends past it")
    return findings


def partial_warps(kernel):
    """Warp instructions that name the whole warp (shfl.sync, bar.warp.sync, vote.sync, ...)
    and that some lanes of a warp may not reach: the lanes the mask names must all execute
    the same instruction (PTX ISA, shfl.sync and bar.warp.sync: the behaviour is undefined
    when a lane in the mask does not)."""
    findings = []
    for ins, cause in partly_reached(kernel, "warp", lambda i: WARP_SYNCING.match(i.opcode)):
        if cause is None:
            findings.append(f"{ins.opcode} at {ins.where()} runs only in the lanes where a lane-dependent "
                            f"condition holds, and its mask names the whole warp")
        else:
            findings.append(f"{ins.opcode} at {ins.where()} is reached by only part of the warp: the branch "
                            f"at {cause.where()} (a condition that differs between the lanes of a warp) "
                            f"sends some lanes past it, and its mask names the whole warp")
    return findings


def partial_masks(kernel):
    findings = []
    defined = kernel.definitions()
    for ins in kernel.instructions:
        if not WARP_SYNCING.match(ins.opcode) or not ins.operands:
            continue
        mask = ins.operands[-1]              # the member mask comes last in every one of them
        value = number(mask)
        values = {value & FULL_MASK} if value is not None else kernel.constants(mask)
        if values != {FULL_MASK}:
            findings.append(f"{ins.opcode} at {ins.where()} has {mask_source(kernel, mask, values, defined)}: "
                            f"every lane must take part (0xffffffff)")
    return findings


def mask_source(kernel, mask, values, defined):
    """What a mask operand holds, in words: its constants, __activemask(), or a value computed
    at run time (no register name: the same mistake at other lines reads the same)."""
    if values:
        return "the mask " + ", ".join(f"0x{v:08x}" for v in sorted(values))
    root = kernel.canonical(mask, defined)
    if any(ins.opcode.startswith("activemask") for ins in defined.get(root, [])):
        return ("the mask that __activemask() gives (activemask.b32), the lanes active at that moment, "
                "which need not be all 32")
    return "a mask computed at run time, not a constant"


def short_name(kernel):
    """_Z17reduce_last_blockILj256ELi0EEvPKfmPfPjS2_ -> reduce_last_block<256, 0>"""
    match = re.match(r"_Z(\d+)", kernel.name)
    if not match:
        return kernel.name
    start = match.end()
    name = kernel.name[start:start + int(match.group(1))]
    arguments = re.findall(r"L(?:\d*[a-z_]+?)?(\d+)E", kernel.name[start + len(name):].split("EE", 1)[0] + "E")
    return f"{name}<{', '.join(arguments)}>" if arguments else name


def template_argument(kernel, index):
    """The template arguments of a mangled kernel name: ILj256ELi0EE -> ['j256', 'i0']."""
    inside = re.search(r"I(.*)E", kernel.name)
    return re.findall(r"L([a-z0-9_]+?)(\d+)E", inside.group(1))[index] if inside else None


def ticket_order(kernel, variant_name, lab_hint):
    """The last-block guard: the block's sum released before its ticket, the others' sums
    acquired after it, by fences or by the ticket's own memory order."""
    tickets = [i for i, ins in enumerate(kernel.instructions) if TICKET.match(ins.opcode)]
    if not tickets:
        return [f"{variant_name} takes no ticket: no atomic add on the counter "
                f"({lab_hint})"]
    findings = []
    split = {id(ins) for ins, _ in partly_reached(kernel, "block", lambda i: FENCE.match(i.opcode))}
    for t in tickets:
        ticket = kernel.instructions[t]
        ordered = ORDER_RELEASE.search(ticket.opcode) and not NARROW_SCOPE.search(ticket.opcode)
        before = kernel.instructions[:t]
        stores = [i for i, ins in enumerate(before) if ins.opcode.startswith("st.global")]
        after_store = before[stores[-1] + 1:] if stores else before
        if not ordered and not any(FENCE.match(ins.opcode) for ins in after_store):
            findings.append(f"{variant_name}: no fence between writing the block sum and taking the ticket "
                            f"({ticket.opcode} at {ticket.where()}): __threadfence() (membar.gl) must come "
                            f"before the atomicAdd")
        acquired = ORDER_ACQUIRE.search(ticket.opcode) and not NARROW_SCOPE.search(ticket.opcode)
        if not acquired:
            findings += acquire_findings(kernel, t, variant_name, split)
    return findings


def acquire_findings(kernel, t, variant_name, split, no_acquire=None):
    """The acquire after the ticket, in every thread that reads the other blocks' sums: a fence
    between the ticket and a barrier that comes before the reads (the barrier passes the
    order on to the whole block), or a fence after the last such barrier that every thread
    of the block runs. A fence orders only the memory operations of the thread that runs it
    (CUDA C++ Programming Guide, "Memory Fence Functions"). no_acquire: what to say when
    nothing acquires (default: the fence variant's remedy)."""
    ticket = kernel.instructions[t]
    later = kernel.instructions[t + 1:]
    loads = [i for i, ins in enumerate(later) if ins.opcode.startswith("ld.global") or
             ins.opcode.startswith("ld.acquire")]
    up_to_load = later[:loads[0] + 1] if loads else later
    fences = [i for i, ins in enumerate(up_to_load) if FENCE.match(ins.opcode) or ".acquire" in ins.opcode]
    barriers = [i for i, ins in enumerate(up_to_load) if BLOCK_BARRIER.match(ins.opcode)]
    if not fences:
        return [no_acquire or f"{variant_name}: no fence between taking the ticket ({ticket.opcode} at "
                f"{ticket.where()}) and reading the other blocks' sums: __threadfence() after the ticket "
                f"(an acquire)"]
    if not barriers or fences[0] < barriers[-1]:
        return []                        # the ticket's thread reads, or a barrier passes it on
    if any(id(up_to_load[f]) not in split for f in fences if f > barriers[-1]):
        return []                        # every thread fences after the last barrier
    fence, read = up_to_load[fences[0]], up_to_load[loads[0]] if loads else None
    return [f"{variant_name}: the fence after the ticket ({fence.opcode} at {fence.where()}) runs in only "
            f"some threads, after the barrier ({up_to_load[barriers[-1]].opcode} at "
            f"{up_to_load[barriers[-1]].where()}): the other threads read the other blocks' sums"
            f"{f' ({read.opcode} at {read.where()})' if read else ''} with no fence of their own; fence "
            f"before the barrier, or in every thread"]


def lab05(kernels):
    findings = []
    for kernel in kernels:
        argument = template_argument(kernel, 1)
        if not kernel.name.startswith("_Z17reduce_last_block") or argument is None:
            continue
        variant = int(argument[1])
        if variant == 0:
            findings += ticket_order(kernel, "the fence variant (TODO(lab5) A)", "TODO(lab5) A is not written")
        elif variant == 1:
            findings += atomic_ref_order(kernel)
    return findings


# What a ticket's PTX says of the cuda::atomic_ref it was taken on: atom.add.<order>.<scope>.
# The atomicAdd functions write no order (relaxed), and a scope only when it is not the device.
PLAIN_ATOMICS = {None: "a plain atomicAdd", "gpu": "a plain atomicAdd", "cta": "atomicAdd_block",
                 "sys": "atomicAdd_system"}
SCOPES = ("cta", "gpu", "sys")          # cuda::thread_scope_block, _device, _system
ORDERS = {"relaxed": "memory_order_relaxed", "acquire": "memory_order_acquire",
          "release": "memory_order_release", "acq_rel": "memory_order_acq_rel"}
TASK_B_NEEDS = "task B needs acquire-release order at device scope"


def atomic_ref_order(kernel):
    """Task B: the ticket taken with one read-modify-write on a cuda::atomic_ref, no
    __threadfence(): device scope (the sums it orders are written by other blocks) and a
    memory order that releases this block's sum before the ticket and acquires the others'
    after it (acquire-release; or a release and an acquire fence after it, or seq_cst, which
    the compiler writes as a fence and an acquire). Each finding names the scope or the order
    the kernel gave its atomic_ref, and what task B needs."""
    name = "the atomic-ref variant (TODO(lab5) B)"
    tickets = [i for i, ins in enumerate(kernel.instructions) if TICKET.match(ins.opcode)]
    if not tickets:
        return [f"{name} takes no ticket: no atomic add on the counter (TODO(lab5) B is not written)"]
    findings = []
    split = {id(ins) for ins, _ in partly_reached(kernel, "block", lambda i: FENCE.match(i.opcode))}
    for t in tickets:
        ticket = kernel.instructions[t]
        qualifiers = ticket.opcode.split(".")
        order = next((q for q in qualifiers if q in ORDERS), None)
        scope = next((q for q in qualifiers if q in SCOPES), None)
        taken = f"{ticket.opcode} at {ticket.where()}"
        if order is None:
            findings.append(f"{name}: the ticket is {PLAIN_ATOMICS[scope]} ({taken}), which orders nothing: "
                            f"{TASK_B_NEEDS}, from a fetch_add on a cuda::atomic_ref")
        elif scope == "cta":
            findings.append(f"{name}: the ticket's cuda::atomic_ref has block scope (cuda::thread_scope_block: "
                            f"{taken}): its {ORDERS[order]} orders this block's threads only, and the sums it "
                            f"must order are written by the other blocks: {TASK_B_NEEDS}")
        elif order == "relaxed":
            findings.append(f"{name}: the ticket is a fetch_add with memory_order_relaxed ({taken}), which "
                            f"orders nothing: neither this block's sum before its ticket (release) nor the "
                            f"last block's reads of the other sums after it (acquire): {TASK_B_NEEDS}")
        else:
            before = kernel.instructions[:t]
            stores = [i for i, ins in enumerate(before) if ins.opcode.startswith("st.global")]
            after_store = before[stores[-1] + 1:] if stores else before
            released = order in ("release", "acq_rel") or any(FENCE.match(ins.opcode) for ins in after_store)
            if not released:
                findings.append(f"{name}: the ticket is a fetch_add with {ORDERS[order]} ({taken}), which "
                                f"does not release: nothing makes this block's sum visible before its ticket: "
                                f"{TASK_B_NEEDS}")
            if order not in ("acquire", "acq_rel"):
                findings += acquire_findings(
                    kernel, t, name, split,
                    f"{name}: the ticket is a fetch_add with {ORDERS[order]} ({taken}), which does not "
                    f"acquire, and no fence follows it: nothing keeps the last block's reads of the other "
                    f"blocks' sums after its ticket: {TASK_B_NEEDS} (or, after this release, an acquire "
                    f"cuda::atomic_thread_fence at device scope)")
    return findings


def lab04(kernels):
    return [f"{short_name(k)}: the warp's sum uses no shuffle (no shfl.sync): TODO(lab4) B asks for "
            f"__shfl_down_sync" for k in kernels
            if k.name.startswith("_Z14reduce_shuffle") and not any(i.opcode.startswith("shfl.sync")
                                                                 for i in k.instructions)]


def lab03(kernels):
    return [f"{short_name(k)}: the last warp (the syncwarp variant, TODO(lab3)) has no __syncwarp() "
            f"(bar.warp.sync) and no shuffle" for k in kernels
            if "last_warp0" in k.name and not any(WARP_SYNCING.match(i.opcode) for i in k.instructions)]


LESSONS = {"lab03": lab03, "lab04": lab04, "lab05": lab05}


# ---- the technique each lab teaches (the lesson column) ------------------------------------
# A kernel can be right and still skip what its lab is about; these read the PTX for the
# technique itself. Each looks only at code the student wrote: a hole left as the starter
# ships it (no loop, no load) is not read here (it fails --check instead).
TECHNIQUES = {
    "lab01": "whole warps busy or idle",
    "lab02": "sequential addressing and the first add during the load",
    "lab03": "every lane of the last warp working in each level",
    "lab04": "loads in flight, 64-bit indexing and the full mask",
    "lab05": "both fences, or the acquire-release order",
}


def loops(kernel):
    """(first, last) instruction indices of each loop: a branch back to a label above it."""
    found = []
    for i, ins in enumerate(kernel.instructions):
        if ins.opcode.startswith("bra") and ins.operands:
            target = kernel.labels.get(ins.operands[0].strip())
            if target is not None and target <= i:
                found.append((target, i))
    return found


def tree_loops(kernel):
    """The loops of the block's tree: a barrier and a shared-memory load inside."""
    return [(a, b) for a, b in loops(kernel)
            if any(BLOCK_BARRIER.match(i.opcode) for i in kernel.instructions[a:b + 1]) and
            any(i.opcode.startswith("ld.shared") for i in kernel.instructions[a:b + 1])]


def thread_operand(operand, variant):
    return operand in variant or bool(THREAD_REGISTERS.search(operand))


def modulo_tests(kernel):
    """lab01: rem (or and) of a thread-dependent value by one that changes with the level,
    inside the tree's loop: step01's t % (2*len) == 0."""
    variant = kernel.variant_registers("block")
    findings = []
    for a, b in tree_loops(kernel):
        defined_inside = {n for i in kernel.instructions[a:b + 1] for n in kernel.destinations(i)}
        for ins in kernel.instructions[a:b + 1]:
            base = ins.opcode.split(".")[0]
            if base in ("rem", "and") and len(ins.operands) == 3 and \
                    thread_operand(ins.operands[1], variant) and ins.operands[2] in defined_inside:
                findings.append(f"{short_name(kernel)}: the tree's working threads are chosen by a per-thread "
                                f"modulo test ({ins.opcode} at {ins.where()}, t % (2*len) == 0 as in step01): "
                                f"the working threads are scattered over every warp, which lab01 asks you to "
                                f"pack into the lowest warps (an index such as 2*len*t, so that whole warps "
                                f"are busy or idle)")
    return findings


def strided_tree(kernel):
    """lab02: the tree's shared-memory index a product of the thread's index and a value that
    changes with the level (2*len*t), not t + len."""
    variant = kernel.variant_registers("block")
    findings = []
    for a, b in tree_loops(kernel):
        defined_inside = {n for i in kernel.instructions[a:b + 1] for n in kernel.destinations(i)}
        for ins in kernel.instructions[a:b + 1]:
            base = ins.opcode.split(".")[0]
            if base in ("mul", "mad", "shl") and len(ins.operands) >= 3:
                x, y = ins.operands[1], ins.operands[2]
                if thread_operand(x, variant) and y in defined_inside or \
                        thread_operand(y, variant) and x in defined_inside and base != "shl":
                    findings.append(f"{short_name(kernel)}: the tree indexes shared memory with a stride "
                                    f"({ins.opcode} at {ins.where()}: the thread's index times a value that "
                                    f"changes with the level, 2*len*t as in step02), which puts several lanes "
                                    f"of a warp on one bank: lab02 asks for sequential addressing, "
                                    f"partial[t] += partial[t + len] with len halving")
    return findings


def first_add_in_load(kernel):
    """lab02: two global loads added before the first shared store (the first add during the
    load). Nothing to say when the kernel loads nothing (the hole not written)."""
    ins = kernel.instructions
    if not any(i.opcode.startswith("ld.global") for i in ins):
        return []
    store = next((k for k, i in enumerate(ins) if i.opcode.startswith("st.shared")), len(ins))
    loaded = set()
    for i in ins[:store]:
        if i.opcode.startswith("ld.global"):
            loaded.update(kernel.destinations(i))
    adds = [i for i in ins[:store] if i.opcode.startswith("add.f") and
            sum(o in loaded for o in i.operands[1:]) >= 2]
    if len([i for i in ins[:store] if i.opcode.startswith("ld.global")]) >= 2 and adds:
        return []
    where = ins[store].where() if store < len(ins) else "the end"
    return [f"{short_name(kernel)}: no first add during the load: before the first shared store ({where}) "
            f"no two global loads are added (each thread stores one element and idles through the "
            f"tree): lab02 asks each thread to add two elements of its block's slice while loading them"]


def lane0_serial(kernel):
    """lab03: the last warp's sums added by one lane (lane 0 adds the 32 one after another)
    rather than by every lane at each level."""
    variant = kernel.variant_registers("warp")
    defined = kernel.definitions()

    def one_lane(predicate):
        for d in defined.get(predicate, []):
            parts = d.opcode.split(".")
            if parts[0] == "setp" and len(parts) > 1 and parts[1] in ("eq", "ne") and len(d.operands) == 3 and \
                    any(thread_operand(o, variant) for o in d.operands[1:]) and \
                    any(number(o) is not None for o in d.operands[1:]):
                return True
        return False

    adds = []
    for ins, cause in partly_reached(kernel, "warp", lambda i: i.opcode.startswith("add.f")):
        guard = ins.guard if cause is None else cause.guard
        if guard and one_lane(guard):
            adds.append(ins)
    in_loop = any(a <= kernel.instructions.index(x) <= b for x in adds for a, b in loops(kernel))
    if len(adds) >= 2 or in_loop:
        return [f"{short_name(kernel)}: one lane adds the last warp's sums one after another ({len(adds)} "
                f"adds behind a one-lane test, from {adds[0].where()}) while the other lanes wait: lab03 asks "
                f"every lane of the last warp to work in each level (len = 16, 8, 4, 2, 1)"]
    return []


def grid_stride(kernel):
    """lab04: in the loop that loads the input, the index in 64-bit registers (no 32-bit
    value widened at every trip) and several loads issued before the first add that uses
    them."""
    findings = []
    for a, b in loops(kernel):
        body = kernel.instructions[a:b + 1]
        if not any(i.opcode.startswith("ld.global") for i in body):
            continue
        defined_inside = {n for i in body for n in kernel.destinations(i)}
        for i in body:
            if re.match(r"^cvt\.[su]64\.[su]32$", i.opcode) and i.operands[1] in defined_inside:
                findings.append(f"{short_name(kernel)}: the grid-stride loop's index is 32-bit ({i.opcode} at "
                                f"{i.where()} widens it at every trip): it wraps past 2^31 or 2^32 elements; "
                                f"lab04 asks for a 64-bit index and stride (size_t)")
                break
        loaded, issued, first_use = set(), 0, None
        for i in body:
            if i.opcode.startswith("ld.global"):
                loaded.update(kernel.destinations(i))
                issued += 1
            elif i.opcode.startswith("add.f") and any(o in loaded for o in i.operands[1:]):
                first_use = i
                break
        if first_use is not None and issued < 2:
            findings.append(f"{short_name(kernel)}: no loads in flight: the grid-stride loop adds each element "
                            f"as soon as it is loaded ({first_use.opcode} at {first_use.where()} after one "
                            f"ld.global), so every add waits for its load: lab04 asks for several loads "
                            f"(LOADS_IN_FLIGHT) issued before the first add")
    return findings


def technique_lab01(kernels):
    return [f for k in kernels for f in modulo_tests(k)]


def technique_lab02(kernels):
    chosen = [k for k in kernels if "Lb1E" not in k.name]          # not plan A's kernel
    return [f for k in chosen for f in strided_tree(k) + first_add_in_load(k)]


def technique_lab03(kernels):
    return [f for k in kernels if "last_warp0" in k.name for f in lane0_serial(k)]


def technique_lab04(kernels):
    found = []
    for k in kernels:
        if k.name.startswith("_Z14reduce_shuffle"):
            found += grid_stride(k)
            found += [f"{short_name(k)}: {f}" for f in partial_masks(k)]
    return found


def technique_lab05(kernels):
    # Task A's fences and task B's order, as lab05() reads them; a hole left unwritten
    # (no ticket) is not a shortcut but missing code.
    return [f for f in lab05(kernels) if "takes no ticket" not in f]


TECHNIQUE_CHECKS = {"lab01": technique_lab01, "lab02": technique_lab02, "lab03": technique_lab03,
                    "lab04": technique_lab04, "lab05": technique_lab05}


def deduplicated(findings):
    """One line per mistake: the same finding in other instantiations of a template, or at
    other lines of the same code, is counted, not repeated."""
    counts, kept = {}, []
    for finding in findings:
        key = re.sub(r"[\w.-]+\.cu:\d+|PTX line \d+", "@", re.sub(r"<[^<>]*>", "<>", finding))
        if key not in counts:
            counts[key] = 0
            kept.append((key, finding))
        counts[key] += 1
    return [finding + (f" (and {counts[key] - 1} more like it)" if counts[key] > 1 else "")
            for key, finding in kept]


def main(arguments):
    if len(arguments) != 2 or not re.fullmatch(r"lab\d\d", arguments[0]):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        with open(arguments[1], encoding="utf-8") as ptx:
            kernels = parse(ptx.read())
    except OSError as error:
        print(f"lesson.py: {error}", file=sys.stderr)
        return 2
    if not kernels:
        print(f"lesson.py: no kernel (.entry) in {arguments[1]}", file=sys.stderr)
        return 2
    barriers, masks = [], []
    for kernel in kernels:
        barriers += [f"a barrier that not every thread of the block reaches, in {short_name(kernel)}: {f}" for f in unreached_barriers(kernel)]
        masks += [f"a warp instruction with a partial mask, in {short_name(kernel)}: {f}" for f in partial_masks(kernel)]
        masks += [f"a warp instruction that part of the warp skips, in {short_name(kernel)}: {f}" for f in partial_warps(kernel)]
    lesson = LESSONS.get(arguments[0], lambda _: [])(kernels)
    findings = deduplicated(barriers + masks + lesson)
    for finding in findings:
        print(f"missing: {finding}")
    if not findings:
        print(f"ok: {len(kernels)} kernels: every barrier reached by the whole block, every warp "
              f"instruction with the full mask and reached by the whole warp"
              + (f", {arguments[0]}'s required instructions in place" if arguments[0] in LESSONS else "")
              + " (the PTX shows neither races nor wrong sums)")
    technique = TECHNIQUES.get(arguments[0])
    skipped = deduplicated(TECHNIQUE_CHECKS[arguments[0]](kernels)) if technique else []
    for finding in skipped:
        print(f"lesson: {technique}: {finding}")
    if technique and not skipped:
        print(f"lesson passed: {technique}")
    return 1 if findings or skipped else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
