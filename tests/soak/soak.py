"""Soak test: the real cuzk-daemon under mixed load for a duration, driven by
an independent client (Debian's python3-grpcio; stubs generated from
proto/cuzk/v1/proving.proto at run time).  Not part of `make test`: run it
with scripts/soak.sh DURATION_S (docs/reliability.md records the results).

Load, all at once, for DURATION_S seconds:
  - provers: WinningPoSt, WindowPoSt, PoRep C2 and SnapDeals 2 KiB proofs
    (Prove, unique request ids); every returned proof is verified by
    `cuzk-bench verify` with the cached TEST vk of its circuit;
  - garbage: malformed requests of every kind (bad vanilla bytes, bad enums,
    missing commitments): each must end FAILED or be refused
    (INVALID_ARGUMENT), never crash the daemon;
  - cancellations: PoRep jobs submitted and cancelled after a random delay:
    each ends CANCELLED (or COMPLETED when it won the race, then verified);
  - disconnecting clients: Prove with a deadline far shorter than the proof;
    the job must still end COMPLETED (AwaitProof on its id afterwards);
  - preload/evict churn of the four circuits, under a memory budget too small
    for all of them (srs entries go HOT -> WARM/COLD -> HOT);
  - a sampler: the daemon's heap (RssAnon), mapped-file pages (RssFile: the
    WARM params) and open file descriptors every 5 s.
At the end: jobs are submitted and awaited while the daemon gets SIGTERM;
every waiter must get an answer (a status, or UNAVAILABLE once the socket
closes -- never a hang) and the daemon must exit 0.

Pass: every accepted job ended COMPLETED / FAILED / CANCELLED as expected,
every returned proof verifies, the heap floor (RssAnon's minimum per sixth
of the run after warm-up, the first third: parameter loads make it jump, a
leak raises the floor) grows less than LIMIT_KB_PER_MIN, the fd count at the end equals the one
after warm-up (+-2), and the shutdown answered every waiter.

    python3 tests/soak/soak.py --bin build/bin --params DIR --work DIR --duration S
"""
import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

import grpc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = tempfile.mkdtemp(prefix="cuzk-soak-pb-")
from grpc_tools import protoc  # noqa: E402

if protoc.main(["protoc", "-I" + os.path.join(ROOT, "proto"), "--python_out=" + GEN, "--grpc_python_out=" + GEN,
                os.path.join(ROOT, "proto", "cuzk", "v1", "proving.proto")]) != 0:
    raise SystemExit("protoc failed on proto/cuzk/v1/proving.proto")
sys.path.insert(0, GEN)
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

R = pb.AwaitProofResponse
STATUS = {R.COMPLETED: "COMPLETED", R.FAILED: "FAILED", R.CANCELLED: "CANCELLED", R.TIMEOUT: "TIMEOUT",
          R.UNKNOWN: "UNKNOWN"}
RND = "5a" * 31 + "1a"
MINER = 1000
LIMIT_KB_PER_MIN = 512  # RSS growth allowed after warm-up (allocator noise, not a leak)
CIRCUITS = ["winning-2k", "wpost-2k", "porep-2k", "snap-2k"]


def log(*a):
    print("[%s]" % time.strftime("%H:%M:%S"), *a, flush=True)


class Inputs:
    """Sectors and vanilla proofs made by `cuzk-bench gen-vanilla` (as make demo does)."""

    def __init__(self, bench, work):
        self.bench, self.work = bench, work
        post = self.gen("post", "--sector-size", "2KiB", "--sector", "1", "--randomness", RND)
        self.post = post
        seal = self.gen("porep", "--sector-size", "2KiB", "--sector", "1", "--miner-id", str(MINER))
        self.seal = seal
        snap = self.gen("snap", "--sector-size", "2KiB", "--sealed", seal["dir"])
        self.snap = snap
        with open(os.path.join(post["dir"], "winning-post.vproof"), "rb") as f:
            self.winning = f.read()
        with open(os.path.join(post["dir"], "window-post.vproof"), "rb") as f:
            self.window = f.read()
        with open(os.path.join(seal["dir"], "c1-envelope.json"), "rb") as f:
            self.envelope = f.read()
        with open(os.path.join(snap["dir"], "partition-0.bin"), "rb") as f:
            self.partition0 = f.read()

    def gen(self, kind, *args):
        out = os.path.join(self.work, kind)
        subprocess.run([self.bench, "gen-vanilla", kind, *args, "--out", out], check=True, capture_output=True)
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        s["dir"] = out
        return s

    def request(self, kind, rid):
        """SubmitProofRequest fields for one good proof of `kind`."""
        p, s, u = self.post, self.seal, self.snap
        if kind == "winning":
            return dict(request_id=rid, proof_kind=pb.WINNING_POST, sector_size=2048,
                        registered_proof=p["winning_registered_proof"], vanilla_proofs=[self.winning],
                        randomness=bytes.fromhex(RND), miner_id=MINER)
        if kind == "window":
            return dict(request_id=rid, proof_kind=pb.WINDOW_POST_PARTITION, sector_size=2048,
                        registered_proof=p["window_registered_proof"], vanilla_proofs=[self.window],
                        randomness=bytes.fromhex(RND), miner_id=MINER)
        if kind == "porep":
            return dict(request_id=rid, proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=self.envelope,
                        miner_id=MINER, sector_number=s["sector_id"])
        return dict(request_id=rid, proof_kind=pb.SNAP_DEALS_UPDATE, sector_size=2048,
                    registered_proof=u["registered_proof"], vanilla_proofs=[self.partition0],
                    comm_r_old=bytes.fromhex(u["comm_r_old"]), comm_r_new=bytes.fromhex(u["comm_r_new"]),
                    comm_d_new=bytes.fromhex(u["comm_d_new"]))

    def verify_args(self, kind):
        p, s, u = self.post, self.seal, self.snap
        if kind in ("winning", "window"):
            return ["--circuit", kind + "-post", "--sector-size", "2KiB", "--randomness", RND,
                    "--sector", "1:" + p["comm_r"], "--miner-id", str(MINER)]
        if kind == "porep":
            return ["--circuit", "porep", "--sector-size", "2KiB", "--comm-r", s["comm_r"], "--comm-d", s["comm_d"],
                    "--prover-id", s["prover_id"], "--sector-id", str(s["sector_id"]), "--ticket", s["ticket"],
                    "--seed", s["seed"]]
        return ["--circuit", "snap", "--sector-size", "2KiB", "--comm-r-old", u["comm_r_old"], "--comm-r-new",
                u["comm_r_new"], "--comm-d-new", u["comm_d_new"]]


class Soak:
    def __init__(self, a):
        self.a = a
        self.bench = os.path.join(a.bin, "cuzk-bench")
        self.inputs = Inputs(self.bench, a.work)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.tally = {}       # (class, kind, outcome) -> count
        self.problems = []    # human-readable failures
        self.samples = []     # (t, rss_kb, fds)
        self.vks = {}         # kind -> [the vk that verified its first proof]
        self.seq = 0

    def count(self, cls, kind, outcome):
        with self.lock:
            key = (cls, kind, outcome)
            self.tally[key] = self.tally.get(key, 0) + 1

    def problem(self, what):
        with self.lock:
            self.problems.append(what)
        log("PROBLEM:", what)

    def rid(self, cls, kind):
        with self.lock:
            self.seq += 1
            return "soak-%s-%s-%d" % (cls, kind, self.seq)

    # ---- the daemon -------------------------------------------------------------------
    def start_daemon(self):
        a = self.a
        self.sock = os.path.join(a.work, "cuzk.sock")
        self.log_path = os.path.join(a.work, "daemon.log")
        cfg = os.path.join(a.work, "cuzk.toml")
        # the 2 KiB TEST params carry the official file names: srs.allow_test_params
        with open(cfg, "w") as f:
            f.write('[daemon]\nlisten = "unix://%s"\nstatus_listen = "127.0.0.1:0"\n'
                    '[srs]\nparam_cache = "%s"\nallow_test_params = true\n'
                    '[memory]\ntotal_budget = "%s"\n[logging]\nlevel = "info"\n' % (self.sock, a.params, a.budget))
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen([os.path.join(a.bin, "cuzk-daemon"), "--config", cfg],
                                     stdout=subprocess.DEVNULL, stderr=self.logf)
        deadline = time.time() + 30
        while time.time() < deadline:
            with open(self.log_path) as f:
                text = f.read()
            if "cuzk-daemon ready" in text:
                break
            if self.proc.poll() is not None:
                raise SystemExit("daemon exited %d:\n%s" % (self.proc.returncode, text))
            time.sleep(0.05)
        else:
            raise SystemExit("daemon did not start")
        self.chan = grpc.insecure_channel("unix://" + self.sock, options=[
            ("grpc.max_send_message_length", 64 << 20), ("grpc.max_receive_message_length", 64 << 20)])
        self.stub = pbg.ProvingEngineStub(self.chan)

    def alive(self):
        return self.proc.poll() is None

    # ---- checks -------------------------------------------------------------------------
    def verify(self, kind, proof):
        """True when `cuzk-bench verify` accepts the proof with one of the cached vks of its circuit."""
        fd, path = tempfile.mkstemp(dir=self.a.work, suffix=".proof")
        with os.fdopen(fd, "wb") as f:
            f.write(proof)
        try:
            vks = self.vks.get(kind)
            if vks is None:
                pattern = {"winning": "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-",
                           "window": "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-",
                           "porep": "v28-stacked-proof-of-replication", "snap": "v28-empty-sector-update"}[kind]
                vks = sorted(os.path.join(self.a.params, n) for n in os.listdir(self.a.params)
                             if n.startswith(pattern) and n.endswith(".vk"))
            for vk in vks:
                p = subprocess.run([self.bench, "verify", "--vk", vk, "--proof", path] + self.inputs.verify_args(kind),
                                   capture_output=True, text=True, timeout=120)
                if p.returncode == 0 and p.stdout.strip() == "valid":
                    with self.lock:
                        self.vks[kind] = [vk]  # remember the one that fits
                    return True
            return False
        finally:
            os.unlink(path)

    def expect_proof(self, cls, kind, r):
        st = STATUS.get(r.status, str(r.status))
        if r.status == R.CANCELLED and self.stop.is_set() and "shut down" in r.error_message:
            self.count(cls, kind, "CANCELLED by shutdown")  # the end of the run: expected
            return
        if r.status != R.COMPLETED:
            self.problem("%s %s job %s ended %s: %s" % (cls, kind, r.job_id, st, r.error_message))
            self.count(cls, kind, st)
            return
        if not self.verify(kind, r.proof):
            self.problem("%s %s job %s: the returned proof does not verify" % (cls, kind, r.job_id))
            self.count(cls, kind, "INVALID")
            return
        self.count(cls, kind, "COMPLETED+verified")

    # ---- load ---------------------------------------------------------------------------
    def prover(self, kinds):
        while not self.stop.is_set():
            kind = random.choice(kinds)
            try:
                r = self.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(**self.inputs.request(
                    kind, self.rid("prove", kind)))), timeout=900).result
                self.expect_proof("prove", kind, r)
            except grpc.RpcError as e:
                if self.stop.is_set() and e.code() == grpc.StatusCode.UNAVAILABLE:
                    return
                self.problem("prove %s: %s %s" % (kind, e.code(), e.details()))
                self.count("prove", kind, "RPC_" + e.code().name)

    def garbage(self):
        bad = [("winning", dict(vanilla_proofs=[b"\x00garbage"])), ("window", dict(vanilla_proofs=[b""])),
               ("porep", dict(vanilla_proof=b"{not json")), ("snap", dict(comm_d_new=b"")),
               ("winning", dict(registered_proof=999)), ("window", dict(sector_size=12345)),
               ("porep", dict(vanilla_proof=self.inputs.envelope[: len(self.inputs.envelope) // 2])),
               ("snap", dict(vanilla_proof=b'["not base64!"]', vanilla_proofs=[]))]
        while not self.stop.wait(random.uniform(0.5, 2.0)):
            kind, fields = random.choice(bad)
            req = self.inputs.request(kind, self.rid("garbage", kind))
            req.update(fields)
            try:
                r = self.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(**req)), timeout=300).result
                if r.status == R.FAILED and r.error_message:
                    self.count("garbage", kind, "FAILED")
                else:
                    self.problem("garbage %s %s ended %s (%r)" % (kind, fields.keys(), STATUS.get(r.status),
                                                                  r.error_message))
                    self.count("garbage", kind, "UNEXPECTED")
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.INVALID_ARGUMENT:
                    self.count("garbage", kind, "INVALID_ARGUMENT")
                elif not self.stop.is_set():
                    self.problem("garbage %s: %s %s" % (kind, e.code(), e.details()))

    def canceller(self):
        while not self.stop.wait(random.uniform(3, 10)):
            kind = random.choice(["porep", "snap", "window"])
            rid = self.rid("cancel", kind)
            try:
                job = self.stub.SubmitProof(pb.SubmitProofRequest(**self.inputs.request(kind, rid)), timeout=60).job_id
                time.sleep(random.uniform(0, 4))
                self.stub.CancelProof(pb.CancelProofRequest(job_id=job), timeout=60)
                r = self.stub.AwaitProof(pb.AwaitProofRequest(job_id=job, timeout_ms=600000), timeout=700)
                if r.status == R.CANCELLED:
                    self.count("cancel", kind, "CANCELLED")
                else:
                    self.expect_proof("cancel", kind, r)  # it finished first: must be a good proof
            except grpc.RpcError as e:
                if not self.stop.is_set():
                    self.problem("cancel %s: %s %s" % (kind, e.code(), e.details()))

    def disconnector(self):
        while not self.stop.wait(random.uniform(5, 15)):
            kind = random.choice(["window", "snap", "porep"])
            rid = self.rid("disconnect", kind)
            req = pb.ProveRequest(submit=pb.SubmitProofRequest(**self.inputs.request(kind, rid)))
            try:
                self.stub.Prove(req, timeout=0.3)  # the client goes away long before the proof is done
                self.count("disconnect", kind, "fast")  # finished within 0.3 s (possible for small ones)
                continue
            except grpc.RpcError as e:
                if e.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
                    if not self.stop.is_set():
                        self.problem("disconnect %s: %s %s" % (kind, e.code(), e.details()))
                    continue
            try:  # the job must live on: attach with the same request (Curio's retry)
                r = self.stub.Prove(req, timeout=900).result
                self.expect_proof("disconnect", kind, r)
            except grpc.RpcError as e:
                if not self.stop.is_set():
                    self.problem("disconnect retry %s: %s %s" % (kind, e.code(), e.details()))

    def churn(self):
        while not self.stop.wait(random.uniform(2, 6)):
            cid = random.choice(CIRCUITS)
            try:
                if random.random() < 0.5:
                    self.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid), timeout=300)
                    self.count("churn", cid, "preload")
                else:
                    self.stub.EvictSRS(pb.EvictSrsRequest(circuit_id=cid), timeout=60)
                    self.count("churn", cid, "evict")
            except grpc.RpcError as e:
                # a preload larger than the free budget is refused with a clear code; anything else is a problem
                if e.code() in (grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.FAILED_PRECONDITION,
                                grpc.StatusCode.NOT_FOUND):
                    self.count("churn", cid, e.code().name)
                elif not self.stop.is_set():
                    self.problem("churn %s: %s %s" % (cid, e.code(), e.details()))

    def sampler(self):
        t0 = time.time()
        while True:
            try:
                with open("/proc/%d/status" % self.proc.pid) as f:
                    text = f.read()
                # RssAnon is the heap (what a leak grows); RssFile is mapped params pages the kernel may drop
                rss = int(re.search(r"RssAnon:\s+(\d+)", text).group(1))
                rss_file = int(re.search(r"RssFile:\s+(\d+)", text).group(1))
                fds = len(os.listdir("/proc/%d/fd" % self.proc.pid))
                self.samples.append((time.time() - t0, rss, fds, rss_file))
            except (OSError, AttributeError):
                return
            if self.stop.wait(5):
                return

    # ---- the end ------------------------------------------------------------------------
    def shutdown_with_waiters(self):
        """Jobs in flight and waiting clients, then SIGTERM: every waiter gets an answer."""
        answers, waiters = [], []

        def wait_one(kind):
            rid = self.rid("shutdown", kind)
            try:
                r = self.stub.Prove(pb.ProveRequest(submit=pb.SubmitProofRequest(**self.inputs.request(kind, rid))),
                                    timeout=600).result
                answers.append((kind, STATUS.get(r.status)))
                if r.status == R.COMPLETED and not self.verify(kind, r.proof):
                    self.problem("shutdown %s: returned proof does not verify" % kind)
            except grpc.RpcError as e:
                answers.append((kind, "RPC_" + e.code().name))

        for kind in ("porep", "snap", "window", "winning", "porep"):
            t = threading.Thread(target=wait_one, args=(kind,))
            t.start()
            waiters.append(t)
        time.sleep(3)
        t0 = time.time()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=600)
        except subprocess.TimeoutExpired:
            self.problem("daemon did not exit within 600 s of SIGTERM")
            self.proc.kill()
            rc = self.proc.wait()
        for t in waiters:
            t.join(timeout=60)
            if t.is_alive():
                self.problem("a waiter got no answer within 60 s of the daemon's exit")
        log("SIGTERM -> exit %d in %.1f s; waiters: %s" % (rc, time.time() - t0, answers))
        if rc != 0:
            self.problem("daemon exit code %d after SIGTERM" % rc)
        if len(answers) != len(waiters):
            self.problem("%d of %d waiters answered" % (len(answers), len(waiters)))
        return rc, answers

    def slope(self):
        """RSS trend after warm-up (the first third): the least-squares slope of the per-window minima
        (KiB/min; parameter loads and evictions make the raw RSS jump, a leak raises the floor), the raw
        least-squares slope for reference, and the fd counts after warm-up and at the end."""
        warm = [s for s in self.samples if s[0] >= self.samples[-1][0] / 3] if self.samples else []
        if len(warm) < 12:
            return None, None, None, None

        def lsq(pts):
            n = len(pts)
            mt, mr = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
            var = sum((p[0] - mt) ** 2 for p in pts)
            return sum((p[0] - mt) * (p[1] - mr) for p in pts) / var * 60.0 if var else 0.0

        w = max(2, len(warm) // 6)
        floors = [min(warm[i:i + w], key=lambda s: s[1]) for i in range(0, len(warm) - w + 1, w)]
        return lsq(floors) if len(floors) >= 3 else None, lsq(warm), warm[0][2], warm[-1][2]

    def run(self):
        a = self.a
        self.start_daemon()
        log("daemon pid %d, budget %s, duration %d s" % (self.proc.pid, a.budget, a.duration))
        threads = [threading.Thread(target=self.sampler)]
        threads += [threading.Thread(target=self.prover, args=(["winning", "window"],)) for _ in range(2)]
        threads += [threading.Thread(target=self.prover, args=(["porep", "snap"],))]
        threads += [threading.Thread(target=f) for f in (self.garbage, self.canceller, self.disconnector, self.churn)]
        for t in threads:
            t.start()
        end = time.time() + a.duration
        while time.time() < end and self.alive():
            time.sleep(5)
        if not self.alive():
            self.problem("the daemon died during the soak (exit %s)" % self.proc.returncode)
        self.stop.set()
        rc, _ = self.shutdown_with_waiters() if self.alive() else (None, None)
        for t in threads:
            t.join(timeout=900)
        return self.report()

    def report(self):
        if self.a.samples:
            with open(self.a.samples, "w") as f:
                f.write("t_s,rss_anon_kib,fds,rss_file_kib\n")
                for t, rss, fds, rss_file in self.samples:
                    f.write("%.1f,%d,%d,%d\n" % (t, rss, fds, rss_file))
        slope, raw, fd0, fd1 = self.slope()
        print("\n== soak result (%d s)" % self.a.duration)
        for (cls, kind, outcome), n in sorted(self.tally.items()):
            print("  %-10s %-16s %-22s %5d" % (cls, kind, outcome, n))
        if self.samples:
            print("  mapped params (RssFile): max %.0f MiB, end %.0f MiB" % (
                max(s[3] for s in self.samples) / 1024, self.samples[-1][3] / 1024))
            print("  heap (RssAnon): start %.0f MiB, max %.0f MiB, end %.0f MiB; after warm-up: floor slope %s KiB/min "
                  "(limit %d), raw slope %s KiB/min, %d samples" % (
                      self.samples[0][1] / 1024, max(s[1] for s in self.samples) / 1024, self.samples[-1][1] / 1024,
                      "%.1f" % slope if slope is not None else "n/a (run too short)", LIMIT_KB_PER_MIN,
                      "%.1f" % raw if raw is not None else "n/a", len(self.samples)))
            print("  fds: after warm-up %s, at the end %s" % (fd0, fd1))
        if slope is not None and slope > LIMIT_KB_PER_MIN:
            self.problem("the heap (RssAnon) floor grows %.1f KiB/min after warm-up" % slope)
        if fd0 is not None and abs(fd1 - fd0) > 2:
            self.problem("file descriptors went from %d to %d" % (fd0, fd1))
        proved = sum(n for (c, k, o), n in self.tally.items() if o == "COMPLETED+verified")
        if not proved:
            self.problem("no proof completed")
        print("  problems: %d" % len(self.problems))
        for p in self.problems:
            print("   -", p)
        print("soak: %s" % ("PASS" if not self.problems else "FAIL"))
        return 0 if not self.problems else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--params", required=True, help="param cache with the 2 KiB TEST params (make demo's)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--duration", type=int, default=1800)
    ap.add_argument("--budget", default="2GiB", help="memory.total_budget: too small for every circuit at once")
    ap.add_argument("--samples", default="", help="write the RSS/fd samples to this CSV file")
    a = ap.parse_args()
    sys.exit(Soak(a).run())


if __name__ == "__main__":
    main()
