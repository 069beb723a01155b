/* cuzk-bench: the one home of the parsing and I/O helpers the circuit
 * commands share (sizes, hex, checked numbers, files, clocks, memory), so
 * every command spells an option's value the same way and reports a bad
 * value as an error instead of reading it as 0. */
#ifndef CUZK_BENCH_CLI_UTIL_H
#define CUZK_BENCH_CLI_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/srs_trust.h"

/* 2KiB 8MiB 512MiB 32GiB 64GiB (also 1KiB..32KiB, 16MiB, 1GiB) or a byte
 * count; 0 if not one. */
uint64_t cli_sector_size(const char *s);
/* 64 hex digits -> 32 bytes; -1 with a message naming `what`. */
int cli_hex32(uint8_t out[32], const char *hex, const char *what);
/* Whole decimal number; -1 with a message naming `what`. */
int cli_u64(uint64_t *out, const char *s, const char *what);
/* "K,L,..." into sel[k] = 1 (sel has n entries), each k < n partitions of
 * `what`; 0, or 2 after "<cmd>: --partitions ..." naming the bad entry. */
int cli_partition_list(uint8_t *sel, uint32_t n, const char *list, const char *cmd, const char *what);
/* Write a whole file; 1 with a message on error. */
int cli_write_file(const char *path, const void *b, size_t n);
/* cuzk_srs_params_load for a one-shot command, with allow_test_params on:
 * the user names the file, `cuzk-bench setup` writes TEST params under the
 * official names (with the .test marker), and the commands say "TEST
 * parameters" when they load one.  The daemon accepts such files only with
 * srs.allow_test_params. */
int cli_params_load(cuzk_groth16_params **out, const char *path, cuzk_srs_validate mode,
                    const cuzk_groth16_load_opts *lo, cuzk_srs_load_info *li);
/* Monotonic seconds; this process's CPU seconds (all threads). */
double cli_now(void);
double cli_cpu_now(void);
/* This process's system (kernel) CPU seconds: page faults show here. */
double cli_sys_now(void);
/* A "Key: N kB" line of /proc/self/status (VmHWM, RssAnon, ...), bytes; 0 if unknown. */
uint64_t cli_proc_status_bytes(const char *key);
/* Peak resident set of this process (VmHWM), bytes; 0 if unknown. */
uint64_t cli_peak_rss(void);

#endif
