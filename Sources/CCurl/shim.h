#ifndef SCHEMEBRIDGE_CCURL_SHIM_H
#define SCHEMEBRIDGE_CCURL_SHIM_H

/*
 * libcurl (the OpenSSL flavour, libcurl4-openssl-dev) for app-link verification
 * (Sources/SchemeBridgeCore/AppLinks), loaded when the first host is fetched (dlopen), not
 * linked: linked, libcurl and the ~35 libraries it needs (OpenSSL, GnuTLS, Kerberos, LDAP,
 * SSH, ...) were loaded and relocated at every start of the service, before its first answer,
 * whether or not any app declares app links (issue 36). curl_easy_setopt and curl_easy_getinfo
 * are variadic, which Swift cannot call: these wrappers give each argument type its own
 * function.
 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <idn2.h>
#include <stddef.h>

/* The libcurl functions used, from libcurl.so.4. */
typedef struct sb_curl {
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    CURLHcode (*easy_header)(CURL *, const char *, size_t, unsigned int, int, struct curl_header **);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} sb_curl;

/* Fills `c` from libcurl.so.4 (kept loaded) and initialises libcurl (curl_global_init, once
 * per process: the caller keeps the result); 0 when it cannot be loaded (not installed, or too
 * old to have a function used) or initialised. */
static inline int sb_curl_load(sb_curl *c) {
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(lib, "curl_global_init");
    c->easy_init = (CURL *(*)(void))dlsym(lib, "curl_easy_init");
    c->easy_cleanup = (void (*)(CURL *))dlsym(lib, "curl_easy_cleanup");
    c->easy_perform = (CURLcode (*)(CURL *))dlsym(lib, "curl_easy_perform");
    c->easy_strerror = (const char *(*)(CURLcode))dlsym(lib, "curl_easy_strerror");
    c->easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(lib, "curl_easy_setopt");
    c->easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(lib, "curl_easy_getinfo");
    c->easy_header = (CURLHcode (*)(CURL *, const char *, size_t, unsigned int, int, struct curl_header **))dlsym(lib, "curl_easy_header");
    c->slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))dlsym(lib, "curl_slist_append");
    c->slist_free_all = (void (*)(struct curl_slist *))dlsym(lib, "curl_slist_free_all");
    return global_init && c->easy_init && c->easy_cleanup && c->easy_perform && c->easy_strerror && c->easy_setopt
        && c->easy_getinfo && c->easy_header && c->slist_append && c->slist_free_all && global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

static inline CURL *sb_curl_easy_init(const sb_curl *c) { return c->easy_init(); }
static inline void sb_curl_easy_cleanup(const sb_curl *c, CURL *h) { c->easy_cleanup(h); }
static inline CURLcode sb_curl_easy_perform(const sb_curl *c, CURL *h) { return c->easy_perform(h); }
static inline const char *sb_curl_easy_strerror(const sb_curl *c, CURLcode rc) { return c->easy_strerror(rc); }
static inline struct curl_slist *sb_curl_slist_append(const sb_curl *c, struct curl_slist *l, const char *s) { return c->slist_append(l, s); }
static inline void sb_curl_slist_free_all(const sb_curl *c, struct curl_slist *l) { c->slist_free_all(l); }

static inline CURLcode sb_curl_setopt_long(const sb_curl *c, CURL *h, CURLoption o, long v) { return c->easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_string(const sb_curl *c, CURL *h, CURLoption o, const char *v) { return c->easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_pointer(const sb_curl *c, CURL *h, CURLoption o, void *v) { return c->easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_list(const sb_curl *c, CURL *h, CURLoption o, struct curl_slist *v) { return c->easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_offset(const sb_curl *c, CURL *h, CURLoption o, curl_off_t v) { return c->easy_setopt(h, o, v); }

typedef size_t (*sb_curl_write_fn)(char *data, size_t size, size_t count, void *user);
static inline CURLcode sb_curl_setopt_write(const sb_curl *c, CURL *h, sb_curl_write_fn f, void *user) {
    CURLcode rc = c->easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
    return rc != CURLE_OK ? rc : c->easy_setopt(h, CURLOPT_WRITEDATA, user);
}

static inline long sb_curl_info_long(const sb_curl *c, CURL *h, CURLINFO i) { long v = 0; return c->easy_getinfo(h, i, &v) == CURLE_OK ? v : -1; }
static inline const char *sb_curl_info_string(const sb_curl *c, CURL *h, CURLINFO i) { char *v = NULL; return c->easy_getinfo(h, i, &v) == CURLE_OK ? v : NULL; }

/* The first value of response header `name` of the last response, or NULL. */
static inline const char *sb_curl_header(const sb_curl *c, CURL *h, const char *name) {
    struct curl_header *out = NULL;
    return c->easy_header(h, name, 0, CURLH_HEADER, -1, &out) == CURLHE_OK && out ? out->value : NULL;
}

/* `host` (UTF-8) as IDNA 2008 ASCII (UTS 46 non-transitional mapping: upper case folded,
 * NFC), the `xn--` form; NULL when it cannot be one. Free the result with idn2_free. libidn2
 * is the library libcurl itself resolves names with (libidn2-dev comes with libcurl4-openssl-dev). */
static inline char *sb_idn2_ascii_host(const char *host) {
    char *out = NULL;
    return idn2_to_ascii_8z(host, &out, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) == IDN2_OK ? out : NULL;
}

#endif
