/* test_fr_acc.c on the lazy accumulator's portable C path (what non-x86-64
 * hosts run): the same cases, the same reference; its "wide_consttime" case
 * runs under valgrind as ct_test_fr_acc_portable. */
#define FR_ACC_PORTABLE 1
#include "test_fr_acc.c"
