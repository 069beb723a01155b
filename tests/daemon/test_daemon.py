"""Integration tests: start the REAL cuzk-daemon and drive it over gRPC with
an independent client (Debian's python3-grpcio; stubs generated from
proto/cuzk/v1/proving.proto at test time by grpc_tools.protoc).

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_daemon.py [-v] [-k NAME]

The daemon serves the wire kind TEST (5) with the engine's chain test
circuit (--test-provider test): its vanilla_proof is a text line such as
"n=64 sleep_ms=300" (include/cuzk/engine.h, cuzk_engine_test_provider).
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("CUZK_BIN", os.path.join(ROOT, "build", "bin"))
GEN = tempfile.mkdtemp(prefix="cuzk-pb-")
from grpc_tools import protoc  # noqa: E402

if protoc.main(["protoc", "-I" + os.path.join(ROOT, "proto"), "--python_out=" + GEN, "--grpc_python_out=" + GEN,
                os.path.join(ROOT, "proto", "cuzk", "v1", "proving.proto")]) != 0:
    raise SystemExit("protoc failed on proto/cuzk/v1/proving.proto")
sys.path.insert(0, GEN)
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

TEST = 5  # wire value the daemon maps to the chain test provider
R = pb.AwaitProofResponse
MiB = 1 << 20
OPTS = [("grpc.max_send_message_length", 300 * MiB), ("grpc.max_receive_message_length", 300 * MiB)]
# Params for the chain circuits are created once per run and shared.
PARAMS = tempfile.mkdtemp(prefix="cuzk-params-")
# A sanitizer build of the daemon (make test-asan, make test-tsan): the slow
# PoRep/Snap proves are skipped there (each is minutes of circuit arithmetic
# that crosses no thread boundary the other tests do not cross).
with open(os.path.join(BIN, "cuzk-daemon"), "rb") as _f:
    _exe = _f.read()
    ASAN = b"__asan_init" in _exe
    TSAN = b"__tsan_init" in _exe
    SANITIZER = "ASan" if ASAN else "TSan" if TSAN else ""
    del _exe
# 2 KiB PoRep and SnapDeals TEST params: made (once, cached) by scripts/cli-tests.sh.
POREP_PARAMS = os.environ.get("CUZK_POREP_TEST_PARAMS",
                              os.path.join(os.path.expanduser("~"), ".cache", "cuzk", "test-params-porep-2k"))
SNAP_PARAMS = os.environ.get("CUZK_SNAP_TEST_PARAMS",
                             os.path.join(os.path.expanduser("~"), ".cache", "cuzk", "test-params-snap-2k"))


R_FR = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001  # BLS12-381 scalar field


def chain_input(x0, n):
    """The chain circuit's public input x_n (x_{i+1} = x_i^2 + 7 mod r),
    computed here: an independent reference for the daemon's TEST proofs."""
    x = x0 % R_FR
    for _ in range(n):
        x = (x * x + 7) % R_FR
    return x


class VerifyingStub:
    """The gRPC stub, with every COMPLETED TEST proof it hands back verified
    by `cuzk-bench verify` against the chain-N vk (the head of the daemon's
    cuzk-test/chain-N.params) and public inputs computed in Python from the
    request's n and x0 (partition k proves x0 + k).  A returned proof that
    does not verify raises AssertionError in the calling test."""

    verified = 0  # proofs verified so far in this process

    def __init__(self, stub):
        self._stub = stub
        self._texts = {}  # job_id -> vanilla text of a TEST request
        self._lock = threading.Lock()

    def __getattr__(self, name):
        return getattr(self._stub, name)

    def _note(self, job_id, r):
        if r.proof_kind == TEST and job_id:
            with self._lock:
                self._texts[job_id] = r.vanilla_proof.decode("utf-8", "replace")

    def SubmitProof(self, r, **kw):
        res = self._stub.SubmitProof(r, **kw)
        self._note(res.job_id, r)
        return res

    def AwaitProof(self, r, **kw):
        res = self._stub.AwaitProof(r, **kw)
        with self._lock:
            text = self._texts.get(r.job_id)
        self._check(res, text)
        return res

    def Prove(self, r, **kw):
        res = self._stub.Prove(r, **kw)
        if r.submit.proof_kind == TEST:
            self._check(res.result, r.submit.vanilla_proof.decode("utf-8", "replace"))
        return res

    @staticmethod
    def _check(res, text):
        if text is None or res.status != R.COMPLETED or not res.proof:
            return
        kv = dict(w.split("=", 1) for w in text.split() if "=" in w)
        n, x0 = int(kv.get("n", 64)), int(kv.get("x0", 3))
        if len(res.proof) % 192:
            raise AssertionError("TEST proof of %d bytes for %r" % (len(res.proof), text))
        path = os.path.join(PARAMS, "cuzk-test", "chain-%d.params" % n)
        if not os.path.exists(path):  # daemons before the cuzk-test/ subdirectory
            path = os.path.join(PARAMS, "chain-%d.params" % n)
        with open(path, "rb") as f:
            head = f.read(868)
            vk = head + f.read(96 * int.from_bytes(head[864:868], "big"))
        with tempfile.TemporaryDirectory(prefix="cuzk-verify-") as t:
            for k in range(len(res.proof) // 192):
                files = {"vk": vk, "proof": res.proof[192 * k:192 * (k + 1)],
                         "inputs": chain_input(x0 + k, n).to_bytes(32, "little")}
                for name, data in files.items():
                    with open(os.path.join(t, name), "wb") as f:
                        f.write(data)
                v = subprocess.run([os.path.join(BIN, "cuzk-bench"), "verify"] +
                                   [a for name in files for a in ("--" + name, os.path.join(t, name))],
                                   capture_output=True, text=True)
                if (v.returncode, v.stdout.strip()) != (0, "valid"):
                    raise AssertionError("returned proof %d of %r does not verify: %s%s"
                                         % (k, text, v.stdout, v.stderr))
                VerifyingStub.verified += 1


class Daemon:
    """One cuzk-daemon process on a private unix socket."""

    def __init__(self, extra_config="", args=()):
        self.dir = tempfile.mkdtemp(prefix="cuzk-d-")
        self.sock = os.path.join(self.dir, "cuzk.sock")
        self.log = os.path.join(self.dir, "daemon.log")
        cfg = os.path.join(self.dir, "cuzk.toml")
        with open(cfg, "w") as f:
            f.write('[daemon]\nlisten = "unix://%s"\nstatus_listen = "127.0.0.1:0"\ntest_provider = "test"\n'
                    '[srs]\nparam_cache = "%s"\n[logging]\nlevel = "info"\n%s\n' % (self.sock, PARAMS, extra_config))
        self.cfg = cfg
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen([os.path.join(BIN, "cuzk-daemon"), "--config", cfg] + list(args),
                                     stdout=subprocess.DEVNULL, stderr=self.logf)
        self.http_port = None
        deadline = time.time() + 20
        while time.time() < deadline:
            text = self.log_text()
            m = re.search(r"\(port (\d+)\)", text)
            if m:
                self.http_port = int(m.group(1))
            if "cuzk-daemon ready" in text:
                break
            if self.proc.poll() is not None:
                raise AssertionError("daemon exited %d:\n%s" % (self.proc.returncode, text))
            time.sleep(0.02)
        else:
            raise AssertionError("daemon did not start:\n" + self.log_text())
        self.channel = grpc.insecure_channel("unix://" + self.sock, options=OPTS)
        self.stub = pbg.ProvingEngineStub(self.channel)
        if "--param-cache" not in args:  # TEST params in the shared PARAMS: verify every proof
            self.stub = VerifyingStub(self.stub)

    def log_text(self):
        with open(self.log) as f:
            return f.read()

    def stop(self, sig=signal.SIGTERM, timeout=30):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(timeout)
        self.channel.close()
        if self.proc.returncode:  # e.g. 66: a sanitizer report, which is in the log
            self.exit_log = self.log_text()[-8000:]
        return self.proc.returncode

    def exit_message(self):
        """What a failed exit-code assertion shows: the end of the daemon's log."""
        return "daemon exit code; the end of its log:\n" + getattr(self, "exit_log", "")

    def close(self):
        try:
            self.stop()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
            self.logf.close()
            shutil.rmtree(self.dir, ignore_errors=True)

    def http(self, path):
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (self.http_port, path), timeout=10) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()


def req(text="n=64", rid="", prio=0, kind=TEST):
    return pb.SubmitProofRequest(request_id=rid, proof_kind=kind, priority=prio, vanilla_proof=text.encode())


class DaemonCase(unittest.TestCase):
    extra = ""

    def setUp(self):
        self.d = Daemon(self.extra)
        self.s = self.d.stub

    def tearDown(self):
        rc = self.d.stop()
        self.d.close()
        self.assertEqual(rc, 0, self.d.exit_message())

    def prove(self, r, timeout=60):
        return self.s.Prove(pb.ProveRequest(submit=r), timeout=timeout).result


class TestRpcs(DaemonCase):
    def test_every_rpc(self):
        sub = self.s.SubmitProof(req("n=64", "every-1"), timeout=10)
        self.assertEqual(sub.job_id, "every-1")
        res = self.s.AwaitProof(pb.AwaitProofRequest(job_id="every-1"), timeout=60)
        self.assertEqual(res.status, R.COMPLETED, res.error_message)
        self.assertEqual(len(res.proof), 192)
        self.assertGreaterEqual(VerifyingStub.verified, 1, "the returned proof was verified")
        self.assertGreaterEqual(res.total_ms, res.queue_wait_ms)
        # Prove with no request id gets a UUID
        p = self.prove(req("n=64 x0=5"))
        self.assertEqual(p.status, R.COMPLETED, p.error_message)
        self.assertRegex(p.job_id, r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        self.assertEqual(len(p.proof), 192)
        self.assertNotEqual(p.proof, res.proof)
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertEqual(st.total_proofs_completed, 2)
        self.assertEqual(st.total_proofs_failed, 0)
        self.assertGreater(st.pinned_memory_limit_bytes, 0)
        srs = {e.circuit_id: e for e in st.loaded_srs}
        self.assertIn("chain-64", srs)
        self.assertEqual(srs["chain-64"].tier, pb.SRSStatus.HOT)
        self.assertEqual(srs["chain-64"].ref_count, 0)
        self.assertGreater(srs["chain-64"].size_bytes, 0)
        self.assertEqual({q.proof_kind for q in st.queues} >= {"porep-c2", "snap-update", "window-post", "winning-post"}, True)
        met = self.s.GetMetrics(pb.GetMetricsRequest(), timeout=10).prometheus_text
        self.assertIn("# TYPE", met)
        self.assertRegex(met, r"\ncuzk_[a-z_]+")
        ev = self.s.EvictSRS(pb.EvictSrsRequest(circuit_id="chain-64"), timeout=10)
        self.assertTrue(ev.was_loaded)
        self.assertGreater(ev.freed_bytes, 0)
        ev2 = self.s.EvictSRS(pb.EvictSrsRequest(circuit_id="chain-64"), timeout=10)
        self.assertFalse(ev2.was_loaded)
        pre = self.s.PreloadSRS(pb.PreloadSrsRequest(circuit_id="chain-64"), timeout=60)
        self.assertFalse(pre.already_loaded)
        pre2 = self.s.PreloadSRS(pb.PreloadSrsRequest(circuit_id="chain-64"), timeout=60)
        self.assertTrue(pre2.already_loaded)
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertEqual({e.circuit_id: e.tier for e in st.loaded_srs}["chain-64"], pb.SRSStatus.HOT)
        c = self.s.CancelProof(pb.CancelProofRequest(job_id="every-1"), timeout=10)  # ended: left as is
        self.assertFalse(c.was_running)
        self.assertEqual(self.s.AwaitProof(pb.AwaitProofRequest(job_id="every-1"), timeout=10).status, R.COMPLETED)

    def test_http_status_page(self):
        self.prove(req("n=32"))
        code, ctype, body = self.d.http("/metrics")
        self.assertEqual(code, 200)
        self.assertTrue(ctype.startswith("text/plain"))
        self.assertIn("# TYPE", body)
        # a request_id that is not UTF-8 (protobuf-c does not check strings; the
        # engine refuses only control characters): /status stays UTF-8 JSON
        # (http() decodes strictly), each broken sequence shown as U+FFFD
        wire = req("n=0", "rid-XXXXXXXX").SerializeToString()
        raw = self.d.channel.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof")
        raw(wire.replace(b"XXXXXXXX", b"\xc0\xaf\xed\xa0\x80\xf4\x90\xff"), timeout=10)
        code, ctype, body = self.d.http("/status")
        self.assertEqual(ctype, "application/json")
        import json
        doc = json.loads(body)
        self.assertIn("rid-" + "\ufffd" * 8, [j["job_id"] for j in doc["jobs"]])
        self.assertEqual(doc["ended_jobs"]["limit"], 4096)
        code, ctype, body = self.d.http("/config")
        cfg = json.loads(body)
        self.assertEqual(cfg["daemon.listen"], "unix://" + self.d.sock)
        with self.assertRaises(urllib.error.HTTPError) as e:
            self.d.http("/nope")
        self.assertEqual(e.exception.code, 404)

    def test_errors_keep_serving(self):
        # garbage vanilla bytes on a real kind: gRPC OK, status FAILED with a reason
        bad = self.prove(pb.SubmitProofRequest(proof_kind=pb.WINNING_POST, sector_size=2048, registered_proof=0,
                                               vanilla_proofs=[b"\x01garbage"], randomness=bytes(32)))
        self.assertEqual(bad.status, R.FAILED)
        self.assertTrue(bad.error_message)
        # a kind nobody serves
        none = self.prove(pb.SubmitProofRequest(proof_kind=pb.PROOF_KIND_UNSPECIFIED, vanilla_proofs=[b"x"]))
        self.assertEqual(none.status, R.FAILED)
        self.assertIn("no prover", none.error_message)
        # test provider's own parse failure
        f = self.prove(req("n=64 fail=1"))
        self.assertEqual(f.status, R.FAILED)
        self.assertIn("fail=1", f.error_message)
        # a proof that does not verify is never returned
        v = self.prove(req("n=64 bad_inputs=1"))
        self.assertEqual(v.status, R.FAILED)
        self.assertEqual(v.proof, b"")
        # wire values out of range: INVALID_ARGUMENT naming the field
        for r, word in ((pb.SubmitProofRequest(proof_kind=9, vanilla_proof=b"n=4"), "proof_kind"),
                        (pb.SubmitProofRequest(proof_kind=TEST, priority=7, vanilla_proof=b"n=4"), "priority"),
                        (pb.SubmitProofRequest(proof_kind=TEST, comm_r_old=b"123", vanilla_proof=b"n=4"), "comm_r_old"),
                        (pb.SubmitProofRequest(request_id="x" * 200, proof_kind=TEST, vanilla_proof=b"n=4"),
                         "request_id")):
            with self.assertRaises(grpc.RpcError) as e:
                self.s.SubmitProof(r, timeout=10)
            self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
            self.assertIn(word, e.exception.details())
        # unknown ids
        for call, arg in ((self.s.AwaitProof, pb.AwaitProofRequest(job_id="no-such-job")),
                          (self.s.CancelProof, pb.CancelProofRequest(job_id="no-such-job")),
                          (self.s.PreloadSRS, pb.PreloadSrsRequest(circuit_id="no-such-circuit")),
                          (self.s.EvictSRS, pb.EvictSrsRequest(circuit_id="no-such-circuit"))):
            with self.assertRaises(grpc.RpcError) as e:
                call(arg, timeout=10)
            self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND, e.exception.details())
        # bytes that are not a protobuf message
        raw = self.d.channel.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof")
        with self.assertRaises(grpc.RpcError) as e:
            raw(b"\xff\xff\xff\xff", timeout=10)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("SubmitProofRequest", e.exception.details())
        # unknown method
        with self.assertRaises(grpc.RpcError) as e:
            self.d.channel.unary_unary("/cuzk.v1.ProvingEngine/Nope")(b"", timeout=10)
        self.assertEqual(e.exception.code(), grpc.StatusCode.UNIMPLEMENTED)
        # oversize: just above the 256 MiB receive limit
        big = pb.SubmitProofRequest(proof_kind=TEST, vanilla_proof=b"\0" * (256 * MiB + 16))
        with self.assertRaises(grpc.RpcError) as e:
            self.s.SubmitProof(big, timeout=120)
        self.assertEqual(e.exception.code(), grpc.StatusCode.RESOURCE_EXHAUSTED)
        del big
        # still serving, counters honest
        ok = self.prove(req("n=64"))
        self.assertEqual(ok.status, R.COMPLETED, ok.error_message)
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertEqual(st.total_proofs_completed, 1)
        self.assertGreaterEqual(st.total_proofs_failed, 4)

    def test_idempotent_resubmission(self):
        a = self.s.SubmitProof(req("n=64 sleep_ms=300", "same-id"), timeout=10)
        b = self.s.SubmitProof(req("n=64 sleep_ms=300", "same-id"), timeout=10)
        self.assertEqual(a.job_id, b.job_id)
        p = self.prove(req("n=64 sleep_ms=300", "same-id"))  # Prove on a known id waits for the same job
        self.assertEqual(p.status, R.COMPLETED)
        self.assertEqual(p.job_id, "same-id")
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertEqual(st.total_proofs_completed, 1)

    def test_await_timeout(self):
        self.s.SubmitProof(req("n=64 sleep_ms=1500", "slow"), timeout=10)
        t0 = time.time()
        r = self.s.AwaitProof(pb.AwaitProofRequest(job_id="slow", timeout_ms=200), timeout=10)
        self.assertEqual(r.status, R.TIMEOUT)
        self.assertLess(time.time() - t0, 1.2)
        r = self.s.AwaitProof(pb.AwaitProofRequest(job_id="slow"), timeout=30)
        self.assertEqual(r.status, R.COMPLETED)

    def test_cancel_pending_and_running(self):
        self.s.SubmitProof(req("n=64 sleep_ms=4000", "run-1"), timeout=10)
        time.sleep(0.3)
        self.s.SubmitProof(req("n=64 sleep_ms=4000", "pend-1"), timeout=10)
        self.s.SubmitProof(req("n=64 sleep_ms=4000", "pend-2"), timeout=10)
        c = self.s.CancelProof(pb.CancelProofRequest(job_id="pend-2"), timeout=10)
        self.assertFalse(c.was_running)
        self.assertEqual(self.s.AwaitProof(pb.AwaitProofRequest(job_id="pend-2"), timeout=10).status, R.CANCELLED)
        t0 = time.time()
        c = self.s.CancelProof(pb.CancelProofRequest(job_id="run-1"), timeout=10)
        self.assertTrue(c.was_running)
        r = self.s.AwaitProof(pb.AwaitProofRequest(job_id="run-1"), timeout=10)
        self.assertEqual(r.status, R.CANCELLED)
        self.assertLess(time.time() - t0, 2.0, "running job stops at its next safe point")
        self.s.CancelProof(pb.CancelProofRequest(job_id="pend-1"), timeout=10)

    def test_client_deadline_leaves_job_running(self):
        # docs/curio-migration.md: a client that goes away does not cancel
        # its job (Curio's retry attaches to it); only CancelProof does.
        with self.assertRaises(grpc.RpcError) as e:
            self.s.Prove(pb.ProveRequest(submit=req("n=64 sleep_ms=1500", "gone")), timeout=0.4)
        self.assertEqual(e.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
        time.sleep(0.3)  # let the server see the client go before we wait on the job ourselves
        r = self.s.AwaitProof(pb.AwaitProofRequest(job_id="gone"), timeout=10)
        self.assertEqual(r.status, R.COMPLETED, "the job outlives its client")
        # ... nor when another caller waits on the same job
        self.s.SubmitProof(req("n=64 sleep_ms=1500", "shared"), timeout=10)
        out = {}
        t = threading.Thread(target=lambda: out.setdefault(
            "r", self.s.AwaitProof(pb.AwaitProofRequest(job_id="shared"), timeout=30)))
        t.start()
        time.sleep(0.2)
        with self.assertRaises(grpc.RpcError):
            self.s.Prove(pb.ProveRequest(submit=req("n=64 sleep_ms=1500", "shared")), timeout=0.3)
        t.join()
        self.assertEqual(out["r"].status, R.COMPLETED)

    def test_priority_critical_first(self):
        # one synthesis worker busy, N NORMAL queued, then one CRITICAL
        done = {}
        lock = threading.Lock()

        def run(rid, text, prio):
            r = self.prove(req(text, rid, prio))
            with lock:
                done[rid] = (time.time(), r.status)

        ts = [threading.Thread(target=run, args=("normal-%d" % i, "n=64 sleep_ms=400", pb.NORMAL)) for i in range(5)]
        for t in ts:
            t.start()
            time.sleep(0.05)
        time.sleep(0.2)
        c = threading.Thread(target=run, args=("critical", "n=64", pb.CRITICAL))
        c.start()
        for t in ts + [c]:
            t.join()
        self.assertTrue(all(s == R.COMPLETED for _, s in done.values()), done)
        order = sorted(done, key=lambda k: done[k][0])
        self.assertLess(order.index("critical"), 2, "CRITICAL finished behind queued NORMAL jobs: %s" % order)

    def test_load_hundreds(self):
        n, conc = 300, 16
        ids = ["load-%03d" % i for i in range(n)]
        res = {}
        lock = threading.Lock()
        it = iter(ids)

        def worker():
            while True:
                with lock:
                    rid = next(it, None)
                if rid is None:
                    return
                r = self.prove(req("n=16 x0=%d" % (hash(rid) % 1000 + 1), rid), timeout=300)
                with lock:
                    res[rid] = r

        ts = [threading.Thread(target=worker) for _ in range(conc)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(sorted(res), ids)
        bad = {k: (v.status, v.error_message) for k, v in res.items() if v.status != R.COMPLETED or len(v.proof) != 192
               or v.job_id != k}
        self.assertEqual(bad, {})
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertEqual(st.total_proofs_completed, n)


class TestBudget(DaemonCase):
    extra = "[memory]\ntotal_budget = \"12MiB\"\n[synthesis]\nthreads = 2\n"

    def test_backpressure(self):
        res = {}

        def run(i):
            res[i] = self.prove(req("n=64 sleep_ms=200 mem=5000000", "mem-%d" % i))

        ts = [threading.Thread(target=run, args=(i,)) for i in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual([r.status for r in res.values()], [R.COMPLETED] * 6, [r.error_message for r in res.values()])
        big = self.prove(req("n=64 mem=50000000", "too-big"))
        self.assertEqual(big.status, R.FAILED)
        self.assertTrue(big.error_message)


class TestRequestMemory(DaemonCase):
    """Request memory is charged before it is taken (docs/engine.md "Request
    memory and the queue").  Two clients keep sending the two costliest
    messages of BIG_MIB (default 256 MiB, gRPC's receive limit) -- a
    SubmitProofRequest of two-byte empty `vanilla_proofs` entries (40x its
    size if protobuf-c decoded it) and a PoRep "C1" of 0s (16x as a JSON
    tree) -- while CRITICAL proofs run: each CRITICAL proof stays within 2x
    its unloaded time, the daemon's RSS within memory.request_budget + 10 %,
    and every big request fails RESOURCE_EXHAUSTED naming the budget.  The
    CRITICAL proofs are the chain TEST circuit at WinningPoSt's priority (the
    daemon tests cache no WinningPoSt params)."""
    BUDGET_MIB = 1024
    extra = "[memory]\nrequest_budget = \"%dMiB\"\n" % BUDGET_MIB
    BIG_MIB = int(os.environ.get("CUZK_BIG_MIB", "256"))
    FLOOD_WAIT_S = 240  # for the first answers (see the test); seconds at nice 19 beside a busy machine

    @classmethod
    def setUpClass(cls):
        # make test runs this class (release build) in its first phase, alone on
        # the machine: "2x its unloaded time" measured beside the other lane's
        # suites failed twice (0.51 vs 0.25 s) on their load, not the daemon's
        if os.environ.get("CUZK_REQUEST_MEMORY_RAN") == "1" and not SANITIZER:
            raise unittest.SkipTest("ran before the lanes, on a quiet machine (make test's first phase)")
        super().setUpClass()

    def rss_mib(self):
        with open("/proc/%d/status" % self.d.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
        return 0.0

    # The CRITICAL proof: ~0.4 s in release (a 64 ms one measured the other
    # make-test lane's scheduling more than the daemon: 133 vs 64 ms failed the
    # 2x bound once); n=2000 under the sanitizers (~0.5 s there already)
    CRITICAL_N = 2000 if SANITIZER else 16000

    def critical(self, rid):
        t = time.time()
        r = self.prove(req("n=%d" % self.CRITICAL_N, rid, pb.CRITICAL), timeout=120)
        self.assertEqual(r.status, R.COMPLETED, r.error_message)
        return time.time() - t

    # The flood runs in its own process at nice 19, so that the 2-core test
    # machine measures the daemon, not the client building and sending its
    # messages.  It prints one line per answer: CODE<TAB>details.
    FLOOD = r"""
import os, sys, threading, time, grpc
sock, size, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
os.nice(19)
def varint(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)
entries = b"\x10\x04" + b"\x5a\x00" * ((size - 2) // 2)   # WINNING_POST, empty vanilla_proofs
body = (size - 16) // 2
c1 = b"[" + b"0," * (body - 1) + b"0]"
porep = b"\x10\x01\x52" + varint(len(c1)) + c1               # POREP_SEAL_COMMIT, a "C1" of 0s
ch = grpc.insecure_channel("unix://" + sock, options=[("grpc.max_send_message_length", 300 << 20)])
raw = ch.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof")
lock, end = threading.Lock(), time.time() + secs
def flood(msg):
    while time.time() < end:
        try:
            raw(msg, timeout=600)
            line = "OK\taccepted"
        except grpc.RpcError as e:
            line = "%s\t%s" % (e.code().name, e.details())
        with lock:
            print(line, flush=True)
print("READY", flush=True)
ts = [threading.Thread(target=flood, args=(m,)) for m in (entries, porep)]
for t in ts: t.start()
for t in ts: t.join()
"""

    def test_big_requests_cannot_slow_critical(self):
        for i in range(2):  # params made, caches warm
            self.critical("warm-%d" % i)
        unloaded = sorted(self.critical("alone-%d" % i) for i in range(5))[2]  # medians of 5
        size = self.BIG_MIB * MiB - 64  # the whole message within gRPC's 256 MiB receive limit
        # the flood runs until the loaded proofs and GetStatus are measured,
        # then is stopped: a fixed 20 s was ~15 s of both cores spent after
        # the measurement, in each of make test's three passes.  It waits for
        # one answer per sender, which at nice 19 beside make test's other
        # worker (both cores busy) took over 60 s once under TSan: up to
        # FLOOD_WAIT_S, so a slow machine is slow, not a failure
        flood = subprocess.Popen([sys.executable, "-c", self.FLOOD, self.d.sock, str(size), str(self.FLOOD_WAIT_S)],
                                 stdout=subprocess.PIPE, text=True)
        stop = threading.Event()
        rss, answers = [self.rss_mib()], []

        def sample():
            while not stop.is_set():
                rss.append(self.rss_mib())
                time.sleep(0.05)

        def read():
            for line in flood.stdout:
                answers.append(line.rstrip("\n").split("\t", 1))

        ts = [threading.Thread(target=sample), threading.Thread(target=read)]
        for t in ts:
            t.start()
        t0 = time.time()
        try:
            while len(answers) < 3 and time.time() - t0 < self.FLOOD_WAIT_S:  # READY and one answer each
                time.sleep(0.1)
            loaded = sorted(self.critical("loaded-%d" % i) for i in range(5))[2]
            t = time.time()
            self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
            status_s = time.time() - t
        finally:
            flood.terminate()  # a call cut mid-send is one more abuse the daemon must take
            flood.wait(120)
            stop.set()
            for t in ts:
                t.join()
        errors = [a for a in answers if a[0] != "READY"]
        print("\n  %d MiB requests: %d refused in %.1f s; CRITICAL proof %.0f ms unloaded, %.0f ms loaded; "
              "GetStatus %.0f ms; daemon RSS max %.0f MiB (budget %d MiB)"
              % (self.BIG_MIB, len(errors), time.time() - t0, unloaded * 1e3, loaded * 1e3, status_s * 1e3,
                 max(rss), self.BUDGET_MIB), file=sys.stderr)
        self.assertGreaterEqual(len(errors), 2)
        for code, details in errors:
            self.assertEqual(code, "RESOURCE_EXHAUSTED", details)
            self.assertIn("memory.request_budget is %d MiB" % self.BUDGET_MIB, details)
        self.assertLess(status_s, 1.0)
        if not SANITIZER:  # ASan: instrumented copies of every received byte; 256 MiB quarantine and shadow
            self.assertLessEqual(loaded, 2 * unloaded,
                                 "CRITICAL proof %.3f s under load, %.3f s alone" % (loaded, unloaded))
            self.assertLess(max(rss), 1.1 * self.BUDGET_MIB)
        after = self.prove(req("n=64", "after-flood"))  # every reservation was given back
        self.assertEqual(after.status, R.COMPLETED, after.error_message)


class TestLifecycle(unittest.TestCase):
    def test_single_instance_lock(self):
        d = Daemon()
        try:
            cfg = d.cfg
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", cfg], capture_output=True, text=True,
                               timeout=30)
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("another cuzk-daemon", p.stderr)
            r = d.stub.Prove(pb.ProveRequest(submit=req("n=16")), timeout=60).result
            self.assertEqual(r.status, R.COMPLETED, "first daemon must keep its socket")
        finally:
            d.close()

    def test_tcp_listen(self):
        tmp = tempfile.mkdtemp()
        try:
            cfg = os.path.join(tmp, "tcp.toml")
            log = os.path.join(tmp, "log")
            with open(cfg, "w") as f:
                f.write('[daemon]\nlisten = "127.0.0.1:0"\ntest_provider = "test"\n[srs]\nparam_cache = "%s"\n' % PARAMS)
            with open(log, "w") as lf:
                p = subprocess.Popen([os.path.join(BIN, "cuzk-daemon"), "--config", cfg], stderr=lf)
            port = None
            for _ in range(400):
                with open(log) as lf:
                    m = re.search(r"tcp port (\d+)", lf.read())
                if m:
                    port = int(m.group(1))
                    break
                time.sleep(0.025)
            self.assertIsNotNone(port)
            with grpc.insecure_channel("127.0.0.1:%d" % port) as ch:
                r = pbg.ProvingEngineStub(ch).Prove(pb.ProveRequest(submit=req("n=16")), timeout=60).result
                self.assertEqual(r.status, R.COMPLETED)
            # the same port again: refused (no SO_REUSEPORT sharing)
            q = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", cfg, "--listen", "127.0.0.1:%d" % port],
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(q.returncode, 1)
            self.assertIn("cannot listen", q.stderr)
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(30), 0)
        finally:
            shutil.rmtree(tmp)

    def test_shutdown_with_work_in_flight(self):
        for grace, text, want in (("10s", "n=64 sleep_ms=800", R.COMPLETED), ("100ms", "n=64 sleep_ms=5000", R.CANCELLED)):
            d = Daemon("[pipeline]\nshutdown_grace = \"%s\"\n" % grace)
            try:
                out = {}
                t = threading.Thread(target=lambda: out.setdefault(
                    "r", d.stub.Prove(pb.ProveRequest(submit=req(text, "inflight")), timeout=60).result))
                t.start()
                time.sleep(0.4)
                t0 = time.time()
                self.assertEqual(d.stop(signal.SIGTERM), 0)
                t.join(30)
                self.assertEqual(out["r"].status, want, (grace, out["r"].error_message))
                self.assertLess(time.time() - t0, 8)
                self.assertFalse(os.path.exists(d.sock), "socket removed at exit")
            finally:
                d.close()

    def test_stop_with_idle_client_attached(self):
        # every call answered, the client's connection left open and idle
        # (Python's grpc polls it only during calls, so it never closes it
        # after the GOAWAY): the daemon must not wait for it.  It did, for
        # its 2 s timeout, on every stop; now it waits for calls only.
        d = Daemon()
        try:
            r = d.stub.Prove(pb.ProveRequest(submit=req("n=16")), timeout=60).result
            self.assertEqual(r.status, R.COMPLETED)
            t0 = time.time()
            self.assertEqual(d.stop(signal.SIGTERM), 0, d.exit_message())
            self.assertLess(time.time() - t0, 1.5, "stop waited for an idle client's connection")
        finally:
            d.close()

    def test_config_errors(self):
        tmp = tempfile.mkdtemp()
        try:
            bad = os.path.join(tmp, "bad.toml")
            with open(bad, "w") as f:
                f.write("[scheduler]\nmax_batch_size = 4\nmax_batch_wait_ms = \"soon\"\n")
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", bad], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("bad.toml:3", p.stderr)
            self.assertIn("scheduler.max_batch_wait_ms", p.stderr)
            with open(bad, "w") as f:
                f.write("[memory]\ntotal_budget = \"2 GiB\"\n[gpus]\ndevices = [0]\n[mystery]\nkey = 1\n")
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", bad, "--print-config"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("total_budget = 2147483648", p.stdout)
            self.assertIn("mystery.key", p.stderr)
            self.assertNotIn("gpus.devices", p.stderr)  # used now (devices are checked when the engine starts)
            # the printed configuration reads back to itself (durations carry their unit)
            p1 = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", bad, "--set",
                                 "memory.eviction_min_idle=5m", "--print-config"], capture_output=True, text=True)
            self.assertIn('eviction_min_idle = "300000ms"', p1.stdout)
            again = os.path.join(tmp, "again.toml")
            with open(again, "w") as f:
                f.write(p1.stdout)
            p2 = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", again, "--print-config"],
                                capture_output=True, text=True)
            self.assertEqual(p1.stdout, p2.stdout)
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--set", "synthesis.threads=abc", "--print-config"],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("synthesis.threads", p.stderr)
        finally:
            shutil.rmtree(tmp)


def skipped(reason, who=os.path.basename(__file__)):
    """unittest prints skip reasons only with -v: say it always, and log it
    for the list at the end of make test."""
    print("\nSKIPPED: " + reason, file=sys.stderr)
    if os.environ.get("CUZK_SKIP_LOG"):
        with open(os.environ["CUZK_SKIP_LOG"], "a") as f:
            f.write("SKIPPED %s: %s\n" % (who, reason))
    return reason


def bench(*args, timeout=120):
    """cuzk-bench ARGS (captured)."""
    return subprocess.run([os.path.join(BIN, "cuzk-bench")] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=timeout)


def gen_vanilla(out, *args):
    """cuzk-bench gen-vanilla ARGS --out OUT: (OUT, its summary.json)."""
    p = bench("gen-vanilla", *args, "--out", out)
    if p.returncode != 0:
        raise AssertionError("gen-vanilla %s: %s" % (args, p.stderr))
    import json
    with open(os.path.join(out, "summary.json")) as f:
        return out, json.load(f)


class CachedParamsCase(unittest.TestCase):
    """One real daemon per class serving the 2 KiB TEST params that
    scripts/cli-tests.sh caches (it runs first in `make test`; minutes to
    make on 2 cores): without them the class is skipped with the reason
    rather than generating them here.  Subclasses set PARAMS (the cache),
    MARKER (its done-file) and WHAT, and make their inputs in prepare()."""
    PARAMS = MARKER = WHAT = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(os.path.join(cls.PARAMS, cls.MARKER)):
            raise unittest.SkipTest(skipped("no 2 KiB %s TEST params in %s (scripts/cli-tests.sh makes them)"
                                            % (cls.WHAT, cls.PARAMS)))
        cls.work = tempfile.mkdtemp(prefix="cuzk-%s-" % cls.WHAT.lower())
        cls.prepare()
        # default srs.validate (digest): `cuzk-bench setup` wrote the params'
        # validation record, so their ~11 M (PoRep) / ~6 M (SnapDeals) points
        # are not checked again; the daemon still verifies every proof.  They
        # are TEST params under the official names: srs.allow_test_params.
        cls.d = Daemon(args=["--param-cache", cls.PARAMS, "--set", "srs.allow_test_params=true"])

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.d.close()
        shutil.rmtree(cls.work, ignore_errors=True)
        if rc != 0:
            raise AssertionError("%d: %s" % (rc, cls.d.exit_message()))

    @classmethod
    def bench(cls, *args, timeout=120):
        return bench(*args, timeout=timeout)

    @classmethod
    def gen_vanilla(cls, *args):
        """cuzk-bench gen-vanilla ARGS --out work/<name>: the dir and its summary.json."""
        return gen_vanilla(os.path.join(cls.work, args[0] + "-" + str(len(os.listdir(cls.work)))), *args)

    def prove(self, timeout=900, **fields):
        return self.d.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(**fields)), timeout=timeout).result

    def verify(self, proof, circuit, vk_prefix, *public):
        """`cuzk-bench verify --circuit CIRCUIT` from public values: an
        independent check of a proof the daemon returned."""
        path = os.path.join(self.work, circuit + ".proof")
        with open(path, "wb") as f:
            f.write(proof)
        vk = [n for n in os.listdir(self.PARAMS) if n.startswith(vk_prefix) and n.endswith(".vk")]
        return self.bench("verify", "--circuit", circuit, "--sector-size", "2KiB", "--vk",
                          os.path.join(self.PARAMS, vk[0]), "--proof", path, *public)

    def check_proved(self, r, what):
        """r COMPLETED with one 192-byte proof; prints its timings."""
        self.assertEqual(r.status, R.COMPLETED, r.error_message)
        self.assertEqual(len(r.proof), 192)
        print("\n  %s via gRPC: srs_load %d ms, synthesis %d ms, prove %d ms, total %d ms"
              % (what, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms, r.total_ms), file=sys.stderr)

    def check_verifies(self, proof, verify):
        """verify(proof) says valid, and invalid for the proof with one bit flipped."""
        v = verify(proof)
        self.assertEqual((v.returncode, v.stdout.strip()), (0, "valid"), v.stderr)
        bad = bytearray(proof)
        bad[20] ^= 0x01
        v = verify(bytes(bad))
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        self.assertTrue(v.stdout.startswith("invalid: "), v.stdout)

    def skip_slow_prove_under_sanitizer(self, what, how_long):
        if SANITIZER and os.environ.get("CUZK_SLOW_TESTS") != "1":
            self.skipTest(skipped("%s prove under %s: %s there (CUZK_SLOW_TESTS=1 runs it)"
                                  % (what, SANITIZER, how_long)))


class TestPoRep(CachedParamsCase):
    """PoRep C2 (POREP_SEAL_COMMIT) through the real daemon: a natively sealed
    2 KiB sector's C1 (Curio's envelope) proved over gRPC, the proof checked by
    `cuzk-bench verify --circuit porep` from summary.json's public values."""
    PARAMS, MARKER, WHAT = POREP_PARAMS, ".done-porep-2k", "PoRep"
    MINER, SECTOR = 1234, 7

    @classmethod
    def prepare(cls):
        seal, cls.summary = cls.gen_vanilla("porep", "--sector-size", "2KiB", "--sector", cls.SECTOR, "--miner-id",
                                            cls.MINER)
        with open(os.path.join(seal, "c1-envelope.json"), "rb") as f:
            cls.envelope = f.read()

    def submit(self, vanilla, miner=MINER, sector=SECTOR, timeout=900):
        return self.prove(timeout, proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=vanilla, miner_id=miner,
                          sector_number=sector)

    def verify_porep(self, proof):
        s = self.summary
        return self.verify(proof, "porep", "v28-stacked-proof-of-replication", "--comm-r", s["comm_r"], "--comm-d",
                           s["comm_d"], "--prover-id", s["prover_id"], "--sector-id", str(s["sector_id"]), "--ticket",
                           s["ticket"], "--seed", s["seed"])

    def test_bad_c1_fails_with_reason(self):
        for vanilla, word in ((b"not json", "C1 JSON"),
                              (self.envelope[:5000], "truncated"),
                              (b'{"SectorNum": 7, "Phase1Out": "AAAA", "SectorSize": 2048}', "Phase1Out"),
                              (b"", "no C1 output")):
            r = self.submit(vanilla, timeout=60)
            self.assertEqual(r.status, R.FAILED, word)
            self.assertIn(word, r.error_message)
            self.assertEqual(r.proof, b"")
        # a sound C1 for another miner: replica_id does not match
        r = self.submit(self.envelope, miner=self.MINER + 1, timeout=60)
        self.assertEqual(r.status, R.FAILED)
        self.assertIn("replica_id", r.error_message)

    def test_prove_envelope_and_verify(self):
        # Under ASan+UBSan the 2.7 M-constraint prove takes ~3 minutes (vs
        # ~30 s); the PoRep job and circuit run under the sanitizers in ctest
        # (test_porep_job), and the C1 input path in the test above.
        self.skip_slow_prove_under_sanitizer("PoRep", "~2.5 minutes")
        r = self.submit(self.envelope)
        self.check_proved(r, "porep 2 KiB")
        self.check_verifies(r.proof, self.verify_porep)


class TestSnap(CachedParamsCase):
    """SnapDeals (SNAP_DEALS_UPDATE) through the real daemon: a natively
    sealed 2 KiB sector updated by `cuzk-bench gen-vanilla snap`, its
    partition proof sent as Curio does (one bincode PartitionProof per
    partition in vanilla_proofs) and as Curio's stored JSON array in a single
    vanilla_proof, each answer checked by `cuzk-bench verify --circuit snap`
    from summary.json's commitments."""
    PARAMS, MARKER, WHAT = SNAP_PARAMS, ".done-snap-2k", "SnapDeals"

    @classmethod
    def prepare(cls):
        sealed, _ = cls.gen_vanilla("porep", "--sector-size", "2KiB")
        snap, s = cls.gen_vanilla("snap", "--sector-size", "2KiB", "--sealed", sealed)
        cls.summary = s
        cls.comms = {k: bytes.fromhex(s[k]) for k in ("comm_r_old", "comm_r_new", "comm_d_new")}
        with open(os.path.join(snap, "partition-0.bin"), "rb") as f:
            cls.partition0 = f.read()
        with open(os.path.join(snap, "vanilla-proofs.json"), "rb") as f:
            cls.json_array = f.read()

    def submit(self, timeout=900, **fields):
        req = dict(proof_kind=pb.SNAP_DEALS_UPDATE, registered_proof=self.summary["registered_proof"],
                   sector_size=2048, **self.comms)
        req.update(fields)
        return self.prove(timeout, **req)

    def verify_snap(self, proof):
        s = self.summary
        return self.verify(proof, "snap", "v28-empty-sector-update", "--comm-r-old", s["comm_r_old"], "--comm-r-new",
                           s["comm_r_new"], "--comm-d-new", s["comm_d_new"])

    def test_bad_input_fails_with_reason(self):
        wrong = bytearray(self.comms["comm_r_new"])
        wrong[0] ^= 1
        tampered = bytearray(self.partition0)
        tampered[0] ^= 1  # comm_c
        for fields, word in ((dict(vanilla_proofs=[b"\x01garbage"]), "snap proof"),
                             (dict(vanilla_proof=b"[\"not base64!\"]"), "base64"),
                             (dict(vanilla_proofs=[bytes(tampered)]), "comm_r_old mismatch"),
                             (dict(vanilla_proofs=[self.partition0], comm_r_new=bytes(wrong)), "comm_r_new mismatch"),
                             (dict(vanilla_proofs=[self.partition0], comm_r_old=b"", comm_r_new=b"", comm_d_new=b""),
                              "comm_r_old, comm_r_new and comm_d_new"),
                             (dict(vanilla_proofs=[self.partition0], comm_d_new=b""), "comm_d_new"),
                             (dict(vanilla_proofs=[self.partition0], registered_proof=9), "registered_proof 9"),
                             (dict(vanilla_proofs=[self.partition0], sector_size=4096), "sector_size 4096"),
                             (dict(), "no partition proofs")):
            r = self.submit(timeout=60, **fields)
            self.assertEqual(r.status, R.FAILED, word)
            self.assertIn(word, r.error_message)
            self.assertEqual(r.proof, b"")

    def test_prove_and_verify(self):
        # Two proves: ~12 s in release, ~85 s under ASan+UBSan.  The Snap job
        # and circuit run under the sanitizers in ctest, and the input checks
        # in the test above.
        self.skip_slow_prove_under_sanitizer("SnapDeals", "~1.5 minutes")
        r = self.submit(vanilla_proofs=[self.partition0])
        self.check_proved(r, "snap 2 KiB (bincode)")
        self.check_verifies(r.proof, self.verify_snap)
        # Curio's JSON array of base64 proofs in one vanilla_proof, sector_size 0
        j = self.submit(vanilla_proof=self.json_array, sector_size=0)
        self.check_proved(j, "snap 2 KiB (JSON array)")
        self.assertEqual(self.verify_snap(j.proof).stdout.strip(), "valid")
        st = self.d.stub.GetStatus(pb.GetStatusRequest(), timeout=10)
        self.assertIn("snap-2k", {e.circuit_id for e in st.loaded_srs})
        self.assertEqual(st.total_proofs_completed, 2)


class TestBenchClient(DaemonCase):
    """cuzk-bench's own client commands against the daemon."""

    def bench(self, *args):
        return subprocess.run([os.path.join(BIN, "cuzk-bench")] + list(args) + ["--addr", "unix://" + self.d.sock],
                              capture_output=True, text=True, timeout=120)

    def test_commands(self):
        p = self.bench("single", "--kind", "test", "--vanilla-text", "n=64", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('"status":"COMPLETED"', p.stdout)
        p = self.bench("batch", "--kind", "test", "--vanilla-text", "n=16", "--count", "20", "--concurrency", "4")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertIn("p99", p.stdout)
        p = self.bench("stress", "--duration", "2", "--job", "test:5:n=16", "--job", "test:2:n=32")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertNotIn("LOST", p.stdout)
        for cmd in (["status"], ["metrics"], ["preload", "chain-16"], ["evict", "chain-16"]):
            p = self.bench(*cmd)
            self.assertEqual(p.returncode, 0, (cmd, p.stderr))
        p = self.bench("cancel", "nope")
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("NOT_FOUND", p.stderr)


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        shutil.rmtree(GEN, ignore_errors=True)
        shutil.rmtree(PARAMS, ignore_errors=True)
