"""Error paths of the bindings that release the GIL: each must raise
weave.WeaveError with the GIL held again, never crash the interpreter.

Team.from_environment() imported weave.errors with the GIL released and
crashed (SIGSEGV) on any error. Each case runs in a child interpreter, so
that a crash fails the test instead of ending pytest; the child prints the
error's code and the parent checks it. Cases that need the CUDA part of
weave skip where it cannot load (they run on the GPU machines); the
rendezvous and environment errors need only the driver library.
"""

import os
import subprocess
import sys
import textwrap

import pytest

import weave


def run_child(code, env=None):
    """Runs `code` in a fresh interpreter with this one's sys.path; returns
    (returncode, stdout, stderr)."""
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "WEAVE_LOOPBACK_TEAM"):
        full_env.pop(name, None)
    full_env.update(env or {})
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], env=full_env,
        capture_output=True, text=True, timeout=120)
    return child.returncode, child.stdout, child.stderr


def expect_weave_error(body, env=None, needs_team=False):
    """Runs `body` (which must raise) in a child and returns the WeaveError's
    (code, message); fails on a crash or on no error."""
    code = f"""
        import weave
        ok, reason = weave.cuda_available()
        if not ok:
            print("SKIP", reason)
            raise SystemExit(0)
        {"team = weave.Team.loopback(2, [0])" if needs_team else ""}
        try:
{textwrap.indent(textwrap.dedent(body), " " * 12)}
        except weave.WeaveError as error:
            print("RAISED", error.code)
            print("MESSAGE", str(error).replace("\\n", " "))
            raise SystemExit(0)
        print("NO ERROR")
    """
    status, out, err = run_child(code, env)
    assert status == 0, f"child ended with {status} (a crash?)\n{out}\n{err}"
    if out.startswith("SKIP"):
        pytest.skip(out.strip())
    assert "RAISED" in out, f"no WeaveError:\n{out}\n{err}"
    lines = dict(line.split(" ", 1) for line in out.splitlines() if " " in line)
    return lines.get("RAISED"), lines.get("MESSAGE", "")


def test_from_environment_without_rank_raises():
    # No RANK / WORLD_SIZE and no loopback team: an error, not a crash.
    code, message = expect_weave_error("weave.Team.from_environment()")
    assert code in ("InvalidArgument", "NotFound", "DriverError"), message
    # (On a GPU machine, H200, 2026-11-26: "InvalidArgument: environment
    # variable RANK is not set".)


def test_from_environment_with_a_bad_world_size_raises():
    code, _ = expect_weave_error(
        "weave.Team.from_environment(timeout_ms=200)",
        env={"RANK": "0", "WORLD_SIZE": "not-a-number", "LOCAL_RANK": "0"})
    assert code


def test_multi_process_rendezvous_timeout_raises(tmp_path):
    # Rank 0 of 2 waits for a rank 1 that never comes.
    code, _ = expect_weave_error(
        f"weave.Team.multi_process(0, 2, 0, {str(tmp_path)!r}, 200)")
    assert code


def test_multi_process_with_store_names_the_missing_rank():
    # Rank 0 of 2 joins through a store with torch.distributed.Store's
    # methods; rank 1 never comes: a Timeout naming it, raised through the
    # store's own wait() timing out (as torch's DistStoreError).
    code, message = expect_weave_error("""
        import time
        class DictStore:
            def __init__(self):
                self.values = {}
            def set(self, key, value):
                self.values[key] = bytes(value)
            def get(self, key):
                return self.values[key]
            def check(self, keys):
                return all(k in self.values for k in keys)
            def wait(self, keys, timeout):
                end = time.monotonic() + timeout.total_seconds()
                while not self.check(keys):
                    if time.monotonic() > end:
                        raise RuntimeError("Timeout waiting for " + str(keys))
                    time.sleep(0.001)
            def add(self, key, delta):
                value = int(self.values.get(key, b"0")) + delta
                self.values[key] = str(value).encode()
                return value
            def delete_key(self, key):
                return self.values.pop(key, None) is not None
        weave.Team.multi_process_with_store(DictStore(), 0, 2, 0, 200)
    """)
    assert code == "Timeout", message
    assert "rank(s) 1 did not join the rendezvous" in message, message


def test_multi_process_missing_folder_raises(tmp_path):
    missing = str(tmp_path / "missing" / "deeper")
    code, _ = expect_weave_error(
        f"weave.Team.multi_process(0, 2, 0, {missing!r}, 200)")
    assert code


def test_heap_create_too_large_raises():
    expect_weave_error(
        "weave._cuda.SymmetricHeap.create(team, 1 << 62)", needs_team=True)


def test_heap_from_external_mismatch_raises():
    # Two local members but one row of peer bases.
    expect_weave_error(
        "weave._cuda.SymmetricHeap.from_external(team, [[0, 0]], 1 << 20)",
        needs_team=True)


def test_op_create_error_raises():
    # The ops' create runs without the GIL (it may compile).
    expect_weave_error(
        """
        heap = weave._cuda.SymmetricHeap.create(team, 1 << 20)
        comm = weave._cuda.Communicator(team, heap, "jit")
        weave._cuda.all_gather_op(comm, "f64x", 16)
        """, needs_team=True)


def test_matmul_op_create_error_raises():
    expect_weave_error(
        """
        heap = weave._cuda.SymmetricHeap.create(team, 1 << 20)
        comm = weave._cuda.Communicator(team, heap, "jit")
        weave._cuda.matmul_reduce_scatter_op(comm, "bf16", 1 << 62, 64, 64)
        """, needs_team=True)
