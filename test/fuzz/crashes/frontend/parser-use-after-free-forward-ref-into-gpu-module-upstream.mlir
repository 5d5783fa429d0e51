func.func @barrier_after_cf_branch(%bar: !weave.semaphore) {
  cf.br ^done
^only:
  %first = arith.cmpi eq, %tx, %c0 : index
  cf.cond_br %first, ^only, ^done
  %c0 = arith.constant 0 : index
gpu.module @m {
  weave.barrier %bar scope(team) : !weave.semaphore
  %tx = gpu.thread_id x
^done:
  return
