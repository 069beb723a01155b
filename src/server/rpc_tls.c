/* PEM files for TLS, read and checked before gRPC sees them (gRPC would
 * only fail later with a vague "cannot listen" or "connection failed"):
 * shared by the daemon's server credentials (server_access.c) and
 * cuzk-bench's client credentials.  Contract in rpc.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include "cuzk/status.h"
#include "rpc.h"

int cuzk_rpc_pem_read(char **out, const char *what, const char *path, char *err, size_t err_len)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return cuzk_errf(err, err_len, CUZK_ERR_IO, "%s %s: %s", what, path, strerror(errno));
    size_t cap = 1u << 20;
    char *buf = malloc(cap + 1);
    size_t n = buf ? fread(buf, 1, cap + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf) return cuzk_errf(err, err_len, CUZK_ERR_NOMEM, "%s %s: out of memory", what, path);
    if (bad || n > cap || !n) {
        free(buf);
        return cuzk_errf(err, err_len, CUZK_ERR_IO, "%s %s: %s", what, path,
                         bad ? "read error"
                         : n ? "larger than 1 MiB, not a PEM file"
                             : "empty file");
    }
    buf[n] = 0;
    *out = buf;
    return CUZK_OK;
}

int cuzk_rpc_pem_check(const cuzk_rpc_pem *cert, const cuzk_rpc_pem *key, const cuzk_rpc_pem *ca, char *err,
                       size_t err_len)
{
    BIO *b;
    X509 *c = NULL, *a = NULL;
    EVP_PKEY *k = NULL;
    if (cert && (b = BIO_new_mem_buf(cert->text, -1))) {
        c = PEM_read_bio_X509(b, NULL, NULL, NULL);
        BIO_free(b);
    }
    if (key && (b = BIO_new_mem_buf(key->text, -1))) {
        k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
        BIO_free(b);
    }
    if (ca && (b = BIO_new_mem_buf(ca->text, -1))) {
        a = PEM_read_bio_X509(b, NULL, NULL, NULL);
        BIO_free(b);
    }
    int rc = CUZK_OK;
    if (cert && !c)
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s %s: no PEM certificate", cert->what, cert->path);
    else if (key && !k)
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT,
                       "%s %s: no PEM private key (an encrypted key is not supported)", key->what, key->path);
    else if (c && k && X509_check_private_key(c, k) != 1)
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s %s is not the key of %s %s", key->what, key->path,
                       cert->what, cert->path);
    else if (ca && !a)
        rc = cuzk_errf(err, err_len, CUZK_ERR_FORMAT, "%s %s: no PEM certificate", ca->what, ca->path);
    X509_free(c);
    X509_free(a);
    EVP_PKEY_free(k);
    return rc;
}
