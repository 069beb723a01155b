"""The operator's side (issue 22): the Grafana dashboard and Prometheus alert
rules against what a running daemon exports, Curio's documented daemon
configs and our two deployments started as written, the start-up checks
(missing default config, --print-config exiting as a start would), and
Curio's WindowPoSt/WinningPoSt retry with other inputs.

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_ops.py [-v] [-k NAME]

Metric names are parsed out of packaging/grafana/cuzk.json and
packaging/prometheus/cuzk-alerts.yml (every `expr`), never listed here; so
are the label matchers (`kind="window_post"` must match an exported
series).  `promtool check rules` runs when promtool (Debian's prometheus)
is installed: under CI=true its absence is a failure, else SKIPPED.
TestInstall (the migration steps of docs/curio-migration.md against a
`cmake --install` into a temporary root) runs in the release pass only.
"""
import json
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

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402

pb, pbg, R, BIN, ROOT = td.pb, td.pbg, td.R, td.BIN, td.ROOT
HERE = os.path.dirname(os.path.abspath(__file__))
DASHBOARD = os.path.join(ROOT, "packaging", "grafana", "cuzk.json")
RULES = os.path.join(ROOT, "packaging", "prometheus", "cuzk-alerts.yml")
CURIO_DIR = os.path.join(ROOT, "packaging", "curio")
MIGRATION_DOC = os.path.join(ROOT, "docs", "curio-migration.md")
CI = os.environ.get("CI") == "true"

# ---- PromQL: the series selectors of an expression ---------------------------------------

PROMETHEUS_OWN = {"up"}          # made by Prometheus for every target, not by the daemon
TARGET_LABELS = {"instance", "job"}  # attached by Prometheus at scrape time
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
OPERATORS = {"and", "or", "unless", "bool", "offset", "atan2"}
AGGREGATIONS = {"sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk", "quantile",
                "count_values", "group"}
TOKEN = re.compile(r'''\s+|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|\[[^\]]*\]|\{[^}]*\}|\$\w+|'''
                   r'''[A-Za-z_:][A-Za-z0-9_:]*|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|.''')
MATCHER = re.compile(r'([A-Za-z_]\w*)\s*(=~|!~|!=|=)\s*"((?:\\.|[^"\\])*)"')


def selectors(expr):
    """[(metric, [(label, op, value)])] and the labels named in by/on/...
    lists, from a PromQL expression (enough of the grammar for dashboards
    and rules: functions, aggregations with by/without, vector matching,
    ranges and subqueries, strings, numbers)."""
    toks = [t for t in TOKEN.findall(expr) if not t.isspace()]
    out, grouping, i = [], set(), 0

    def nxt(k):
        return toks[k] if k < len(toks) else ""
    while i < len(toks):
        t = toks[i]
        i += 1
        if not re.match(r"[A-Za-z_:]", t):
            continue
        if t in GROUPING:
            if nxt(i) == "(":
                j = toks.index(")", i)
                grouping.update(x for x in toks[i + 1:j] if re.match(r"[A-Za-z_]", x))
                i = j + 1
            continue
        if t in OPERATORS or t in AGGREGATIONS or nxt(i) == "(":
            continue
        m = []
        if nxt(i).startswith("{"):
            m = MATCHER.findall(nxt(i))
            i += 1
        out.append((t, m))
    return out, grouping


def dashboard_exprs():
    with open(DASHBOARD) as f:
        doc = json.load(f)
    exprs = []

    def walk(x):
        if isinstance(x, dict):
            for k, v in x.items():
                if k == "expr" and isinstance(v, str):
                    exprs.append(v)
                elif k == "definition" and isinstance(v, str):  # label_values(metric, label)
                    m = re.match(r"label_values\((\w+),\s*(\w+)\)", v)
                    if m:
                        exprs.append(m.group(1))
                else:
                    walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(doc)
    return exprs


def rule_exprs():
    import yaml  # Debian python3-yaml
    with open(RULES) as f:
        doc = yaml.safe_load(f)
    return [r["expr"] for g in doc["groups"] for r in g["rules"]]


def exported_series(text):
    """{metric name: [label dicts]} of a Prometheus text exposition; names
    declared by # TYPE without samples map to []."""
    series = {}
    for line in text.splitlines():
        m = re.match(r"# TYPE (\S+) (\S+)", line)
        if m:
            series.setdefault(m.group(1), [])
            continue
        if not line or line.startswith("#"):
            continue
        m = re.match(r"([A-Za-z_:][A-Za-z0-9_:]*)(\{(.*)\})?\s+\S+$", line)
        if not m:
            raise AssertionError("not a sample line: %r" % line)
        labels = dict((k, v) for k, v in re.findall(r'(\w+)="((?:\\.|[^"\\])*)"', m.group(3) or ""))
        series.setdefault(m.group(1), []).append(labels)
    return series


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_cuzk(args, timeout=30):
    e = dict(os.environ)
    e.pop("RUST_LOG", None)
    return subprocess.run([os.path.join(BIN, "cuzk")] + args, capture_output=True, text=True, env=e,
                          timeout=timeout)


def protected_mode():
    """Whether this build serves plaintext TCP off loopback to named networks
    (daemon.allow_plaintext_from, issue 22 item 4)."""
    return "allow_plaintext_from" in run_cuzk(["-l", "unix:///tmp/x.sock", "--print-config"]).stdout


class Started:
    """`cuzk ARGS` until it says ready (or exits); stop() = SIGTERM, its code."""

    def __init__(self, args, cwd):
        self.log = os.path.join(cwd, "daemon-%d.log" % time.monotonic_ns())
        self.logf = open(self.log, "w")
        self.proc = subprocess.Popen([os.path.join(BIN, "cuzk")] + args, stdout=subprocess.DEVNULL,
                                     stderr=self.logf)
        self.ready = False
        self.http_port = None
        deadline = time.time() + 30
        while time.time() < deadline and self.proc.poll() is None:
            text = self.text()
            m = re.search(r"\(port (\d+)\)", text)
            if m:
                self.http_port = int(m.group(1))
            if "cuzk-daemon ready" in text:
                self.ready = True
                break
            time.sleep(0.05)

    def text(self):
        with open(self.log) as f:
            return f.read()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        finally:
            self.logf.close()


def prove_test(addr, n=16, rid=""):
    with grpc.insecure_channel(addr, options=td.OPTS) as ch:
        stub = pbg.ProvingEngineStub(ch)
        text = "n=%d" % n
        res = stub.Prove(pb.ProveRequest(submit=td.req(text, rid)), timeout=120).result
        td.VerifyingStub._check(res, text)  # the proof verifies against the chain vk
        return res


class TestDashboardAndAlerts(td.DaemonCase):
    """Every metric and label value the dashboard and the rules use is
    exported by this daemon; the rules pass promtool."""

    def test_parser_sees_what_it_must(self):
        sel, grp = selectors('sum by (kind, le) (rate(cuzk_x_bucket{kind="window_post",phase!="total"}[5m]))'
                             ' / ignoring(type) cuzk_y{type=~"a|b"} > 0.95 and on(instance) up == 0')
        self.assertEqual(sel, [("cuzk_x_bucket", [("kind", "=", "window_post"), ("phase", "!=", "total")]),
                               ("cuzk_y", [("type", "=~", "a|b")]), ("up", [])])
        self.assertEqual(grp, {"kind", "le", "type", "instance"})
        sel, _ = selectors("deriv((sum by (instance) (cuzk_q{state=\"pending\"}))[1h:1m]) > 0")
        self.assertEqual(sel, [("cuzk_q", [("state", "=", "pending")])])

    def test_every_metric_is_exported(self):
        # series that exist only after work: a proof (SRS refs), a failure
        self.assertEqual(self.prove(td.req("n=16")).status, R.COMPLETED)
        self.assertEqual(self.prove(td.req("fail=1")).status, R.FAILED)
        _, _, text = self.d.http("/metrics")
        series = exported_series(text)
        try:
            rules = rule_exprs()
        except ImportError:
            if CI:
                self.fail("python3-yaml missing (CI=true): apt-get install -y python3-yaml")
            td.skipped("alert rules not parsed: python3-yaml missing (apt-get install -y python3-yaml)", "test_ops.py")
            rules = []
        checked = set()
        for where, exprs in (("packaging/grafana/cuzk.json", dashboard_exprs()),
                             ("packaging/prometheus/cuzk-alerts.yml", rules)):
            self.assertGreater(len(exprs), 5, where)
            for expr in exprs:
                sel, grouping = selectors(expr)
                self.assertTrue(sel, "%s: no metric in %r" % (where, expr))
                names = set()
                for name, matchers in sel:
                    if name in PROMETHEUS_OWN:
                        continue
                    self.assertIn(name, series, "%s names %s, which the daemon does not export: %r"
                                  % (where, name, expr))
                    names.add(name)
                    checked.add(name)
                    for label, op, value in matchers:
                        if label in TARGET_LABELS or "$" in value:
                            continue
                        have = [s[label] for s in series[name] if label in s]
                        self.assertTrue(have, "%s: %s has no label %s (%r)" % (where, name, label, expr))
                        if op == "=":
                            self.assertIn(value, have, "%s: no %s{%s=%r} exported" % (where, name, label, value))
                        elif op == "=~":
                            self.assertTrue(any(re.fullmatch(value, v) for v in have),
                                            "%s: no %s{%s=~%r} exported" % (where, name, label, value))
                for label in grouping - TARGET_LABELS:
                    self.assertTrue(any(label in s for n in names for s in series[n]),
                                    "%s: grouping label %s is on none of %s" % (where, label, sorted(names)))
        # what the issue asks the dashboard and rules to show, by family
        for fam in ("cuzk_jobs_total", "cuzk_phase_seconds_bucket", "cuzk_queue_jobs", "cuzk_memory_bytes",
                    "cuzk_srs_bytes", "cuzk_worker_busy_seconds_total", "cuzk_srs_load_failures_total",
                    "cuzk_oldest_job_seconds"):
            self.assertIn(fam, checked)

    def test_promtool_check_rules(self):
        promtool = shutil.which("promtool")
        if not promtool:
            if CI:
                self.fail("promtool missing (CI=true): apt-get install -y prometheus")
            raise unittest.SkipTest(td.skipped("promtool check rules: promtool missing (apt-get install -y "
                                               "prometheus)", "test_ops.py"))
        p = subprocess.run([promtool, "check", "rules", RULES], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("SUCCESS", p.stdout)


class TestBusyAndAge(td.DaemonCase):
    """The metrics added for the dashboard move with the work."""

    def test_busy_seconds_and_oldest_job(self):
        self.s.SubmitProof(td.req("n=16 sleep_ms=1200", "age-1"), timeout=10)
        time.sleep(0.8)
        _, _, text = self.d.http("/metrics")
        age = float(re.search(r'^cuzk_oldest_job_seconds\{kind="test"\} (\S+)$', text, re.M).group(1))
        self.assertGreater(age, 0.5)
        self.assertEqual(self.s.AwaitProof(pb.AwaitProofRequest(job_id="age-1"), timeout=30).status, R.COMPLETED)
        _, _, text = self.d.http("/metrics")
        self.assertRegex(text, r'(?m)^cuzk_oldest_job_seconds\{kind="test"\} 0\.000$')
        busy = {m.group(1): float(m.group(2)) for m in
                re.finditer(r'^cuzk_worker_busy_seconds_total\{worker="([^"]+)"\} (\S+)$', text, re.M)}
        self.assertGreater(busy["synth-0"], 1.0, "the synthesis worker slept 1.2 s in the job")
        self.assertGreater(busy["prover"], 0)


class TestCurioConfigs(unittest.TestCase):
    """Curio's documented daemon configs and our two deployment files
    start as written (ports moved to free ones, the socket and the status
    port into a temporary directory) and prove."""

    @classmethod
    def setUpClass(cls):
        cls.protected = protected_mode()
        if not cls.protected:
            td.skipped("0.0.0.0 listens tested on 127.0.0.1: this build has no protected mode "
                       "(daemon.allow_plaintext_from)", "test_ops.py")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cuzk-ops-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, src, subst):
        with open(src) as f:
            text = f.read()
        for a, b in subst:
            self.assertIn(a, text, src)
            text = text.replace(a, b)
        if not self.protected:
            text = text.replace('"0.0.0.0:', '"127.0.0.1:')
        path = os.path.join(self.tmp, "cuzk.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def start_and_prove(self, cfg, addr, extra=()):
        p = run_cuzk(["-c", cfg, "--print-config"])
        self.assertEqual(p.returncode, 0, p.stderr)
        d = Started(["-c", cfg, "--test-provider", "test", "--param-cache", td.PARAMS] + list(extra), self.tmp)
        try:
            self.assertTrue(d.ready, d.text())
            res = prove_test(addr)
            self.assertEqual(res.status, R.COMPLETED, res.error_message)
            return d
        finally:
            self.assertEqual(d.stop(), 0, d.text())

    def test_curio_doc_minimal(self):
        port = free_port()
        cfg = self.write(os.path.join(HERE, "curio-doc-minimal.toml"), [(":9820", ":%d" % port)])
        d = self.start_and_prove(cfg, "127.0.0.1:%d" % port)
        self.assertIn("srs.preload is deprecated", d.text())

    def test_curio_doc_example(self):
        port = free_port()
        cfg = self.write(os.path.join(HERE, "curio-doc-example.toml"), [(":9820", ":%d" % port)])
        self.start_and_prove(cfg, "127.0.0.1:%d" % port)

    def test_beside_curio(self):
        sock = os.path.join(self.tmp, "run", "curio", "cuzk.sock")
        cfg = self.write(os.path.join(CURIO_DIR, "cuzk-beside-curio.toml"),
                         [("unix:///run/curio/cuzk.sock", "unix://" + sock), ("127.0.0.1:9821", "127.0.0.1:0")])
        p = run_cuzk(["-c", cfg, "--print-config"])
        self.assertIn("total_budget = %d" % (192 << 30), p.stdout)
        self.assertIn("threads = 4", p.stdout)
        self.start_and_prove(cfg, "unix://" + sock)

    def test_prover_host(self):
        port = free_port()
        cfg = self.write(os.path.join(CURIO_DIR, "cuzk-prover-host.toml"),
                         [(":9820", ":%d" % port), ("127.0.0.1:9821", "127.0.0.1:0")])
        self.start_and_prove(cfg, "127.0.0.1:%d" % port)


class TestStartChecks(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cuzk-ops-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def test_missing_default_config(self):
        if os.path.exists("/data/zk/cuzk.toml"):
            raise unittest.SkipTest(td.skipped("/data/zk/cuzk.toml exists on this machine", "test_ops.py"))
        for args in ([], ["-c", "/data/zk/cuzk.toml"], ["--config=/data/zk/cuzk.toml"]):
            p = run_cuzk(args + ["--print-config"])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "cuzk-daemon: warning: config file /data/zk/cuzk.toml not found: "
                                       "using the defaults\n", args)
            self.assertIn('listen = "unix:///run/curio/cuzk.sock"', p.stdout)
        p = run_cuzk(["-c", os.path.join(self.tmp, "cuzk.toml"), "--print-config"])
        self.assertEqual(p.returncode, 2, "another missing file is an error")

    def test_print_config_exits_as_start(self):
        cases = {"bad test provider": '[daemon]\nlisten = "unix://%s/a.sock"\ntest_provider = "nope"\n' % self.tmp,
                 "TLS file missing": '[daemon]\nlisten = "127.0.0.1:%d"\ntls_cert = "%s/none.pem"\n'
                                     'tls_key = "%s/none.key"\ntls_client_ca = "%s/ca.pem"\n'
                                     % (free_port(), self.tmp, self.tmp, self.tmp),
                 "good": '[daemon]\nlisten = "unix://%s/b.sock"\n' % self.tmp}
        if not protected_mode():
            cases["plaintext off loopback"] = '[daemon]\nlisten = "0.0.0.0:%d"\n' % free_port()
        for what, text in cases.items():
            cfg = os.path.join(self.tmp, "c.toml")
            with open(cfg, "w") as f:
                f.write(text + '[srs]\nparam_cache = "%s"\n' % td.PARAMS)
            p = run_cuzk(["-c", cfg, "--print-config"])
            d = Started(["-c", cfg], self.tmp)
            start_rc = 0 if d.ready else d.proc.wait(30)
            d.stop()
            if start_rc in (0, 2):  # started, or refused its configuration
                self.assertEqual(p.returncode, start_rc, "%s: --print-config %d, start %d: %s"
                                 % (what, p.returncode, start_rc, p.stderr + d.text()))
            else:  # exit 1 (a resource at start): the configuration itself is valid
                self.assertEqual(p.returncode, 0, what)
            if p.returncode == 2:
                self.assertEqual(p.stderr.strip().splitlines()[-1], d.text().strip().splitlines()[-1], what)


def go_wdpost_id(miner, partition, randomness):
    """Curio's id: fmt.Sprintf("wdpost-%d-%d-%d", miner, partition, randomness[:8])."""
    return "wdpost-%d-%d-[%s]" % (miner, partition, " ".join(str(b) for b in randomness[:8]))


class TestPoStRetrySupersedes(unittest.TestCase):
    """Curio's WindowPoSt retry keeps its request id while the sector set
    may change: with the first caller gone (its ProveTimeout), the retry
    with other inputs replaces the running job; while someone still waits
    on it, the retry is refused ALREADY_EXISTS."""

    def check_kind(self, kind, name):
        d = td.Daemon(args=["--test-provider", name])
        try:
            stub = d.stub
            rid = go_wdpost_id(1000, 0, bytes(range(90, 122)))
            first, retry = "n=16 sleep_ms=4000", "n=16 x0=9"  # other inputs: another sector set
            t0 = time.time()
            with self.assertRaises(grpc.RpcError) as e:
                stub.Prove(pb.ProveRequest(submit=td.req(first, rid, kind=kind)), timeout=0.4)
            self.assertEqual(e.exception.code(), grpc.StatusCode.DEADLINE_EXCEEDED)
            time.sleep(0.3)  # the server has seen the client go
            res = stub.Prove(pb.ProveRequest(submit=td.req(retry, rid, kind=kind)), timeout=60).result
            self.assertEqual(res.status, R.COMPLETED, res.error_message)
            td.VerifyingStub._check(res, retry)
            self.assertLess(time.time() - t0, 3.5, "the retry did not wait for the superseded job")
            deadline = time.time() + 10
            while "superseded by a retry with other inputs" not in d.log_text() and time.time() < deadline:
                time.sleep(0.05)
            self.assertIn("%s CANCELLED: superseded by a retry with other inputs" % name, d.log_text())
            _, _, text = d.http("/metrics")
            self.assertIn('cuzk_jobs_total{kind="%s",status="cancelled"} 1\n' % name, text)
            self.assertIn('cuzk_jobs_total{kind="%s",status="completed"} 1\n' % name, text)
            # a caller still waits on the job: the other inputs are refused
            rid2 = go_wdpost_id(1000, 1, bytes(range(32)))
            out = {}
            th = threading.Thread(target=lambda: out.setdefault("r", stub.Prove(
                pb.ProveRequest(submit=td.req("n=16 sleep_ms=1500", rid2, kind=kind)), timeout=60).result))
            th.start()
            time.sleep(0.4)
            with self.assertRaises(grpc.RpcError) as e:
                stub.Prove(pb.ProveRequest(submit=td.req(retry, rid2, kind=kind)), timeout=10)
            self.assertEqual(e.exception.code(), grpc.StatusCode.ALREADY_EXISTS)
            self.assertIn(rid2, e.exception.details())
            th.join(60)
            self.assertEqual(out["r"].status, R.COMPLETED, out["r"].error_message)
        finally:
            self.assertEqual(d.stop(), 0, d.exit_message())
            d.close()

    def test_window_post(self):
        self.check_kind(pb.WINDOW_POST_PARTITION, "window_post")

    def test_winning_post(self):
        self.check_kind(pb.WINNING_POST, "winning_post")


def migration_steps():
    """The shell lines of the block after the migration-steps marker."""
    with open(MIGRATION_DOC) as f:
        text = f.read()
    m = re.search(r"<!-- migration-steps[^>]*-->\n```\n(.*?)\n```", text, re.S)
    assert m, "docs/curio-migration.md lost its migration-steps block"
    lines = []
    for line in m.group(1).splitlines():
        line = re.sub(r"\s+#.*$", "", line)
        if line.strip():
            lines.append(line.strip())
    return lines


@unittest.skipIf(td.SANITIZER, "the install test runs in the release pass only")
class TestInstall(unittest.TestCase):
    """docs/curio-migration.md's steps without systemd, in a temporary root:
    `make install PREFIX=P` as the cmake --install it runs, the config
    step, the unit copied, then the installed unit's ExecStart."""

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="cuzk-root-")

    def tearDown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def test_migration_steps(self):
        steps = migration_steps()
        self.assertIn("sudo systemctl restart cuzk", steps, "the step that switches a running unit")
        self.assertFalse([s for s in steps if "enable --now" in s], "enable --now leaves a running unit alone")
        build = os.path.dirname(os.path.abspath(BIN))
        ran = 0
        for step in steps:
            cmd = step.replace("sudo ", "")
            if cmd == "make" or cmd.startswith("systemctl "):
                continue  # built already (BIN); no systemd here
            m = re.fullmatch(r"make install PREFIX=(\S+)", cmd)
            if m:
                cmd = "cmake --install %s --prefix %s >/dev/null" % (build, m.group(1))
            for path in ("/usr/local", "/data/zk", "/etc/systemd"):
                cmd = cmd.replace(path, self.root + path)
            os.makedirs(os.path.join(self.root, "etc", "systemd", "system"), exist_ok=True)
            p = subprocess.run(["bash", "-ec", cmd], cwd=ROOT, capture_output=True, text=True, timeout=120)
            self.assertEqual(p.returncode, 0, "%s\n%s%s" % (cmd, p.stdout, p.stderr))
            ran += 1
        self.assertGreaterEqual(ran, 5)
        with open(os.path.join(self.root, "etc", "systemd", "system", "cuzk.service")) as f:
            unit = f.read()
        exec_start = re.search(r"^ExecStart=(.*)$", unit, re.M).group(1).split()
        self.assertEqual(exec_start[0], os.path.join(self.root, "usr", "local", "bin", "cuzk"))
        self.assertEqual(exec_start[1:], ["--config", "/data/zk/cuzk.toml"])
        cfg = os.path.join(self.root, "data", "zk", "cuzk.toml")
        with open(cfg) as f, open(os.path.join(CURIO_DIR, "cuzk-beside-curio.toml")) as g:
            self.assertEqual(f.read(), g.read())
        sock = os.path.join(self.root, "run", "curio", "cuzk.sock")  # /run/curio needs root
        args = [exec_start[0], "--config", cfg, "--listen", "unix://" + sock, "--status-listen", "127.0.0.1:0",
                "--param-cache", td.PARAMS, "--test-provider", "test"]
        log = open(os.path.join(self.root, "log"), "w+")
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.time() + 30
            while "cuzk-daemon ready" not in open(log.name).read() and time.time() < deadline:
                self.assertIsNone(proc.poll(), open(log.name).read())
                time.sleep(0.05)
            res = prove_test("unix://" + sock)
            self.assertEqual(res.status, R.COMPLETED, res.error_message)
        finally:
            proc.terminate()
            self.assertEqual(proc.wait(30), 0, open(log.name).read())
            log.close()


if __name__ == "__main__":
    unittest.main()
