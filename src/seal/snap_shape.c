/* SnapDeals shapes and registered update proofs (storage-proofs-update
 * constants.rs, filecoin-proofs-api RegisteredUpdateProof); see
 * cuzk/seal_snap.h. */
#include <string.h>

#include "cuzk/seal_snap.h"
#include "cuzk/status.h"

static uint32_t log2u(uint64_t x)
{
    uint32_t l = 0;
    while (x > 1)
        x >>= 1, l++;
    return l;
}

int cuzk_snap_shape_for(cuzk_snap_shape *out, uint64_t sector_size, bool allow_test_sizes)
{
    static const struct {
        uint64_t size;
        bool test;
        uint32_t sub, top;
    } t[] = {
        {1024, true, 4, 0},         {2048, false, 0, 0},        {4096, true, 2, 0},
        {8192, true, 4, 0},         {16384, true, 8, 0},        {32768, true, 8, 2},
        {8ull << 20, false, 0, 0},  {16ull << 20, true, 2, 0},  {512ull << 20, false, 0, 0},
        {32ull << 30, false, 8, 0}, {64ull << 30, false, 8, 2},
    };
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (t[i].size != sector_size || (t[i].test && !allow_test_sizes)) continue;
        uint64_t n = sector_size / 32;
        out->sector_size = sector_size;
        out->nodes = n;
        out->partitions = n <= 256 ? 1 : n <= 1024 ? 2 : n <= (1u << 19) ? 4 : 16;
        out->challenges = n <= (1u << 19) ? 10 : 86;
        out->apex_leaves = n <= 256 ? 8 : 128;
        for (int k = 0; k < CUZK_SNAP_HS; k++)
            out->hs[k] = n <= 1024 ? 1 : 7 + (uint32_t)k;
        out->challenge_bits = log2u(n);
        out->partition_bits = log2u(out->partitions);
        out->apex_bits = log2u(out->apex_leaves);
        out->tree_base_arity = 8;
        out->tree_sub_arity = t[i].sub;
        out->tree_top_arity = t[i].top;
        uint64_t base_leaves = n / (t[i].sub ? t[i].sub : 1) / (t[i].top ? t[i].top : 1);
        out->tree_base_levels = log2u(base_leaves) / 3;
        return CUZK_OK;
    }
    return CUZK_ERR_ARG;
}

uint64_t cuzk_snap_h_select(const cuzk_snap_shape *s, uint32_t h)
{
    for (int k = 0; k < CUZK_SNAP_HS; k++)
        if (s->hs[k] == h) return (uint64_t)1 << k;
    return 0;
}

uint64_t cuzk_snap_k_and_h_select(const cuzk_snap_shape *s, uint32_t k, uint32_t h)
{
    return (uint64_t)k | (cuzk_snap_h_select(s, h) << s->partition_bits);
}

static const cuzk_snap_info snap_infos[5] = {
    {0, "StackedDrg2KiBV1", 2048, "snap-2k"},
    {1, "StackedDrg8MiBV1", 8ull << 20, "snap-8m"},
    {2, "StackedDrg512MiBV1", 512ull << 20, "snap-512m"},
    {3, "StackedDrg32GiBV1", 32ull << 30, "snap-32g"},
    {4, "StackedDrg64GiBV1", 64ull << 30, "snap-64g"},
};

int cuzk_snap_lookup(const cuzk_snap_info **out, uint64_t id)
{
    if (id >= 5) return CUZK_ERR_ARG;
    *out = &snap_infos[id];
    return CUZK_OK;
}

int cuzk_snap_lookup_circuit(const cuzk_snap_info **out, const char *circuit_id)
{
    for (size_t i = 0; circuit_id && i < 5; i++)
        if (!strcmp(snap_infos[i].circuit_id, circuit_id)) {
            *out = &snap_infos[i];
            return CUZK_OK;
        }
    return CUZK_ERR_ARG;
}
