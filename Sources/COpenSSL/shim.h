#ifndef QUEUESIM_COPENSSL_SHIM_H
#define QUEUESIM_COPENSSL_SHIM_H
// The system's OpenSSL (libssl-dev): the live engine's TLS client for iOS visitors, which
// resumes sessions (swift-nio-ssl's BoringSSL has no client session API). BoringSSL's symbols
// in swift-nio-ssl are prefixed (CNIOBoringSSL_), so both link into one binary.
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

// The macros Swift cannot call, as functions.

/// SNI (`SSL_set_tlsext_host_name`). 1 on success.
static inline int queuesim_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// A client context that hands every new session to its callback and keeps none itself
/// (the caller keeps one per device and host), frees idle connections' buffers, and speaks
/// TLS 1.2 at least, as the phones' stacks do.
static inline void queuesim_ssl_ctx_configure_client(SSL_CTX *ctx) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// `BIO_set_mem_eof_return(bio, -1)`: an empty memory BIO reads as "try again", not EOF.
static inline void queuesim_bio_set_mem_retry(BIO *bio) {
    BIO_set_mem_eof_return(bio, -1);
}

/// The handler an SSL belongs to (`SSL_set_app_data`, `SSL_get_app_data`).
static inline void queuesim_ssl_set_app_data(SSL *ssl, void *data) { SSL_set_app_data(ssl, data); }
static inline void *queuesim_ssl_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }

#endif
