// Known-answer vectors for the BLS12-381 math core, computed with the
// independent reference @noble/curves (exact version pinned in
// tests/package.json / package-lock.json).
//
//   npm ci --prefix tests && node tests/vectors/gen.mjs tests/vectors
//
// Deterministic: all randomness comes from the splitmix64 stream below with a
// fixed seed, so re-running reproduces the committed files byte for byte
// (scripts/npm-checks.sh diffs them).  Output: ff.txt, ec.txt, pairing.txt,
// one vector per line, `op token token ...`, '#' starts a comment line.
// The token formats are described in each file's header.
import { writeFileSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bls12_381 as bls } from '@noble/curves/bls12-381.js';

const here = dirname(fileURLToPath(import.meta.url));
const outDir = process.argv[2] || here;
const nobleVersion = JSON.parse(
  readFileSync(join(here, '..', 'node_modules', '@noble', 'curves', 'package.json'), 'utf8')).version;

const { Fp, Fr, Fp2, Fp6, Fp12 } = bls.fields;
const G1 = bls.G1.Point, G2 = bls.G2.Point;
const P = Fp.ORDER, R = Fr.ORDER;

// ---- deterministic randomness (splitmix64) ---------------------------------
const SEED = 0x637a756b2d763031n; // "czuk-v01"
let rngState = SEED;
const M64 = (1n << 64n) - 1n;
function rand64() {
  rngState = (rngState + 0x9e3779b97f4a7c15n) & M64;
  let z = rngState;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
function randBits(n) {
  let v = 0n;
  for (let i = 0; i < n; i += 64) v = (v << 64n) | rand64();
  return v & ((1n << BigInt(n)) - 1n);
}
function randBelow(m) { // rejection sampling: uniform in [0, m)
  const n = m.toString(2).length;
  for (;;) { const v = randBits(n); if (v < m) return v; }
}
const randInt = (n) => Number(randBelow(BigInt(n)));

// Edge values mixed into random inputs: carries, the halfway point of the
// sign rule, the top of the range.
const fpEdges = [0n, 1n, 2n, P - 1n, P - 2n, (P - 1n) / 2n, (P + 1n) / 2n, (1n << 64n) - 1n,
  1n << 64n, (1n << 380n) - 1n, 1n << 380n, P - (1n << 64n)];
const frEdges = [0n, 1n, 2n, R - 1n, R - 2n, (R - 1n) / 2n, (R + 1n) / 2n, (1n << 64n) - 1n,
  1n << 64n, (1n << 254n) - 1n, R - (1n << 64n)];
const randFp = () => (randInt(6) === 0 ? fpEdges[randInt(fpEdges.length)] : randBelow(P));
const randFr = () => (randInt(6) === 0 ? frEdges[randInt(frEdges.length)] : randBelow(R));
const randFp2 = () => ({ c0: randFp(), c1: randFp() });
const randFp6 = () => ({ c0: randFp2(), c1: randFp2(), c2: randFp2() });
const randFp12 = () => ({ c0: randFp6(), c1: randFp6() });
const randScalar = () => 1n + randBelow(R - 1n); // [1, r)

// ---- text encodings ----------------------------------------------------------
const hexBE = (x, n) => {
  const h = x.toString(16);
  if (h.length > 2 * n) throw new Error(`value does not fit in ${n} bytes`);
  return h.padStart(2 * n, '0');
};
const hexBytes = (u8) => Buffer.from(u8).toString('hex');
const fp = (x) => hexBE(x, 48);
const fr = (x) => hexBE(x, 32);
const fp2 = (a) => `${fp(a.c0)} ${fp(a.c1)}`;
const fp6tok = (a) => [a.c0, a.c1, a.c2].map((e) => fp(e.c0) + fp(e.c1)).join('');
const fp12tok = (a) => fp6tok(a.c0) + fp6tok(a.c1);
// Exponents: big-endian, padded to whole 64-bit limbs.
const expTok = (e) => { const n = Math.max(1, Math.ceil(e.toString(16).length / 16)); return hexBE(e, 8 * n); };
// noble 2.x refuses to serialize the identity; its zcash encoding is the
// infinity flag (plus the compression flag) and all other bits zero.
const infEnc = (nbytes, compressed) => (compressed ? 'c0' : '40') + '00'.repeat(nbytes - 1);
const g1u = (pt) => (pt.is0() ? infEnc(96, false) : hexBytes(pt.toBytes(false)));
const g1c = (pt) => (pt.is0() ? infEnc(48, true) : hexBytes(pt.toBytes(true)));
const g2u = (pt) => (pt.is0() ? infEnc(192, false) : hexBytes(pt.toBytes(false)));
const g2c = (pt) => (pt.is0() ? infEnc(96, true) : hexBytes(pt.toBytes(true)));

const isSquareFp = (a) => a === 0n || Fp.pow(a, (P - 1n) / 2n) === 1n;
const isSquareFr = (a) => a === 0n || Fr.pow(a, (R - 1n) / 2n) === 1n;
const isSquareFp2 = (a) => isSquareFp(Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1))); // norm test
const lexLargestFp = (a) => a > (P - 1n) / 2n;
const lexLargestFp2 = (a) => (a.c1 !== 0n ? lexLargestFp(a.c1) : lexLargestFp(a.c0));

// Our own zcash encoders: used for points noble refuses to encode (not in the
// subgroup); checked against noble's encoder on valid points below.
function encG1(x, y, compressed) {
  const b = Buffer.from(compressed ? fp(x) : fp(x) + fp(y), 'hex');
  if (compressed) b[0] |= 0x80 | (lexLargestFp(y) ? 0x20 : 0);
  return b.toString('hex');
}
function encG2(x, y, compressed) {
  const b = Buffer.from(compressed ? fp(x.c1) + fp(x.c0) : fp(x.c1) + fp(x.c0) + fp(y.c1) + fp(y.c0), 'hex');
  if (compressed) b[0] |= 0x80 | (lexLargestFp2(y) ? 0x20 : 0);
  return b.toString('hex');
}
function selfCheckEncoders(p1, p2) {
  const a = p1.toAffine(), b = p2.toAffine();
  if (encG1(a.x, a.y, true) !== g1c(p1) || encG1(a.x, a.y, false) !== g1u(p1) ||
      encG2(b.x, b.y, true) !== g2c(p2) || encG2(b.x, b.y, false) !== g2u(p2))
    throw new Error('own zcash encoder disagrees with noble');
}

function header(name, lines) {
  return [`# ${name}: BLS12-381 known-answer vectors.  GENERATED - do not edit.`,
    `# Made by tests/vectors/gen.mjs with @noble/curves ${nobleVersion}, seed 0x${SEED.toString(16)}.`,
    '# Regenerate: npm ci --prefix tests && node tests/vectors/gen.mjs tests/vectors',
    '# Format: one vector per line, "op token...", tokens separated by one space.',
    ...lines.map((l) => '# ' + l)];
}

// ---- ff.txt ------------------------------------------------------------------
function genFf() {
  const out = header('ff.txt', [
    'fp_*: Fp elements are 48-byte big-endian integers < p; fr_*: Fr elements are',
    '32-byte big-endian integers < r (NB: our Fr byte encoding is little-endian; the',
    'reader reverses).  fp2 values are two tokens c0 c1 (a = c0 + c1*u).',
    'fp6 token = 6 Fp (c0.c0 c0.c1 c1.c0 c1.c1 c2.c0 c2.c1) concatenated, 288 bytes;',
    'fp12 token = fp6 c0 then fp6 c1, 576 bytes = the cuzk_fp12_to_bytes_be order.',
    'Exponents E: big-endian, a whole number of 64-bit limbs.',
    '  {fp,fr}_{add,sub,mul} a b r | {fp,fr}_{sqr,neg,inv} a r (inv 0 = 0) | {fp,fr}_pow a E r',
    '  {fp,fr}_sqrt a 1 root (either root accepted) | {fp,fr}_sqrt a 0 -   (non-residue)',
    '  {fp,fr}_noncanonical v   (v >= modulus: from_bytes must return NONCANONICAL)',
    '  fp_lex a 0|1   (a > (p-1)/2)     fp2_lex a0 a1 0|1 (zcash rule: c1, then c0 if c1 = 0)',
    '  fp2_{add,sub,mul} a0 a1 b0 b1 r0 r1 | fp2_{sqr,neg,inv,conj,mul_by_nonresidue} a0 a1 r0 r1',
    '  fp2_pow a0 a1 E r0 r1 | fp2_sqrt a0 a1 1 r0 r1 | fp2_sqrt a0 a1 0 - -',
    '  fp6_{mul} a b r | fp6_{sqr,inv,mul_by_nonresidue} a r | fp6_frobenius a k r (a^(p^k))',
    '  fp12_mul a b r | fp12_{sqr,inv,conj} a r | fp12_frobenius a k r | fp12_pow a E r',
    '  fp12_cyclotomic_sqr a r (a in the cyclotomic subgroup)',
    '  final_exp f r   (r = f^(3(p^12-1)/r): the hard part used by noble, zkcrypto and',
    '                   blst computes the cube of the textbook final exponentiation)']);
  const F = { fp: [Fp, randFp, fp, isSquareFp, P, 48], fr: [Fr, randFr, fr, isSquareFr, R, 32] };
  for (const [t, [K, rnd, enc, isSq, mod, nb]] of Object.entries(F)) {
    const N = 24;
    for (const op of ['add', 'sub', 'mul']) {
      for (let i = 0; i < N; i++) {
        const a = rnd(), b = i === 0 ? a : rnd();
        out.push(`${t}_${op} ${enc(a)} ${enc(b)} ${enc(K[op](a, b))}`);
      }
    }
    for (const op of ['sqr', 'neg', 'inv']) {
      for (let i = 0; i < N; i++) {
        const a = i === 0 ? 0n : i === 1 ? 1n : rnd();
        const r = op === 'inv' && a === 0n ? 0n : K[op](a);
        out.push(`${t}_${op} ${enc(a)} ${enc(r)}`);
      }
    }
    const exps = [0n, 1n, 2n, mod - 1n, mod - 2n, mod, (mod - 1n) / 2n, (1n << 64n) - 1n,
      1n << 64n, randBits(64), randBits(200), randBits(381), randBits(512)];
    for (const e of exps) {
      const a = rnd();
      out.push(`${t}_pow ${enc(a)} ${expTok(e)} ${enc(K.pow(a, e))}`);
    }
    out.push(`${t}_pow ${enc(0n)} ${expTok(0n)} ${enc(1n)}`); // 0^0 = 1 by convention
    let sq = 0, nsq = 0;
    out.push(`${t}_sqrt ${enc(0n)} 1 ${enc(0n)}`);
    while (sq < 16 || nsq < 16) {
      const a = rnd();
      if (isSq(a)) {
        if (sq++ >= 16) continue;
        const root = K.sqrt(a);
        if (K.sqr(root) !== a) throw new Error('noble sqrt');
        out.push(`${t}_sqrt ${enc(a)} 1 ${enc(root)}`);
      } else {
        if (nsq++ >= 16) continue;
        out.push(`${t}_sqrt ${enc(a)} 0 -`);
      }
    }
    const top = (1n << BigInt(8 * nb)) - 1n;
    for (const v of [mod, mod + 1n, mod + (1n << 64n), top - 1n, top])
      out.push(`${t}_noncanonical ${enc(v)}`);
  }
  for (const a of [0n, 1n, (P - 1n) / 2n, (P + 1n) / 2n, P - 1n, ...Array.from({ length: 8 }, randFp)])
    out.push(`fp_lex ${fp(a)} ${lexLargestFp(a) ? 1 : 0}`);
  const lexCases = [{ c0: (P + 1n) / 2n, c1: 0n }, { c0: (P - 1n) / 2n, c1: 0n }, { c0: 0n, c1: 0n },
    { c0: P - 1n, c1: 1n }, { c0: 1n, c1: P - 1n }, { c0: 0n, c1: (P + 1n) / 2n }];
  for (let i = 0; i < 8; i++) lexCases.push(randFp2());
  for (const a of lexCases) out.push(`fp2_lex ${fp2(a)} ${lexLargestFp2(a) ? 1 : 0}`);

  for (const op of ['add', 'sub', 'mul']) {
    for (let i = 0; i < 20; i++) {
      const a = randFp2(), b = i === 0 ? a : randFp2();
      out.push(`fp2_${op} ${fp2(a)} ${fp2(b)} ${fp2(Fp2[op](a, b))}`);
    }
  }
  const fp2Un = { sqr: (a) => Fp2.sqr(a), neg: (a) => Fp2.neg(a),
    inv: (a) => (Fp2.is0(a) ? Fp2.ZERO : Fp2.inv(a)), conj: (a) => Fp2.frobeniusMap(a, 1),
    mul_by_nonresidue: (a) => Fp2.mul(a, { c0: 1n, c1: 1n }) };
  for (const [op, f] of Object.entries(fp2Un)) {
    for (let i = 0; i < 16; i++) {
      const a = i === 0 ? Fp2.ZERO : i === 1 ? { c0: randFp(), c1: 0n } : i === 2 ? { c0: 0n, c1: randFp() } : randFp2();
      out.push(`fp2_${op} ${fp2(a)} ${fp2(f(a))}`);
    }
  }
  for (const e of [0n, 1n, 2n, P - 1n, P * P - 2n, randBits(128), randBits(381), randBits(760)]) {
    const a = randFp2();
    out.push(`fp2_pow ${fp2(a)} ${expTok(e)} ${fp2(Fp2.pow(a, e))}`);
  }
  // sqrt: include c1 = 0 with c0 a non-square in Fp (root is purely imaginary)
  // and c0 = 0 -- the special branches of the usual Fp2 sqrt algorithms.
  const sqrtIn = [Fp2.ZERO, Fp2.ONE, { c0: P - 1n, c1: 0n }];
  let fp2sq = 0, fp2nsq = 0;
  for (let i = 0; i < 6; i++) {
    let c; do { c = randFp(); } while (isSquareFp(c));
    sqrtIn.push({ c0: c, c1: 0n }); // non-square in Fp, square in Fp2
    sqrtIn.push({ c0: Fp.sqr(randFp()), c1: 0n });
    sqrtIn.push({ c0: 0n, c1: randFp() });
    sqrtIn.push(Fp2.sqr(randFp2()));
  }
  while (fp2nsq < 16) { const a = randFp2(); if (!isSquareFp2(a)) { sqrtIn.push(a); fp2nsq++; } }
  for (let i = 0; i < 8; i++) sqrtIn.push(randFp2());
  for (const a of sqrtIn) {
    if (isSquareFp2(a)) {
      const root = Fp2.sqrt(a);
      if (!Fp2.eql(Fp2.sqr(root), a)) throw new Error('noble fp2 sqrt');
      out.push(`fp2_sqrt ${fp2(a)} 1 ${fp2(root)}`); fp2sq++;
    } else out.push(`fp2_sqrt ${fp2(a)} 0 - -`);
  }
  if (fp2sq < 16) throw new Error('too few fp2 squares');

  for (let i = 0; i < 8; i++) { const a = randFp6(), b = randFp6(); out.push(`fp6_mul ${fp6tok(a)} ${fp6tok(b)} ${fp6tok(Fp6.mul(a, b))}`); }
  for (let i = 0; i < 6; i++) { const a = randFp6(); out.push(`fp6_sqr ${fp6tok(a)} ${fp6tok(Fp6.sqr(a))}`); }
  for (let i = 0; i < 6; i++) { const a = randFp6(); out.push(`fp6_inv ${fp6tok(a)} ${fp6tok(Fp6.inv(a))}`); }
  for (let i = 0; i < 4; i++) { const a = randFp6(); out.push(`fp6_mul_by_nonresidue ${fp6tok(a)} ${fp6tok(Fp6.mulByNonresidue(a))}`); }
  for (const k of [0, 1, 2, 3, 4, 5, 6]) { const a = randFp6(); out.push(`fp6_frobenius ${fp6tok(a)} ${k} ${fp6tok(Fp6.frobeniusMap(a, k))}`); }
  for (let i = 0; i < 6; i++) { const a = randFp12(), b = randFp12(); out.push(`fp12_mul ${fp12tok(a)} ${fp12tok(b)} ${fp12tok(Fp12.mul(a, b))}`); }
  for (let i = 0; i < 4; i++) { const a = randFp12(); out.push(`fp12_sqr ${fp12tok(a)} ${fp12tok(Fp12.sqr(a))}`); }
  for (let i = 0; i < 4; i++) { const a = randFp12(); out.push(`fp12_inv ${fp12tok(a)} ${fp12tok(Fp12.inv(a))}`); }
  for (let i = 0; i < 3; i++) { const a = randFp12(); out.push(`fp12_conj ${fp12tok(a)} ${fp12tok(Fp12.conjugate(a))}`); }
  for (const k of [0, 1, 2, 3, 6, 11, 12]) { const a = randFp12(); out.push(`fp12_frobenius ${fp12tok(a)} ${k} ${fp12tok(Fp12.frobeniusMap(a, k))}`); }
  for (const e of [0n, 1n, 5n, randBits(64), randBits(255)]) { const a = randFp12(); out.push(`fp12_pow ${fp12tok(a)} ${expTok(e)} ${fp12tok(Fp12.pow(a, e))}`); }
  for (let i = 0; i < 4; i++) {
    // f^((p^6-1)(p^2+1)) lies in the cyclotomic subgroup
    const f = randFp12();
    const t = Fp12.mul(Fp12.conjugate(f), Fp12.inv(f));
    const c = Fp12.mul(Fp12.frobeniusMap(t, 2), t);
    out.push(`fp12_cyclotomic_sqr ${fp12tok(c)} ${fp12tok(Fp12.sqr(c))}`);
  }
  for (let i = 0; i < 4; i++) { const f = randFp12(); out.push(`final_exp ${fp12tok(f)} ${fp12tok(Fp12.finalExponentiate(f))}`); }
  return out;
}

// ---- ec.txt ------------------------------------------------------------------
// A point on the curve outside the prime-order subgroup: a random x with
// x^3 + b square, cofactor NOT cleared.
function offSubgroupG1(large) {
  for (;;) {
    const x = randFp(), rhs = Fp.add(Fp.mul(Fp.sqr(x), x), 4n);
    if (!isSquareFp(rhs)) continue;
    let y = Fp.sqrt(rhs);
    if (lexLargestFp(y) !== large) y = Fp.neg(y);
    const pt = G1.fromAffine({ x, y });
    if (pt.isTorsionFree()) continue; // probability ~2^-126
    return { x, y };
  }
}
const B2 = { c0: 4n, c1: 4n };
function offSubgroupG2(yReal, large) {
  for (;;) {
    let x, y;
    if (!yReal) {
      x = randFp2();
      const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2);
      if (!isSquareFp2(rhs)) continue;
      y = Fp2.sqrt(rhs);
    } else {
      // y with c1 = 0 (the tie-break branch of the zcash sign rule): choose
      // x = a + b*u with Im(x^3) = 3a^2 b - b^3 = -4, then Re(x^3) + 4 = y^2.
      const bb = randFp();
      if (bb === 0n) continue;
      const a2 = Fp.div(Fp.sub(Fp.mul(Fp.sqr(bb), bb), 4n), Fp.mul(3n, bb));
      if (!isSquareFp(a2)) continue;
      const a = Fp.sqrt(a2);
      x = { c0: a, c1: bb };
      const rhs = Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2);
      if (rhs.c1 !== 0n || !isSquareFp(rhs.c0)) continue;
      y = { c0: Fp.sqrt(rhs.c0), c1: 0n };
    }
    if (lexLargestFp2(y) !== large) y = Fp2.neg(y);
    if (G2.fromAffine({ x, y }).isTorsionFree()) continue;
    return { x, y };
  }
}
function notOnCurveXG1() {
  for (;;) { const x = randFp(); if (!isSquareFp(Fp.add(Fp.mul(Fp.sqr(x), x), 4n))) return x; }
}
function notOnCurveXG2() {
  for (;;) { const x = randFp2(); if (!isSquareFp2(Fp2.add(Fp2.mul(Fp2.sqr(x), x), B2))) return x; }
}
const setByte0 = (hex, mask, val) => {
  const b = Buffer.from(hex, 'hex'); b[0] = (b[0] & ~mask) | val; return b.toString('hex');
};
// noble must reject every invalid encoding too (second opinion on the class).
function assertNobleRejects(Pt, hex) {
  let ok = false;
  try { Pt.fromBytes(Buffer.from(hex, 'hex')); ok = true; } catch (e) { /* expected */ }
  if (ok) throw new Error('noble accepts an encoding listed as invalid: ' + hex);
}

function genEc() {
  const out = header('ec.txt', [
    'Points are zcash encodings (hex): G1 48 B compressed / 96 B uncompressed (x|y);',
    'G2 96 B / 192 B (x.c1|x.c0|y.c1|y.c0).  Scalars k: 32-byte big-endian, < r.',
    '  gN_gen comp uncomp | gN_inf comp uncomp     (N = 1 or 2)',
    '  gN_mul k comp uncomp          (k*generator; k = 0 gives infinity)',
    '  gN_mul_pt k P kP              (uncompressed; P random in the subgroup)',
    '  gN_add P Q R | gN_dbl P R | gN_neg P R      (uncompressed)',
    '  gN_offsub comp uncomp   on the curve, NOT in the subgroup: checked decoders must',
    '                          return SUBGROUP, _unchecked ones exactly this point',
    '  gN_invalid CLASS HEX NOTE   decode (by length) must fail with CLASS, one of',
    '      length compression infinity sign noncanonical not_on_curve subgroup',
    '      (a|b = either is acceptable); NOTE says what is wrong']);
  const gens = [[1, G1, g1c, g1u], [2, G2, g2c, g2u]];
  selfCheckEncoders(G1.BASE.multiply(7n), G2.BASE.multiply(7n));
  for (const [n, G, c, u] of gens) {
    out.push(`g${n}_gen ${c(G.BASE)} ${u(G.BASE)}`);
    out.push(`g${n}_inf ${c(G.ZERO)} ${u(G.ZERO)}`);
    const ks = [0n, 1n, 2n, 3n, R - 1n, R - 2n, (R - 1n) / 2n, (R + 1n) / 2n, 1n << 64n, (1n << 128n) - 1n];
    for (let i = 0; i < 30; i++) ks.push(randScalar());
    let signs = 0, total = 0;
    for (const k of ks) {
      const pt = k === 0n ? G.ZERO : G.BASE.multiply(k);
      const comp = c(pt);
      if (k !== 0n) { total++; if (parseInt(comp.slice(0, 2), 16) & 0x20) signs++; }
      out.push(`g${n}_mul ${fr(k)} ${comp} ${u(pt)}`);
    }
    if (signs === 0 || signs === total) throw new Error(`g${n}_mul: only one sign case occurs`);
    const randPt = () => G.BASE.multiply(randScalar());
    for (const k of [0n, 1n, 2n, R - 1n, ...Array.from({ length: 12 }, randScalar)]) {
      const pt = randPt();
      out.push(`g${n}_mul_pt ${fr(k)} ${u(pt)} ${u(k === 0n ? G.ZERO : pt.multiply(k))}`);
    }
    const addCases = [];
    for (let i = 0; i < 12; i++) addCases.push([randPt(), randPt()]);
    const q = randPt();
    addCases.push([q, q], [q, q.negate()], [q, G.ZERO], [G.ZERO, q], [G.ZERO, G.ZERO], [q.double(), q]);
    for (const [a, b] of addCases) out.push(`g${n}_add ${u(a)} ${u(b)} ${u(a.add(b))}`);
    for (const a of [G.ZERO, G.BASE, randPt(), randPt(), randPt(), randPt()])
      out.push(`g${n}_dbl ${u(a)} ${u(a.double())}`);
    for (const a of [G.ZERO, G.BASE, randPt(), randPt()]) out.push(`g${n}_neg ${u(a)} ${u(a.negate())}`);
  }
  // off-subgroup points; G2 also with y.c1 = 0, both signs
  for (let i = 0; i < 8; i++) { const { x, y } = offSubgroupG1(i % 2 === 0); out.push(`g1_offsub ${encG1(x, y, true)} ${encG1(x, y, false)}`); }
  const off2 = [];
  for (let i = 0; i < 6; i++) off2.push(offSubgroupG2(false, i % 2 === 0));
  for (let i = 0; i < 4; i++) off2.push(offSubgroupG2(true, i % 2 === 0));
  for (const { x, y } of off2) out.push(`g2_offsub ${encG2(x, y, true)} ${encG2(x, y, false)}`);

  // invalid encodings: exactly one defect each
  const inv = (n, cls, hex, note) => { assertNobleRejects(n === 1 ? G1 : G2, hex); out.push(`g${n}_invalid ${cls} ${hex} ${note}`); };
  const g1 = G1.BASE.multiply(randScalar()), g2 = G2.BASE.multiply(randScalar());
  const pmax = (1n << 381n) - 1n;
  for (const [n, pt, c, u, L] of [[1, g1, g1c, g1u, 48], [2, g2, g2c, g2u, 96]]) {
    const cp = c(pt), up = u(pt);
    inv(n, 'compression', setByte0(cp, 0x80, 0), 'compressed_length_without_c_flag');
    inv(n, 'compression', setByte0(up, 0x80, 0x80), 'uncompressed_length_with_c_flag');
    inv(n, 'compression', setByte0('00'.repeat(L), 0xe0, 0x40), 'infinity_flag_without_c_flag');
    inv(n, 'sign', setByte0(up, 0x20, 0x20), 'uncompressed_with_sign_flag');
    inv(n, 'sign|infinity', setByte0('00'.repeat(L), 0xe0, 0xe0), 'compressed_infinity_with_sign');
    inv(n, 'sign|infinity', setByte0('00'.repeat(2 * L), 0xe0, 0x60), 'uncompressed_infinity_with_sign');
    inv(n, 'infinity', setByte0(cp, 0xe0, 0xc0), 'compressed_infinity_flag_with_x');
    inv(n, 'infinity', setByte0(up, 0xe0, 0x40), 'uncompressed_infinity_flag_with_xy');
    inv(n, 'infinity', 'c0' + '00'.repeat(L - 2) + '01', 'compressed_infinity_last_bit');
    inv(n, 'infinity', '40' + '00'.repeat(2 * L - 2) + '01', 'uncompressed_infinity_last_bit');
    inv(n, 'length', cp.slice(0, -2), 'one_byte_short');
    inv(n, 'length', cp + '00', 'one_byte_long');
    inv(n, 'length', up + '00', 'uncompressed_one_byte_long');
  }
  // non-canonical coordinates
  for (const v of [P, P + 1n, pmax]) {
    inv(1, 'noncanonical', setByte0(fp(v), 0x80, 0x80), `g1_compressed_x=${v === pmax ? '2^381-1' : 'p+' + (v - P)}`);
    inv(2, 'noncanonical', setByte0(fp(v) + fp(1n), 0x80, 0x80), `g2_compressed_x.c1=${v === pmax ? '2^381-1' : 'p+' + (v - P)}`);
    inv(2, 'noncanonical', setByte0(fp(1n) + fp(v), 0x80, 0x80), `g2_compressed_x.c0=${v === pmax ? '2^381-1' : 'p+' + (v - P)}`);
  }
  {
    // v + p where that stays below 2^381 (else bit 381 would be the sign flag)
    const nc = (v) => (v + P <= pmax ? v + P : pmax);
    const a = g1.toAffine(), b = g2.toAffine();
    inv(1, 'noncanonical', fp(nc(a.x)) + fp(a.y), 'g1_uncompressed_x+p');
    inv(1, 'noncanonical', fp(a.x) + fp(nc(a.y)), 'g1_uncompressed_y+p');
    inv(2, 'noncanonical', fp(nc(b.x.c1)) + fp(b.x.c0) + fp(b.y.c1) + fp(b.y.c0), 'g2_uncompressed_x.c1+p');
    inv(2, 'noncanonical', fp(b.x.c1) + fp(nc(b.x.c0)) + fp(b.y.c1) + fp(b.y.c0), 'g2_uncompressed_x.c0+p');
    inv(2, 'noncanonical', fp(b.x.c1) + fp(b.x.c0) + fp(nc(b.y.c1)) + fp(b.y.c0), 'g2_uncompressed_y.c1+p');
    inv(2, 'noncanonical', fp(b.x.c1) + fp(b.x.c0) + fp(b.y.c1) + fp(nc(b.y.c0)), 'g2_uncompressed_y.c0+p');
    inv(1, 'not_on_curve', fp(a.x) + fp(Fp.add(a.y, 1n)), 'g1_uncompressed_y+1');
    inv(1, 'not_on_curve', fp(0n) + fp(0n), 'g1_uncompressed_origin_without_inf_flag');
    inv(2, 'not_on_curve', fp(b.x.c1) + fp(b.x.c0) + fp(b.y.c1) + fp(Fp.add(b.y.c0, 1n)), 'g2_uncompressed_y.c0+1');
    inv(2, 'not_on_curve', '00'.repeat(192), 'g2_uncompressed_origin_without_inf_flag');
  }
  for (let i = 0; i < 4; i++) {
    const x = notOnCurveXG1(), y = randFp();
    inv(1, 'not_on_curve', encG1(x, 0n, true), 'g1_x^3+4_non-square');
    inv(1, 'not_on_curve', encG1(x, y, false), 'g1_random_xy');
    const x2 = notOnCurveXG2(), y2 = randFp2();
    inv(2, 'not_on_curve', encG2(x2, Fp2.ZERO, true), 'g2_x^3+b_non-square');
    inv(2, 'not_on_curve', encG2(x2, y2, false), 'g2_random_xy');
  }
  for (let i = 0; i < 3; i++) {
    const { x, y } = offSubgroupG1(i % 2 === 0);
    inv(1, 'subgroup', encG1(x, y, true), 'g1_on_curve_cofactor_not_cleared');
    inv(1, 'subgroup', encG1(x, y, false), 'g1_on_curve_cofactor_not_cleared');
    const q = offSubgroupG2(false, i % 2 === 1);
    inv(2, 'subgroup', encG2(q.x, q.y, true), 'g2_on_curve_cofactor_not_cleared');
    inv(2, 'subgroup', encG2(q.x, q.y, false), 'g2_on_curve_cofactor_not_cleared');
  }
  return out;
}

// ---- pairing.txt ---------------------------------------------------------------
function genPairing() {
  const out = header('pairing.txt', [
    'P: G1 uncompressed (96 B), Q: G2 uncompressed (192 B), fp12 as in ff.txt',
    '(cuzk_fp12_to_bytes_be order).  e = noble pairing = final_exp(miller_loop),',
    'final_exp as in ff.txt (zkcrypto/blst convention).',
    '  pairing P Q e',
    '  pairing_product ONE n P1 Q1 ... Pn Qn   (ONE = 1 iff prod e(Pi,Qi) == 1)']);
  const g = G1.BASE, h = G2.BASE;
  const pair = (p, q) => (p.is0() || q.is0() ? Fp12.ONE : bls.pairing(p, q));
  const mul1 = (k) => (k % R === 0n ? G1.ZERO : g.multiply(k % R));
  const mul2 = (k) => (k % R === 0n ? G2.ZERO : h.multiply(k % R));
  const line = (p, q) => out.push(`pairing ${g1u(p)} ${g2u(q)} ${fp12tok(pair(p, q))}`);
  line(g, h);
  line(G1.ZERO, h);
  line(g, G2.ZERO);
  line(g.negate(), h);
  line(g, h.negate());
  line(g.double(), h);
  line(g, h.double());
  for (let i = 0; i < 4; i++) {
    // bilinearity: e(aG, bH) = e(abG, H) = e(G, abH)
    const a = randScalar(), b = randScalar();
    const e1 = pair(mul1(a), mul2(b)), e2 = pair(mul1(a * b), h), e3 = pair(g, mul2(a * b));
    if (!Fp12.eql(e1, e2) || !Fp12.eql(e1, e3)) throw new Error('noble bilinearity');
    line(mul1(a), mul2(b));
    line(mul1(a * b), h);
    line(g, mul2(a * b));
  }
  const prod = (one, pairs) => {
    const v = pairs.reduce((acc, [p, q]) => Fp12.mul(acc, pair(p, q)), Fp12.ONE);
    if (Fp12.eql(v, Fp12.ONE) !== one) throw new Error('noble product');
    out.push(`pairing_product ${one ? 1 : 0} ${pairs.length} ` + pairs.map(([p, q]) => `${g1u(p)} ${g2u(q)}`).join(' '));
  };
  for (let i = 0; i < 3; i++) {
    const a = randScalar(), b = randScalar(), c = randScalar();
    // e(aG,bH) e(-abG,H) = 1 ; Groth16 shape e(A,B) = e(x,y) e(z,w) with 3 extra terms
    prod(true, [[mul1(a), mul2(b)], [mul1(a * b).negate(), h]]);
    prod(false, [[mul1(a), mul2(b)], [mul1(a * b + 1n).negate(), h]]);
    prod(true, [[mul1(a), mul2(b)], [mul1(c).negate(), mul2(a * b * modInv(c))], [G1.ZERO, mul2(c)], [mul1(c), G2.ZERO]]);
    prod(false, [[mul1(a), mul2(b)], [mul1(c).negate(), mul2(a * b * modInv(c) + 1n)], [mul1(1n), mul2(c)], [mul1(1n), mul2(c).negate()]]);
  }
  prod(true, []);
  prod(true, [[G1.ZERO, h]]);
  prod(false, [[g, h]]);
  return out;
}
function modInv(c) { return Fr.inv(c % R); }

const files = { 'ff.txt': genFf(), 'ec.txt': genEc(), 'pairing.txt': genPairing() };
for (const [name, lines] of Object.entries(files)) writeFileSync(join(outDir, name), lines.join('\n') + '\n');
