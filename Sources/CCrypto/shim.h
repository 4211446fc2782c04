// The whole of libcrypto's (OpenSSL's) C surface that Swift sees: SHA-256, with the state between
// blocks readable and settable so a receiver can save it and resume after a crash. OpenSSL 3 marks the
// SHA256_* functions deprecated in favour of EVP, whose context cannot be saved; they are the same
// code (hardware SHA instructions where the CPU has them), so they are used here, and only here.
//
// libcrypto is opened at the first hash (dlopen), not linked: loaded at start-up it costs every process
// ~400 kB of private pages (its relocations and tables) — phone-os and watch-os at rest, which never hash,
// included (docs/performance.md, "Light at rest"). Only its header is needed to build.
#ifndef RUNWAY_CCRYPTO_SHIM_H
#define RUNWAY_CCRYPTO_SHIM_H
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <openssl/sha.h>

struct runway_sha256_functions {
    int (*init)(SHA256_CTX *);
    int (*update)(SHA256_CTX *, const void *, size_t);
    int (*final)(unsigned char *, SHA256_CTX *);
};

/// libcrypto's SHA-256 functions, opened at the first call (once per process, under a lock; read without
/// it once ready). A library that cannot be opened is one line on stderr and an abort: the checksum of
/// every file transfer depends on it.
static inline const struct runway_sha256_functions *runway_sha256(void) {
    static struct runway_sha256_functions loaded;
    static int ready;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) return &loaded;
    pthread_mutex_lock(&lock);
    if (!ready) {
        void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
        if (!library) library = dlopen("libcrypto.so", RTLD_NOW | RTLD_LOCAL);
        if (library) {
            loaded.init = (int (*)(SHA256_CTX *))dlsym(library, "SHA256_Init");
            loaded.update = (int (*)(SHA256_CTX *, const void *, size_t))dlsym(library, "SHA256_Update");
            loaded.final = (int (*)(unsigned char *, SHA256_CTX *))dlsym(library, "SHA256_Final");
        }
        if (!loaded.init || !loaded.update || !loaded.final) {
            fprintf(stderr, "SHA-256: libcrypto (libcrypto.so.3, OpenSSL 3: apt-get install libssl3) could not be loaded: %s\n", dlerror());
            abort();
        }
        __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return &loaded;
}

static inline void runway_sha256_init(SHA256_CTX *c) { runway_sha256()->init(c); }
static inline void runway_sha256_update(SHA256_CTX *c, const void *p, size_t n) { runway_sha256()->update(c, p, n); }
static inline void runway_sha256_final(SHA256_CTX *c, unsigned char *digest) { runway_sha256()->final(digest, c); }

/// The chaining value's eight words, in order (host integers).
static inline uint32_t runway_sha256_word(const SHA256_CTX *c, int i) { return c->h[i]; }

/// A context resumed after `bytes` bytes (a whole number of 64-byte blocks) with chaining value `h`.
static inline void runway_sha256_resume(SHA256_CTX *c, const uint32_t *h, uint64_t bytes) {
    runway_sha256_init(c);
    for (int i = 0; i < 8; i++) c->h[i] = h[i];
    uint64_t bits = bytes * 8;
    c->Nl = (SHA_LONG)bits;
    c->Nh = (SHA_LONG)(bits >> 32);
    c->num = 0;
}
#endif
