/* Internal helpers shared by the files of src/circuits. */
#ifndef CUZK_CIRCUITS_POST_INTERNAL_H
#define CUZK_CIRCUITS_POST_INTERNAL_H

#include <stddef.h>

/* snprintf the message into err (if given) and return st. */

#endif
