"""Prints a weave kernel nested N levels deep, for deep-nesting.mlir.

usage: nest.py (scf-if | tuple) N
  scf-if: N nested scf.if regions inside the kernel
  tuple:  an argument attribute holding a type nested N tuples deep
"""
import sys

kind, depth = sys.argv[1], int(sys.argv[2])
head = (
    "module attributes {gpu.container_module} {\n"
    "gpu.module @m {\n"
    "gpu.func @k(%a: memref<16xf32> {weave.name = \"a\"@EXTRA@}) kernel attributes "
    "{weave.kernel = #weave.kernel<mesh = #weave.mesh<axis = \"x\", size = ?>, "
    "grid = [1, 1, 1], block = [32, 1, 1]>} {\n"
)
if kind == "tuple":
    print(head.replace("@EXTRA@", ", t = " + "tuple<" * depth + ">" * depth))
else:
    print(head.replace("@EXTRA@", ""))
    print("%c0 = arith.constant 0 : index")
    print("%tid = gpu.thread_id x")
    print("%t = arith.cmpi eq, %tid, %c0 : index")
    print("%v = arith.constant 1.0 : f32")
    for _ in range(depth):
        print("scf.if %t {")
        print("memref.store %v, %a[%tid] : memref<16xf32>")
    print("}\n" * depth, end="")
print("gpu.return\n}\n}\n}")
