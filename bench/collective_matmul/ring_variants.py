#!/usr/bin/env python3
"""Diagnostic variants of an all-gather matmul kernel: where its time goes.

    ring_variants.py KERNEL.mlir OUT_PREFIX [VARIANT ...]

KERNEL.mlir is the template (ops/templates/collective_matmul/
all_gather_matmul.mlir.in) instantiated for one shape (a static bundle's
values, or `weave-ops source all_gather_matmul`); for each VARIANT (default:
all of them) the script writes OUT_PREFIX_<variant>.mlir with one part of
the ring cut out, to be compiled (weavec --emit=bundle) and timed against
the kernel itself with weave_bench_collective_matmul, each in a process of
its own (docs/PERF.md, "The 128 x 192 variants on GPUs, and where the
ring's time goes"). Except for noready / nodone / nowait (which only drop
waits that an undisturbed run rarely needs), every variant computes wrong
rows or races ON PURPOSE: its numbers are timings, never results.

  noready   no wait for the peer's rows (before_load)
  nodone    no wait for the peer's previous launch (the callback's first store)
  nowait    neither wait: the forwarding stores and signals alone
  nofwd     no stores, signals or waits (callback and regions still there)
  nocb      no callback, before_load or delay_release
  norot     nocb, and no rotation or shard segments in the schedule
  noread    the stores without the next step's wait for their source read
            (the slot is refilled while it is being sent: a race)
  local     the stores go to this device's own `a` (the same bytes to
            the same rows: no NVLink) and the peer's rows are not waited for
  quarter   each store sends only the first 32 rows of its 128-row tile
            (a quarter of the bytes, as many stores, unswizzled): whether
            the stores cost per byte or per store
  nokrot    no k rotation: column tile n forwards k = n (mod column tiles)
            over its whole k loop (the template before k_rotation; a
            correct kernel, the A/B of the rotation). Works on the op's
            dynamic instance too (every variant's kernel).
  push      every kernel pushes its own shard to every peer at its start
            (PUSH 1, no k rotation, no forwarding): a correct kernel.
  ring      every kernel forwards along the ring (PUSH 0, the k rotation
            as it was): the op's small-shard kernels without their push.
  pushall   push by every block (the template's push leaves it to the
            blocks whose first tile is not an own one): a correct kernel
            (also on the op's instance).
  keepw     the ring's groups keep their width (grid_tile_keep_width): no
            narrowing to the rows past a wave (which the ring already
            skips at shards of up to 4 row tiles, kUnnarrowedSegmentRows),
            so a wave holds fewer column tiles and reads less of b, while a
            row tile's forwarding may finish later (a correct kernel: the
            groups still never straddle two shards)
  cluster2  the pipeline in clusters of 2 blocks on adjacent row tiles
            (cluster_m(2): each block loads half of a tile's b and
            multicasts it to its partner), a correct kernel where a shard's
            row tiles are even; the dialect takes it only with a static
            row count (a static bundle's kernel, not the op's instance)
  krotS     the ring with k rotation S (a number) in every kernel: the first
            ceil(k steps / S) column tiles forward S steps each at the
            start of their loops (correct where S x column tiles covers the
            k steps; the kernel traps otherwise).
Every variant applies to each kernel of the file, so it works on the op's
dynamic instance (`weave-ops source all_gather_matmul`: one kernel per
range of m_shard) as on a static bundle's single kernel.
In nofwd, local and quarter the rows that never arrive keep the
benchmark's poison (all ones, a NaN) on the receiver, so its matmul runs on
constant bits there; round 5's nofwd matched the plain matmul on random
data (docs/PERF.md), but power that depends on the data is not ruled out.
"""

import re
import sys

READY = ("%wait = arith.andi %remote, %first_k : i1",
         "%wait = arith.constant false")
DONE = ("%first = arith.cmpi eq, %k, %first_store : index",
        "%first = arith.constant false")
NEEDED = ("%needed = arith.andi %ring, %prev_needs : i1",
          "%needed = arith.constant false")
READ_WAIT = ("        weave.wait_smem_to_gmem 0 read_only\n", "")
# The forwarding store (two of them: with the evict-first hint of D = 2 and
# without it, one folding away).
LOCAL_STORE = re.compile(
    r"(weave\.copy_smem_to_gmem %lhs, %a\[%row, %col\]( l2\(evict_first\))?) "
    r"on %prev$", re.M)


def local(text):
    text, n = LOCAL_STORE.subn(r"\1 on %me", text)
    if n != 2:
        sys.exit("ring_variants.py: expected two forwarding stores "
                 "(weave.copy_smem_to_gmem %%lhs ... on %%prev) in the kernel, "
                 "found %d (the template changed?)" % n)
    return replace(text, READY)



def replace(text, *pairs):
    for old, new in pairs:
        if text.count(old) != 1:
            sys.exit("ring_variants.py: expected one '%s' in the kernel, "
                     "found %d (the template changed?)" %
                     (old.strip(), text.count(old)))
        text = text.replace(old, new)
    return text


def no_callback(text):
    begin = text.find("        before_load {")
    end = text.find("        after_loads {")
    if begin < 0 or end < begin:
        sys.exit("ring_variants.py: no before_load ... after_loads regions")
    return replace(text[:begin] + text[end:],
                   ("delay_release(1) rotate_m", "rotate_m"))


def no_rotation(text):
    text = no_callback(text)
    text = replace(text, ("rotate_m(%own_first)", ""))
    text, n = re.subn(r", grid_tile_segments = \d+ : i64", "", text)
    if n != 1:
        sys.exit("ring_variants.py: expected one grid_tile_segments")
    return text


# The forwarding stores' source tile and type, in either store.
QUARTER_STORE = re.compile(
    r"^( *)(weave\.copy_smem_to_gmem )%lhs(, %a\[%row, %col\][^\n]* on %prev)\n"
    r"( *): memref<128x64x(\w+), #gpu\.address_space<workgroup>>$", re.M)


def quarter(text):
    def sub(m):
        indent, op, rest, tindent, dtype = m.groups()
        tile = "memref<128x64x%s, #gpu.address_space<workgroup>>" % dtype
        part = ("memref<32x64x%s, strided<[64, 1]>, "
                "#gpu.address_space<workgroup>>" % dtype)
        return ("%s%%quarter = memref.subview %%lhs[0, 0] [32, 64] [1, 1]\n"
                "%s    : %s to %s\n"
                "%s%s%%quarter%s\n%s: %s" %
                (indent, indent, tile, part, indent, op, rest, tindent, part))
    text, n = QUARTER_STORE.subn(sub, text)
    if n != 2:
        sys.exit("ring_variants.py: expected two forwarding stores of a "
                 "128x64 lhs tile in the kernel, found %d (the template "
                 "changed?)" % n)
    return text


ROTATION = re.compile(r"(%rot = arith\.constant )\d+( : index)")
K_ROTATION = re.compile(r"(k_rotation = )\d+( : i64)")


def no_k_rotation(text, value=0):
    text, n = ROTATION.subn(r"\g<1>%d\2" % value, text)
    text, m = K_ROTATION.subn(r"\g<1>%d\2" % value, text)
    if n == 0 or n != m:
        sys.exit("ring_variants.py: expected as many '%%rot = arith.constant' "
                 "as 'k_rotation =' (one per kernel), found %d and %d (the "
                 "template changed?)" % (n, m))
    return text


PUSH = re.compile(r"(%push = arith\.constant )\d+( : index)")


def set_push(text, value):
    text, n = PUSH.subn(r"\g<1>%d\2" % value, text)
    if n == 0:
        sys.exit("ring_variants.py: no '%push = arith.constant' in the kernel "
                 "(the template changed?)")
    return text


def push(text):
    return no_k_rotation(set_push(text, 1))


FIRST_PUSHER = ("%first_pusher = arith.select %own_fits, %own_tiles, %c0 : index",
                "%first_pusher = arith.addi %c0, %c0 : index")


def push_all(text):
    text = push(text)
    kernels = text.count(FIRST_PUSHER[0])
    if kernels == 0 or kernels != text.count("%pushes = arith.andi"):
        sys.exit("ring_variants.py: expected the push's first pusher once per "
                 "kernel, found %d (the template changed?)" % kernels)
    return text.replace(*FIRST_PUSHER)


SEGMENTS = re.compile(r"(grid_tile_segments = \d+ : i64),")


def keep_width(text):
    text, n = SEGMENTS.subn(r"\1, grid_tile_keep_width,", text)
    if n != 1:
        sys.exit("ring_variants.py: expected one grid_tile_segments in the "
                 "kernel, found %d (the template changed?)" % n)
    return text


KERNEL_SHAPE = re.compile(r"(grid = \[persistent, 1, 1\], block = \[384, 1, 1\]),")
GROUP_WIDTH = re.compile(r"\{(grid_tile_width = \d+ : i64),")


def cluster2(text):
    text, n = KERNEL_SHAPE.subn(r"\1, cluster = [2, 1, 1],", text)
    text, g = GROUP_WIDTH.subn(r"{\1, cluster_m = 2 : i64,", text)
    if n != 1 or g != 1:
        sys.exit("ring_variants.py: expected one kernel grid and one "
                 "grid_tile_width in the kernel, found %d and %d (the "
                 "template changed?)" % (n, g))
    return text


VARIANTS = {
    "noready": lambda t: replace(t, READY),
    "nodone": lambda t: replace(t, DONE),
    "nowait": lambda t: replace(t, READY, DONE),
    "nofwd": lambda t: replace(t, NEEDED, READY),
    "nocb": no_callback,
    "norot": no_rotation,
    "noread": lambda t: replace(t, READ_WAIT),
    "local": local,
    "quarter": quarter,
    "nokrot": no_k_rotation,
    "push": push,
    "ring": lambda t: set_push(t, 0),
    "pushall": push_all,
    "keepw": keep_width,
    "cluster2": cluster2,
}


KERNEL_START = re.compile(r"^  gpu\.func @", re.M)


def per_kernel(transform, text):
    """Applies `transform` to each kernel of `text` (the text from one
    `gpu.func` to the next; the file's head stays as it is)."""
    starts = [m.start() for m in KERNEL_START.finditer(text)]
    if not starts:
        sys.exit("ring_variants.py: no gpu.func in the kernel file")
    bounds = starts + [len(text)]
    return text[:starts[0]] + "".join(
        transform(text[b:e]) for b, e in zip(bounds, bounds[1:]))


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    text = open(argv[1]).read()
    names = argv[3:] or list(VARIANTS)
    for name in names:
        rotation = re.fullmatch(r"krot(\d+)", name)
        if rotation:
            with open("%s_%s.mlir" % (argv[2], name), "w") as out:
                out.write(per_kernel(
                    lambda t: no_k_rotation(set_push(t, 0),
                                            int(rotation.group(1))), text))
            continue
        if name not in VARIANTS:
            sys.exit("ring_variants.py: unknown variant '%s' (%s, krotS)" %
                     (name, ", ".join(VARIANTS)))
        with open("%s_%s.mlir" % (argv[2], name), "w") as out:
            out.write(per_kernel(VARIANTS[name], text))


if __name__ == "__main__":
    main(sys.argv)
