/* The live status page served at / of the HTTP status listener (http.c):
 * status_page.html, one self-contained document (HTML, CSS and the script
 * that polls /status of the same origin), turned into this array at build
 * time by embed.cmake.  Read-only, static storage; len excludes the NUL
 * that follows the bytes. */
#ifndef CUZK_SERVER_STATUS_PAGE_H
#define CUZK_SERVER_STATUS_PAGE_H

#include <stddef.h>

extern const unsigned char cuzk_srv_status_page[];
extern const size_t cuzk_srv_status_page_len;

#endif
