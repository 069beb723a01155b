"""Protected mode, the HTTP status listener's Host/Origin checks and
cuzk-bench over TLS (docs/daemon.md, "Security"): the REAL cuzk-daemon
against independent clients (Debian's python3-grpcio, raw sockets, the
openssl CLI for certificates).

    CUZK_BIN=build/bin /usr/bin/python3 tests/daemon/test_access.py [-v] [-k NAME]

- Plain-text TCP on 0.0.0.0 (Curio's example) starts and serves loopback;
  with loopback's implicit trust switched off (daemon.trust_loopback =
  false, a test setting) a client from 127.0.0.2 (listed in
  daemon.allow_plaintext_from) is served and one from 127.0.0.3 gets
  PERMISSION_DENIED on every call, logged once.  Linux picks 127.0.0.1 as
  the source of any loopback connection, so each client goes through a
  small TCP relay here whose outgoing socket is bound to its address.
- HTTP status: a Host that is not loopback nor in daemon.status_hosts
  gets 421 (DNS rebinding), no Access-Control-Allow-Origin unless
  daemon.status_cors_origins names the page's origin, "*" warned; /config
  shows the TLS key's path, never its contents.
- cuzk-bench --tls-ca/--tls-cert/--tls-key and https:// against the
  daemon's mutual TLS.
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402  (proto stubs, the Daemon fixture)
import test_tls as tt  # noqa: E402  (certificates, TCP daemons)

import grpc  # noqa: E402

pb, pbg, BIN, PARAMS = td.pb, td.pbg, td.BIN, td.PARAMS
BENCH = os.path.join(BIN, "cuzk-bench")


class Relay:
    """Accepts on 127.0.0.1:<port> and forwards each connection to the
    daemon from a socket bound to src (so the daemon sees src as peer)."""

    def __init__(self, src, dst_port):
        self.src, self.dst_port = src, dst_port
        self.ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(16)
        self.port = self.ls.getsockname()[1]
        self.conns = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                a, _ = self.ls.accept()
            except OSError:
                return
            b = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            b.bind((self.src, 0))
            b.connect(("127.0.0.1", self.dst_port))
            self.conns += [a, b]
            for x, y in ((a, b), (b, a)):
                threading.Thread(target=self.pump, args=(x, y), daemon=True).start()

    @staticmethod
    def pump(x, y):
        try:
            while True:
                data = x.recv(65536)
                if not data:
                    break
                y.sendall(data)
        except OSError:
            pass
        for s in (x, y):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.ls.close()
        for s in self.conns:
            s.close()


def grpc_status(port):
    with grpc.insecure_channel("127.0.0.1:%d" % port) as ch:
        return pbg.ProvingEngineStub(ch).GetStatus(pb.GetStatusRequest(), timeout=10)


class TestProtectedMode(unittest.TestCase):
    def start(self, extra, listen):
        self.tmp = tempfile.mkdtemp(prefix="cuzk-acl-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        p, port, log = tt.start_tcp('[daemon]\nlisten = "%s"\ntest_provider = "test"\n%s\n[srs]\n'
                                    'param_cache = "%s"\n' % (listen, extra, PARAMS), self.tmp)

        def stop():
            p.send_signal(signal.SIGTERM)
            self.assertEqual(p.wait(30), 0)
        self.addCleanup(stop)
        return port, log

    def test_any_address_starts_and_serves_loopback(self):
        port, log = self.start("", "0.0.0.0:0")
        self.assertEqual(len(grpc_status(port).gpus), 1)
        with grpc.insecure_channel("127.0.0.1:%d" % port) as ch:
            r = pbg.ProvingEngineStub(ch).Prove(pb.ProveRequest(submit=td.req("n=16")), timeout=120).result
        self.assertEqual(r.status, td.R.COMPLETED, r.error_message)
        with open(log) as f:
            self.assertIn("plain text: serving loopback and 0 network(s) of daemon.allow_plaintext_from", f.read())

    def test_listed_network_served_others_denied(self):
        port, log = self.start('trust_loopback = false\nallow_plaintext_from = ["127.0.0.2/32", "fd00::/8"]',
                               "0.0.0.0:0")
        allowed, denied = Relay("127.0.0.2", port), Relay("127.0.0.3", port)
        self.addCleanup(allowed.close)
        self.addCleanup(denied.close)
        self.assertEqual(len(grpc_status(allowed.port).gpus), 1)
        with grpc.insecure_channel("127.0.0.1:%d" % allowed.port) as ch:
            r = pbg.ProvingEngineStub(ch).Prove(pb.ProveRequest(submit=td.req("n=16")), timeout=120).result
        self.assertEqual(r.status, td.R.COMPLETED, r.error_message)
        # every call of 127.0.0.3 (and of 127.0.0.1: loopback is not trusted here) is refused
        for p in (denied.port, denied.port, port):
            with grpc.insecure_channel("127.0.0.1:%d" % p) as ch:
                stub = pbg.ProvingEngineStub(ch)
                calls = [lambda: stub.GetStatus(pb.GetStatusRequest(), timeout=10),
                         lambda: stub.Prove(pb.ProveRequest(submit=td.req("n=16")), timeout=10),
                         lambda: stub.CancelProof(pb.CancelProofRequest(job_id="x"), timeout=10),
                         lambda: ch.unary_unary("/cuzk.v1.ProvingEngine/NoSuchMethod")(b"", timeout=10)]
                for call in calls:
                    with self.assertRaises(grpc.RpcError) as cm:
                        call()
                    e = cm.exception
                    self.assertEqual(e.code(), grpc.StatusCode.PERMISSION_DENIED, e.details())
                    self.assertIn("daemon.allow_plaintext_from", e.details())
                    self.assertIn("mutual TLS", e.details())
                    self.assertIn("127.0.0.1" if p == port else "127.0.0.3/32", e.details())
        # the job the refused Prove carried was never submitted
        self.assertEqual(grpc_status(allowed.port).total_proofs_completed, 1)
        with open(log) as f:
            text = f.read()
        self.assertEqual(len(re.findall(r"refused gRPC from ipv4:127\.0\.0\.3:", text)), 1, text)
        self.assertEqual(len(re.findall(r"refused gRPC from ipv4:127\.0\.0\.1:", text)), 1, text)
        self.assertNotIn("refused gRPC from ipv4:127.0.0.2:", text)

    def test_ipv6_peer(self):
        """gRPC reports an IPv6 peer as ipv6:%5B::1%5D:PORT: matched by value."""
        try:
            socket.create_server(("::1", 0), family=socket.AF_INET6).close()
        except OSError:
            self.skipTest(td.skipped("no IPv6 loopback on this machine", "test_access.py"))
        port, log = self.start('trust_loopback = false\nallow_plaintext_from = ["::1/128"]', "[::]:0")
        with grpc.insecure_channel("[::1]:%d" % port) as ch:
            self.assertEqual(len(pbg.ProvingEngineStub(ch).GetStatus(pb.GetStatusRequest(), timeout=10).gpus), 1)
        with self.assertRaises(grpc.RpcError) as cm:
            grpc_status(port)
        self.assertEqual(cm.exception.code(), grpc.StatusCode.PERMISSION_DENIED)

    def test_no_effect_said(self):
        d = td.Daemon('[daemon]\nallow_plaintext_from = ["10.0.0.0/8"]')
        self.addCleanup(d.close)
        self.assertIn("daemon.allow_plaintext_from has no effect: daemon.listen unix://", d.log_text())

    def test_bad_network_refused_at_load(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        cfg = os.path.join(tmp, "c.toml")
        for value, why in (('["10.1.2.5/24"]', "did you mean 10.1.2.0/24?"),
                           ('["10.1.2.0/33"]', "0..32"),
                           ('["prover1"]', "is not an IPv4 or IPv6 address"),
                           ('[10.0.0.0/8]', "expected a string in quotes")):
            with open(cfg, "w") as f:
                f.write('[daemon]\nlisten = "0.0.0.0:0"\nallow_plaintext_from = %s\n' % value)
            rc, err = tt.refused("--config", cfg)
            self.assertEqual(rc, 2, err)
            self.assertIn("c.toml:3: daemon.allow_plaintext_from: element 0", err)
            self.assertIn(why, err)


def http_raw(port, head):
    """Sends head as is; (status, {header: value} lowercased names, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head.encode())
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    top, _, body = data.partition(b"\r\n\r\n")
    lines = top.decode().split("\r\n")
    headers = {}
    for ln in lines[1:]:
        k, _, v = ln.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body.decode()


def get(port, path="/status", host="127.0.0.1", extra=""):
    h = "Host: %s\r\n" % host if host is not None else ""
    return http_raw(port, "GET %s HTTP/1.1\r\n%s%sConnection: close\r\n\r\n" % (path, h, extra))


class TestHttpGuard(unittest.TestCase):
    def daemon(self, extra=""):
        d = td.Daemon("[daemon]\n" + extra)  # the fixture's file ends in [logging]
        self.addCleanup(d.close)
        return d

    def test_defaults(self):
        d = self.daemon()
        for host in ("127.0.0.1:%d" % d.http_port, "localhost:%d" % d.http_port, "[::1]:1", "127.0.0.7"):
            code, h, _ = get(d.http_port, "/metrics", host, "Origin: https://evil.example\r\n")
            self.assertEqual(code, 200, host)
            self.assertNotIn("access-control-allow-origin", h, host)
        # DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1
        for path in ("/status", "/metrics", "/config", "/"):
            code, h, body = get(d.http_port, path, "evil.example:%d" % d.http_port)
            self.assertEqual(code, 421, path)
            self.assertIn("daemon.status_hosts", body)
            self.assertNotIn("job", body)
        self.assertEqual(get(d.http_port, host=None)[0], 400)
        # an ordinary client (urllib sends Host: 127.0.0.1:PORT) is served as before
        self.assertEqual(d.http("/status")[0], 200)

    def test_configured_hosts_and_origins(self):
        d = self.daemon('status_hosts = ["prover1.example", "10.0.0.5"]\n'
                        'status_cors_origins = ["https://grafana.example", "http://localhost:3000"]')
        self.assertEqual(get(d.http_port, host="prover1.example:9821")[0], 200)
        self.assertEqual(get(d.http_port, host="10.0.0.5")[0], 200)
        self.assertEqual(get(d.http_port, host="prover2.example")[0], 421)
        for origin in ("https://grafana.example", "http://localhost:3000"):
            code, h, _ = get(d.http_port, extra="Origin: %s\r\n" % origin)
            self.assertEqual((code, h.get("access-control-allow-origin")), (200, origin))
            self.assertEqual(h.get("vary"), "Origin")
        for origin in ("https://evil.example", "http://grafana.example", "http://localhost:3001"):
            code, h, _ = get(d.http_port, extra="Origin: %s\r\n" % origin)
            self.assertEqual(code, 200)
            self.assertNotIn("access-control-allow-origin", h, origin)

    def test_any_origin_when_asked(self):
        d = self.daemon('status_cors_origins = ["*"]')
        code, h, _ = get(d.http_port, extra="Origin: https://anything.example\r\n")
        self.assertEqual((code, h.get("access-control-allow-origin")), (200, "*"))
        self.assertIn('daemon.status_cors_origins = "*"', d.log_text())
        self.assertIn("WARN", [ln for ln in d.log_text().splitlines() if "status_cors_origins" in ln][0])

    def test_bad_values_refused_at_load(self):
        for key, value, why in (("status_hosts", '["prover1:9821"]', "is not a host name or IP address"),
                                ("status_cors_origins", '["https://grafana.example/"]', "is not a web origin"),
                                ("status_cors_origins", '["grafana.example"]', "is not a web origin")):
            rc, err = tt.refused("--listen", "127.0.0.1:0", "--set", "daemon.%s=%s" % (key, value))
            self.assertEqual(rc, 2, err)
            self.assertIn("daemon.%s: element 0" % key, err)
            self.assertIn(why, err)


class TlsDaemon(unittest.TestCase):
    """One mutual-TLS daemon on 127.0.0.1 with an HTTP status listener."""

    @classmethod
    def setUpClass(cls):
        if not shutil.which("openssl"):
            raise unittest.SkipTest(td.skipped("the openssl CLI is missing (apt-get install openssl)",
                                               "test_access.py"))
        cls.tmp = d = tempfile.mkdtemp(prefix="cuzk-tls-")
        tt.make_ca(d, "ca")
        tt.make_ca(d, "other-ca")
        tt.make_cert(d, "server", "ca", "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        tt.make_cert(d, "client", "ca", "extendedKeyUsage=clientAuth\n")
        tt.make_cert(d, "stranger", "other-ca", "extendedKeyUsage=clientAuth\n")
        cls.f = {n: os.path.join(d, n) for n in ("ca.crt", "server.crt", "server.key", "client.crt", "client.key",
                                                   "stranger.crt", "stranger.key")}
        cls.proc, cls.port, cls.log = tt.start_tcp(
            '[daemon]\nlisten = "127.0.0.1:0"\nstatus_listen = "127.0.0.1:0"\ntest_provider = "test"\n'
            'tls_cert = "%s"\ntls_key = "%s"\ntls_client_ca = "%s"\n[srs]\nparam_cache = "%s"\n' %
            (cls.f["server.crt"], cls.f["server.key"], cls.f["ca.crt"], PARAMS), d)
        with open(cls.log) as f:
            cls.http_port = int(re.search(r"\(port (\d+)\)", f.read()).group(1))

    @classmethod
    def tearDownClass(cls):
        rc = tt.stop_tcp(cls.proc, cls.tmp)
        assert rc == 0, rc


class TestNoSecretsInHttp(TlsDaemon):
    def test_config_shows_key_paths_not_contents(self):
        with open(self.f["server.key"]) as f:
            key_lines = [ln for ln in f.read().splitlines() if ln and not ln.startswith("-----")]
        for path in ("/config", "/status", "/metrics"):
            code, _, body = get(self.http_port, path)
            self.assertEqual(code, 200, path)
            self.assertNotIn("PRIVATE KEY", body, path)
            for ln in key_lines:
                self.assertNotIn(ln, body, path)
        body = get(self.http_port, "/config")[2]
        self.assertIn('"daemon.tls_key": "%s"' % self.f["server.key"], body)
        self.assertIn('"daemon.tls_cert": "%s"' % self.f["server.crt"], body)


class TestBenchTLS(TlsDaemon):
    def bench(self, *args):
        p = subprocess.run([BENCH] + list(args), capture_output=True, text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr

    def tls(self, who="client"):
        return ["--tls-ca", self.f["ca.crt"], "--tls-cert", self.f[who + ".crt"], "--tls-key", self.f[who + ".key"]]

    def test_status_and_prove_over_tls(self):
        for addr in ("https://127.0.0.1:%d" % self.port, "127.0.0.1:%d" % self.port, "localhost:%d" % self.port):
            rc, out = self.bench("status", "--addr", addr, *self.tls())
            self.assertEqual(rc, 0, (addr, out))
            self.assertIn("uptime", out)
        rc, out = self.bench("single", "--addr", "https://127.0.0.1:%d/" % self.port, "--kind", "test",
                             "--vanilla-text", "n=16", *self.tls())
        self.assertEqual(rc, 0, out)
        self.assertIn("COMPLETED", out)
        # the global options, before the command
        rc, out = self.bench("-a", "https://127.0.0.1:%d" % self.port, *self.tls(), "metrics")
        self.assertEqual(rc, 0, out)
        self.assertIn("cuzk_build_info", out)
        rc, out = self.bench("batch", "--addr", "https://127.0.0.1:%d" % self.port, "-c", "2", "-j", "2", "--kind",
                             "test", "--vanilla-text", "n=16", *self.tls())
        self.assertEqual(rc, 0, out)

    def test_https_is_tls(self):
        # https:// alone is TLS with the system's roots: our CA is not among them, so no connection;
        # before, https:// meant plain text (and a plain-text daemon there would have answered)
        rc, out = self.bench("status", "--addr", "https://127.0.0.1:%d" % self.port, "--timeout-ms", "5000")
        self.assertNotEqual(rc, 0, out)
        self.assertIn("UNAVAILABLE", out)
        # a plain-text TCP daemon is not reached through https://
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        p, pport, _ = tt.start_tcp('[daemon]\nlisten = "127.0.0.1:0"\n[srs]\nparam_cache = "%s"\n' % PARAMS, tmp)
        try:
            self.assertEqual(self.bench("status", "--addr", "http://127.0.0.1:%d" % pport)[0], 0)
            rc, out = self.bench("status", "--addr", "https://127.0.0.1:%d" % pport, "--timeout-ms", "5000",
                                 *self.tls())
            self.assertNotEqual(rc, 0, out)
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(30)

    def test_wrong_or_missing_certificate(self):
        rc, out = self.bench("status", "--addr", "https://127.0.0.1:%d" % self.port, "--tls-ca", self.f["ca.crt"],
                             "--timeout-ms", "5000")
        self.assertNotEqual(rc, 0, out)
        rc, out = self.bench("status", "--addr", "https://127.0.0.1:%d" % self.port, "--timeout-ms", "5000",
                             *self.tls("stranger"))
        self.assertNotEqual(rc, 0, out)

    def test_bad_options(self):
        a = "https://127.0.0.1:%d" % self.port
        for args, why in ((["--tls-cert", self.f["client.crt"]], "--tls-cert and --tls-key go together"),
                          (["--tls-key", self.f["client.key"]], "--tls-cert and --tls-key go together"),
                          (["--tls-ca", "/nonexistent/ca.crt"], "/nonexistent/ca.crt"),
                          (["--tls-ca", self.f["client.key"]], "no PEM certificate"),
                          (["--tls-cert", self.f["client.crt"], "--tls-key", self.f["stranger.key"]],
                           "is not the key of")):
            rc, out = self.bench("status", "--addr", a, *args)
            self.assertEqual(rc, 2, (args, out))
            self.assertIn(why, out, args)
        rc, out = self.bench("status", "--addr", "http://127.0.0.1:%d" % self.port, *self.tls())
        self.assertEqual(rc, 2, out)
        self.assertIn("http:// is plain text", out)
        rc, out = self.bench("status", "--addr", "unix:///tmp/x.sock", *self.tls())
        self.assertEqual(rc, 2, out)
        self.assertIn("unix socket", out)


if __name__ == "__main__":
    try:
        unittest.main()
    finally:  # test_daemon's generated stubs and shared params
        shutil.rmtree(td.GEN, ignore_errors=True)
        shutil.rmtree(PARAMS, ignore_errors=True)
