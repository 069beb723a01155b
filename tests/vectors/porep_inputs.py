#!/usr/bin/env python3
"""Independent reference for the public inputs of Filecoin's StackedDRG PoRep
circuit (rust-fil-proofs StackedCompound::generate_public_inputs), written from
the specification in Python 3 with the standard library only, so that cuzk's C
implementation (graph, challenges, replica_id, inputs) is tested against code
that shares nothing with it.

Everything is re-derived here from the rust-fil-proofs sources (@87348a7):
  - porep_id (filecoin-proofs-api registry.rs): id u64 LE || nonce u64 LE || 0^16
  - replica_id (stacked/vanilla/params.rs): sha256(prover_id || sector_id u64 BE
    || ticket || comm_d || porep_id), byte [31] &= 0x3f
  - DRG parents (storage-proofs-core drgraph.rs BucketGraph): per node a ChaCha8
    stream (rand_chacha 0.3 ChaCha8Rng, seed = sha256("Filecoin_DRSample" ||
    porep_id)[..28] || node u32 LE), `gen::<u64>() % n` (no gen_range)
  - expander parents (stacked/vanilla/graph.rs + crypto/feistel.rs): 3-round
    Feistel over 8*nodes with keys = sha256("Filecoin_Feistel" || porep_id) as
    u64 LE words, round function blake2b-512(right u64 BE || key u64 BE)[..8] BE
  - challenges (stacked/vanilla/challenges.rs): interactive, synthetic
    (ChaCha20 + keyed BLAKE2b-256), non-interactive
  - inputs: [replica_id, comm_d, comm_r] then per challenge c, 6 DRG parents,
    8 expander parents, c, c, c (each PoR input is the leaf index as an Fr).

Fr values are printed as 64 hex digits, big-endian (the integer value);
--decimal prints decimal integers instead.

Usage:
  porep_inputs.py --record ../shared/data/external/polka-2kib-porep.json
  porep_inputs.py --summary DIR/summary.json      (every partition)
  porep_inputs.py --selfcheck [--selfcheck-8m]    (published digests / KATs)
  porep_inputs.py --write tests/vectors/porep_inputs.txt
"""
import argparse
import hashlib
import json
import math
import struct
import sys

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
FR_MODULUS = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
SIZES = [2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB]
API_10, API_11, API_12 = "1.0", "1.1", "1.2"


# ---------------------------------------------------------------- ChaCha core
def _rotl(x, n):
    return ((x << n) & M32) | (x >> (32 - n))


def chacha_block(key, w12, w13, w14, w15, rounds):
    """One ChaCha block (64 bytes): constants, 8 key words, then words 12..15
    (counter / nonce words, their meaning depends on the variant)."""
    s = list(struct.unpack("<4I", b"expand 32-byte k")) + list(struct.unpack("<8I", key))
    s += [w12, w13, w14, w15]
    x = s[:]

    def qr(a, b, c, d):
        x[a] = (x[a] + x[b]) & M32
        x[d] = _rotl(x[d] ^ x[a], 16)
        x[c] = (x[c] + x[d]) & M32
        x[b] = _rotl(x[b] ^ x[c], 12)
        x[a] = (x[a] + x[b]) & M32
        x[d] = _rotl(x[d] ^ x[a], 8)
        x[c] = (x[c] + x[d]) & M32
        x[b] = _rotl(x[b] ^ x[c], 7)

    for _ in range(rounds // 2):
        qr(0, 4, 8, 12)
        qr(1, 5, 9, 13)
        qr(2, 6, 10, 14)
        qr(3, 7, 11, 15)
        qr(0, 5, 10, 15)
        qr(1, 6, 11, 12)
        qr(2, 7, 8, 13)
        qr(3, 4, 9, 14)
    return struct.pack("<16I", *[(x[i] + s[i]) & M32 for i in range(16)])


class ChaCha8Rng:
    """rand_chacha 0.3 ChaCha8Rng::from_seed: 64-bit block counter in words
    12-13 from 0, stream id 0 in words 14-15; u32 words in keystream order.
    next_u64 from an even word index (always the case here: only u64 are
    drawn) is word[i] | word[i+1] << 32, i.e. the next 8 keystream bytes LE."""

    def __init__(self, seed):
        assert len(seed) == 32
        self.key = seed
        self.counter = 0
        self.buf = b""

    def next_u64(self):
        if len(self.buf) < 8:
            c = self.counter
            self.buf += chacha_block(self.key, c & M32, c >> 32, 0, 0, 8)
            self.counter += 1
        v = struct.unpack_from("<Q", self.buf)[0]
        self.buf = self.buf[8:]
        return v


def chacha20_ietf_keystream(key, nonce12, offset, length):
    """RustCrypto chacha20::ChaCha20 (RFC 8439: 32-bit counter in word 12,
    96-bit nonce) keystream bytes [offset, offset + length)."""
    n = struct.unpack("<3I", nonce12)
    out = b""
    blk = offset // 64
    while len(out) < (offset % 64) + length:
        out += chacha_block(key, blk & M32, n[0], n[1], n[2], 20)
        blk += 1
    start = offset % 64
    return out[start:start + length]


# ---------------------------------------------------------------- ids
def porep_id_for(registered_proof, nonce=0):
    return struct.pack("<QQ", registered_proof, nonce) + bytes(16)


def proof_info(registered_proof):
    """(sector_size, api, mode) of a RegisteredSealProof id 0..19."""
    if not 0 <= registered_proof < 20:
        raise ValueError("registered seal proof %d out of range 0..19" % registered_proof)
    family, s = divmod(registered_proof, 5)
    api = [API_10, API_11, API_12, API_12][family]
    mode = ["interactive", "interactive", "synthetic", "ni"][family]
    return SIZES[s], api, mode


def partition_shape(sector_size, mode):
    """(partitions, challenges per partition): filecoin-proofs constants.rs,
    parameters.rs select_challenges (ceil(min challenges / partitions))."""
    large = sector_size >= 32 * GIB
    if mode == "ni":
        parts, total = (126, 2253) if large else (13, 26)
    else:
        parts, total = (10, 176) if large else (1, 2)
    return parts, -(-total // parts)


def replica_id_of(prover_id, sector_id, ticket, comm_d, porep_id):
    h = bytearray(
        hashlib.sha256(prover_id + struct.pack(">Q", sector_id) + ticket + comm_d + porep_id).digest())
    h[31] &= 0x3F
    return bytes(h)


# ---------------------------------------------------------------- graph
def drg_seed(porep_id):
    return hashlib.sha256(b"Filecoin_DRSample" + porep_id).digest()[:28]


def feistel_keys(porep_id):
    return struct.unpack("<4Q", hashlib.sha256(b"Filecoin_Feistel" + porep_id).digest())


def ceil_log2_f64(x):
    """Rust `(x as f64).log2().ceil() as u64`; exact integer form, checked
    against the float form (they agree for x < 2^54 at these sizes)."""
    exact = (x - 1).bit_length()
    assert math.ceil(math.log2(float(x))) == exact
    return exact


def drg_parents(seed28, api, node):
    """BucketGraph::parents, degree 6 (m' = 5)."""
    m, mp = 6, 5
    if node < 2:
        return [0] * m
    rng = ChaCha8Rng(seed28 + struct.pack("<I", node))
    meta = node * mp
    n_buckets = ceil_log2_f64(meta)
    others = []
    for _ in range(mp):
        bucket_index = (rng.next_u64() % n_buckets) + 1
        largest = min(meta, 1 << bucket_index)
        smallest = max(2, largest >> 1)
        n_dist = largest - smallest + 1
        distance = smallest + (rng.next_u64() % n_dist)
        parent = (meta - distance) // mp
        others.append(node - 1 if parent == node else parent)
    if api == API_10:
        return others + [node - 1]  # V1_0_0: predecessor last
    return [node - 1] + others  # V1_1_0 / V1_2_0: predecessor first


def feistel_precompute(num_elements):
    next_pow4, log4 = 4, 1
    while next_pow4 < num_elements:
        next_pow4 *= 4
        log4 += 1
    return ((1 << log4) - 1) << log4, (1 << log4) - 1, log4


def _feistel_round(right, key, right_mask):
    h = hashlib.blake2b(struct.pack(">QQ", right, key)).digest()  # 64-byte output
    return struct.unpack(">Q", h[:8])[0] & right_mask


def feistel_encode(index, keys, pre):
    left_mask, right_mask, half = pre
    left, right = (index & left_mask) >> half, index & right_mask
    for key in keys[:3]:
        left, right = right, left ^ _feistel_round(right, key, right_mask)
    return (left << half) | right


def feistel_permute(num_elements, index, keys, pre):
    u = feistel_encode(index, keys, pre)
    while u >= num_elements:
        u = feistel_encode(u, keys, pre)
    return u


class Graph:
    def __init__(self, nodes, porep_id, api):
        self.nodes, self.api = nodes, api
        self.seed = drg_seed(porep_id)
        self.keys = feistel_keys(porep_id)
        self.pre = feistel_precompute(8 * nodes)

    def drg(self, node):
        return drg_parents(self.seed, self.api, node)

    def exp(self, node):
        out = []
        for i in range(8):
            t = feistel_permute(8 * self.nodes, 8 * node + i, self.keys, self.pre)
            # V1_0_0 casts to u32 *before* dividing (matters from 32 GiB on)
            out.append(((t & M32) // 8) if self.api == API_10 else t // 8)
        return out

    def parents(self, node):
        return self.drg(node) + self.exp(node)


# ---------------------------------------------------------------- challenges
def _to_challenge(le_bytes, nodes):
    return int.from_bytes(le_bytes, "little") % (nodes - 1) + 1


def interactive_challenges(nodes, replica_id, seed, cpp, k):
    return [_to_challenge(hashlib.sha256(replica_id + seed + struct.pack("<I", cpp * k + i)).digest(), nodes)
            for i in range(cpp)]


def ni_challenges(nodes, replica_id, comm_r, cpp, k):
    tag = b"filecoin.io|PoRep|1|NonInteractive|1"
    return [_to_challenge(hashlib.sha256(tag + replica_id + comm_r + struct.pack("<I", cpp * k + i)).digest(),
                          nodes) for i in range(cpp)]


SYNTH_NONCE = b"synth-porep\x00"


def _synth_key(tag, a, b):
    return hashlib.blake2b(a + b, digest_size=32, key=tag).digest()


def synth_challenge(nodes, replica_id, comm_r, i):
    key = _synth_key(b"filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r)
    return _to_challenge(chacha20_ietf_keystream(key, SYNTH_NONCE, 32 * i, 32), nodes)


def synthetic_challenges(nodes, replica_id, comm_r, seed, cpp, k, num_synth=None):
    if num_synth is None:
        num_synth = min(nodes, 1 << 18)
    key = _synth_key(b"filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed)
    ks = chacha20_ietf_keystream(key, SYNTH_NONCE, 4 * k * cpp, 4 * cpp)
    idx = [struct.unpack_from("<I", ks, 4 * i)[0] % num_synth for i in range(cpp)]
    return [synth_challenge(nodes, replica_id, comm_r, j) for j in idx]


def challenges_for(mode, nodes, replica_id, comm_r, seed, cpp, k):
    if mode == "interactive":
        return interactive_challenges(nodes, replica_id, seed, cpp, k)
    if mode == "synthetic":
        return synthetic_challenges(nodes, replica_id, comm_r, seed, cpp, k)
    if mode == "ni":
        return ni_challenges(nodes, replica_id, comm_r, cpp, k)
    raise ValueError("unknown mode " + mode)


# ---------------------------------------------------------------- inputs
def fr_of_bytes(b):
    v = int.from_bytes(b, "little")
    if v >= FR_MODULUS:
        raise ValueError("32-byte value %s is not a canonical Fr" % b.hex())
    return v


def public_inputs(graph, replica_id, comm_d, comm_r, challenges):
    """StackedCompound::generate_public_inputs for one partition (no ONE)."""
    ins = [fr_of_bytes(replica_id), fr_of_bytes(comm_d), fr_of_bytes(comm_r)]
    for c in challenges:
        ins.append(c)  # comm_d PoR
        ins.extend(graph.drg(c))  # DRG parents in comm_c
        ins.extend(graph.exp(c))  # expander parents in comm_c
        ins += [c, c, c]  # UInt64 challenge, comm_r_last PoR, comm_c PoR
    return ins


class Case:
    """Everything one partition's inputs depend on."""

    def __init__(self, name, sector_size, api, mode, porep_id, prover_id, sector_id, ticket, seed, comm_d,
                 comm_r, registered_proof=None):
        self.name, self.sector_size, self.api, self.mode = name, sector_size, api, mode
        self.porep_id, self.prover_id, self.sector_id = porep_id, prover_id, sector_id
        self.ticket, self.seed, self.comm_d, self.comm_r = ticket, seed, comm_d, comm_r
        self.registered_proof = registered_proof
        self.nodes = sector_size // 32
        self.partitions, self.cpp = partition_shape(sector_size, mode)
        self.replica_id = replica_id_of(prover_id, sector_id, ticket, comm_d, porep_id)
        self.graph = Graph(self.nodes, porep_id, api)

    def challenges(self, k):
        return challenges_for(self.mode, self.nodes, self.replica_id, self.comm_r, self.seed, self.cpp, k)

    def inputs(self, k):
        return public_inputs(self.graph, self.replica_id, self.comm_d, self.comm_r, self.challenges(k))


def fmt_fr(v, decimal=False):
    return str(v) if decimal else "%064x" % v


# ---------------------------------------------------------------- self checks
def parent_cache_digest(nodes, porep_id, api, progress=False):
    g = Graph(nodes, porep_id, api)
    h = hashlib.sha256()
    for node in range(nodes):
        h.update(struct.pack("<14I", *g.parents(node)))
        if progress and node % 32768 == 0:
            print("  ... node %d / %d" % (node, nodes), file=sys.stderr)
    return h.hexdigest()


def parent_cache_name(nodes, porep_id):
    """cache.rs cache_path: sha256(H::name || graph.identifier() || feistel keys
    u64 LE || cache_entries u32 LE); H = PoseidonHasher."""
    ident = ("stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
             "drgraph::BucketGraph{size: %d; degree: 6; hasher: poseidon_hasher} }" % nodes)
    h = hashlib.sha256(b"poseidon_hasher" + ident.encode())
    for k in feistel_keys(porep_id):
        h.update(struct.pack("<Q", k))
    h.update(struct.pack("<I", nodes))
    return "v28-sdr-parent-" + h.hexdigest()


# storage-proofs-porep/parent_cache.json (rust-fil-proofs @87348a7)
PUBLISHED_CACHE = {
    "v28-sdr-parent-3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899":
        "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
    "v28-sdr-parent-494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b":
        "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97",
    "v28-sdr-parent-5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5":
        "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
    "v28-sdr-parent-dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc":
        "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce",
}


def last_label(nodes, layers, replica_id, porep_id, api):
    """Labels of storage-proofs-porep create_label/single.rs; returns the
    last node's label of the last layer (LE bytes)."""
    g = Graph(nodes, porep_id, api)
    par = [g.parents(n) for n in range(nodes)]
    prev = None
    for layer in range(1, layers + 1):
        cur = [None] * nodes
        for n in range(nodes):
            pre = replica_id + struct.pack(">IQ", layer, n) + bytes(20)
            if n == 0:
                d = hashlib.sha256(pre).digest()
            else:
                base = [cur[p] for p in par[n][:6]]
                if layer == 1:
                    blob = b"".join(base) * 6 + base[0]
                else:
                    allp = base + [prev[p] for p in par[n][6:]]
                    blob = b"".join(allp) * 2 + b"".join(allp[:9])
                d = hashlib.sha256(pre + blob).digest()
            d = bytearray(d)
            d[31] &= 0x3F
            cur[n] = bytes(d)
        prev = cur
    return prev[nodes - 1]


def selfcheck(with_8m=False):
    ok = True

    def check(what, got, want):
        nonlocal ok
        good = got == want
        ok &= good
        print("%s %s%s" % ("ok  " if good else "FAIL", what, "" if good else " got %s want %s" % (got, want)))

    # RFC 8439 2.3.2 ChaCha20 block function test vector
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a00000000")
    n = struct.unpack("<3I", nonce)
    blk = chacha_block(key, 1, n[0], n[1], n[2], 20)
    check("chacha20 RFC 8439 2.3.2 block", blk[:16].hex(), "10f1e7e4d13b5915500fdd1fa32071c4")
    # challenges.rs test_synth_challenges_against_hardcoded
    rid, cr = (55).to_bytes(32, "little"), (101).to_bytes(32, "little")
    synth = [synth_challenge(1 << 10, rid, cr, i) for i in range(21)]
    check("synthetic challenges KAT (challenges.rs)", synth,
          [178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692, 429, 691, 290, 204, 986, 210, 973])
    porep = synthetic_challenges(1 << 10, rid, cr, bytes([1] * 32), 10, 0, num_synth=21)
    check("synthetic porep challenges KAT (challenges.rs)", porep, [176, 781, 801, 986, 290, 211, 692, 856, 986, 332])
    # parent cache digests: 2 KiB for V1 (id 0, api 1.0) and V1_1 (id 5, api 1.1)
    sizes = [(2 * KIB, 0, API_10), (2 * KIB, 5, API_11)]
    if with_8m:
        sizes += [(8 * MIB, 1, API_10), (8 * MIB, 6, API_11)]
    for size, rp, api in sizes:
        nodes, pid = size // 32, porep_id_for(rp)
        name = parent_cache_name(nodes, pid)
        want = PUBLISHED_CACHE.get(name)
        check("parent cache file name %s (%d nodes, proof %d) is published" % (name, nodes, rp), want is not None,
              True)
        if want:
            check("parent cache sha256 (%d nodes, proof %d, api %s)" % (nodes, rp, api),
                  parent_cache_digest(nodes, pid, api, progress=size > 2 * KIB), want)
    # stacked_vanilla.rs test_stacked_porep_generate_labels (2 KiB, 11 layers)
    for pid, api, limbs in [(bytes(32), API_10, [0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3,
                                                   0x0462f4f4f1a68d37]),
                            (bytes([123] * 32), API_11, [0xabb3f38bb70defcf, 0x777a2e4d7769119f,
                                                          0x3448959d495490bc, 0x06021188c7a71cb5])]:
        check("last label KAT (stacked_vanilla.rs, api %s)" % api, last_label(64, 11, bytes([9] * 32), pid, api).hex(),
              struct.pack("<4Q", *limbs).hex())
    return ok


# ---------------------------------------------------------------- vector file
def _h(s):
    return bytes.fromhex(s)


def vector_cases():
    """The cases of porep_inputs.txt: (case, partition)."""
    rec = load_record("../shared/data/external/polka-2kib-porep.json", required=False)
    cases = []
    if rec is not None:
        cases.append((rec, 0))
    else:
        # the record's fields, so the file does not depend on ../shared
        cases.append((Case("polka-2kib", 2 * KIB, API_12, "interactive", bytes(32), bytes(32), 77,
                           bytes([12] * 32), bytes([13] * 32),
                           _h("129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421"),
                           _h("4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950")), 0))
    prover = bytes([0xE8, 0x07]) + bytes(30)  # miner 1000 as LEB128, zero padded
    ticket = bytes((3 * i + 1) & 0xFF for i in range(32))
    seed = bytes((7 * i + 5) & 0xFF for i in range(32))
    comm_d = bytes((11 * i + 2) & 0xFF for i in range(31)) + b"\x0c"
    comm_r = bytes((13 * i + 9) & 0xFF for i in range(31)) + b"\x2a"
    for rp in (0, 5, 10, 15):
        size, api, mode = proof_info(rp)
        cases.append((Case("2kib-proof%d-%s" % (rp, mode), size, api, mode, porep_id_for(rp), prover, 4242 + rp,
                           ticket, seed, comm_d, comm_r, rp), 0))
    nic = cases[-1][0]
    cases.append((Case(nic.name + "-p12", nic.sector_size, nic.api, nic.mode, nic.porep_id, nic.prover_id,
                       nic.sector_id, nic.ticket, nic.seed, nic.comm_d, nic.comm_r, nic.registered_proof),
                  12))  # the last NI partition at 2 KiB
    size, api, mode = proof_info(6)
    cases.append((Case("8mib-proof6-interactive", size, api, mode, porep_id_for(6), prover, 123456, ticket, seed,
                       comm_d, comm_r, 6), 0))
    size, api, mode = proof_info(8)
    cases.append((Case("32gib-proof8-interactive", size, api, mode, porep_id_for(8), prover, 987654321, ticket, seed,
                       comm_d, comm_r, 8), 3))
    return cases


GRAPH_NODES = {
    2 * KIB // 32: [0, 1, 2, 3, 7, 31, 32, 62, 63],
    8 * MIB // 32: [0, 1, 2, 5, 1000, 65535, 65536, 131071, 200003, 262143],
    32 * GIB // 32: [0, 1, 2, 3, 12345, 1 << 20, (1 << 29) + 17, 999999937, (1 << 30) - 2, (1 << 30) - 1],
}


def write_vectors(path):
    out = []
    w = out.append
    w("# porep_inputs.txt: StackedDRG PoRep public inputs and parent lists.  GENERATED - do not edit.")
    w("# Made by tests/vectors/porep_inputs.py (independent Python reference, stdlib only).")
    w("# Regenerate: python3 tests/vectors/porep_inputs.py --write tests/vectors/porep_inputs.txt")
    w("# One record per line, 'op token...', at most 16 tokens.  Byte strings are hex in byte order")
    w("# (as hashed / as stored); Fr values are 32-byte BIG-endian hex integers (like ff.txt).")
    w("#   case NAME REGISTERED_PROOF API MODE SECTOR_SIZE PARTITION NINPUTS")
    w("#     REGISTERED_PROOF: id 0..19, or - when porep_id is not a registry one; API 1.0|1.1|1.2;")
    w("#     MODE interactive|synthetic|ni; PARTITION k; NINPUTS without ONE = 3 + 18 * challenges")
    w("#   prover_id HEX32 | sector_id DEC | ticket HEX32 | seed HEX32 | comm_d HEX32 | comm_r HEX32")
    w("#   porep_id HEX32 | replica_id HEX32        (replica_id derived: the raw 32 bytes, [31] & 0x3f)")
    w("#   challenge I NODE                         (I-th challenge of the partition)")
    w("#   input I FR                               (I-th public input, 0-based, ONE excluded)")
    w("#   end NAME")
    w("#   graph NAME API NODES POREP_ID_HEX32      (a parent graph; the parents lines below use it)")
    w("#   parents NODE D0 .. D5 E0 .. E7           (6 DRG + 8 expander parents, unsorted, as generated)")
    for case, k in vector_cases():
        ch = case.challenges(k)
        ins = public_inputs(case.graph, case.replica_id, case.comm_d, case.comm_r, ch)
        rp = "-" if case.registered_proof is None else str(case.registered_proof)
        w("case %s %s %s %s %d %d %d" % (case.name, rp, case.api, case.mode, case.sector_size, k, len(ins)))
        w("prover_id " + case.prover_id.hex())
        w("sector_id %d" % case.sector_id)
        for label in ("ticket", "seed", "comm_d", "comm_r", "porep_id", "replica_id"):
            w("%s %s" % (label, getattr(case, label).hex()))
        for i, c in enumerate(ch):
            w("challenge %d %d" % (i, c))
        for i, v in enumerate(ins):
            w("input %d %s" % (i, fmt_fr(v)))
        w("end " + case.name)
    for size in (2 * KIB, 8 * MIB, 32 * GIB):
        nodes = size // 32
        for rp in (5, 8):
            pid = porep_id_for(rp)
            _, api, _ = proof_info(rp)
            g = Graph(nodes, pid, api)
            w("graph %dnodes-proof%d %s %d %s" % (nodes, rp, api, nodes, pid.hex()))
            for n in GRAPH_NODES[nodes]:
                w("parents %d %s" % (n, " ".join(str(p) for p in g.parents(n))))
        # one V1_0 graph each at 2 KiB (predecessor last) and 32 GiB (expander
        # parent = u32(permuted) / 8: the cast truncates above 2^32)
        v10 = {2 * KIB: 0, 32 * GIB: 3}.get(size)
        if v10 is not None:
            g = Graph(nodes, porep_id_for(v10), API_10)
            w("graph %dnodes-proof%d %s %d %s" % (nodes, v10, API_10, nodes, porep_id_for(v10).hex()))
            for n in GRAPH_NODES[nodes]:
                w("parents %d %s" % (n, " ".join(str(p) for p in g.parents(n))))
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- CLI
def load_record(path, required=True):
    try:
        with open(path) as f:
            d = json.load(f)
    except OSError:
        if required:
            raise
        return None
    label = d.get("registered_proof", "")
    size = 2 * KIB
    for tag, s in (("2KiB", 2 * KIB), ("8MiB", 8 * MIB), ("512MiB", 512 * MIB), ("32GiB", 32 * GIB),
                   ("64GiB", 64 * GIB)):
        if tag in label:
            size = s
    api = {"V1_0_0": API_10, "V1_1_0": API_11, "V1_2_0": API_12}[d.get("api_version", "V1_1_0")]
    return Case("polka-2kib", size, api, "interactive", _h(d["porep_id_hex"]), _h(d["prover_id_hex"]),
                int(d["sector_number"]), _h(d["ticket_hex"]), _h(d["seed_hex"]), _h(d["comm_d_hex"]),
                _h(d["comm_r_hex"]))


def load_summary(path):
    with open(path) as f:
        d = json.load(f)
    rp = int(d["registered_proof"])
    size, api, mode = proof_info(rp)
    if "sector_size" in d and int(d["sector_size"]) != size:
        raise ValueError("sector_size %s does not match registered proof %d (%d)" % (d["sector_size"], rp, size))
    api = {"1.0": API_10, "1.1": API_11, "1.2": API_12, "V1_0_0": API_10, "V1_1_0": API_11,
           "V1_2_0": API_12}[d.get("api_version", api)]
    pid = _h(d["porep_id"]) if "porep_id" in d else porep_id_for(rp)
    case = Case("summary", size, api, mode, pid, _h(d["prover_id"]), int(d["sector_id"]), _h(d["ticket"]),
                _h(d["seed"]), _h(d["comm_d"]), _h(d["comm_r"]), rp)
    if "replica_id" in d and _h(d["replica_id"]) != case.replica_id:
        raise ValueError("replica_id in the summary %s differs from the derived %s" %
                         (d["replica_id"], case.replica_id.hex()))
    return case


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--record", help="a polka-style proof record (JSON)")
    ap.add_argument("--summary", help="summary.json of the C generator: inputs of every partition")
    ap.add_argument("--partition", type=int, help="only this partition")
    ap.add_argument("--decimal", action="store_true", help="print Fr values in decimal")
    ap.add_argument("--write", help="write the vector file to this path")
    ap.add_argument("--selfcheck", action="store_true", help="check published digests and KATs")
    ap.add_argument("--selfcheck-8m", action="store_true", help="also the 8 MiB parent caches (about a minute)")
    a = ap.parse_args()
    if a.selfcheck or a.selfcheck_8m:
        return 0 if selfcheck(a.selfcheck_8m) else 1
    if a.write:
        write_vectors(a.write)
        return 0
    if a.record or a.summary:
        try:
            case = load_record(a.record) if a.record else load_summary(a.summary)
        except (OSError, ValueError, KeyError) as e:
            print("error: %s" % e, file=sys.stderr)
            return 1
        parts = [a.partition] if a.partition is not None else range(case.partitions)
        print("# replica_id %s (bytes); %d partition(s) x %d challenges; Fr values %s" %
              (case.replica_id.hex(), case.partitions, case.cpp, "decimal" if a.decimal else "big-endian hex"))
        for k in parts:
            print("# partition %d challenges %s" % (k, " ".join(map(str, case.challenges(k)))))
            for v in case.inputs(k):
                print(fmt_fr(v, a.decimal))
        return 0
    ap.print_help()
    return 1


if __name__ == "__main__":
    sys.exit(main())
