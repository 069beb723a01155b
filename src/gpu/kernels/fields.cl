/* The two prime fields of BLS12-381 from the one template (field.cl), with
 * the CPU library's constants (src/ff/fp.c, src/ff/fr.c, field_internal.h:
 * derived there by Python from the spec's p and r). */

/* Fp: p = 0x1a0111ea...ffffaaab, 381 bits */
#define FIELD fp
#define FIELD_N 6
#define FIELD_MODULUS                                                                                        \
    CZ_U64(0xb9feffffffffaaab), CZ_U64(0x1eabfffeb153ffff), CZ_U64(0x6730d2a0f6b0f624),                      \
        CZ_U64(0x64774b84f38512bf), CZ_U64(0x4b1ba7b6434bacd7), CZ_U64(0x1a0111ea397fe69a)
#define FIELD_ONE                                                                                            \
    CZ_U64(0x760900000002fffd), CZ_U64(0xebf4000bc40c0002), CZ_U64(0x5f48985753c758ba),                      \
        CZ_U64(0x77ce585370525745), CZ_U64(0x5c071a97a256ec6d), CZ_U64(0x15f65ec3fa80e493)
#define FIELD_R2                                                                                             \
    CZ_U64(0xf4df1f341c341746), CZ_U64(0x0a76e6a609d104f1), CZ_U64(0x8de5476c4c95b6d5),                      \
        CZ_U64(0x67eb88a9939d83c0), CZ_U64(0x9a793e85b519952d), CZ_U64(0x11988fe592cae3aa)
#define FIELD_M0INV CZ_U64(0x89f3fffcfffcfffd)
#include "field.cl"
#undef FIELD
#undef FIELD_N
#undef FIELD_MODULUS
#undef FIELD_ONE
#undef FIELD_R2
#undef FIELD_M0INV

/* Fr: r = 0x73eda753...00000001, 255 bits */
#define FIELD fr
#define FIELD_N 4
#define FIELD_MODULUS                                                                                        \
    CZ_U64(0xffffffff00000001), CZ_U64(0x53bda402fffe5bfe), CZ_U64(0x3339d80809a1d805),                      \
        CZ_U64(0x73eda753299d7d48)
#define FIELD_ONE                                                                                            \
    CZ_U64(0x00000001fffffffe), CZ_U64(0x5884b7fa00034802), CZ_U64(0x998c4fefecbc4ff5),                      \
        CZ_U64(0x1824b159acc5056f)
#define FIELD_R2                                                                                             \
    CZ_U64(0xc999e990f3f29c6d), CZ_U64(0x2b6cedcb87925c23), CZ_U64(0x05d314967254398f),                      \
        CZ_U64(0x0748d9d99f59ff11)
#define FIELD_M0INV CZ_U64(0xfffffffeffffffff)
#include "field.cl"
#undef FIELD
#undef FIELD_N
#undef FIELD_MODULUS
#undef FIELD_ONE
#undef FIELD_R2
#undef FIELD_M0INV
