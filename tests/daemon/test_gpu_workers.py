#!/usr/bin/env python3
"""The daemon's prover workers (issue 21 item 4): gpus.* choose the device
(gpus.backend = "opencl": pocl here, the OpenCL device the engine's "auto"
never picks), two workers on it and the CPU prover beside them; mixed TEST
jobs proved concurrently through gRPC, every proof verified by the
harness's VerifyingStub (against the chain circuit's vk and the reference
output), the device's workers visible in GetStatus, /status and /metrics.
A device ordinal that does not exist stops the daemon with the reason.
Release pass only: pocl's runtime is not built with the sanitizers.

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_gpu_workers.py [-v]"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402

pb, R, BIN = td.pb, td.R, td.BIN
CI = os.environ.get("CI") == "true"
GPUS = ('[gpus]\nbackend = "opencl"\ndevices = [0]\ngpu_workers_per_device = 2\ngpu_threads = 1\n'
        'cpu_worker = "on"\n[scheduler]\nmax_batch_size = 1\n[synthesis]\nthreads = 2\n'
        '[pipeline]\nmax_pending = 6\nprover_threads = 1\n')


def opencl_reason():
    """None when the daemon can open OpenCL device 0, else why not."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "c.toml")
        with open(cfg, "w") as f:
            f.write('[daemon]\nlisten = "unix://%s/s.sock"\ntest_provider = "test"\n[srs]\nparam_cache = "%s"\n%s'
                    % (tmp, td.PARAMS, GPUS))
        p = subprocess.Popen([os.path.join(BIN, "cuzk-daemon"), "--config", cfg], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        try:
            out = ""
            for line in p.stderr:
                out += line
                if "cuzk-daemon ready" in line:
                    return None
            return out.strip().splitlines()[-1] if out.strip() else "daemon exited"
        finally:
            p.terminate()
            p.wait(30)


@unittest.skipIf(td.SANITIZER, "pocl is not built with %s: the release pass runs this" % td.SANITIZER)
class TestDeviceWorkers(td.DaemonCase):
    extra = GPUS

    @classmethod
    def setUpClass(cls):
        why = opencl_reason()
        if why and "not available" in why and not CI:
            raise unittest.SkipTest(td.skipped("no OpenCL device: " + why, os.path.basename(__file__)))

    def test_mixed_jobs_over_device_and_cpu(self):
        jobs = ["n=64 partitions=3 x0=%d" % (i + 1) if i % 2 else "n=128 partitions=2 x0=%d" % (i + 1)
                for i in range(6)]
        results = [None] * len(jobs)

        def run(i):
            try:
                results[i] = self.prove(td.req(jobs[i]), timeout=120)
            except Exception as ex:  # noqa: BLE001 -- reported below with the job
                results[i] = ex
        threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for text, r in zip(jobs, results):
            self.assertNotIsInstance(r, Exception, "%s: %r" % (text, r))
            self.assertEqual(r.status, R.COMPLETED, text + ": " + r.error_message)
            self.assertEqual(len(r.proof), 192 * int(text.split("partitions=")[1].split()[0]))
        st = self.s.GetStatus(pb.GetStatusRequest(), timeout=10)
        names = [g.name for g in st.gpus]
        self.assertEqual(names[0], "cpu")
        self.assertEqual(len(names), 3, names)
        self.assertTrue(all(n.startswith("gpu-0.") and " opencl:0 " in n for n in names[1:]), names)
        self.assertGreater(st.gpus[1].vram_total_bytes, 0)
        _, _, body = self.d.http("/status")
        doc = json.loads(body)
        workers = {w["name"]: w for w in doc["workers"]}
        self.assertEqual(workers["gpu-0.0"]["device"], "opencl:0")
        self.assertEqual(workers["prover"]["device"], "cpu")
        self.assertIsNone(workers["synth-0"]["device"])
        devices = {d["device"]: d for d in doc["devices"]}
        self.assertEqual(devices["opencl:0"]["workers"], 2)
        self.assertEqual(devices["opencl:0"]["fallbacks"], 0)
        self.assertEqual(devices["opencl:0"]["partitions"] + devices["cpu"]["partitions"], 15)
        self.assertGreater(devices["opencl:0"]["partitions"], 0)
        self.assertEqual([g["device"] for g in doc["gpu_workers"]], ["cpu", "opencl:0", "opencl:0"])
        by = [p.get("prove_worker") for j in doc["jobs"] for p in j["partitions"]]
        print("\n  partitions by worker: %s" % {w: by.count(w) for w in set(by)}, file=sys.stderr)
        _, _, text = self.d.http("/metrics")
        self.assertIn('cuzk_worker_device{worker="gpu-0.1",device="opencl:0"} 1', text)
        self.assertIn("cuzk_gpu_workers 3", text)
        self.assertRegex(text, r'cuzk_device_partitions_total\{device="opencl:0"\} [1-9]')

    def test_missing_ordinal_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            cfg = os.path.join(tmp, "c.toml")
            with open(cfg, "w") as f:
                f.write('[daemon]\nlisten = "unix://%s/s.sock"\n[gpus]\nbackend = "opencl"\ndevices = [0, 57]\n' % tmp)
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", cfg], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("gpus.devices: device 57 does not exist", p.stderr)
            p = subprocess.run([os.path.join(BIN, "cuzk-daemon"), "--config", cfg], capture_output=True, text=True,
                               timeout=60, env=dict(os.environ, CUZK_BACKEND="quantum"))
            self.assertEqual(p.returncode, 2)
            self.assertIn("gpus.backend: expected auto, cpu, opencl or cuda, got 'quantum'", p.stderr)


R_HEX = "11" * 31 + "00"


@unittest.skipIf(td.SANITIZER, "pocl is not built with %s: the release pass runs this" % td.SANITIZER)
class TestFourKindsOnDevice(unittest.TestCase):
    """The four real 2 KiB kinds through the daemon's OpenCL worker: PoRep C2
    (Curio's C1 envelope), SnapDeals (bincode partition proof), WindowPoSt
    and WinningPoSt, submitted at once; `gpus.cpu_worker = "off"`, so every
    partition is proved on the device (the CPU prover only takes partitions a
    device gave back after an error, and /status must show none).  Each
    proof is checked by `cuzk-bench verify` from the public values.  The
    params: the PoRep and SnapDeals TEST caches (scripts/test-params.sh,
    linked, not copied) and 2 KiB PoSt TEST params made here.  pocl is the
    CPU: ~2 minutes of both cores (PoRep ~60 s, SnapDeals ~35 s)."""

    @classmethod
    def setUpClass(cls):
        for cache, marker in ((td.POREP_PARAMS, ".done-porep-2k"), (td.SNAP_PARAMS, ".done-snap-2k")):
            if not os.path.exists(os.path.join(cache, marker)):
                raise unittest.SkipTest(td.skipped("no 2 KiB TEST params in %s (scripts/test-params.sh makes them)"
                                                   % cache, os.path.basename(__file__)))
        why = opencl_reason()
        if why and "not available" in why and not CI:
            raise unittest.SkipTest(td.skipped("no OpenCL device: " + why, os.path.basename(__file__)))
        cls.work = tempfile.mkdtemp(prefix="cuzk-gpu-kinds-")
        cls.params = os.path.join(cls.work, "params")
        os.mkdir(cls.params)
        for cache in (td.POREP_PARAMS, td.SNAP_PARAMS):
            for n in os.listdir(cache):
                if n.startswith("v28-"):
                    os.symlink(os.path.join(cache, n), os.path.join(cls.params, n))
        cls.vks = {}
        for cache, circuit in ((td.POREP_PARAMS, "porep"), (td.SNAP_PARAMS, "snap")):
            cls.vks[circuit] = [n for n in os.listdir(cache) if n.startswith("v28-") and n.endswith(".vk")]
        for circuit in ("window-post", "winning-post"):  # the vk each setup adds
            before = set(os.listdir(cls.params))
            p = td.bench("setup", "--circuit", circuit, "--sector-size", "2KiB", "--out", cls.params, timeout=300)
            if p.returncode != 0:
                raise AssertionError("cuzk-bench setup %s: %s" % (circuit, p.stderr))
            cls.vks[circuit] = [n for n in set(os.listdir(cls.params)) - before if n.endswith(".vk")]
        cls.porep = cls.gen("porep", "--sector-size", "2KiB", "--sector", 7, "--miner-id", 1234)
        cls.snap = cls.gen("snap", "--sector-size", "2KiB", "--sealed", cls.porep[0])
        cls.post = cls.gen("post", "--sector-size", "2KiB", "--sector", 1, "--randomness", R_HEX)
        gpus = GPUS.replace('cpu_worker = "on"', 'cpu_worker = "off"')
        cls.d = td.Daemon(extra_config=gpus, args=["--param-cache", cls.params, "--set", "srs.allow_test_params=true",
                                                   "--set", "synthesis.pce=off"])

    @classmethod
    def tearDownClass(cls):
        rc = cls.d.stop()
        cls.d.close()
        import shutil
        shutil.rmtree(cls.work, ignore_errors=True)
        if rc != 0:
            raise AssertionError("%d: %s" % (rc, cls.d.exit_message()))

    @classmethod
    def gen(cls, what, *args):
        return td.gen_vanilla(os.path.join(cls.work, what), what, *args)

    def read(self, *parts):
        with open(os.path.join(*parts), "rb") as f:
            return f.read()

    def verify(self, name, circuit, proof, *public):
        path = os.path.join(self.work, name + ".proof")
        with open(path, "wb") as f:
            f.write(proof)
        vk = self.vks[circuit]
        self.assertEqual(len(vk), 1, vk)
        p = td.bench("verify", "--circuit", circuit, "--sector-size", "2KiB", "--vk", os.path.join(self.params, vk[0]),
                     "--proof", path, *public)
        self.assertEqual((p.returncode, p.stdout.strip()), (0, "valid"), name + ": " + p.stderr)

    def test_four_kinds_on_the_device(self):
        pdir, ps = self.porep
        sdir, ss = self.snap
        odir, os_ = self.post
        rnd = bytes.fromhex(R_HEX)
        reqs = {
            "porep": pb.SubmitProofRequest(request_id="gpu-porep", proof_kind=pb.POREP_SEAL_COMMIT, miner_id=1234,
                                           sector_number=7, vanilla_proof=self.read(pdir, "c1-envelope.json")),
            "snap": pb.SubmitProofRequest(request_id="gpu-snap", proof_kind=pb.SNAP_DEALS_UPDATE,
                                          registered_proof=ss["registered_proof"], sector_size=2048,
                                          vanilla_proofs=[self.read(sdir, "partition-0.bin")],
                                          **{k: bytes.fromhex(ss[k]) for k in ("comm_r_old", "comm_r_new",
                                                                                "comm_d_new")}),
            "window": pb.SubmitProofRequest(request_id="gpu-window", proof_kind=pb.WINDOW_POST_PARTITION,
                                            registered_proof=os_["window_registered_proof"], sector_size=2048,
                                            vanilla_proofs=[self.read(odir, "window-post.vproof")], miner_id=1000,
                                            randomness=rnd),
            "winning": pb.SubmitProofRequest(request_id="gpu-winning", proof_kind=pb.WINNING_POST,
                                             registered_proof=os_["winning_registered_proof"], sector_size=2048,
                                             vanilla_proofs=[self.read(odir, "winning-post.vproof")], miner_id=1000,
                                             randomness=rnd),
        }
        results = {}

        def run(name):
            try:
                results[name] = self.d.stub.Prove(pb.ProveRequest(submit=reqs[name]), timeout=900).result
            except Exception as ex:  # noqa: BLE001 -- reported below with the kind
                results[name] = ex
        threads = [threading.Thread(target=run, args=(n,)) for n in reqs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for name in reqs:
            r = results[name]
            self.assertNotIsInstance(r, Exception, "%s: %r" % (name, r))
            self.assertEqual(r.status, R.COMPLETED, name + ": " + r.error_message)
            self.assertEqual(len(r.proof), 192, name)
            print("\n  %s on the device: synthesis %d ms, prove %d ms, total %d ms"
                  % (name, r.synthesis_ms, r.gpu_compute_ms, r.total_ms), file=sys.stderr)
        self.verify("porep", "porep", results["porep"].proof,
                    "--comm-r", ps["comm_r"], "--comm-d", ps["comm_d"], "--prover-id", ps["prover_id"],
                    "--sector-id", ps["sector_id"], "--ticket", ps["ticket"], "--seed", ps["seed"])
        self.verify("snap", "snap", results["snap"].proof, "--comm-r-old",
                    ss["comm_r_old"], "--comm-r-new", ss["comm_r_new"], "--comm-d-new", ss["comm_d_new"])
        sector = "%d:%s" % (os_["sector"], os_["comm_r"])
        self.verify("window", "window-post", results["window"].proof, "--randomness", R_HEX, "--sector", sector)
        self.verify("winning", "winning-post", results["winning"].proof, "--randomness", R_HEX, "--sector", sector)
        # every partition on the device's workers, none on the CPU prover
        _, _, body = self.d.http("/status")
        doc = json.loads(body)
        devices = {d["device"]: d for d in doc["devices"]}
        self.assertEqual(devices["opencl:0"]["partitions"], 4, devices)
        self.assertEqual(devices["opencl:0"]["fallbacks"], 0, devices)
        self.assertEqual(devices["cpu"]["partitions"], 0, devices)
        by = {j.get("kind"): [p.get("prove_worker") for p in j["partitions"]] for j in doc["jobs"]
              if isinstance(j.get("partitions"), list)}
        print("\n  partitions by worker: %s" % by, file=sys.stderr)
        self.assertEqual(len(by), 4, by)  # ended jobs stay listed for the retention time
        self.assertTrue(all(w and w.startswith("gpu-0.") for ws in by.values() for w in ws), by)
        _, _, text = self.d.http("/metrics")
        self.assertRegex(text, r'cuzk_device_partitions_total\{device="opencl:0"\} 4\b')


if __name__ == "__main__":
    unittest.main()
