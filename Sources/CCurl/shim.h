#include <curl/curl.h>

// curl_easy_setopt is variadic, which Swift cannot call; these typed wrappers can.
static inline CURLcode modeld_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode modeld_curl_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode modeld_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode modeld_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }

// Callback setters: a C function pointer passed through the variadic call keeps its exact type.
static inline CURLcode modeld_curl_setopt_write_fn(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f); }
static inline CURLcode modeld_curl_setopt_read_fn(CURL *h, curl_read_callback f) { return curl_easy_setopt(h, CURLOPT_READFUNCTION, f); }
static inline CURLcode modeld_curl_setopt_trailer_fn(CURL *h, curl_trailer_callback f) { return curl_easy_setopt(h, CURLOPT_TRAILERFUNCTION, f); }
static inline CURLcode modeld_curl_setopt_xferinfo_fn(CURL *h, curl_xferinfo_callback f) { return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f); }
static inline CURLcode modeld_curl_setopt_header_fn(CURL *h, curl_write_callback f) { return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f); }
