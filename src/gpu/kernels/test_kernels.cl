/* Kernels for the tests (tests/test_gpu_*.c): each applies one operation,
 * chosen by `op`, elementwise to buffers of n elements, so every field and
 * point operation is compared with the CPU library on the same inputs.
 * The op numbers are the CUZK_GPU_TEST_* values of src/gpu/test_ops.h. */

CZ_KERNEL void cz_test_fp(CZ_GLOBAL fp *r, CZ_GLOBAL const fp *a, CZ_GLOBAL const fp *b, u32 op, u32 n)
{
    u64 i = CZ_GID();
    if (i >= n) return;
    fp x = a[i], y = b[i], z;
    switch (op) {
    case 0: z = fp_add(x, y); break;
    case 1: z = fp_sub(x, y); break;
    case 2: z = fp_neg(x); break;
    case 3: z = fp_dbl(x); break;
    case 4: z = fp_mul(x, y); break;
    case 5: z = fp_sqr(x); break;
    case 6: z = fp_to_mont(x); break;
    case 7: z = fp_from_mont(x); break;
    default: z = fp_zero(); break;
    }
    r[i] = z;
}

CZ_KERNEL void cz_test_fr(CZ_GLOBAL fr *r, CZ_GLOBAL const fr *a, CZ_GLOBAL const fr *b, u32 op, u32 n)
{
    u64 i = CZ_GID();
    if (i >= n) return;
    fr x = a[i], y = b[i], z;
    switch (op) {
    case 0: z = fr_add(x, y); break;
    case 1: z = fr_sub(x, y); break;
    case 2: z = fr_neg(x); break;
    case 3: z = fr_dbl(x); break;
    case 4: z = fr_mul(x, y); break;
    case 5: z = fr_sqr(x); break;
    case 6: z = fr_to_mont(x); break;
    case 7: z = fr_from_mont(x); break;
    default: z = fr_zero(); break;
    }
    r[i] = z;
}

CZ_KERNEL void cz_test_fp2(CZ_GLOBAL fp2 *r, CZ_GLOBAL const fp2 *a, CZ_GLOBAL const fp2 *b, u32 op, u32 n)
{
    u64 i = CZ_GID();
    if (i >= n) return;
    fp2 x = a[i], y = b[i], z;
    switch (op) {
    case 0: z = fp2_add(x, y); break;
    case 1: z = fp2_sub(x, y); break;
    case 2: z = fp2_neg(x); break;
    case 3: z = fp2_dbl(x); break;
    case 4: z = fp2_mul(x, y); break;
    case 5: z = fp2_sqr(x); break;
    default: z = fp2_zero(); break;
    }
    r[i] = z;
}

/* op 0: p + q, 1: p + qa (mixed), 2: 2p, 3: -p, 4: from_affine(qa) */
CZ_KERNEL void cz_test_g1(CZ_GLOBAL g1 *r, CZ_GLOBAL const g1 *p, CZ_GLOBAL const g1 *q,
                          CZ_GLOBAL const g1_affine *qa, u32 op, u32 n)
{
    u64 i = CZ_GID();
    if (i >= n) return;
    g1 z;
    switch (op) {
    case 0: z = g1_add(p[i], q[i]); break;
    case 1: z = g1_add_affine(p[i], qa[i]); break;
    case 2: z = g1_dbl(p[i]); break;
    case 3: z = g1_neg(p[i]); break;
    case 4: z = g1_from_affine(qa[i]); break;
    default: z = g1_inf(); break;
    }
    r[i] = z;
}

CZ_KERNEL void cz_test_g2(CZ_GLOBAL g2 *r, CZ_GLOBAL const g2 *p, CZ_GLOBAL const g2 *q,
                          CZ_GLOBAL const g2_affine *qa, u32 op, u32 n)
{
    u64 i = CZ_GID();
    if (i >= n) return;
    g2 z;
    switch (op) {
    case 0: z = g2_add(p[i], q[i]); break;
    case 1: z = g2_add_affine(p[i], qa[i]); break;
    case 2: z = g2_dbl(p[i]); break;
    case 3: z = g2_neg(p[i]); break;
    case 4: z = g2_from_affine(qa[i]); break;
    default: z = g2_inf(); break;
    }
    r[i] = z;
}

/* Device-layer checks (test_gpu_dev): r[i] = a[i] + k (u64 args and
 * bounds); per work-group sums through work-group memory and barriers;
 * a global atomic counter. */
CZ_KERNEL void cz_test_add_u64(CZ_GLOBAL u64 *r, CZ_GLOBAL const u64 *a, u64 k, u32 n)
{
    u64 i = CZ_GID();
    if (i < n) r[i] = a[i] + k;
}

CZ_KERNEL void cz_test_group_sum(CZ_GLOBAL u64 *sums, CZ_GLOBAL const u64 *a, u32 n CZ_LOCAL_PARAM(u64, tmp))
{
    CZ_LOCAL_DECL(u64, tmp);
    u64 i = CZ_GID();
    u32 l = CZ_LID();
    tmp[l] = i < n ? a[i] : 0;
    CZ_BARRIER();
    for (u32 s = CZ_LSIZE() / 2; s > 0; s >>= 1) { /* local size: a power of two */
        if (l < s) tmp[l] += tmp[l + s];
        CZ_BARRIER();
    }
    if (l == 0) sums[CZ_GROUP()] = tmp[0];
}

CZ_KERNEL void cz_test_count(CZ_GLOBAL u32 *counter, CZ_GLOBAL const u64 *a, u32 n)
{
    u64 i = CZ_GID();
    if (i < n && (a[i] & 1)) CZ_ATOMIC_ADD_U32(counter, 1u);
}
