/* Internal helpers shared by the files of src/circuits. */
#ifndef CUZK_CIRCUITS_POST_INTERNAL_H
#define CUZK_CIRCUITS_POST_INTERNAL_H

#include <stddef.h>

/* snprintf the message into err (if given) and return st. */
int cuzk_post_errf(char *err, size_t len, int st, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
