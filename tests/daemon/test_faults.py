"""Fault tests of the real cuzk-daemon (issue 14 item 5), driven over gRPC by
the independent Python client of test_daemon.py (whose Daemon class and
stubs are reused):

  - params truncated while WARM (mmap'd): the prove fails with "params file
    ... changed while in use: size A -> B", the daemon stays up, and once the
    file is restored the next prove works;
  - params replaced by rename while HOT: the next job loads the new file (a
    corrupt one fails that job naming both the change and the bad point);
  - a parameter cache that cannot be used (a file, not a directory; a
    directory without permissions when not root): jobs fail with the reason;
  - a full disk while the engine writes TEST params (RLIMIT_FSIZE with
    SIGXFSZ ignored, which the daemon inherits; a real full filesystem needs
    root to mount): the job fails with the write error, no partial file is
    left, the daemon keeps serving; also `cuzk-bench setup`;
  - `kill -9` during a proof, then a restart on the same socket: the stale
    socket and the instance lock are recovered and proofs work again.

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_faults.py [-v]
"""
import glob
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402  (generates the stubs, owns PARAMS/GEN)

pb, R = td.pb, td.R
SHARED_PARAMS = td.PARAMS  # made by test_daemon at import; removed at exit


def params_file(cache, n):
    hits = glob.glob(os.path.join(cache, "**", "chain-%d.params" % n), recursive=True)
    if len(hits) != 1:
        raise AssertionError("chain-%d.params in %s: %s" % (n, cache, hits))
    return hits[0]


class FaultDaemon(td.Daemon):
    """td.Daemon with its own parameter cache and extra settings."""

    def __init__(self, cache, sets=(), listen=None):
        args = ["--param-cache", cache]
        for s in sets:
            args += ["--set", s]
        if listen:
            args += ["--listen", "unix://" + listen]
        super().__init__(args=args)
        if listen:  # serve on a fixed socket (restart tests)
            self.channel.close()
            self.sock = listen
            self.channel = td.grpc.insecure_channel("unix://" + listen, options=td.OPTS)
            self.stub = td.pbg.ProvingEngineStub(self.channel)


class FaultCase(unittest.TestCase):
    def setUp(self):
        self.cache = tempfile.mkdtemp(prefix="cuzk-faults-")
        td.PARAMS = self.cache  # where the verifying client finds the vk of returned proofs
        self.d = None

    def tearDown(self):
        if self.d:
            rc = self.d.stop()
            self.d.close()
            self.assertEqual(rc, 0, self.d.exit_message())
        subprocess.run(["chmod", "-R", "u+rwx", self.cache])
        shutil.rmtree(self.cache, ignore_errors=True)

    def prove(self, text, timeout=120):
        return self.d.stub.Prove(pb.ProveRequest(submit=td.req(text)), timeout=timeout).result

    def srs_tier(self, cid):
        st = self.d.stub.GetStatus(pb.GetStatusRequest(), timeout=10)
        return {e.circuit_id: e.tier for e in st.loaded_srs}.get(cid)

    def test_truncated_while_warm(self):
        # 3 MiB budget: chain-6000's 3.5 MB params cannot be HOT, so they are mapped
        self.d = FaultDaemon(self.cache, ["memory.total_budget=3MiB"])
        ok = self.prove("n=6000")
        self.assertEqual(ok.status, R.COMPLETED, ok.error_message)
        self.assertEqual(self.srs_tier("chain-6000"), pb.SRSStatus.WARM)
        path = params_file(self.cache, 6000)
        with open(path, "rb") as f:
            good = f.read()
        job = self.d.stub.SubmitProof(td.req("n=6000 sleep_ms=600", "trunc"), timeout=10)
        time.sleep(0.3)  # the job holds the mapping and synthesizes (sleeps)
        os.truncate(path, 1000000)
        r = self.d.stub.AwaitProof(pb.AwaitProofRequest(job_id=job.job_id), timeout=120)
        self.assertEqual(r.status, R.FAILED)
        self.assertIn("changed while in use", r.error_message)
        self.assertIn("size %d -> 1000000" % len(good), r.error_message)
        self.assertIsNone(self.d.proc.poll(), "daemon died")
        self.assertEqual(self.srs_tier("chain-6000"), pb.SRSStatus.COLD)
        with open(path, "wb") as f:  # restored in place
            f.write(good)
        ok = self.prove("n=6000")
        self.assertEqual(ok.status, R.COMPLETED, ok.error_message)
        self.assertIn("changed while in use", self.d.log_text())

    def test_renamed_while_hot(self):
        self.d = FaultDaemon(self.cache)
        self.d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id="chain-500"), timeout=120)
        self.assertEqual(self.srs_tier("chain-500"), pb.SRSStatus.HOT)
        path = params_file(self.cache, 500)
        with open(path, "rb") as f:
            good = bytearray(f.read())
        bad = bytearray(good)
        bad[-100] ^= 0x5A  # the last b_g2 point leaves the curve
        for data, want in ((bad, R.FAILED), (good, R.COMPLETED)):
            with open(path + ".new", "wb") as f:
                f.write(data)
            os.rename(path + ".new", path)
            r = self.prove("n=500")
            self.assertEqual(r.status, want, r.error_message)
            if want == R.FAILED:
                self.assertIn("changed while in use", r.error_message)
                self.assertIn("inode", r.error_message)
                self.assertIn("b_g2[", r.error_message)
        self.assertEqual(self.srs_tier("chain-500"), pb.SRSStatus.HOT)

    def test_param_cache_unusable(self):
        notdir = os.path.join(self.cache, "plain-file")
        with open(notdir, "w") as f:
            f.write("not a directory\n")
        self.d = FaultDaemon(notdir)
        r = self.prove("n=40")
        self.assertEqual(r.status, R.FAILED)
        self.assertIn(notdir, r.error_message)
        self.assertIsNone(self.d.proc.poll())
        if os.geteuid() != 0:
            locked = os.path.join(self.cache, "locked")
            os.makedirs(locked)
            os.chmod(locked, 0)
            self.d.stop()
            self.d.close()
            self.d = FaultDaemon(locked)
            r = self.prove("n=40")
            self.assertEqual(r.status, R.FAILED)
            self.assertIn("Permission denied", r.error_message)
        else:
            td.skipped("the mode-000 param cache case (root ignores permissions)", "test_faults.py")

    def test_disk_full_writing_params(self):
        limit = 256 * 1024  # chain-4000's params are ~2.4 MB

        def small_disk():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # inherited across exec: writes fail with EFBIG
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        orig = td.subprocess.Popen

        def popen(*a, **kw):
            kw["preexec_fn"] = small_disk
            return orig(*a, **kw)

        td.subprocess.Popen = popen
        try:
            self.d = FaultDaemon(self.cache)
        finally:
            td.subprocess.Popen = orig
        r = self.prove("n=4000")
        self.assertEqual(r.status, R.FAILED)
        self.assertIn("chain-4000.params", r.error_message)
        self.assertEqual(glob.glob(os.path.join(self.cache, "**", "chain-4000.params*"), recursive=True), [])
        ok = self.prove("n=40")  # small params fit: still serving
        self.assertEqual(ok.status, R.COMPLETED, ok.error_message)
        # the CLI writer: no truncated params left behind either
        out = os.path.join(self.cache, "cli")
        p = subprocess.run([os.path.join(td.BIN, "cuzk-bench"), "setup", "--circuit", "chain", "--size", "4000",
                            "--out", out], capture_output=True, text=True, timeout=300, preexec_fn=small_disk)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("cannot write", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "chain-4000.params")))

    def test_kill9_during_proof_then_restart(self):
        sock = os.path.join(self.cache, "run", "cuzk.sock")
        self.d = FaultDaemon(self.cache, listen=sock)
        self.d.stub.SubmitProof(td.req("n=64 sleep_ms=5000", "doomed"), timeout=10)
        time.sleep(0.3)
        self.d.proc.send_signal(signal.SIGKILL)
        self.d.proc.wait(10)
        self.d.channel.close()
        self.d.logf.close()
        shutil.rmtree(self.d.dir, ignore_errors=True)
        self.assertTrue(os.path.exists(sock), "a killed daemon leaves its socket behind")
        self.d = FaultDaemon(self.cache, listen=sock)  # must recover socket and lock
        r = self.prove("n=64")
        self.assertEqual(r.status, R.COMPLETED, r.error_message)
        with self.assertRaises(td.grpc.RpcError) as e:  # the killed job is gone, not half-done
            self.d.stub.AwaitProof(pb.AwaitProofRequest(job_id="doomed"), timeout=10)
        self.assertEqual(e.exception.code(), td.grpc.StatusCode.NOT_FOUND)

    def test_socket_path_and_lock_not_followed(self):
        """issue 23: the lock file is opened without following a symlink and
        the old socket path is removed only when it is a socket; anything
        else there is refused by name and left as it was."""
        run = os.path.join(self.cache, "run")
        os.makedirs(run)
        sock = os.path.join(run, "cuzk.sock")

        def start():
            return subprocess.run([os.path.join(td.BIN, "cuzk-daemon"), "--param-cache", self.cache, "--listen",
                                   "unix://" + sock, "--set", "daemon.test_provider=test"],
                                  capture_output=True, text=True, timeout=60)

        with open(sock, "w") as f:  # a regular file where the socket goes
            f.write("keep me\n")
        p = start()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("socket path %s is a regular file, not a socket" % sock, p.stderr)
        with open(sock) as f:
            self.assertEqual(f.read(), "keep me\n")
        os.unlink(sock)
        os.unlink(sock + ".lock")
        victim = os.path.join(self.cache, "victim")
        with open(victim, "w") as f:
            f.write("precious\n")
        os.symlink(victim, sock + ".lock")  # a planted lock name
        p = start()
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("lock file %s.lock is a symbolic link" % sock, p.stderr)
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n", "the lock's target was written through the symlink")


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        shutil.rmtree(td.GEN, ignore_errors=True)
        shutil.rmtree(SHARED_PARAMS, ignore_errors=True)
