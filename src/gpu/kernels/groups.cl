/* G1 over Fp and G2 over Fp2 from the one template (group.cl). */
#define G g1
#define GF fp
#include "group.cl"
#undef G
#undef GF

#define G g2
#define GF fp2
#include "group.cl"
#undef G
#undef GF
