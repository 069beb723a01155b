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


if __name__ == "__main__":
    unittest.main()
