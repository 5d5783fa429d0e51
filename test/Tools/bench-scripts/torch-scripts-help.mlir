// Every torch script of bench/ answers --help, and refuses an argument it
// does not know, before it imports torch: the machines that build and test
// Weave (CI's among them) have no torch, and a user reads --help there
// first. A stand-in `torch` package that fails on import proves the order
// on a machine that has torch too.
//
// RUN: rm -rf %t && mkdir -p %t/torch
// RUN: echo 'raise SystemExit("torch imported")' > %t/torch/__init__.py
// RUN: for f in %weave_src_root/bench/collective_matmul/torch_*.py %weave_src_root/bench/matmul_reduce_scatter/torch_*.py; do \
// RUN:   PYTHONPATH=%t python3 $f --help > %t/out.txt || { echo "$f --help failed"; exit 1; }; \
// RUN:   grep -q -e '--help' %t/out.txt || { echo "$f --help printed no usage"; exit 1; }; \
// RUN:   PYTHONPATH=%t python3 $f --no-such-option 2> %t/err.txt; \
// RUN:   test $? -eq 2 || { echo "$f took an unknown option"; exit 1; }; \
// RUN:   grep -q 'unrecognized arguments' %t/err.txt || { echo "$f: no argparse error"; exit 1; }; \
// RUN: done
// (A pattern that matches no script stays literal, and python3 fails on
// it.)
