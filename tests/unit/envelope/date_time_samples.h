// RFC 3339 date-times and near misses: the date check's own test and the
// schema agreement corpus use the same samples.
#ifndef OUTPOST_TESTS_ENVELOPE_DATE_TIME_SAMPLES_H
#define OUTPOST_TESTS_ENVELOPE_DATE_TIME_SAMPLES_H

#include <string>
#include <vector>

namespace outpost::testing {

inline const std::vector<std::string>& good_date_times() {
    static const std::vector<std::string> samples = {"2023-11-14T22:13:20.000Z",
                                                     "2023-11-14t22:13:20z",
                                                     "2024-02-29T00:00:00Z",
                                                     "2000-02-29T00:00:00Z",
                                                     "2023-01-01T23:59:60Z",
                                                     "2023-01-01T00:00:00+23:59",
                                                     "0000-01-01T00:00:00.000Z",
                                                     "9999-12-31T23:59:59.999Z",
                                                     "2023-01-01T00:00:00.123456789-05:30"};
    return samples;
}

inline const std::vector<std::string>& bad_date_times() {
    static const std::vector<std::string> samples = {"",
                                                     "yesterday",
                                                     "2023-02-29T00:00:00Z",
                                                     "1900-02-29T00:00:00Z",
                                                     "2023-04-31T00:00:00Z",
                                                     "2023-13-01T00:00:00Z",
                                                     "2023-00-01T00:00:00Z",
                                                     "2023-01-00T00:00:00Z",
                                                     "2023-01-01T24:00:00Z",
                                                     "2023-01-01T23:60:00Z",
                                                     "2023-01-01T23:59:61Z",
                                                     "2023-01-01T00:00:00-24:00",
                                                     "2023-01-01T00:00:00+01:60",
                                                     "2023-01-01T00:00:00.Z",
                                                     "2023-01-01T00:00:00",
                                                     "2023-01-01 00:00:00Z",
                                                     "2023-01-01T00:00:00ZZ",
                                                     "2023-01-01T00:00:00+0100",
                                                     "+2023-01-01T00:00:00Z",
                                                     "2023-1-01T00:00:00Z"};
    return samples;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_ENVELOPE_DATE_TIME_SAMPLES_H
