// What every fuzz target uses to state a property: FUZZ_CHECK(condition,
// what) aborts with the property's text when it does not hold, so that
// libFuzzer records the input as a crash and its log names the broken
// promise (not only "no crash": each target checks what its code promises).
#ifndef OUTPOST_FUZZ_FUZZ_CHECK_H
#define OUTPOST_FUZZ_FUZZ_CHECK_H

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(condition, what)                                                                \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "fuzz property broken at %s:%d: %s\n", __FILE__, __LINE__, what); \
            std::abort();                                                                          \
        }                                                                                          \
    } while (0)

#endif  // OUTPOST_FUZZ_FUZZ_CHECK_H
