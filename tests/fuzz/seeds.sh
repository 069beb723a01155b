#!/usr/bin/env bash
# Seed inputs for the fuzz harnesses, made fresh from real files: the
# outputs of cuzk-bench (setup/prove on a chain circuit, gen-vanilla post /
# porep / snap at 2 KiB, pce extract of chain circuits), the committed
# circom vectors and daemon config, HTTP requests, small parameters.json
# texts, and ../shared/data when present (the golden 32 GiB WindowPoSt
# proof, parameters.json).
#
#   tests/fuzz/seeds.sh BIN_DIR OUT_DIR      -> OUT_DIR/NAME/* per harness
#
# run.sh adds them to each harness's working corpus; the minimized corpora
# committed under tests/fuzz/corpus/ were made from them (long.sh --merge).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BIN=$1 OUT=$2
B="$BIN/cuzk-bench"
mkdir -p "$OUT"/{params,vk,proof,vanilla,post,snap,c1,circom,config,http,pce,paramsjson}
# http: requests as a client sends them (fuzz_http.c)
printf 'GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nUser-Agent: Prometheus/2.45.0\r\nAccept: text/plain;version=0.0.4\r\n\r\n' >"$OUT/http/metrics"
printf 'GET /status?x=1 HTTP/1.1\r\nHost: localhost\r\n\r\n' >"$OUT/http/status-query"
printf 'GET /config HTTP/1.0\r\n\r\n' >"$OUT/http/config"
printf 'GET /status HTTP/1.1\r\nhost: [::1]:9821\r\nOrigin: https://grafana.example\r\n\r\n' >"$OUT/http/origin"
printf 'GET /metrics HTTP/1.1\r\nHost: prover1.example.:9821\r\nHost: evil.example\r\n\r\n' >"$OUT/http/two-hosts"
printf 'POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}' >"$OUT/http/post"
printf '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 GET\0/ \r\n' >"$OUT/http/garbage" # a TLS hello's start
{ printf 'GET /'; head -c 4995 /dev/zero | tr '\0' a; printf ' HTTP/1.1\r\n'; } >"$OUT/http/long-line"
# paramsjson: byte 0 = name length, the name, the JSON (fuzz_paramsjson.c)
pj() { printf "\\x$(printf %02x ${#1})%s" "$1"; cat; }
printf '{"a.params": {"cid": "Qm1", "digest": "0123", "sector_size": 2048},\n "b.vk": {"cid": "Qm2", "digest": "abcd", "sector_size": 68719476736}}' |
  pj b.vk >"$OUT/paramsjson/small"
printf '{"a.params":{"sector_size":007,"digest":"","cid":"x"}}' | pj a.params >"$OUT/paramsjson/order"
printf '{"a.params": {"cid": "Qm1", "digest": 5}}' | pj a.params >"$OUT/paramsjson/bad-digest"
# pce: a small circuit with every coefficient class, made by the harness itself
F=${FUZZ_PCE:-$(dirname "$OUT")/fuzz_pce}
[ -x "$F" ] && FUZZ_PCE_SEED_OUT="$OUT/pce/mixed" "$F" >/dev/null 2>&1
# circom: u16 LE length of the .r1cs, the .r1cs, the .wtns (fuzz_circom.c)
for c in chain4 mix; do
  r="$ROOT/tests/vectors/circom/$c.r1cs"
  n=$(stat -c %s "$r")
  { printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $((n >> 8)))"; cat "$r" "${r%.r1cs}.wtns"; } >"$OUT/circom/$c"
done
cp "$ROOT/tests/daemon/rust-cuzk.toml" "$OUT/config/rust-cuzk.toml"
[ -x "$BIN/cuzk-daemon" ] && "$BIN/cuzk-daemon" --print-config >"$OUT/config/print-config.toml" 2>/dev/null
SH=${CUZK_SHARED:-$ROOT/../shared}
if [ -f "$SH/data/filecoin/parameters.json" ]; then # the file the daemon checks downloads against
  pj v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk \
    <"$SH/data/filecoin/parameters.json" >"$OUT/paramsjson/parameters.json"
  pj nope.params <"$SH/data/filecoin/parameters.json" >"$OUT/paramsjson/parameters.json-absent"
fi
[ -f "$SH/data/filecoin/window-post-32g-golden.vproof" ] && cp "$SH/data/filecoin/window-post-32g-golden.vproof" "$OUT/vanilla/golden-32g"
# proof: real 192-byte Groth16 proofs of rust-fil-proofs (first records of
# each sector size) with a 32-byte zero input: real points, a wrong statement
if [ -f "$SH/data/filecoin/seal_regression_records-v16.json" ] && command -v python3 >/dev/null; then
  python3 - "$SH/data/filecoin/seal_regression_records-v16.json" "$OUT/proof" <<'PY'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    r = json.loads(line)
    size = r["porep_config"]["sector_size"]
    if size in seen or len(r["proof"]) % 192:
        continue
    seen.add(size)
    open("%s/filecoin-%d" % (sys.argv[2], size), "wb").write(bytes(r["proof"][:192]) + bytes(32))
PY
fi
[ -x "$B" ] || { echo "fuzz seeds: no $B: only the committed corpora and file seeds"; exit 0; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
q() { "$@" >/dev/null 2>&1; }
# params / vk / proof: a chain-3 setup and one proof with its inputs
if q "$B" setup --circuit chain --size 3 --out "$T"; then
  cp "$T/chain-3.params" "$OUT/params/chain-3"
  cp "$T/chain-3.vk" "$OUT/vk/chain-3"
  q "$B" prove --params "$T/chain-3.params" --circuit chain --size 3 --out "$T/p" --inputs-out "$T/i" &&
    cat "$T/p" "$T/i" >"$OUT/proof/chain-3" # well-formed points, another vk
fi
# pce: chain circuits' files (mode byte 0: as written; 1: the harness
# re-signs the checksums, so a mutation reaches the structural checks)
for n in 3 64 1100; do
  if q "$B" pce extract --circuit-id chain-$n --out "$T/chain-$n.pce"; then
    { printf '\x00'; cat "$T/chain-$n.pce"; } >"$OUT/pce/chain-$n"
    { printf '\x01'; cat "$T/chain-$n.pce"; } >"$OUT/pce/chain-$n-resign"
  fi
done
# PoSt: 2 KiB Winning (36,816 bytes) and Window (5,680 bytes) vanilla proofs
zero=$(printf '0%.0s' {1..64})
if q "$B" gen-vanilla post --sector-size 2KiB --sector 1 --randomness "$zero" --out "$T/post"; then
  cp "$T/post/window-post.vproof" "$OUT/vanilla/window-2k"
  cp "$T/post/winning-post.vproof" "$OUT/vanilla/winning-2k"
  # fuzz_post framing: byte 0 = type index (0 Winning V1, 1 Window V1,
  # 2 Window V1_2) + 3 * (buffers - 1) + 32 * partition, then the buffers
  { printf '\x00'; cat "$T/post/winning-post.vproof"; } >"$OUT/post/winning-2k"
  { printf '\x02'; cat "$T/post/window-post.vproof"; } >"$OUT/post/window-2k"
  { printf '\x05'; cat "$T/post/window-post.vproof" "$T/post/window-post.vproof"; } >"$OUT/post/window-2k-x2"
fi
# PoRep C1 (bare and in Curio's envelope) and a SnapDeals update of it
if q "$B" gen-vanilla porep --sector-size 2KiB --out "$T/porep"; then
  cp "$T/porep/c1.json" "$OUT/c1/c1-2k.json"
  cp "$T/porep/c1-envelope.json" "$OUT/c1/c1-envelope-2k.json"
  if q "$B" gen-vanilla snap --sector-size 2KiB --sealed "$T/porep" --out "$T/snap" --threads 1; then
    cp "$T/snap/partition-0.bin" "$OUT/snap/partition-2k"
    head -c 4000 "$T/snap/partition-0.bin" >"$OUT/snap/partition-2k-cut"
    cp "$T/snap/vanilla-proofs.json" "$OUT/snap/vanilla-proofs-2k.json"
  fi
fi
exit 0
