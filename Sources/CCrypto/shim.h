// The whole of libcrypto's (OpenSSL's) C surface that Swift sees: SHA-256, with the state between
// blocks readable and settable so a receiver can save it and resume after a crash. OpenSSL 3 marks the
// SHA256_* functions deprecated in favour of EVP, whose context cannot be saved; they are the same
// code (hardware SHA instructions where the CPU has them), so they are used here, and only here.
#ifndef RUNWAY_CCRYPTO_SHIM_H
#define RUNWAY_CCRYPTO_SHIM_H
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <stdint.h>
#include <stddef.h>
#include <openssl/sha.h>

static inline void runway_sha256_init(SHA256_CTX *c) { SHA256_Init(c); }
static inline void runway_sha256_update(SHA256_CTX *c, const void *p, size_t n) { SHA256_Update(c, p, n); }
static inline void runway_sha256_final(SHA256_CTX *c, unsigned char *digest) { SHA256_Final(digest, c); }

/// The chaining value's eight words, in order (host integers).
static inline uint32_t runway_sha256_word(const SHA256_CTX *c, int i) { return c->h[i]; }

/// A context resumed after `bytes` bytes (a whole number of 64-byte blocks) with chaining value `h`.
static inline void runway_sha256_resume(SHA256_CTX *c, const uint32_t *h, uint64_t bytes) {
    SHA256_Init(c);
    for (int i = 0; i < 8; i++) c->h[i] = h[i];
    uint64_t bits = bytes * 8;
    c->Nl = (SHA_LONG)bits;
    c->Nh = (SHA_LONG)(bits >> 32);
    c->num = 0;
}
#endif
