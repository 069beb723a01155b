#!/usr/bin/env python3
"""Derives the constants in src/ec/ec_internal.h (run: python3 src/ec/ec_constants.py).

Everything is computed from the BLS12-381 parameter x = -0xd201000000010000:
  r = x^4 - x^2 + 1,  p = (x - 1)^2 * r / 3 + x.
Field elements are printed in Montgomery form (a * 2^384 mod p), little-endian
64-bit limbs, as cuzk_fp stores them (include/cuzk/ff.h)."""

X = -0xD201000000010000
R = X**4 - X**2 + 1
P = (X - 1) ** 2 * R // 3 + X
assert (X - 1) ** 2 * R % 3 == 0

def inv(a): return pow(a, P - 2, P)

# ---- Fp2 = Fp[u]/(u^2+1) as pairs (c0, c1) --------------------------------
def f2mul(a, b):
    return ((a[0] * b[0] - a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)
def f2pow(a, e):
    r = (1, 0)
    while e:
        if e & 1: r = f2mul(r, a)
        a = f2mul(a, a); e >>= 1
    return r
def f2inv(a):
    n = inv((a[0] ** 2 + a[1] ** 2) % P)
    return (a[0] * n % P, -a[1] * n % P)

# ---- affine curve arithmetic, generic over the field ----------------------
class F1:
    add = staticmethod(lambda a, b: (a + b) % P)
    sub = staticmethod(lambda a, b: (a - b) % P)
    mul = staticmethod(lambda a, b: a * b % P)
    inv = staticmethod(inv)
    zero = 0
class F2:
    add = staticmethod(lambda a, b: ((a[0] + b[0]) % P, (a[1] + b[1]) % P))
    sub = staticmethod(lambda a, b: ((a[0] - b[0]) % P, (a[1] - b[1]) % P))
    mul = staticmethod(f2mul)
    inv = staticmethod(f2inv)
    zero = (0, 0)

def ec_add(F, p, q):
    if p is None: return q
    if q is None: return p
    if p[0] == q[0]:
        if F.add(p[1], q[1]) == F.zero: return None
        l = F.mul(F.mul(F.mul(p[0], p[0]), F.add(F.add(F.zero, 3 if F is F1 else (3, 0)), F.zero)), F.inv(F.add(p[1], p[1])))
    else:
        l = F.mul(F.sub(q[1], p[1]), F.inv(F.sub(q[0], p[0])))
    x3 = F.sub(F.sub(F.mul(l, l), p[0]), q[0])
    return (x3, F.sub(F.mul(l, F.sub(p[0], x3)), p[1]))

def ec_mul(F, p, k):
    if k < 0:
        p = (p[0], F.sub(F.zero, p[1])); k = -k
    acc = None
    while k:
        if k & 1: acc = ec_add(F, acc, p)
        p = ec_add(F, p, p); k >>= 1
    return acc

G1 = (0x17F1D3A73197D7942695638C4FA9AC0FC3688C4F9774B905A14E3A3F171BAC586C55E83FF97A1AEFFB3AF00ADB22C6BB,
      0x08B3F481E3AAA0F1A09E30ED741D8AE4FCF5E095D5D00AF600DB18CB2C04B3EDD03CC744A2888AE40CAA232946C5E7E1)
G2 = ((0x024AA2B2F08F0A91260805272DC51051C6E47AD4FA403B02B4510B647AE3D1770BAC0326A805BBEFD48056C8C121BDB8,
       0x13E02B6052719F607DACD3A088274F65596BD0D09920B61AB5DA61BBDC7F5049334CF11213945D57E5AC7D055D042B7E),
      (0x0CE5D527727D6E118CC9CDC6DA2E351AADFD9BAA8CBDD3A76D429A695160D12C923AC9CC3BACA289E193548608B82801,
       0x0606C4A02EA734CC32ACD2B02BC28B99CB3E287E85A763AF267492AB572E99AB3F370D275CEC1DA1AAA9075FF05F79BE))

# beta: the primitive cube root of unity in Fp for which phi(x, y) = (beta x, y)
# acts on G1 as multiplication by -x^2 (the other root gives x^2 - 1).
def find_beta():
    g = 2
    while True:
        b = pow(g, (P - 1) // 3, P)
        if b != 1: break
        g += 1
    for cand in (b, b * b % P):
        if (G1[0] * cand % P, G1[1]) == ec_mul(F1, G1, -X * X):
            return cand
    raise SystemExit("no beta")
BETA = find_beta()

# psi = untwist-Frobenius-twist on E'(Fp2): (x, y) -> (conj(x) * PSI_X, conj(y) * PSI_Y)
# with PSI_X = (1+u)^(-(p-1)/3), PSI_Y = (1+u)^(-(p-1)/2); on G2, psi = [x].
PSI_X = f2inv(f2pow((1, 1), (P - 1) // 3))
PSI_Y = f2inv(f2pow((1, 1), (P - 1) // 2))
def psi(q):
    c = lambda a: (a[0], -a[1] % P)
    return (f2mul(c(q[0]), PSI_X), f2mul(c(q[1]), PSI_Y))
assert psi(G2) == ec_mul(F2, G2, X)
assert ec_mul(F1, G1, R) is None and ec_mul(F2, G2, R) is None

def limbs(v, n=6): return [(v >> (64 * i)) & (2**64 - 1) for i in range(n)]
def mont(v): return limbs(v * 2**384 % P)
def fmt(v): return "{{" + ", ".join("0x%016xull" % l for l in v) + "}}"

print("/* p */", fmt(limbs(P)))
print("G1.x", fmt(mont(G1[0]))); print("G1.y", fmt(mont(G1[1])))
for n, v in (("G2.x.c0", G2[0][0]), ("G2.x.c1", G2[0][1]), ("G2.y.c0", G2[1][0]), ("G2.y.c1", G2[1][1])):
    print(n, fmt(mont(v)))
print("ONE", fmt(mont(1)))
print("B1 (4)", fmt(mont(4)))
print("B1*3 (12)", fmt(mont(12)))
print("BETA", hex(BETA)); print("BETA mont", fmt(mont(BETA)))
print("PSI_X c0", fmt(mont(PSI_X[0]))); print("PSI_X c1", fmt(mont(PSI_X[1])))
print("PSI_Y c0", fmt(mont(PSI_Y[0]))); print("PSI_Y c1", fmt(mont(PSI_Y[1])))
print("PSI_X canonical", hex(PSI_X[0]), hex(PSI_X[1]))
print("PSI_Y canonical", hex(PSI_Y[0]), hex(PSI_Y[1]))
