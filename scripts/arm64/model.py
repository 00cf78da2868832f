#!/usr/bin/env python3
"""The table of scripts/arm64/model.sh: llvm-mca's model of the resampler's tap loops.

Takes the assembly model.sh compiled (.build/arm64/asm/*.s), finds in each kernel function its
innermost loops (a label, and a branch back to it further down with no other loop's back branch
in between), picks each kernel's tap loop among them by how many multiply-add lanes it holds,
runs llvm-mca on that loop's instructions and turns cycles per iteration into cycles per
multiply-add ("per tap per output lane") and nanoseconds per output sample.

A model of the inner loop on one core: no caches, no branch misses, no work outside the loop.
"""
import argparse
import math
import os
import re
import subprocess
import sys

# Outputs per group table (GroupTables.lanes).
LANES = 16


# ---------------------------------------------------------------------------------------------
# Taps per output: what the balanced preset's kernels multiply-add per output sample.

def group_width(taps, up, down, lanes=LANES):
    """GroupTables.width for `up : down` (output : input, lowest terms): taps plus the furthest
    window start in any group, span = max over start phases q of (q + (lanes - 1) * down) // up.

    The start phases are the orbit of phase0 under q -> (q + lanes * down) % up, i.e. the
    residues phase0 + k * g with g = gcd(up, lanes * down % up). phase0 (from the latency) is
    not needed when every residue class gives the same span; the range is returned otherwise.
    """
    advance = lanes * down % up
    g = math.gcd(up, advance) if advance else up
    spans = set()
    for r in range(g):
        spans.add(max((q + (lanes - 1) * down) // up for q in range(r, up, g)))
    return taps + min(spans), taps + max(spans)


def upsample_steps(taps, up, down):
    """UpsampleTable.steps: taps + (up - 1) * down // up."""
    return taps + (up - 1) * down // up


def upsample_passes(count, lanes, up, most, phase=0):
    """Blocks per pass size in one call of the direct-form upsampler (upsample.c's and
    neon_resample.c's run, down 1): passes of `most` blocks while two or more passes' worth is
    left, what is left between one and two passes' worth in halves, the rest in one."""
    blocks = -(-(phase + count) // (lanes * up))
    done, b = {}, 0
    while b < blocks:
        left = blocks - b
        m = left if left <= most else (left + 1) // 2 if left < 2 * most else most
        done[m] = done.get(m, 0) + m
        b += m
    return done


# ---------------------------------------------------------------------------------------------
# Assembly.

class Loop:
    def __init__(self, func, label, lines, arch, blocks):
        self.func = func
        self.label = label
        self.arch = arch
        self.blocks = blocks  # labels inside (1: a single basic block)
        self.instrs = lines
        self.macs = sum(mac_lanes(i, arch) for i in lines)
        self.planes = input_planes(lines, arch)

    def __repr__(self):
        return f"{self.func}:{self.label} ({len(self.instrs)} instrs, {self.macs} MAC lanes)"


def strip(line, arch):
    if arch == "arm64":
        line = line.split("//")[0]
    else:
        line = line.split("#")[0]
    return line.rstrip()


def parse_functions(path, arch):
    """Function name -> its lines (labels and instructions, comments and directives dropped)."""
    text = open(path).read().splitlines()
    names = set()
    for line in text:
        m = re.match(r"\s*\.type\s+([^,\s]+),\s*[@%]function", line)
        if m:
            names.add(m.group(1))
    funcs, cur = {}, None
    for raw in text:
        m = re.match(r"^([^\s:]+):", raw)
        if m and m.group(1) in names:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur is None:
            continue
        if re.match(r"^\.Lfunc_end", raw):
            cur = None
            continue
        line = strip(raw, arch)
        if not line.strip():
            continue
        if re.match(r"^\.?L?\w[\w.$]*:", line.strip()) and not line.startswith(("\t", " ")):
            funcs[cur].append(("label", line.strip()[:-1] if line.strip().endswith(":")
                               else line.strip().split(":")[0]))
            continue
        s = line.strip()
        if s.startswith("."):
            continue  # a directive
        funcs[cur].append(("instr", s))
    return funcs


def branch_target(instr, arch):
    parts = instr.replace(",", " ").split()
    if not parts:
        return None
    op = parts[0]
    if arch == "arm64":
        if op == "b" or op.startswith("b.") or op in ("cbz", "cbnz", "tbz", "tbnz"):
            return parts[-1]
    else:
        if op.startswith("j"):
            return parts[-1]
    return None


def innermost_loops(func, lines, arch):
    """Loops as (label index, back-branch index) with no other loop inside."""
    loops = []
    labels = {}
    for i, (kind, text) in enumerate(lines):
        if kind == "label":
            labels[text] = i
    for j, (kind, text) in enumerate(lines):
        if kind != "instr":
            continue
        t = branch_target(text, arch)
        if t in labels and labels[t] < j:
            loops.append((labels[t], j))
    inner = []
    for a, b in loops:
        if any((a <= c and d <= b) and (c, d) != (a, b) for c, d in loops):
            continue
        body = [text for kind, text in lines[a + 1:b + 1] if kind == "instr"]
        blocks = 1 + sum(1 for kind, _ in lines[a + 1:b + 1] if kind == "label")
        inner.append(Loop(func, lines[a][1], body, arch, blocks))
    return inner


def mac_lanes(instr, arch):
    """Multiply lanes of one instruction: a vector fmla/fmul (one lane per float), else 0.
    In today's loop (FP_CONTRACT OFF) each product is an fmul followed by an fadd; with fused
    multiply-adds it is one fmla: either way one multiply per tap and output lane."""
    parts = instr.replace(",", " ").split()
    op = parts[0]
    if arch == "arm64":
        if op not in ("fmla", "fmul", "fmls"):
            return 0
        dest = parts[1]
        m = re.search(r"\.(\d+)([sdh])$", dest)
        if m:
            return int(m.group(1)) if m.group(2) == "s" else 0
        if re.match(r"z\d+\.s", dest):
            return 4  # SVE at 128 bits
        return 1 if dest.startswith("s") else 0
    # x86 (AT&T): the destination is the last operand.
    if not re.match(r"(v(fn?m(add|sub)(132|213|231)ps|mulps)|mulps)$", op):
        return 0
    dest = parts[-1]
    return {"%x": 4, "%y": 8, "%z": 16}.get(dest[:2], 0)


def input_planes(instrs, arch):
    """Distinct base registers of the loop's scalar and broadcast loads: the input planes a
    group loop reads one sample at a time (its table rows come as whole-register loads)."""
    bases = set()
    for i in instrs:
        parts = i.replace(",", " ").replace("{", " ").replace("}", " ").split()
        op = parts[0]
        m = re.search(r"\[(\w+)", i)
        if arch == "arm64":
            if op == "ld1r" and m:
                bases.add(m.group(1))
            elif op in ("ldr", "ldp", "ldur") and m and re.match(r"[sd]\d+$", parts[1]):
                bases.add(m.group(1))
        else:
            m = re.search(r"\((%\w+)", i)
            if m and (op.startswith("vbroadcastss") or op in ("movss", "vmovss")):
                bases.add(m.group(1))
    return len(bases)


# ---------------------------------------------------------------------------------------------
# llvm-mca.

def mca(loop, triple, cpu, iterations, mca_bin, keep):
    src = "\n".join("\t" + i for i in loop.instrs) + "\n"
    with open(keep, "w") as f:
        f.write(f"# {loop.func} {loop.label} ({loop.blocks} block(s))\n" + src)
    r = subprocess.run([mca_bin, f"-mtriple={triple}", f"-mcpu={cpu}",
                        f"-iterations={iterations}", keep],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"llvm-mca failed on {keep}: {r.stderr.strip()[:400]}")
    out = r.stdout
    open(keep[:-2] + ".mca.txt", "w").write(out)
    its = int(re.search(r"Iterations:\s+(\d+)", out).group(1))
    total = int(re.search(r"Total Cycles:\s+(\d+)", out).group(1))
    rthr = float(re.search(r"Block RThroughput:\s+([\d.]+)", out).group(1))
    return total / its, rthr


# ---------------------------------------------------------------------------------------------
# The kernels.

class Kernel:
    """One tap loop: `func` (a regex, full match) in `asm`, the multiply-add loop picked by
    `pick`: "max" (most multiply-add lanes) or "planes=N" (the one reading N input planes a sample
    at a time: a group loop over N planes, 16·N outputs per tap). `outputs`: outputs per tap
    (16 lanes times the planes or groups sharing each table row), for taps per iteration."""

    def __init__(self, key, name, asm, func, pick, outputs, arch="arm64"):
        self.key, self.name, self.asm, self.func = key, name, asm, func
        self.pick, self.outputs, self.arch = pick, outputs, arch
        self.loop = None
        self.cycles = self.rthr = None
        self.note = ""

    def find(self, funcs_by_asm):
        funcs = funcs_by_asm.get(self.asm)
        if funcs is None:
            self.note = f"no {self.asm}.s"
            return False
        cands = []
        for name, lines in funcs.items():
            if re.fullmatch(self.func, name):
                cands += [l for l in innermost_loops(name, lines, self.arch) if l.macs > 0]
        if not cands:
            self.note = f"no multiply-add loop in {self.func} ({self.asm}.s)"
            return False
        if self.pick.startswith("planes="):
            n = int(self.pick.split("=")[1])
            cands = [l for l in cands if l.planes == n]
            if not cands:
                self.note = f"no loop over {n} input plane(s) in {self.func} ({self.asm}.s)"
                return False
            if self.outputs is None:
                self.outputs = LANES * n
        best = max(cands, key=lambda l: (l.macs, -len(l.instrs)))
        self.loop = best
        return True

    @property
    def cpm(self):
        """Cycles per multiply-add: per tap per output lane."""
        return self.cycles / self.loop.macs

    @property
    def taps_per_iter(self):
        return self.loop.macs / self.outputs


def arm64_kernels(have_neon):
    K = Kernel
    ks = [
        K("base2", "today: group_lanes2 (fde15ab)", "base-arm64", r"pcmmix_core_group16x2", "planes=2", 32),
        K("base2s", "today: group_lanes2 in pcmmix_core_group16 (fde15ab)", "base-arm64",
          r"pcmmix_core_group16", "planes=2", 32),
        K("base1", "today: group_lanes1 (fde15ab)", "base-arm64", r"pcmmix_core_group16", "planes=1", 16),
        K("core2", "new portable: fused_group_lanes2", "core-arm64",
          r"fused_group_lanes2|pcmmix_core_group16x2", "planes=2", 32),
        K("core1", "new portable: fused_group_lanes1", "core-arm64",
          r"fused_group_lanes1|pcmmix_core_group16", "planes=1", 16),
    ]
    if have_neon:
        ks += [
            K("neonframes", "NEON: neon_group_frames (pcmmix_neon_group16 / _run, stereo)",
              "neon-arm64", r"neon_group_frames|pcmmix_neon_group16(_run)?", "planes=2", 32),
            K("neonpair", "NEON: neon_group_pair (pcmmix_neon_group16x2 / _run, mono: 2 groups per row load)",
              "neon-arm64", r"neon_group_pair|pcmmix_neon_group16x2", "planes=2", 32),
            K("neonone", "NEON: neon_group_one (a lone plane)", "neon-arm64",
              r"neon_group_one|pcmmix_neon_group16", "planes=1", 16),
        ]
        # The direct-form upsampler's 3:1 passes, one function per block count B (4 outputs
        # per block and phase): B·4·3 outputs per step.
        ks += [K(f"neonup{b}", f"NEON: neon_pass_3_1_{b} (pcmmix_neon_upsample_run, {b} blocks)",
                 "neon-arm64", rf"neon_pass_3_1_{b}", "max", b * 4 * 3) for b in range(1, 7)]
    # Not in the two workloads (interpolated tables, per-output paths): for reference.
    ks += [K("basedot2", "today: pcmmix_core_dot2 (fde15ab)", "base-arm64", r"pcmmix_core_dot2", "max", 2),
           K("coredot2", "new portable: pcmmix_core_dot2", "core-arm64", r"pcmmix_core_dot2", "max", 2)]
    if have_neon:
        ks += [K("neondot2", "NEON: pcmmix_neon_dot2", "neon-arm64", r"pcmmix_neon_dot2", "max", 2)]
    return ks


def x86_kernels():
    K = Kernel
    return [
        K("x86base2", "x86 today (SSE2): group_lanes2", "base-x86", r"pcmmix_core_group16x2", "max", 32, "x86"),
        K("x86avx2", "x86 AVX2: pair_sums (group_frames)", "avx2-x86",
          r"pcmmix_group16|group_frames|group_pair", "max", 32, "x86"),
        K("x86avx2up", "x86 AVX2: upsample pass2_3_1_3", "upsample-x86", r"pass2_3_1_3", "max", 3 * 8 * 3, "x86"),
        K("x86avx512", "x86 AVX-512F: mono_or_pairs3 (3 stereo groups: 6 planes)", "avx512-x86",
          r"mono_or_pairs3", "max", 96, "x86"),
        K("x86avx512up", "x86 AVX-512F: upsample pass512_3_1_5", "upsample-x86", r"pass512_3_1_5",
          "max", 5 * 16 * 3, "x86"),
    ]


# ---------------------------------------------------------------------------------------------
# Benchmarks/RESULTS.md.

def results_rows(path):
    """Row name -> {column: value} over every table of RESULTS.md."""
    rows = {}
    header = None
    for line in open(path):
        line = line.rstrip("\n")
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0] == "row":
            header = cells
            continue
        if header is None or set(cells[0]) <= set("-"):
            continue
        d = rows.setdefault(cells[0], {})
        for h, c in zip(header[1:], cells[1:]):
            d.setdefault(h, c)
    return rows


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--asm", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--opt", default="-O2")
    ap.add_argument("--clang", default="clang")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--ghz", type=float, default=3.0)
    ap.add_argument("--mca", default="llvm-mca-19")
    args = ap.parse_args()

    asm_dir = args.asm
    funcs = {}
    for f in sorted(os.listdir(asm_dir)):
        if f.endswith(".s") and not f.startswith("loop-"):
            arch = "arm64" if f.endswith("-arm64.s") else "x86"
            funcs[f[:-2]] = parse_functions(os.path.join(asm_dir, f), arch)
    have_neon = "neon-arm64" in funcs
    mca_dir = os.path.join(asm_dir, "loops")
    os.makedirs(mca_dir, exist_ok=True)

    kernels = arm64_kernels(have_neon) + x86_kernels()
    by = {}
    for k in kernels:
        if not k.find(funcs):
            print(f"model: {k.name}: {k.note}", file=sys.stderr)
            continue
        triple, cpu = (("aarch64-linux-gnu", "neoverse-v2") if k.arch == "arm64"
                       else ("x86_64-unknown-linux-gnu", "sapphirerapids"))
        k.cycles, k.rthr = mca(k.loop, triple, cpu, args.iterations, args.mca,
                               os.path.join(mca_dir, f"{k.key}.s"))
        if k.outputs is None:
            k.outputs = k.loop.macs  # one tap per iteration unless the spec says otherwise
        by[k.key] = k

    # -- Taps per output, from RESULTS.md's taps column (PolyphaseResampler.taps) and the code.
    res = results_rows(os.path.join(args.root, "Benchmarks/RESULTS.md"))
    def taps_of(row, default=184):
        v = num(res.get(row, {}).get("taps (taps)"))
        return int(v) if v else default
    taps44 = taps_of("builtin-balanced 44100->48000 2ch")
    taps16 = taps_of("builtin-balanced 16000->48000 1ch")
    w44 = group_width(taps44, 160, 147)
    w16 = group_width(taps16, 3, 1)
    s16 = upsample_steps(taps16, 3, 1)
    if w44[0] != w44[1] or w16[0] != w16[1]:
        print(f"model: group width depends on the start phase: {w44} {w16}", file=sys.stderr)
    w44, w16 = w44[1], w16[1]

    # -- Which NEON functions the library's arm64 kernel set uses (grep of the Swift sources).
    swift_src = ""
    for d, _, fs in os.walk(os.path.join(args.root, "Sources")):
        for f in fs:
            if f.endswith(".swift"):
                swift_src += open(os.path.join(d, f), errors="replace").read()
    wired = {n: (n in swift_src) for n in
             ("pcmmix_neon_group16", "pcmmix_neon_group16x2", "pcmmix_neon_group16_run",
              "pcmmix_neon_upsample_run")}

    ghz = args.ghz
    W44 = "44.1→48 kHz stereo"
    W16 = "16→48 kHz mono"
    # NEON's upsampler at 3:1 in the benchmark's 10 ms blocks (480 outputs per call): its
    # passes as pcmmix_neon_upsample_run splits them (blocks of 4 outputs × 3 phases).
    passes = upsample_passes(480, lanes=4, up=3, most=6)
    up_mix = [(f"neonup{b}", n) for b, n in sorted(passes.items(), reverse=True)]
    up_label = ("NEON: pcmmix_neon_upsample_run (" +
                " + ".join(f"neon_pass_3_1_{b} × {n} blocks" for b, n in sorted(passes.items(), reverse=True))
                + " per 10 ms)")
    # Rows: (workload, label, [(kernel key, weight)], multiply-adds per output, role)
    rows = [
        (W44, None, [("base2s", 1)], w44, "today"),
        (W44, None, [("core2", 1)], w44, "portable"),
        (W16, None, [("base2", 1)], w16, "today"),
        (W16, None, [("core2", 1)], w16, "portable"),
    ]
    neon44 = "neonframes"
    neon16 = "upsample" if wired["pcmmix_neon_upsample_run"] or not any(wired.values()) else "neonpair"
    if have_neon:
        rows += [
            (W44, None, [("neonframes", 1)], w44, "neon"),
            (W16, None, [("neonpair", 1)], w16, "neon" if neon16 == "neonpair" else "neon-alt"),
            (W16, up_label, up_mix, s16, "neon" if neon16 == "upsample" else "neon-alt"),
        ]

    def cost(mix):
        """Cycles per multiply-add of a mix of loops (weights: their share of the outputs)."""
        ks = [(by.get(key), w) for key, w in mix]
        if any(k is None for k, _ in ks):
            return None, None
        tot = sum(w for _, w in ks)
        return (sum(k.cpm * w for k, w in ks) / tot, ks[0][0])

    lines = []
    P = lines.append
    P("## arm64 resampler kernels: llvm-mca model of a Neoverse V2 core, not a measurement on Apple hardware")
    P("")
    P("llvm-mca model of a Neoverse V2 core (the closest wide core LLVM models; its apple-* CPUs "
      "are 2013's Cyclone), not a measurement on Apple hardware. Each kernel's inner tap loop "
      f"only (steady state over {args.iterations} iterations; no caches, no branch misses, no "
      f"work outside the loop); ns at {ghz:g} GHz. Compiled by "
      f"{args.clang.split('(')[0].strip()} `--target=aarch64-linux-gnu -mcpu=neoverse-v2 "
      f"{args.opt}` (the level SwiftPM's release build gives C targets). Today's loop: "
      "`Sources/CPCMMixCore/resample.c` at fde15ab; the others: the working tree when the script ran.")
    P("")
    P(f"Multiply-adds per output sample (one channel), balanced preset: a group kernel runs each "
      f"of its 16 lanes over the table's whole `width` = taps + max over the start phases q of "
      f"⌊(q + 15·M)/L⌋ (GroupTables.swift), so {taps44} + 14 = **{w44}** at 44.1→48 kHz "
      f"(L:M = 160:147) and {taps16} + 5 = **{w16}** at 16→48 kHz (3:1); the direct-form "
      f"upsampler runs steps = taps + ⌊(L−1)·M/L⌋ = **{s16}** (UpsampleTable.swift). "
      f"ns/output = cycles per tap-output × that ÷ {ghz:g} GHz.")
    P("")
    P("| kernel | workload | cycles/iteration | cycles per tap-output | ns/output @ %g GHz (model) | speed-up vs today's loop |" % ghz)
    P("|---|---|---|---|---|---|")
    today, results = {}, {}
    for w, label, mix, macs, role in rows:
        cpm, k = cost(mix)
        if cpm is None:
            continue
        ns = cpm * macs / ghz
        if role == "today":
            today[w] = ns
        sp = today[w] / ns if w in today else None
        results[(w, role)] = (sp, label or k.name)
        name = label or k.name
        if role == "neon":
            name += " **(the library's NEON path)**"
        cyc = " / ".join(f"{by[key].cycles:.2f}" for key, _ in mix)
        P(f"| {name} | {w} | {cyc} | {cpm:.4f} | {ns:.2f} | {'%.2f×' % sp if sp else '–'} |")
    P("")
    P("Targets, in this model:")
    for w in (W44, W16):
        sp, _ = results.get((w, "portable"), (None, None))
        P(f"- {w}: new portable arm64 loop " + (f"{sp:.2f}× (target ≥ 1.3×: {'met' if sp >= 1.3 else 'NOT met'})" if sp else "not modelled"))
        sp, name = results.get((w, "neon"), (None, None))
        if sp:
            P(f"- {w}: NEON {sp:.2f}× (target ≥ 1.8×: {'met' if sp >= 1.8 else 'NOT met'}): {name}")
            alt = results.get((w, "neon-alt"))
            if alt:
                P(f"  - the other NEON path for it: {alt[0]:.2f}×: {alt[1]}")
        else:
            P(f"- {w}: NEON not modelled (Sources/CPCMMixKernels/neon_resample.c missing or not compiled)")
    if have_neon:
        how = ("the Swift sources reference " + ", ".join(n for n, v in wired.items() if v)
               if any(wired.values()) else
               "no Swift source references the pcmmix_neon_* functions yet, so the NEON path is "
               "assumed to be the x86 kernel set's: the group functions, and the direct-form "
               "upsampler at 3:1 (DotKernel.takesUpsample)")
        P(f"- Which NEON path: {how}.")
    P("")

    # Per-loop detail.
    P("### The loops")
    P("")
    P("cycles/iteration = llvm-mca's Total Cycles ÷ Iterations (the steady state, used above); "
      "block RThroughput = its resource bound, ignoring dependencies (where it is well under the "
      "first, latency of the accumulator chains limits the loop).")
    P("")
    P("| kernel | function : loop | blocks | instrs | multiply-add lanes | taps/iteration | outputs/tap | cycles/iteration | block RThroughput | cycles per tap-output |")
    P("|---|---|---|---|---|---|---|---|---|---|")
    for k in kernels:
        if k.key not in by:
            P(f"| {k.name} | – ({k.note}) | | | | | | | | |")
            continue
        l = k.loop
        P(f"| {k.name} | `{l.func}` : `{l.label}` | {l.blocks} | {len(l.instrs)} | {l.macs} | "
          f"{k.taps_per_iter:g} | {k.outputs} | {k.cycles:.2f} | {k.rthr:.2f} | {k.cpm:.4f} |")
    P("")

    # x86 context.
    P("### x86-64 context: measured, x86-64 (this machine)")
    P("")
    P("Measured, x86-64 (this machine): `ns_per_sample_mean (ns)` of Benchmarks/RESULTS.md "
      "(per output sample and channel, 10 ms blocks), rows named below; beside them the same "
      "llvm-mca inner-loop model for this machine's kernels (`-mcpu=sapphirerapids`, cycles per "
      "output), to show how much of the measured time a tap-loop model leaves out.")
    P("")
    cpu_mhz = None
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("cpu MHz"):
                cpu_mhz = float(line.split(":")[1])
                break
    except OSError:
        pass
    P("| RESULTS.md row | measured ns/output | kernel loop modelled | model cycles/output | model ns/output @ %s |"
      % (f"{cpu_mhz / 1000:.1f} GHz (cpuinfo)" if cpu_mhz else "n/a"))
    P("|---|---|---|---|---|")
    x86rows = [
        ("builtin-balanced 44100->48000 2ch", "x86base2", w44),
        ("builtin-balanced-avx2-only 44100->48000 2ch", "x86avx2", w44),
        ("builtin-balanced-avx2+fma 44100->48000 2ch", "x86avx512", w44),
        ("builtin-balanced 16000->48000 1ch", "x86base2", w16),
        ("builtin-balanced-avx2-only 16000->48000 1ch", "x86avx2up", s16),
        ("builtin-balanced-avx2+fma 16000->48000 1ch", "x86avx512up", s16),
    ]
    for row, key, macs in x86rows:
        meas = res.get(row, {}).get("ns_per_sample_mean (ns)", "–")
        k = by.get(key)
        if k:
            cyc = k.cpm * macs
            mns = f"{cyc / (cpu_mhz / 1000):.2f}" if cpu_mhz else "–"
            P(f"| {row} | {meas} | {k.name} | {cyc:.1f} | {mns} |")
        else:
            P(f"| {row} | {meas} | – | – | – |")
    P("")
    P("The x86 model columns are a rough check of the method, not results: the clock is a VM's "
      "nominal one (turbo unknown), so where the model's ns exceed the measured the core ran "
      "faster than that; and LLVM's Sapphire Rapids model puts every 512-bit FMA on port 0, where "
      "this Xeon has two such units (RESULTS.md's peak_multiply_add: 87.3 AVX-512F multiply-adds "
      "per ns, twice AVX2's 45.6), so its AVX-512F rows are about 2× pessimistic.")
    P("")
    P("Loops as llvm-mca saw them: .build/arm64/asm/loops/*.s (and *.mca.txt).")

    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    open(args.out, "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
