"""Prints a weave kernel with many parameters, for param-space.mlir.

usage: params.py buffers N   N user buffers (8 bytes each)
       params.py tma N       N user buffers, each read by a TMA load (one
                             128-byte tensor map each)
"""
import sys

kind, count = sys.argv[1], int(sys.argv[2])
args = ", ".join("%%b%d: memref<64x64xf16>" % i for i in range(count))
print("gpu.module @m {")
print("gpu.func @k(%s) kernel attributes {weave.kernel = #weave.kernel<"
      "mesh = #weave.mesh<axis = \"x\", size = ?>, grid = [1, 1, 1], "
      "block = [128, 1, 1], smem = 16384>} {" % args)
if kind == "tma":
    ws = "#gpu.address_space<workgroup>"
    print("%c0 = arith.constant 0 : index")
    print("%c8192 = arith.constant 8192 : index")
    print("%%smem = gpu.dynamic_shared_memory : memref<?xi8, %s>" % ws)
    print("%%tile = memref.view %%smem[%%c0][] : memref<?xi8, %s> to "
          "memref<64x64xf16, %s>" % (ws, ws))
    print("%%bar = memref.view %%smem[%%c8192][] : memref<?xi8, %s> to "
          "memref<i64, %s>" % (ws, ws))
    for i in range(count):
        print("weave.copy_gmem_to_smem %%b%d[%%c0, %%c0], %%tile, %%bar : "
              "memref<64x64xf16> -> memref<64x64xf16, %s>, memref<i64, %s>"
              % (i, ws, ws))
print("gpu.return\n}\n}")
