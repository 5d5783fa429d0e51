// A packet orders only itself: weave.put ... packets is a relaxed store, so
// a flag sent as a packet after plain data does not publish the data. Each
// member writes 64 floats into its right neighbour's `inbox` with a plain
// put, then one packet into the neighbour's `lines`; the neighbour waits for
// that packet and reads `inbox`. On a GPU the data may land after the flag:
// the checker reports the read against the put. (Before, read_packets joined
// the depositor's whole clock, as if a packet were a release, and passed.)
// The same exchange with the data in the packets (every shipped packet
// kernel, shipped.mlir) passes. (The constant flag also lets launch 1's
// packet overwrite launch 0's unread: reported too, not checked here.)
// RUN: not weavec --check-protocol --team-size 2 %s 2>&1 | FileCheck %s
// CHECK: packet_flag_after_data.mlir:40:12: error: race: a load by member {{[01]}} (launch 0) reads {{.*}} of member {{[01]}}'s 'inbox' while a put (remote write) by member {{[01]}} (launch 0) writes {{.*}}, and no signal/wait or barrier orders the two
// CHECK: packet_flag_after_data.mlir:33:5: note: the other access: a put (remote write)
module attributes {gpu.container_module} {
gpu.module @flag {
  gpu.func @flag_after_data(
      %src: memref<64xf32> {weave.name = "src"},
      %inbox: memref<64xf32, #weave.symmetric> {weave.name = "inbox"},
      %flag: memref<1xi32> {weave.name = "flag"},
      %lines: memref<1xi64, #weave.symmetric> {weave.name = "lines"},
      %got: memref<1xi32> {weave.name = "got"},
      %out: memref<64xf32> {weave.name = "out"}) kernel
      attributes {weave.kernel = #weave.kernel<
          mesh = #weave.mesh<axis = "x", size = ?>,
          grid = [1, 1, 1], block = [1, 1, 1]>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %me = weave.device_id "x"
    %n = weave.num_devices "x"
    %next = arith.addi %me, %c1 : index
    %right = arith.remui %next, %n : index
    weave.put %src, %inbox on %right
        : memref<64xf32> -> memref<64xf32, #weave.symmetric>
    weave.put %flag, %lines on %right packets(%one)
        : memref<1xi32> -> memref<1xi64, #weave.symmetric>
    weave.read_packets %lines, %one into %got
        : memref<1xi64, #weave.symmetric> -> memref<1xi32>
    scf.for %i = %c0 to %c1 step %c1 {
      %v = memref.load %inbox[%i] : memref<64xf32, #weave.symmetric>
      memref.store %v, %out[%i] : memref<64xf32>
    }
    gpu.return
  }
}
}
