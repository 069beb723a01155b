#include "bench.h"

const struct micro_op micro_ops_pairing[] = {
    {0, 0, 0},
};
