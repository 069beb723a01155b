"""The live status page (/ of the HTTP status listener) in a real browser:
the REAL daemon with a mixed load of 2 KiB jobs, the page opened in headless
Chromium driven by Debian's python3-selenium + chromium-driver, and checks of
what a person sees on it.

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_status_page.py [-v]

The load: three 2 KiB WindowPoSt proofs (TEST params made here, ~4 s), one
WindowPoSt whose vanilla proof was tampered with (FAILED at submit), a
3-partition chain TEST job that runs slowly (sleep_ms per partition) so it
stays RUNNING while the page is read, 100 TEST jobs queued behind it (some
LOW), one of them cancelled.  The expected values come from gRPC answers
and the test's own counts, not from the page.  A screenshot goes to
$CUZK_SCREENSHOT (default: BIN/../status-page.png, the build folder).

Run by scripts/page-tests.sh (make test's release stage), which skips it --
reported SKIPPED -- only where Chromium is absent and CI is unset.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

pb, R, BIN = td.pb, td.R, td.BIN
R_HEX = "5a" * 31 + "1a"  # canonical randomness (top bits clear)
SHOT = os.environ.get("CUZK_SCREENSHOT", os.path.join(os.path.dirname(os.path.abspath(BIN)), "status-page.png"))
N_QUEUED = 100


def bench(*args):
    p = subprocess.run([os.path.join(BIN, "cuzk-bench")] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=120)
    if p.returncode != 0:
        raise AssertionError("cuzk-bench %s: %s" % (args[0], p.stderr))
    return p


def browser():
    o = webdriver.ChromeOptions()
    o.binary_location = shutil.which("chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1800",
              "--hide-scrollbars", "--force-device-scale-factor=1"):
        o.add_argument(a)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=o)


class TestStatusPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        t0 = time.time()
        cls.tmp = tempfile.mkdtemp(prefix="cuzk-page-")
        cls.params = os.path.join(cls.tmp, "params")
        bench("setup", "--circuit", "window-post", "--sector-size", "2KiB", "--out", cls.params, "--seed", "page")
        vdir = os.path.join(cls.tmp, "vanilla")
        bench("gen-vanilla", "post", "--sector-size", "2KiB", "--sector", 1, "--randomness", R_HEX, "--out", vdir)
        with open(os.path.join(vdir, "window-post.vproof"), "rb") as f:
            cls.vanilla = f.read()
        # a small budget, so that the memory bar shows what holds it
        cls.d = td.Daemon(extra_config="[memory]\ntotal_budget = \"96MiB\"\n[pipeline]\nshutdown_grace = \"2s\"\n",
                          args=["--param-cache", cls.params, "--set", "srs.allow_test_params=true"])
        cls.driver = None
        try:
            cls.load()
            cls.driver = browser()
            cls.driver.get("http://127.0.0.1:%d/" % cls.d.http_port)
            cls.wait_polls(1)
        except BaseException:
            cls.tearDownClass()
            raise
        print("status page: load and browser ready in %.1f s" % (time.time() - t0), file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        if cls.driver:
            cls.driver.quit()
        for j in getattr(cls, "queued", []) + [getattr(cls, "running", "")]:
            if j:
                cls.d.stub.CancelProof(pb.CancelProofRequest(job_id=j), timeout=10)
        rc = cls.d.stop()
        cls.d.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)
        if rc != 0:
            raise AssertionError("%d: %s" % (rc, cls.d.exit_message()))

    @classmethod
    def wpost(cls, vanilla, rid):
        return pb.SubmitProofRequest(request_id=rid, proof_kind=pb.WINDOW_POST_PARTITION, registered_proof=10,
                                     sector_size=2048, vanilla_proofs=[vanilla], miner_id=1000,
                                     randomness=bytes.fromhex(R_HEX))

    @classmethod
    def load(cls):
        s = cls.d.stub
        cls.totals = []
        for i in range(3):
            r = s.Prove(pb.ProveRequest(submit=cls.wpost(cls.vanilla, "wdpost-1000-%d-page" % i)), timeout=120).result
            assert r.status == R.COMPLETED, r.error_message
            cls.totals.append(r.total_ms)
        bad = bytearray(cls.vanilla)
        bad[len(bad) // 2] ^= 0x55
        r = s.Prove(pb.ProveRequest(submit=cls.wpost(bytes(bad), "wdpost-1000-9-tampered")), timeout=60).result
        assert r.status == R.FAILED and r.error_message, (r.status, r.error_message)
        cls.failed_id, cls.failed_error = "wdpost-1000-9-tampered", r.error_message
        cls.running = s.SubmitProof(td.req("n=64 partitions=3 sleep_ms=20000", rid="page-running"),
                                    timeout=10).job_id
        cls.queued = []
        for i in range(N_QUEUED):
            prio = pb.LOW if i % 10 == 0 else 0  # HIGH would overtake the running job's partitions
            cls.queued.append(s.SubmitProof(td.req("n=64 sleep_ms=50", rid="page-queued-%03d" % i, prio=prio),
                                            timeout=10).job_id)
        cls.cancelled = cls.queued.pop(N_QUEUED // 2)
        s.CancelProof(pb.CancelProofRequest(job_id=cls.cancelled), timeout=10)
        cls.n_low = sum(1 for i in range(N_QUEUED) if i % 10 == 0 and i != N_QUEUED // 2)

    @classmethod
    def wait_polls(cls, more, timeout=15):
        """Until the page has redrawn from `more` further answers of /status."""
        start = cls.polls()
        deadline = time.time() + timeout
        while cls.polls() < start + more:
            if time.time() > deadline:
                raise AssertionError("the page did not poll /status: " + cls.text("conn"))
            time.sleep(0.05)

    @classmethod
    def polls(cls):
        return int(cls.driver.execute_script("return document.body.dataset.polls || 0"))

    @classmethod
    def text(cls, element_id):
        return cls.driver.find_element(By.ID, element_id).text

    def status(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/status" % self.d.http_port, timeout=10) as r:
            return json.loads(r.read())

    def test_1_running_job_partitions(self):
        self.wait_polls(1)
        job = self.driver.find_element(By.CSS_SELECTOR, '#running .job[data-job="%s"]' % self.running)
        parts = job.find_elements(By.CSS_SELECTOR, ".part")
        self.assertEqual([p.get_attribute("data-index") for p in parts], ["0", "1", "2"])
        states = [p.get_attribute("data-state") for p in parts]
        self.assertIn(states[0], ("synthesizing", "ready", "proving", "done"), states)
        info = parts[0].find_element(By.CSS_SELECTOR, ".pinfo").text
        self.assertIn("on synth-0", info, "partition 0 names the worker that synthesized it")
        self.assertIn("partitions done", job.text)
        # the worker table says what synth-0 does: this job
        row = self.driver.find_element(By.CSS_SELECTOR, '#workers tr[data-worker="synth-0"]')
        self.assertIn(self.running, row.get_attribute("innerHTML"))

    def test_2_failed_job_error(self):
        row = self.driver.find_element(By.CSS_SELECTOR, '#recent tr[data-job="%s"]' % self.failed_id)
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".status").text, "FAILED")
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".err").text, self.failed_error)
        done = self.driver.find_elements(By.CSS_SELECTOR, "#recent td.st-COMPLETED")
        self.assertGreaterEqual(len(done), 3)
        row = self.driver.find_element(By.CSS_SELECTOR, '#recent tr[data-job="%s"]' % self.cancelled)
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".status").text, "CANCELLED")

    def test_3_queue_counts(self):
        self.wait_polls(1)
        row = self.driver.find_element(By.CSS_SELECTOR, '#queues tr[data-kind="test"]')
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".pending").text, str(N_QUEUED - 1))
        self.assertEqual(row.find_element(By.CSS_SELECTOR, ".running").text, "1")
        cells = [c.text for c in row.find_elements(By.CSS_SELECTOR, "td.n")]
        self.assertEqual(cells[2:6], ["", "", str(N_QUEUED - 1 - self.n_low), str(self.n_low)],
                         "critical, high, normal, low")
        # 99 queued stay readable: a dozen rows in the scheduler's order (NORMAL
        # before LOW, then arrival), and a count of the rest
        rows = self.driver.find_elements(By.CSS_SELECTOR, "#queued tr[data-job]")
        self.assertEqual(len(rows), 12)
        self.assertEqual(rows[0].get_attribute("data-job"), "page-queued-001")
        self.assertIn("NORMAL", rows[0].text)
        self.assertEqual(self.text("queued-more"), "+ %d more (%d test)" % (N_QUEUED - 1 - 12, N_QUEUED - 1 - 12))
        self.assertLess(self.driver.execute_script("return document.body.scrollHeight"), 3000)

    def test_4_memory_bar(self):
        self.wait_polls(1)
        st = self.status()  # the same figures the page drew, read a moment later
        hot = st["srs_bytes"]["hot"]
        self.assertGreater(hot, 0, "the WindowPoSt params are HOT after three proofs")
        bar = self.driver.find_element(By.ID, "mem-bar")
        width = bar.size["width"]
        seg = bar.find_element(By.CSS_SELECTOR, '[data-part="hot"]')
        self.assertAlmostEqual(seg.size["width"] / width, hot / st["memory"]["limit"], delta=0.02)
        self.assertIn("of 96.0 MiB", self.text("mem-text"))
        self.assertIn("parameters (HOT)", self.text("mem-legend"))

    def test_5_chart(self):
        chart = self.driver.find_element(By.CSS_SELECTOR, '#charts .chart[data-kind="window_post"]')
        self.assertIn("3 proved, 1 failed", chart.text)
        # nearest rank over the three proofs' total_ms as AwaitProof gave them
        k = [k for k in self.status()["history"]["kinds"] if k["kind"] == "window_post"][0]
        t = sorted(self.totals)
        self.assertEqual((k["completed"], k["failed"], k["p50_ms"], k["p95_ms"]), (3, 1, t[1], t[2]))
        self.assertEqual((sum(k["per_minute"]["completed"]), sum(k["per_minute"]["failed"])), (3, 1))
        self.assertGreaterEqual(len(chart.find_elements(By.CSS_SELECTOR, "svg rect")), 1)
        self.assertGreaterEqual(len(chart.find_elements(By.CSS_SELECTOR, "svg polyline")), 1)

    def test_6_updates_without_reload(self):
        self.driver.execute_script("window.__noReload = 42")
        before = (self.polls(), self.driver.find_element(By.CSS_SELECTOR, '#running .job[data-job="%s"]'
                                                         % self.running).text)
        self.wait_polls(2)
        job = self.driver.find_element(By.CSS_SELECTOR, '#running .job[data-job="%s"]' % self.running)
        self.assertNotEqual(job.text, before[1], "the running job's figures moved")
        self.assertEqual(self.driver.execute_script("return window.__noReload"), 42, "no navigation happened")
        self.assertEqual(self.driver.execute_script("return performance.getEntriesByType('navigation').length"), 1)
        self.assertGreater(self.polls(), before[0])

    def test_7_screenshot(self):
        self.wait_polls(1)
        # the whole page in one picture: a viewport as tall as the document
        h = self.driver.execute_script("return Math.ceil(document.querySelector('main').getBoundingClientRect()"
                                       ".bottom + window.scrollY) + 8")
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 1400, "height": min(max(h, 600), 2600), "deviceScaleFactor": 1,
                                     "mobile": False})
        self.wait_polls(1)
        os.makedirs(os.path.dirname(SHOT), exist_ok=True)
        self.assertTrue(self.driver.save_screenshot(SHOT))
        with open(SHOT, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        print("status page: screenshot %s" % SHOT, file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
