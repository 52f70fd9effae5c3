#!/usr/bin/env python3
"""Reads a lab kernel's PTX and says whether the instructions its lesson requires are there.

    python3 labs/lesson.py LAB KERNEL.ptx

A GPU that forgives a mistake cannot show it: a missing fence, a shuffle with a partial mask
or a barrier that some threads skip may give the right sum on every run of one GPU. The PTX
names what the kernel asks of the memory model and of the warp, so this reads it (no GPU
needed). Every lab is checked for:

  - barriers (bar.sync, bar.red: __syncthreads and its _or/_and/_count forms) that every
    thread of the block reaches: none may sit behind a branch on a thread-dependent value
    (threadIdx, a lane, a value loaded through one) that lets some threads go past it;
  - a full mask (0xffffffff) on every shuffle, __syncwarp() and warp vote;

and each lab for what its lesson adds (LESSONS below). Prints one line per finding,
"missing: ..." or "ok: ...", and exits 0 when nothing is missing, 1 when something is, 2 when
it cannot read the PTX or the lab is unknown.
"""
import re
import sys

FULL_MASK = 0xFFFFFFFF
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

    # ---- which values differ between the threads of a block ---------------------------
    def destinations(self, ins):
        if not ins.operands or re.match(r"^(st|red|bar\.warp|bra|ret|exit|membar|fence|call|prefetch)\b",
                                        ins.opcode) or re.match(r"^bar(rier)?(\.cta)?\.sync", ins.opcode):
            return []
        return [name for name in re.findall(r"%[\w$]+", ins.operands[0])]

    def sources(self, ins):
        first = 0 if not self.destinations(ins) else 1
        return [name for operand in ins.operands[first:] for name in re.findall(r"%[\w$]+", operand)]

    def varies(self, ins, variant):
        """Does this instruction's result differ between the threads of a block?"""
        if ins.guard and ins.guard in variant:
            return True
        if BLOCK_BARRIER.match(ins.opcode):
            return False                 # bar.red gives every thread of the block one answer
        if re.match(r"^(atom|shfl|vote|match|redux|activemask|call)\b", ins.opcode):
            return True
        text = " ".join(ins.operands[1:])
        if THREAD_REGISTERS.search(text):
            return True
        return any(name in variant for name in self.sources(ins))

    def variant_registers(self):
        variant, changed = set(), True
        while changed:
            changed = False
            for ins in self.instructions:
                if self.varies(ins, variant):
                    for name in self.destinations(ins):
                        if name not in variant:
                            variant.add(name)
                            changed = True
        return variant

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
def unreached_barriers(kernel):
    """Barriers some threads of the block may skip: in a block that is control-dependent on a
    thread-dependent branch (it post-dominates one side of the branch but not the branch), or
    on a branch inside such a block, or guarded by a thread-dependent predicate. Branches on
    values every thread shares (blockDim, a loop over it, __syncthreads_or) split nobody."""
    variant = kernel.variant_registers()
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
    findings = []
    for i, ins in enumerate(kernel.instructions):
        if not BLOCK_BARRIER.match(ins.opcode):
            continue
        if ins.guard in variant:
            findings.append(f"{ins.opcode} at {ins.where()} runs only where a thread-dependent condition holds")
        elif block_of[i] in partial:
            findings.append(f"{ins.opcode} at {ins.where()} is skipped by the threads that the branch at "
                            f"{partial[block_of[i]].where()} (a thread-dependent condition) sends past it")
    return findings


def partial_masks(kernel):
    findings = []
    for ins in kernel.instructions:
        if not WARP_SYNCING.match(ins.opcode) or not ins.operands:
            continue
        mask = ins.operands[-1]              # the member mask comes last in every one of them
        value = number(mask)
        values = {value & FULL_MASK} if value is not None else kernel.constants(mask)
        if values != {FULL_MASK}:
            shown = ", ".join(f"0x{v:08x}" for v in sorted(values)) if values else f"{mask}, not a constant"
            findings.append(f"{ins.opcode} at {ins.where()} has the mask {shown}: every lane must take part "
                            f"(0xffffffff)")
    return findings


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
        later = kernel.instructions[t + 1:]
        loads = [i for i, ins in enumerate(later) if ins.opcode.startswith("ld.global") or
                 ins.opcode.startswith("ld.acquire")]
        up_to_load = later[:loads[0] + 1] if loads else later
        if not acquired and not any(FENCE.match(ins.opcode) or ".acquire" in ins.opcode for ins in up_to_load):
            findings.append(f"{variant_name}: no fence between taking the ticket ({ticket.opcode} at "
                            f"{ticket.where()}) and reading the other blocks' sums: __threadfence() after "
                            f"the ticket (an acquire)")
    return findings


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
            found = ticket_order(kernel, "the atomic-ref variant (TODO(lab5) B)", "TODO(lab5) B is not written")
            plain = [t for t in kernel.instructions if TICKET.match(t.opcode) and
                     not (ORDER_RELEASE.search(t.opcode) or ORDER_ACQUIRE.search(t.opcode))]
            if plain:
                found.append(f"the atomic-ref variant (TODO(lab5) B): the ticket is a "
                             f"plain atomicAdd ({plain[0].opcode} at {plain[0].where()}), not a fetch_add with "
                             f"a memory order on a device-scope cuda::atomic_ref (atom.add.acq_rel.gpu)")
            findings += found
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


def deduplicated(findings):
    """One line per mistake: the same finding in other instantiations of a template is
    counted, not repeated."""
    counts, kept = {}, []
    for finding in findings:
        key = re.sub(r"<[^<>]*>", "<>", finding)
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
    lesson = LESSONS.get(arguments[0], lambda _: [])(kernels)
    findings = deduplicated(barriers + masks + lesson)
    for finding in findings:
        print(f"missing: {finding}")
    if not findings:
        print(f"ok: {len(kernels)} kernels: every barrier reached by the whole block, every warp "
              f"instruction with the full mask" + (f", {arguments[0]}'s instructions present"
                                                  if arguments[0] in LESSONS else ""))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
