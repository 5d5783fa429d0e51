#!/usr/bin/env python3
"""Repairs the header of a hand-edited bundle.

usage: rebundle.py IN OUT

IN is a bundle whose manifest text was edited (say, in a text editor): the
manifest runs from byte 32 to the cubin's ELF magic. OUT gets the same
manifest and cubin with the magic, version, sizes and FNV-1a 64 checksum
recomputed (docs/BUNDLE.md), as the bundle fuzzer does inside its target.
Use it to turn a reduced crash into a valid regression bundle.
"""
import struct
import sys


# abi::kAbiVersion (runtime/include/weave/runtime/Abi.h): the header's
# version and the manifest's `weave-manifest N` line.
ABI_VERSION = 2


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    data = open(sys.argv[1], "rb").read()
    payload = data[32:]
    elf = payload.find(b"\x7fELF")
    manifest_size = elf if elf >= 0 else len(payload)
    header = b"WEAVEBND" + struct.pack("<IIQQ", ABI_VERSION, manifest_size,
                                       len(payload) - manifest_size,
                                       fnv1a64(payload))
    open(sys.argv[2], "wb").write(header + payload)


if __name__ == "__main__":
    main()
