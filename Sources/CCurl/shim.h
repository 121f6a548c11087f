#ifndef SCHEMEBRIDGE_CCURL_SHIM_H
#define SCHEMEBRIDGE_CCURL_SHIM_H

/*
 * libcurl (the OpenSSL flavour, libcurl4-openssl-dev) for app-link verification
 * (Sources/SchemeBridgeCore/AppLinks). curl_easy_setopt and curl_easy_getinfo are
 * variadic, which Swift cannot call: these wrappers give each argument type its own
 * function.
 */
#include <curl/curl.h>
#include <idn2.h>

static inline CURLcode sb_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_list(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode sb_curl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*sb_curl_write_fn)(char *data, size_t size, size_t count, void *user);
static inline CURLcode sb_curl_setopt_write(CURL *h, sb_curl_write_fn f, void *user) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_WRITEDATA, user);
}

static inline long sb_curl_info_long(CURL *h, CURLINFO i) { long v = 0; return curl_easy_getinfo(h, i, &v) == CURLE_OK ? v : -1; }
static inline const char *sb_curl_info_string(CURL *h, CURLINFO i) { char *v = NULL; return curl_easy_getinfo(h, i, &v) == CURLE_OK ? v : NULL; }

/* The first value of response header `name` of the last response, or NULL. */
static inline const char *sb_curl_header(CURL *h, const char *name) {
    struct curl_header *out = NULL;
    return curl_easy_header(h, name, 0, CURLH_HEADER, -1, &out) == CURLHE_OK && out ? out->value : NULL;
}

/* `host` (UTF-8) as IDNA 2008 ASCII (UTS 46 non-transitional mapping: upper case folded,
 * NFC), the `xn--` form; NULL when it cannot be one. Free the result with idn2_free. libidn2
 * is the library libcurl itself resolves names with (libidn2-dev comes with libcurl4-openssl-dev). */
static inline char *sb_idn2_ascii_host(const char *host) {
    char *out = NULL;
    return idn2_to_ascii_8z(host, &out, IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT) == IDN2_OK ? out : NULL;
}

#endif
