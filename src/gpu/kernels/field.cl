/* Montgomery arithmetic over one prime field, written once for Fp and Fr:
 * included by fields.cl with
 *   FIELD          the type's name (fp, fr): functions are FIELD_add, ...
 *   FIELD_N        64-bit limbs (6, 4)
 *   FIELD_MODULUS  the modulus m, little-endian limbs (initializer list)
 *   FIELD_ONE      R mod m (R = 2^(64 FIELD_N)): 1 in Montgomery form
 *   FIELD_R2       R^2 mod m: to_mont multiplies by it
 *   FIELD_M0INV    -m^-1 mod 2^64
 * Representation as the CPU library's (cuzk/ff.h): a*R mod m, fully reduced
 * to [0, m), so equal elements have equal limbs and buffers are shared
 * without conversion.  Both moduli leave the top limb's high bit clear,
 * which the reductions below rely on (a + b < 2^(64 N)).  Variable time
 * only in the final conditional subtractions' selects (branch free). */

typedef struct {
    u64 l[FIELD_N];
} FIELD;

#define F(x) CZ_CAT(FIELD, x)

CZ_FN FIELD F(modulus)(void)
{
    FIELD m = {{FIELD_MODULUS}};
    return m;
}

CZ_FN FIELD F(zero)(void)
{
    FIELD z;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) z.l[j] = 0;
    return z;
}

CZ_FN FIELD F(one)(void)
{
    FIELD o = {{FIELD_ONE}};
    return o;
}

/* *r = a + b as integers; returns the carry out. */
CZ_FN u64 F(add_raw)(FIELD *r, FIELD a, FIELD b)
{
#if defined(__CUDACC__) && defined(CZ_PTX_CARRY)
    return CZ_CAT(cz_ptx_add, FIELD_N)(r->l, a.l, b.l);
#else
    u64 c = 0;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) r->l[j] = cz_addc(a.l[j], b.l[j], &c);
    return c;
#endif
}

/* *r = a - b mod 2^(64 N); returns the borrow out. */
CZ_FN u64 F(sub_raw)(FIELD *r, FIELD a, FIELD b)
{
#if defined(__CUDACC__) && defined(CZ_PTX_CARRY)
    return CZ_CAT(cz_ptx_sub, FIELD_N)(r->l, a.l, b.l);
#else
    u64 c = 0;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) r->l[j] = cz_subb(a.l[j], b.l[j], &c);
    return c;
#endif
}

/* a if a < m, else a - m.  Pre: a < 2m. */
CZ_FN FIELD F(reduce_once)(FIELD a)
{
    FIELD t;
    u64 borrow = F(sub_raw)(&t, a, F(modulus)());
    u64 keep = (u64)0 - borrow; /* all ones when a < m */
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) t.l[j] = (a.l[j] & keep) | (t.l[j] & ~keep);
    return t;
}

CZ_FN FIELD F(add)(FIELD a, FIELD b)
{
    FIELD s;
    (void)F(add_raw)(&s, a, b); /* no carry: a + b < 2m < 2^(64 N) */
    return F(reduce_once)(s);
}

CZ_FN FIELD F(dbl)(FIELD a)
{
    return F(add)(a, a);
}

CZ_FN FIELD F(sub)(FIELD a, FIELD b)
{
    FIELD d, t;
    u64 borrow = F(sub_raw)(&d, a, b);
    (void)F(add_raw)(&t, d, F(modulus)());
    u64 fix = (u64)0 - borrow; /* all ones when a < b: d + m */
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) d.l[j] = (t.l[j] & fix) | (d.l[j] & ~fix);
    return d;
}

CZ_FN FIELD F(neg)(FIELD a)
{
    return F(sub)(F(zero)(), a);
}

CZ_FN int F(is_zero)(FIELD a)
{
    u64 acc = 0;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) acc |= a.l[j];
    return acc == 0;
}

CZ_FN int F(eq)(FIELD a, FIELD b)
{
    u64 acc = 0;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) acc |= a.l[j] ^ b.l[j];
    return acc == 0;
}

#ifdef CZ_X86_ADX
/* The modulus and m0inv for the CPU library's rows (cuzk_kernel.h) in
 * __constant memory: the asm reads them as memory operands, and at a
 * global's fixed address no register takes part in the address.  As
 * private copies pocl's clang addressed them through a register it had
 * also given an early-clobber output (a SIGBUS in test_gpu_ff). */
__constant u64 F(x86_m)[FIELD_N] = {FIELD_MODULUS};
__constant u64 F(x86_k) = FIELD_M0INV;
#endif

/* a * b * R^-1 mod m by CIOS (coarsely integrated operand scanning): per
 * limb of b, add a*b_i into t, then add q*m with q chosen to clear t's low
 * limb and shift down one limb.  t < 2m at the end (m < R/4), so one
 * conditional subtraction reduces it fully.  (CZ_X86_ADX: the same
 * algorithm as the CPU library's asm rows.) */
CZ_FN_CALL FIELD F(mul)(FIELD a, FIELD b)
{
#ifdef CZ_X86_ADX
    FIELD r;
#if FIELD_N == 6
    cuzk_mont_mul_384_adx(r.l, a.l, b.l, F(x86_m), &F(x86_k));
#else
    cuzk_mont_mul_256_adx(r.l, a.l, b.l, F(x86_m), &F(x86_k));
#endif
    return r;
#else
    const FIELD m = F(modulus)();
    u64 t[FIELD_N + 2];
#pragma unroll
    for (int j = 0; j < FIELD_N + 2; j++) t[j] = 0;
#pragma unroll
    for (int i = 0; i < FIELD_N; i++) {
        u64 c = 0, cc = 0;
#pragma unroll
        for (int j = 0; j < FIELD_N; j++) t[j] = cz_mac(a.l[j], b.l[i], t[j], &c);
        t[FIELD_N] = cz_addc(t[FIELD_N], c, &cc);
        t[FIELD_N + 1] = cc;
        u64 q = t[0] * FIELD_M0INV;
        c = 0;
        (void)cz_mac(q, m.l[0], t[0], &c);
#pragma unroll
        for (int j = 1; j < FIELD_N; j++) t[j - 1] = cz_mac(q, m.l[j], t[j], &c);
        cc = 0;
        t[FIELD_N - 1] = cz_addc(t[FIELD_N], c, &cc);
        t[FIELD_N] = t[FIELD_N + 1] + cc;
    }
    FIELD r;
#pragma unroll
    for (int j = 0; j < FIELD_N; j++) r.l[j] = t[j];
    return F(reduce_once)(r); /* t[FIELD_N] is 0: t < 2m < 2^(64 N) */
#endif
}

CZ_FN FIELD F(sqr)(FIELD a)
{
#if defined(CZ_X86_ADX) && FIELD_N == 6
    FIELD r;
    cuzk_mont_sqr_384_adx(r.l, a.l, F(x86_m), &F(x86_k));
    return r;
#else
    return F(mul)(a, a);
#endif
}

/* Canonical integer (< m) to Montgomery form and back. */
CZ_FN FIELD F(to_mont)(FIELD a)
{
    FIELD r2 = {{FIELD_R2}};
    return F(mul)(a, r2);
}

CZ_FN FIELD F(from_mont)(FIELD a)
{
    FIELD one = F(zero)();
    one.l[0] = 1;
    return F(mul)(a, one);
}

#undef F
