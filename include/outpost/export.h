/*
 * OUTPOST_API marks what liboutpost exports: the classes and functions of
 * the public headers in this folder, and nothing else. The library is built
 * with hidden visibility by default and a linker version script
 * (src/lib/liboutpost.map), so an internal function can never become part
 * of the ABI by accident; the exported symbols are checked against a
 * committed list for every architecture the project builds
 * (src/lib/symbols/). C and C++.
 */
#ifndef OUTPOST_EXPORT_H
#define OUTPOST_EXPORT_H

#if defined(__cplusplus) && (defined(__GNUC__) || defined(__clang__))
/* The standard attribute form, which may follow other attributes
 * ("class [[nodiscard]] OUTPOST_API Status"). */
#define OUTPOST_API [[gnu::visibility("default")]]
/* A member of an exported class that is not part of the ABI: a private
 * constructor that takes the class's internal state. */
#define OUTPOST_LOCAL [[gnu::visibility("hidden")]]
#elif defined(__GNUC__) || defined(__clang__)
#define OUTPOST_API __attribute__((visibility("default")))
#else
#define OUTPOST_API
#endif
#ifndef OUTPOST_LOCAL
#define OUTPOST_LOCAL
#endif

#endif /* OUTPOST_EXPORT_H */
