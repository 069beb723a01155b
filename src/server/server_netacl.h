/* Networks in CIDR form and the peer addresses gRPC reports: what
 * daemon.allow_plaintext_from is made of and checked against (protected
 * mode, server_access.h).  Pure functions, no allocation, no gRPC: unit-
 * tested in tests/server/netacl.c.
 *
 * Every address is held as 16 bytes: an IPv4 address as its IPv4-mapped
 * IPv6 form ::ffff:a.b.c.d, and an IPv4 network a.b.c.d/n as
 * ::ffff:a.b.c.d/(96 + n).  So one matcher serves both families, and a
 * dual-stack listener's mapped peer (::ffff:10.1.2.3) matches the IPv4
 * rule 10.1.2.0/24 as the same host would over IPv4.  (A consequence to
 * know: ::/0 contains every IPv4 address too.) */
#ifndef CUZK_SERVER_NETACL_H
#define CUZK_SERVER_NETACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"

typedef struct cuzk_net {
    uint8_t addr[16]; /* network address, host bits zero */
    uint8_t bits;     /* prefix length over the 128 bits (IPv4: 96 + n) */
} cuzk_net;

/* "10.1.2.0/24", "fd00::/8", "::ffff:10.0.0.0/104", or a single address
 * ("10.1.2.3" = /32, "fd00::1" = /128).  Refused, with a message that says
 * what is wrong (and the network meant, for host bits): empty text, text
 * that is not an address (names, "10.1.2", leading zeros "010.1.2.3",
 * zones "fe80::1%eth0", brackets), a prefix that is not a decimal number
 * in 0..32 (IPv4) or 0..128 (IPv6), and an address with bits set past its
 * prefix ("10.1.2.5/24": did you mean 10.1.2.0/24?). */
CUZK_MUST_CHECK int cuzk_net_parse(cuzk_net *out, const char *text, char *err, size_t err_len);

/* True when addr (16 bytes, IPv4 mapped) lies in n. */
bool cuzk_net_contains(const cuzk_net *n, const uint8_t addr[16]);

/* n as text that cuzk_net_parse reads back to n ("10.1.2.0/24",
 * "fd00::/8"); cap >= 64 always fits. */
void cuzk_net_format(char *out, size_t cap, const cuzk_net *n);

/* The address of a gRPC peer string (grpc_call_get_peer): "ipv4:A:PORT",
 * "ipv6:[A]:PORT" or its percent-encoded form "ipv6:%5BA%5D:PORT" (gRPC
 * 1.51 writes that), with an optional zone ("%25eth0") dropped.  IPv4 and
 * IPv4-mapped IPv6 both come out mapped.  False for anything else
 * ("unix:...", garbage): such a peer matches no network. */
bool cuzk_net_peer_addr(uint8_t out[16], const char *peer);

/* 127.0.0.0/8 (also mapped) or ::1. */
bool cuzk_net_is_loopback(const uint8_t addr[16]);

#endif
