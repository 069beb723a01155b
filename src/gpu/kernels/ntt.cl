/* The NTT over Fr on the device (host side: src/gpu/ntt.c, docs/gpu-ntt.md).
 *
 * Twiddles are generated here, never uploaded: cz_ntt_table fills, from one
 * root x that the host derives with the CPU library, the two-level table
 *   lo[i] = x^i (i < 2^NTT_TAB_L),  hi[i] = x^(i 2^NTT_TAB_L) (i < 2^(27-NTT_TAB_L))
 * so that x^e = hi[e >> L] * lo[e mod 2^L] for every e < 2^27: one extra
 * multiplication per twiddle, 768 KiB per root instead of a 2 GiB table at
 * 2^27.  The roots are w = omega_{2^27} and w^-1 (a stage of half size h in
 * a transform of any size 2^k <= 2^27 takes w_{2h}^p = w^(p 2^(26-s)),
 * h = 2^s), and the coset generator g = 7 and g^-1.
 *
 * cz_ntt_pass does k consecutive radix-2 stages in work-group memory.  Its
 * index space is V = x 2^I + col: 2^I independent transforms interleaved
 * column by column (I = 0: one transform; the four-step column phase uses
 * I > 0), any number of such batches one after the other.  Stages lo..lo+k-1
 * (half sizes 2^s in x) pair elements 2^(lo+I) apart in V, so a work-group
 * takes, inside one block of 2^(lo+I+k) elements, the 2^k points of 2^c
 * neighbouring sub-transforms (c consecutive V indices: coalesced loads),
 * 2^(k+c) elements, one butterfly per thread and stage.  DIF (Gentleman-
 * Sande, natural in, bit-reversed out) runs the passes from the top stage
 * down, DIT (Cooley-Tukey, bit-reversed in, natural out) from the bottom up.
 *
 * Every result is the fully reduced Montgomery residue (field.cl), so the
 * transforms equal the CPU library's bit for bit. */

#define NTT_LOG_M 27u  /* the largest transform, CUZK_NTT_MAX_LOG */
#define NTT_TAB_L 13u  /* lo entries 2^13, hi entries 2^14 */
#define NTT_TAB_LO (1u << NTT_TAB_L)
#define NTT_TAB_LEN (NTT_TAB_LO + (1u << (NTT_LOG_M - NTT_TAB_L)))

/* x^e for e < 2^27 from the table at tab[base] */
CZ_FN fr ntt_pow(CZ_GLOBAL const fr *tab, u32 base, u32 e)
{
    u32 l = e & (NTT_TAB_LO - 1u), h = e >> NTT_TAB_L;
    if (!l) return tab[base + NTT_TAB_LO + h];
    fr t = tab[base + l];
    if (h) t = fr_mul(t, tab[base + NTT_TAB_LO + h]);
    return t;
}

/* the low `bits` bits of x reversed (bits <= 32) */
CZ_FN u32 ntt_rev(u32 x, u32 bits)
{
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    x = (x >> 16) | (x << 16);
    return bits ? x >> (32u - bits) : 0u;
}

/* tab[base + i] = x^(i << shift) for i < cnt, x = consts[xi]: square and
 * multiply (once per domain: 2^14 + 2^13 entries per root). */
CZ_KERNEL void cz_ntt_table(CZ_GLOBAL fr *tab, CZ_GLOBAL const fr *consts, u32 xi, u32 base, u32 shift, u32 cnt)
{
    u64 i = CZ_GID();
    if (i >= cnt) return;
    u32 e = (u32)i << shift;
    fr x = consts[xi], r = fr_one();
    while (e) {
        if (e & 1u) r = fr_mul(r, x);
        x = fr_sqr(x);
        e >>= 1;
    }
    tab[base + i] = r;
}

/* Stages lo .. lo+k-1 of 2^I interleaved transforms of 2^log_n points (see
 * the top): DIF (dit = 0, stages from the top down) or DIT (dit = 1), roots
 * from the table at tw[base].  One work-group per 2^(k+c) elements,
 * 2^(k+c-1) threads, c <= lo + I; work-group memory 2^(k+c) elements. */
CZ_KERNEL void cz_ntt_pass(CZ_GLOBAL fr *a, CZ_GLOBAL const fr *tw, u32 base, u32 inner, u32 lo, u32 k, u32 c,
                           u32 dit CZ_LOCAL_PARAM(fr, ntt_tile))
{
    CZ_LOCAL_DECL(fr, ntt_tile);
    u32 lid = CZ_LID();
    u64 grp = CZ_GROUP();
    u32 nthr = 1u << (k + c - 1u);
    u32 lov = lo + inner;      /* log2 of the distance of a sub-transform's points in V */
    u32 jlog = lov - c;        /* log2 of the work-groups per block */
    u64 j0 = (grp & ((CZ_U64(1) << jlog) - 1u)) << c;
    u64 start = ((grp >> jlog) << (lov + k)) + j0;
    u32 cmask = (1u << c) - 1u;
    for (u32 r = 0; r < 2; r++) {
        u32 ti = lid + r * nthr; /* tile index: m 2^c + jj */
        ntt_tile[ti] = a[start + ((u64)(ti >> c) << lov) + (ti & cmask)];
    }
    CZ_BARRIER();
    u32 jj = lid & cmask, bm = lid >> c;
    for (u32 step = 0; step < k; step++) {
        u32 e = dit ? step : k - 1u - step; /* stage lo + e: pairs m, m + 2^e */
        u32 pm = bm & ((1u << e) - 1u);
        u32 m0 = ((bm >> e) << (e + 1u)) + pm;
        u32 i0 = (m0 << c) + jj, i1 = i0 + (1u << (e + c));
        /* position in the stage's block of 2^(lo+e+1) points: x mod 2^(lo+e) */
        u32 px = (u32)((((u64)pm << lov) + j0 + jj) >> inner);
        u32 ex = px << (NTT_LOG_M - 1u - lo - e);
        fr u = ntt_tile[i0], v = ntt_tile[i1];
        if (dit) {
            if (px) v = fr_mul(v, ntt_pow(tw, base, ex));
            ntt_tile[i0] = fr_add(u, v);
            ntt_tile[i1] = fr_sub(u, v);
        } else {
            fr d = fr_sub(u, v);
            ntt_tile[i0] = fr_add(u, v);
            ntt_tile[i1] = px ? fr_mul(d, ntt_pow(tw, base, ex)) : d;
        }
        CZ_BARRIER();
    }
    for (u32 r = 0; r < 2; r++) {
        u32 ti = lid + r * nthr;
        a[start + ((u64)(ti >> c) << lov) + (ti & cmask)] = ntt_tile[ti];
    }
}

/* a[t] *= consts[si] * x^e(t) for t < cnt (x from the table at tab[base];
 * base = ~0u: x = 1).  Exponents by mode:
 *  0 natural:   e = c0 + (t mod 2^lc) + ((t >> lc) << ln1)
 *               (a column chunk of the four-step layout; lc = ln1 = log n
 *               for a whole vector)
 *  1 reversed:  e = rev(r0 + (t >> ln1), ln2) + (rev(t mod 2^ln1, ln1) << ln2)
 *               (the output of a DIF: four-step rows; ln2 = 0 for a whole
 *               vector, where e = rev(t, log n))
 *  2 twist:     e = ((c0 + (t mod 2^lc)) * rev(t >> lc, ln2) mod 2^ln) << (27 - ln)
 *               (the four-step twiddles w_n^(j1 k2) of a column chunk) */
CZ_KERNEL void cz_ntt_scale(CZ_GLOBAL fr *a, CZ_GLOBAL const fr *tab, CZ_GLOBAL const fr *consts, u32 base, u32 si,
                            u32 mode, u32 c0, u32 lc, u32 ln1, u32 ln2, u32 ln, u64 cnt)
{
    u64 t = CZ_GID();
    if (t >= cnt) return;
    u32 e;
    if (mode == 0u) {
        e = c0 + (u32)(t & ((CZ_U64(1) << lc) - 1u)) + (u32)((t >> lc) << ln1);
    } else if (mode == 1u) {
        u32 r = c0 + (u32)(t >> ln1);
        e = ntt_rev(r, ln2) + (ntt_rev((u32)(t & ((CZ_U64(1) << ln1) - 1u)), ln1) << ln2);
    } else {
        u64 j1 = c0 + (t & ((CZ_U64(1) << lc) - 1u));
        u64 k2 = ntt_rev((u32)(t >> lc), ln2);
        e = (u32)(((j1 * k2) & ((CZ_U64(1) << ln) - 1u)) << (NTT_LOG_M - ln));
    }
    fr f = consts[si];
    if (base != 0xffffffffu) f = fr_mul(f, ntt_pow(tab, base, e));
    a[t] = fr_mul(a[t], f);
}

/* The bit-reversal permutation of a[0 .. 2^log_n), in place. */
CZ_KERNEL void cz_ntt_bitrev(CZ_GLOBAL fr *a, u32 log_n)
{
    u64 i = CZ_GID();
    if (i >> log_n) return;
    u32 j = ntt_rev((u32)i, log_n);
    if (i < j) {
        fr x = a[i];
        a[i] = a[j];
        a[j] = x;
    }
}

/* The pointwise step of H on the coset, z = consts[zi] = 1/Z(g w^i):
 * mode 0: a = (a b - c) z;  1: a = a b;  2: a = (a - c) z. */
CZ_KERNEL void cz_ntt_quot(CZ_GLOBAL fr *a, CZ_GLOBAL const fr *b, CZ_GLOBAL const fr *c, CZ_GLOBAL const fr *consts,
                           u32 zi, u32 mode, u64 cnt)
{
    u64 i = CZ_GID();
    if (i >= cnt) return;
    fr x = a[i];
    if (mode != 2u) x = fr_mul(x, b[i]);
    if (mode != 1u) x = fr_mul(fr_sub(x, c[i]), consts[zi]);
    a[i] = x;
}

/* a[off + i] = 0 for i < cnt (the zero padding of H's vectors) */
CZ_KERNEL void cz_ntt_zero(CZ_GLOBAL fr *a, u64 off, u64 cnt)
{
    u64 i = CZ_GID();
    if (i < cnt) a[off + i] = fr_zero();
}
