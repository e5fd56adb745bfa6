// SHA-256 as FIPS 180-4 defines it. The x86 path follows the structure of Intel's SHA
// extensions guide (four rounds per group of two `sha256rnds2`, message words scheduled with
// `sha256msg1`/`sha256msg2`); the portable path is the specification's loop.
#include "CSHA256.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define QS_X86 1
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

void qs_sha256_init(uint32_t state[8]) {
    static const uint32_t initial[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(state, initial, sizeof(initial));
}

static inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void qs_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks) {
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; i++) {
            w[i] = (uint32_t)data[4 * i] << 24 | (uint32_t)data[4 * i + 1] << 16 | (uint32_t)data[4 * i + 2] << 8
                   | (uint32_t)data[4 * i + 3];
        }
        for (int i = 16; i < 64; i++) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
        uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
        for (int i = 0; i < 64; i++) {
            uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            h = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        state[0] += a;
        state[1] += b;
        state[2] += c;
        state[3] += d;
        state[4] += e;
        state[5] += f;
        state[6] += g;
        state[7] += h;
    }
}

#ifdef QS_X86
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_with_sha_extensions(uint32_t state[8],
                                                                                  const uint8_t *data,
                                                                                  size_t blocks) {
    const __m128i byteSwap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // The extensions keep the working variables as ABEF and CDGH.
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[0]), 0xB1); // CDAB
    __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&state[4]), 0x1B); // EFGH
    __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
    state1 = _mm_blend_epi16(state1, tmp, 0xF0); // CDGH

    for (; blocks > 0; blocks--, data += 64) {
        const __m128i savedABEF = state0;
        const __m128i savedCDGH = state1;
        __m128i message[4];
        // Sixteen groups of four rounds; message[g % 4] holds the group's four words.
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                message[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byteSwap);
            }
            __m128i words = _mm_add_epi32(message[g % 4], _mm_loadu_si128((const __m128i *)&K[4 * g]));
            state1 = _mm_sha256rnds2_epu32(state1, state0, words);
            if (g >= 3 && g <= 14) {
                // The next group's words: W[t] = σ1(W[t−2]) + W[t−7] + σ0(W[t−15]) + W[t−16].
                __m128i next = _mm_add_epi32(message[(g + 1) % 4],
                                             _mm_alignr_epi8(message[g % 4], message[(g + 3) % 4], 4));
                message[(g + 1) % 4] = _mm_sha256msg2_epu32(next, message[g % 4]);
            }
            words = _mm_shuffle_epi32(words, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, words);
            if (g >= 1 && g <= 12) {
                message[(g + 3) % 4] = _mm_sha256msg1_epu32(message[(g + 3) % 4], message[g % 4]);
            }
        }
        state0 = _mm_add_epi32(state0, savedABEF);
        state1 = _mm_add_epi32(state1, savedCDGH);
    }

    tmp = _mm_shuffle_epi32(state0, 0x1B); // FEBA
    state1 = _mm_shuffle_epi32(state1, 0xB1); // DCHG
    state0 = _mm_blend_epi16(tmp, state1, 0xF0); // DCBA
    state1 = _mm_alignr_epi8(state1, tmp, 8); // ABEF
    _mm_storeu_si128((__m128i *)&state[0], state0);
    _mm_storeu_si128((__m128i *)&state[4], state1);
}

static int cpu_has_sha_extensions(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}
#endif

// -1: not yet asked. A race between two first callers writes the same answer twice.
static volatile int usesExtensions = -1;

int qs_sha256_uses_cpu_extensions(void) {
    int answer = usesExtensions;
    if (answer < 0) {
#ifdef QS_X86
        answer = cpu_has_sha_extensions();
#else
        answer = 0;
#endif
        usesExtensions = answer;
    }
    return answer;
}

void qs_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks) {
#ifdef QS_X86
    if (qs_sha256_uses_cpu_extensions()) {
        blocks_with_sha_extensions(state, data, blocks);
        return;
    }
#endif
    qs_sha256_blocks_portable(state, data, blocks);
}

void qs_sha256_finish(const uint32_t state[8], uint64_t absorbed, const uint8_t *tail, size_t length,
                      uint8_t digest[32]) {
    uint32_t working[8];
    memcpy(working, state, sizeof(working));
    const size_t whole = length / 64;
    if (whole > 0) {
        qs_sha256_blocks(working, tail, whole);
        tail += 64 * whole;
    }
    const size_t rest = length - 64 * whole;
    // The rest, 0x80, zeros, and the message's length in bits (big-endian) in one or two blocks.
    uint8_t last[128] = {0};
    if (rest > 0) memcpy(last, tail, rest);
    last[rest] = 0x80;
    const size_t padded = rest + 9 <= 64 ? 64 : 128;
    const uint64_t bits = (absorbed + length) * 8;
    for (int i = 0; i < 8; i++) last[padded - 1 - i] = (uint8_t)(bits >> (8 * i));
    qs_sha256_blocks(working, last, padded / 64);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(working[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(working[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(working[i] >> 8);
        digest[4 * i + 3] = (uint8_t)working[i];
    }
}
