# Turns a file into a C array at build time (the status page, status_page.html):
#   cmake -DIN=page.html -DOUT=page.c -DNAME=symbol -P embed.cmake
# writes `const unsigned char NAME[]` (the bytes, then a NUL) and
# `const size_t NAME_len` (the bytes without the NUL).
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR len "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE "${OUT}.tmp"
     "/* Generated from ${IN} by embed.cmake: do not edit. */\n#include <stddef.h>\n\n"
     "const unsigned char ${NAME}[] = {\n${body}0x00};\nconst size_t ${NAME}_len = ${len};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
