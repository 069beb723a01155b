#!/usr/bin/env python3
"""Performance regression gate: instruction counts of the hot paths under callgrind.

    tests/perf/gate.py --bin build/bin [--jobs N] [--only NAME,...]   check (make test-perf)
    tests/perf/gate.py --bin build/bin --update                       rewrite the baseline (make perf-baseline)

Each case runs one cuzk-bench command (one thread, fixed inputs) under
`valgrind --tool=callgrind`.  Instruction counts are exact and repeatable,
unlike wall time on this shared 2-core VM: the same binary gives the same
count to within a few hundred instructions.  A case fails when its GATED
count exceeds the committed baseline (tests/perf/baseline.json) by more than
--limit percent (3); the function-level difference (self instructions per
function, this run against the baseline's table) is printed, and the
callgrind files are kept in <bin>/../perf/ for callgrind_annotate.

GATED counts every instruction except those of code chosen by the host CPU
at run time rather than by us: the dynamic loader, libcrypto (OpenSSL's own
CPUID dispatch) and glibc's multiarch string functions (memcpy, memset, ...:
one of several variants picked by CPUID, so another CI host could execute
another variant).  Those are printed (TOTAL) but not gated.  Our own field
kernels: valgrind reports neither ADX nor AVX-512, so under callgrind the
portable field arithmetic and the scalar MSM run on every host; the gate
therefore covers the algorithms above the field (synthesis, PCE evaluation,
MSM buckets, NTT, the prover's orchestration) and the portable kernels, not
the MULX/ADX and IFMA assembly (cuzk-bench micro / msm measure those).

The baseline is tied to the toolchain (Debian 12: gcc 12, glibc 2.36,
valgrind 3.19).  `make perf-baseline` rewrites it; commit it with a message
that says why the counts moved.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINE = os.path.join(HERE, "baseline.json")
TOP_FUNCTIONS = 40  # functions kept per case in the baseline for the diff

# name -> (cuzk-bench arguments, callgrind --toggle-collect or None = whole run,
#          what it needs prepared: None, "pce:<circuit>" or "params:chain")
# {pce} and {params} are replaced by the prepared files.
CASES = {
    "synth-porep-2k-prove": (["synth", "--circuit", "porep", "--sector-size", "2KiB", "--random-witness",
                              "--mode", "prove", "--threads", "1"], None, None),
    "synth-porep-2k-witness": (["synth", "--circuit", "porep", "--sector-size", "2KiB", "--random-witness",
                                "--mode", "witness", "--threads", "1"], None, None),
    "synth-porep-2k-pce": (["synth", "--circuit", "porep", "--sector-size", "2KiB", "--random-witness",
                            "--pce", "{pce}", "--threads", "1"], None, "pce:porep"),
    "synth-wpost-2k-prove": (["synth", "--circuit", "window-post", "--sector-size", "2KiB", "--random-witness",
                              "--mode", "prove", "--threads", "1"], None, None),
    "synth-wpost-2k-witness": (["synth", "--circuit", "window-post", "--sector-size", "2KiB",
                                "--random-witness", "--mode", "witness", "--threads", "1"], None, None),
    "synth-wpost-2k-pce": (["synth", "--circuit", "window-post", "--sector-size", "2KiB", "--random-witness",
                            "--pce", "{pce}", "--threads", "1"], None, "pce:window-post"),
    "synth-snap-2k-prove": (["synth", "--circuit", "snap", "--sector-size", "2KiB", "--random-witness",
                             "--mode", "prove", "--threads", "1"], None, None),
    "synth-snap-2k-witness": (["synth", "--circuit", "snap", "--sector-size", "2KiB", "--random-witness",
                               "--mode", "witness", "--threads", "1"], None, None),
    "synth-snap-2k-pce": (["synth", "--circuit", "snap", "--sector-size", "2KiB", "--random-witness",
                           "--pce", "{pce}", "--threads", "1"], None, "pce:snap"),
    "prove-chain-2^14": (["prove", "--params", "{params}", "--circuit", "chain", "--size", "16384",
                          "--deterministic", "--threads", "1", "--out", "{tmp}/proof",
                          "--inputs-out", "{tmp}/inputs"], "cuzk_groth16_prove", "params:chain"),
    "msm-g1-2^14-random": (["msm", "--group", "g1", "--log", "14", "--scalars", "random", "--threads", "1",
                            "--reps", "1"], "cuzk_msm_g1_opts", None),
    "msm-g1-2^14-filecoin": (["msm", "--group", "g1", "--log", "14", "--scalars", "filecoin", "--threads",
                              "1", "--reps", "1"], "cuzk_msm_g1_opts", None),
    "ntt-2^14": (["ntt", "--log", "14", "--threads", "1", "--reps", "1", "--op", "all"], None, None),
}

NOT_GATED_OBJECTS = re.compile(r"(^|/)(ld-linux[^/]*|libcrypto[^/]*)$")
NOT_GATED_FILES = re.compile(r"/multiarch/")


def parse_callgrind(path):
    """Self instruction counts per (object, file, function) from a callgrind
    out file (positions: line; events: Ir; names compressed or not).  Cost
    lines after a calls= line are the callee's inclusive cost and are not
    the caller's self cost."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
               "fn": "fn", "cfn": "fn"}

    def name(kind, val):
        m = re.match(r"\((\d+)\)(?: (.*))?$", val)
        if not m:
            return val
        table = names[kind_of[kind]]
        if m.group(2) is not None:
            table[m.group(1)] = m.group(2)
        return table.get(m.group(1), val)

    self_ir = {}
    ob = fl = fi = fn = ""
    skip_next = False
    events = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line[0] == "#":
                continue
            c = line[0]
            if c.isdigit() or c in "+-*":
                if skip_next:
                    skip_next = False
                    continue
                parts = line.split()
                if len(parts) < 2:
                    continue
                key = (ob, fi or fl, fn)
                self_ir[key] = self_ir.get(key, 0) + int(parts[1])
                continue
            key, _, val = line.partition("=")
            if key == "events":
                events = val.split()
            elif key == "ob":
                ob = name(key, val)
            elif key == "fl":
                fl, fi = name(key, val), ""
            elif key in ("fi", "fe"):
                fi = name(key, val)
            elif key == "fn":
                fn, fi = name(key, val), ""
            elif key in ("cob", "cfi", "cfl", "cfn"):
                name(key, val)  # defines compressed names used later
            elif key == "calls":
                skip_next = True
    if events and events[0] != "Ir":
        raise SystemExit("%s: first event is %s, not Ir" % (path, events[0]))
    return self_ir


def summarize(self_ir):
    total = gated = 0
    per_fn = {}
    for (ob, fl, fn), ir in self_ir.items():
        total += ir
        if NOT_GATED_OBJECTS.search(ob) or NOT_GATED_FILES.search(fl):
            continue
        gated += ir
        per_fn[fn] = per_fn.get(fn, 0) + ir
    return total, gated, per_fn


def prepare(bench, work, need):
    """The file a case needs ("pce:<circuit>" or "params:chain"), made once per run (not measured)."""
    kind, _, what = need.partition(":")
    if kind == "pce":
        out = os.path.join(work, what + "-2k.pce")
        if not os.path.exists(out):
            run([bench, "pce", "extract", "--circuit", what, "--sector-size", "2KiB", "--out", out])
        return out
    if kind == "params":
        d = os.path.join(work, "chain-16384")
        if not os.path.isdir(d):
            run([bench, "setup", "--circuit", "chain", "--size", "16384", "--out", d])
        params = [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".params")]
        if len(params) != 1:
            raise SystemExit("perf gate: setup of chain 16384 left %d .params files in %s" % (len(params), d))
        return params[0]
    raise SystemExit("perf gate: unknown preparation " + need)


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode:
        sys.stdout.write(r.stdout)
        raise SystemExit("perf gate: failed (exit %d): %s" % (r.returncode, " ".join(cmd)))
    return r.stdout


def measure(bench, outdir, name, files):
    args, toggle, need = CASES[name]
    tmp = tempfile.mkdtemp(prefix="cuzk-perf-")
    try:
        subst = {"tmp": tmp}
        if need:  # {pce} / {params}: this case's own file
            subst[need.partition(":")[0]] = files[need]
        argv = [a.format(**subst) for a in args]
        cg = os.path.join(outdir, name + ".callgrind")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + cg]
        if toggle:
            cmd.append("--toggle-collect=" + toggle)
        # one thread; the scalar MSM either way (valgrind has no AVX-512)
        env = dict(os.environ, CUZK_MSM_NO_IFMA="1", OMP_NUM_THREADS="1")
        r = subprocess.run(cmd + [bench] + argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           env=env)
        if r.returncode:
            sys.stdout.write(r.stdout[-4000:])
            raise RuntimeError("%s: exit %d under callgrind" % (name, r.returncode))
        total, gated, per_fn = summarize(parse_callgrind(cg))
        if gated == 0:
            raise RuntimeError("%s: nothing measured (toggle %s never entered?)" % (name, toggle))
        return name, {"total": total, "gated": gated, "functions": per_fn, "command": "cuzk-bench " +
                      " ".join(args)}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fmt(n):
    return "{:,}".format(n)


def fn_diff(base_fns, cur_fns, limit=15):
    keys = set(base_fns) | set(k for k, _ in sorted(cur_fns.items(), key=lambda kv: -kv[1])[:TOP_FUNCTIONS])
    rows = []
    for k in keys:
        b, c = base_fns.get(k), cur_fns.get(k, 0)
        rows.append((c - (b or 0), k, b, c))
    rows = [r for r in rows if r[0]]
    rows.sort(key=lambda r: -abs(r[0]))
    out = ["      %16s %16s %16s  %s" % ("baseline", "now", "change", "function (self instructions)")]
    for d, k, b, c in rows[:limit]:
        out.append("      %16s %16s %+16s  %s" % (fmt(b) if b is not None else "(not in top)", fmt(c),
                                                   "{:,}".format(d), k))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True, help="directory holding cuzk-bench")
    ap.add_argument("--update", action="store_true", help="rewrite tests/perf/baseline.json")
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--limit", type=float, default=3.0, help="percent over the baseline that fails")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--only", help="comma-separated case names")
    a = ap.parse_args()

    if not shutil.which("valgrind"):
        # tests/skip.sh semantics: SKIPPED, and a failure under CI=true
        why = "valgrind not found (apt-get install valgrind)"
        if os.environ.get("CI") == "true":
            raise SystemExit("perf gate: FAIL: %s (CI=true: every independent check must run)" % why)
        print("perf gate: SKIPPED: " + why)
        log = os.environ.get("CUZK_SKIP_LOG")
        if log:
            with open(log, "a") as f:
                f.write("SKIPPED perf gate: %s\n" % why)
        return 0
    bench = os.path.join(os.path.abspath(a.bin), "cuzk-bench")
    names = list(CASES)
    if a.only:
        names = a.only.split(",")
        for n in names:
            if n not in CASES:
                raise SystemExit("perf gate: no case %s (cases: %s)" % (n, ", ".join(CASES)))
    outdir = os.path.join(os.path.dirname(os.path.abspath(a.bin)), "perf")
    os.makedirs(outdir, exist_ok=True)
    files = {}
    for n in names:
        need = CASES[n][2]
        if need and need not in files:
            files[need] = prepare(bench, outdir, need)

    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        futs = [ex.submit(measure, bench, outdir, n, files) for n in names]
        for fu in concurrent.futures.as_completed(futs):
            n, r = fu.result()
            results[n] = r

    base = {"cases": {}}
    if os.path.exists(a.baseline):
        with open(a.baseline) as f:
            base = json.load(f)
    if a.update:
        cases = base.get("cases", {})
        for n in names:
            r = results[n]
            top = dict(sorted(r["functions"].items(), key=lambda kv: -kv[1])[:TOP_FUNCTIONS])
            cases[n] = {"command": r["command"], "gated": r["gated"], "total": r["total"], "functions": top}
        base = {"about": "callgrind instruction counts of tests/perf/gate.py's cases; `make perf-baseline` "
                         "rewrites this file (commit it saying why the counts moved)",
                "toolchain": toolchain(), "cases": dict(sorted(cases.items()))}
        with open(a.baseline + ".tmp", "w") as f:
            json.dump(base, f, indent=1, sort_keys=False)
            f.write("\n")
        os.replace(a.baseline + ".tmp", a.baseline)
        for n in names:
            print("perf gate: %-24s %16s instructions gated (%s total) recorded" %
                  (n, fmt(results[n]["gated"]), fmt(results[n]["total"])))
        return 0

    failed = []
    for n in names:
        r, b = results[n], base.get("cases", {}).get(n)
        if b is None:
            print("perf gate: FAIL %-24s no baseline (run make perf-baseline and commit it)" % n)
            failed.append(n)
            continue
        pct = 100.0 * (r["gated"] - b["gated"]) / b["gated"]
        status = "ok  " if pct <= a.limit else "FAIL"
        print("perf gate: %s %-24s %16s gated, %+7.3f %% against %s (total %s)" %
              (status, n, fmt(r["gated"]), pct, fmt(b["gated"]), fmt(r["total"])))
        if pct > a.limit:
            failed.append(n)
            print("    more than +%.1f %%; where (callgrind_annotate %s/%s.callgrind for the whole profile):" %
                  (a.limit, outdir, n))
            print(fn_diff(b.get("functions", {}), r["functions"]))
        elif pct < -a.limit:
            print("    %.2f %% fewer instructions than the baseline: if that is intended, `make perf-baseline` "
                  "and commit it" % -pct)
    if failed:
        print("perf gate: %d of %d cases over the limit: %s" % (len(failed), len(names), ", ".join(failed)))
        return 1
    print("perf gate: %d cases within +%.1f %% of the baseline" % (len(names), a.limit))
    return 0


def toolchain():
    def first(cmd):
        try:
            return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True).stdout.splitlines()[0].strip()
        except (OSError, IndexError):
            return "?"
    return {"valgrind": first(["valgrind", "--version"]), "cc": first(["cc", "--version"]),
            "libc": first(["ldd", "--version"])}


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        raise SystemExit("perf gate: " + str(e))
