#!/usr/bin/env python3
"""The collectives' choice table from weave_bench_collectives output.

  choice_table.py SWEEP.txt...                 the rows of collectiveChoices()
                                               (ops/lib/Instances.cpp)
  choice_table.py --summary SWEEP.txt...       per collective, dtype and size:
                                               our fastest kernel, NCCL, the
                                               goal of issue #30
  choice_table.py --summary SWEEP.txt... --torch TORCH.txt...
                                               the same with PyTorch's
                                               symmetric-memory all-reduces
                                               (torch_symm_mem.py) beside

SWEEP.txt is what `weave_bench_collectives --devices D` prints (its first
table: one row per kernel, dtype and size), or its stderr (the rows it
prints as each case ends, all a run cut short keeps); any number of them, of one or
several team sizes D (e.g. bf16 and f32 run apart). The table: per op and
team size, for each size the algorithm with the least time summed over the
dtypes measured (the bytes a member sends each peer are the same for both),
runs of one algorithm merged; its maxBytes is the largest size of the run
(bytes per peer: the all-reduce's input, the others' input or output block;
the all-to-all-v's capacity per pair, N x the element size, which only the
stderr's bundle lines give: from the first table its maxBytes is the bytes
its random counts send over D, too small).
D = 2 gives the rows of teams 1-2, the largest D measured the rows from team
3 (a team of 3 takes D = 4's crossovers); each op's last row holds team 0
(an instance for any team size) too.
"""

import argparse
import collections
import re
import sys

# The kernel of each bench bundle: (op, algorithm). Keep in step with
# BenchCollectives.cpp opAlgorithm().
KERNELS = {
    "one_shot_all_reduce": ("all_reduce", "one_shot"),
    "two_shot_all_reduce": ("all_reduce", "two_shot"),
    "push_all_reduce": ("all_reduce", "push"),
    "push_two_shot_all_reduce": ("all_reduce", "push_two_shot"),
    "all_gather": ("all_gather", "put"),
    "all_gather_ll": ("all_gather", "ll_one_block"),
    "ll_all_reduce": ("all_reduce", "ll"),
    "ll_all_gather": ("all_gather", "ll"),
    "ll_reduce_scatter": ("reduce_scatter", "ll"),
    "ll_all_to_all": ("all_to_all", "ll"),
    "push_all_gather": ("all_gather", "push"),
    "direct_all_gather": ("all_gather", "direct"),
    "reduce_scatter": ("reduce_scatter", "pull"),
    "push_reduce_scatter": ("reduce_scatter", "push"),
    "all_to_all": ("all_to_all", "put"),
    "push_all_to_all": ("all_to_all", "push"),
    "direct_all_to_all": ("all_to_all", "direct"),
    "all_to_all_v": ("all_to_all_v", "put"),
    "direct_all_to_all_v": ("all_to_all_v", "direct"),
    "ll_all_to_all_v": ("all_to_all_v", "ll"),
}
OPS = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all",
       "all_to_all_v"]
# The algorithms the ops do not offer (the bench may still time them).
NOT_OFFERED = {("all_gather", "ll_one_block")}


# "NCCL ... us (eager)": NCCL enqueued eagerly (the all-to-alls from
# --nccl-eager-from bytes per pair), not from a graph.
ROW = re.compile(r"row (\w+) (\w+) D=(\d+) (\d+) B: ours ([\d.]+|-) us, "
                 r"NCCL ([\d.]+|-) us(?: \(eager\))?, (\w+)")
# The bundle line the bench prints before each case (stderr): its N.
BUNDLE = re.compile(r"/(\w+)_(\w+)_d(\d+)_n(\d+)\.wbundle \.\.\.")
ELEMENT_BYTES = {"f32": 4, "bf16": 2, "f16": 2}


def rows_of(path):
    """The first table of a bench output (stdout), dicts keyed by its
    header; or, from its stderr, the rows it prints as each case ends (what
    a run cut short keeps)."""
    header, out = None, []
    with open(path) as f:
        text = f.read()
    if "|" not in text:
        # The N of each case from its bundle line: the all-to-all-v's size
        # column is what its random counts send, not its capacity.
        n_of = {}
        for line in text.splitlines():
            b = BUNDLE.search(line)
            if b:
                n_of[b.groups()[:3]] = int(b.group(4))
            m = ROW.search(line)
            if not m:
                continue
            kernel, dtype, d, size, ours, nccl, status = m.groups()
            out.append({"kernel": kernel, "dtype": dtype, "D": d,
                        "size (B)": size, "ours us": ours, "NCCL us": nccl,
                        "check": status, "n": n_of.get((kernel, dtype, d))})
        return out
    if True:
        for line in text.splitlines(True):
            if not line.startswith("|"):
                if header and out:
                    break
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if header is None:
                if cells and cells[0] == "kernel":
                    header = cells
                continue
            if set(line.strip()) <= set("|-"):
                continue
            out.append(dict(zip(header, cells)))
    return out


def measurements(paths):
    """(op, D, dtype, bytes per peer, size) -> {algorithm: (us, nccl us)}."""
    found = collections.defaultdict(dict)
    for path in paths:
        for r in rows_of(path):
            if r.get("check") != "ok" or r["kernel"] not in KERNELS:
                continue
            op, algorithm = KERNELS[r["kernel"]]
            if (op, algorithm) in NOT_OFFERED:
                continue
            try:
                us = float(r["ours us"])
            except ValueError:
                continue
            nccl = float(r["NCCL us"]) if r["NCCL us"] not in ("", "-") else None
            d, size = int(r["D"]), int(float(r["size (B)"]))
            per_peer = size if op == "all_reduce" else size // d
            # The all-to-all-v's rows compare its capacity per pair (N x the
            # element size) where the bench's stderr names the bundle.
            if op == "all_to_all_v" and r.get("n"):
                per_peer = r["n"] * ELEMENT_BYTES.get(r["dtype"], 4)
            found[(op, d, r["dtype"], per_peer, size)][algorithm] = (us, nccl)
    return found


def goal(op, size):
    if size <= 256 << 10:
        return 1 / 0.7
    if size >= 16 << 20:
        return 1.0 if op == "all_reduce" else 0.95
    return 1 / 1.1


def choice_rows(found):
    teams = sorted({k[1] for k in found})
    out = []
    for op in OPS:
        groups = []
        for d in teams:
            totals = collections.defaultdict(lambda: collections.defaultdict(float))
            counts = collections.defaultdict(lambda: collections.defaultdict(int))
            for (o, dd, dtype, per_peer, _), algs in found.items():
                if o != op or dd != d:
                    continue
                for a, (us, _) in algs.items():
                    totals[per_peer][a] += us
                    counts[per_peer][a] += 1
            runs = []  # [algorithm, max bytes per peer]
            for per_peer in sorted(totals):
                # Only algorithms measured in every dtype of this size.
                n = max(counts[per_peer].values())
                best = min((t, a) for a, t in totals[per_peer].items()
                           if counts[per_peer][a] == n)[1]
                if runs and runs[-1][0] == best:
                    runs[-1][1] = per_peer
                else:
                    runs.append([best, per_peer])
            if runs:
                groups.append((d, runs))
        if not groups:
            continue
        for i, (d, runs) in enumerate(groups):
            lo = 1 if i == 0 else groups[i - 1][0] + 1
            hi = 1024 if i == len(groups) - 1 else d
            last = i == len(groups) - 1
            for j, (a, top) in enumerate(runs):
                final = j == len(runs) - 1
                out.append('      {"%s", %d, %d, %s, "%s"},  // D = %d'
                           % (op, 0 if (last and final) else lo, hi,
                              "kAny" if final else bytes_literal(top), a, d))
    return out


def bytes_literal(n):
    for shift, unit in ((20, "20"), (10, "10")):
        if n % (1 << shift) == 0:
            return f"{n >> shift} << {unit}"
    return str(n)


def torch_rows(paths):
    """(op, D, dtype, size) -> graph us from torch_symm_mem.py's tables."""
    out = {}
    for path in paths:
        with open(path) as f:
            header = None
            for line in f:
                if not line.startswith("|"):
                    header = None if not line.strip() else header
                    continue
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if cells[0] == "op":
                    header = cells
                    continue
                if header is None or set(line.strip()) <= set("|-"):
                    continue
                r = dict(zip(header, cells))
                if r.get("check") != "ok":
                    continue
                us = r["graph us"] if r["graph us"] != "-" else r["eager us"]
                out[(r["op"], int(r["D"]), r["dtype"], int(r["size (B)"]))] = float(us)
    return out


def summary(found, torch):
    print("| collective | D | dtype | size | fastest of ours (others, us) | ours us "
          "| NCCL us | NCCL/ours | goal | meets | PyTorch (graph us) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    keys = sorted(found, key=lambda k: (OPS.index(k[0]), k[1], k[2], k[4]))
    for key in keys:
        op, d, dtype, _, size = key
        algs = found[key]
        best = min(algs, key=lambda a: algs[a][0])
        us, nccl = algs[best]
        others = ", ".join(f"{a} {algs[a][0]:.1f}" for a in sorted(algs) if a != best)
        ratio = nccl / us if nccl else None
        g = goal(op, size)
        meets = "-" if ratio is None else (
            "yes" if ratio >= g else f"{100 * (1 - ratio / g):.0f}% short")
        ref = ""
        if op == "all_reduce":
            refs = [(o.replace("_all_reduce", ""), t) for (o, dd, dt, s), t
                    in torch.items() if dd == d and dt == dtype and s == size
                    and o.endswith("all_reduce") and o != "nccl_all_reduce"]
            ref = ", ".join(f"{o} {t:.1f}" for o, t in sorted(refs))
        elif op == "all_to_all_v":
            refs = [t for (o, dd, dt, s), t in torch.items()
                    if o == "all_to_all_vdev" and dd == d and dt == dtype and s == size]
            ref = f"all_to_all_vdev {refs[0]:.1f}" if refs else ""
        print(f"| {op} | {d} | {dtype} | {size_name(size)} | {best} ({others}) | "
              f"{us:.1f} | {'-' if nccl is None else f'{nccl:.1f}'} | "
              f"{'-' if ratio is None else f'{ratio:.2f}'} | {g:.2f} | {meets} | {ref} |")


def size_name(n):
    for shift, unit in ((20, "MB"), (10, "KB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweeps", nargs="+")
    p.add_argument("--summary", action="store_true")
    p.add_argument("--torch", nargs="*", default=[])
    args = p.parse_args(argv)
    found = measurements(args.sweeps)
    if not found:
        print("choice_table: no measured row in " + ", ".join(args.sweeps),
              file=sys.stderr)
        return 1
    if args.summary:
        summary(found, torch_rows(args.torch))
    else:
        print("\n".join(choice_rows(found)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
