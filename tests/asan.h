// IOBENCH_TEST_ASAN: defined in a build with AddressSanitizer, whose runtime makes calls and
// reserves address space of its own, which a few tests cannot tell from the product's.
#pragma once

// GCC says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define IOBENCH_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IOBENCH_TEST_ASAN 1
#endif
#endif
