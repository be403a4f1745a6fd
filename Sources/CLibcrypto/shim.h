// The system's OpenSSL libcrypto (Linux only): SHA-256 and Ed25519 for CryptoPrimitives.
// SHA256_Init/Update/Final are deprecated in OpenSSL 3 in favour of EVP, but their context is a
// plain struct, which gives the Swift type value semantics (a copy hashes on independently) and
// costs no provider lookup per block; they remain in 3.x and use the same SHA-NI code as EVP.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <openssl/evp.h>
