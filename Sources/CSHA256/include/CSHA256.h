#ifndef QUEUESIM_CSHA256_H
#define QUEUESIM_CSHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256 (FIPS 180-4) for the room's per-visitor HMAC: a state of eight words that a caller
/// copies by value, so a prepared HMAC key costs no allocation per message. The compression
/// uses the CPU's SHA extensions where it has them (checked once), portable C elsewhere.

/// Sets `state` to SHA-256's initial value.
void qs_sha256_init(uint32_t state[8]);

/// Runs the compression function over `blocks` 64-byte blocks at `data`.
void qs_sha256_blocks(uint32_t state[8], const uint8_t *data, size_t blocks);

/// Finishes a hash whose `state` has absorbed `absorbed` bytes (a multiple of 64) and still
/// has `length` bytes at `tail` to take: pads, and writes the 32-byte digest to `digest`.
void qs_sha256_finish(const uint32_t state[8], uint64_t absorbed, const uint8_t *tail, size_t length,
                      uint8_t digest[32]);

/// 1 when the SHA extensions are used, 0 when the portable compression is.
int qs_sha256_uses_cpu_extensions(void);

/// The portable compression, whatever the CPU (for tests that compare the two).
void qs_sha256_blocks_portable(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
