#include "common/rfc3339.h"

#include <algorithm>
#include <cstdio>

namespace outpost {
namespace {

constexpr std::int64_t kMsPerDay = 86'400'000;
constexpr std::int64_t kDaysPer400Years = 146'097;
// Days from 0000-01-01 to 1970-01-01 (1970 years, 478 of them leap years).
constexpr std::int64_t kDaysBefore1970 = 719'528;

bool is_leap(std::int64_t year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int days_in_month(std::int64_t year, int month) {
    static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap(year) ? 29 : kDays[month - 1];
}

// The value of text[from, from + count) as decimal digits, or -1.
int number_at(const std::string& text, std::size_t from, std::size_t count) {
    if (from + count > text.size()) return -1;
    int value = 0;
    for (std::size_t i = from; i < from + count; ++i) {
        if (text[i] < '0' || text[i] > '9') return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

bool in_range(int value, int low, int high) {
    return value >= low && value <= high;
}

}  // namespace

std::string format_rfc3339_ms(std::int64_t unix_ms) {
    const std::int64_t ms = std::clamp(unix_ms, kFirstRfc3339Ms, kLastRfc3339Ms);
    // Counted from 0000-01-01, everything is non-negative from here on.
    const std::int64_t since_year_0 = ms - kFirstRfc3339Ms;
    std::int64_t days = since_year_0 / kMsPerDay;
    const std::int64_t ms_of_day = since_year_0 % kMsPerDay;

    std::int64_t year = days / kDaysPer400Years * 400;  // the calendar repeats every 400 years
    days %= kDaysPer400Years;
    while (days >= (is_leap(year) ? 366 : 365)) days -= is_leap(year++) ? 366 : 365;
    int month = 1;
    while (days >= days_in_month(year, month)) days -= days_in_month(year, month++);

    char text[64];  // 24 used; room for what the compiler cannot prove of the ranges
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", static_cast<int>(year),
                  month, static_cast<int>(days) + 1, static_cast<int>(ms_of_day / 3'600'000),
                  static_cast<int>(ms_of_day / 60'000 % 60),
                  static_cast<int>(ms_of_day / 1000 % 60), static_cast<int>(ms_of_day % 1000));
    return text;
}

static_assert(kDaysBefore1970 * kMsPerDay == -kFirstRfc3339Ms,
              "0000-01-01 is 719528 days before 1970");

bool is_rfc3339_date_time(const std::string& text) {
    const int year = number_at(text, 0, 4);
    const int month = number_at(text, 5, 2);
    const int day = number_at(text, 8, 2);
    if (year < 0 || text.size() < 20 || text[4] != '-' || text[7] != '-' ||
        !in_range(month, 1, 12) || !in_range(day, 1, days_in_month(year, month)) ||
        (text[10] != 'T' && text[10] != 't') || text[13] != ':' || text[16] != ':' ||
        !in_range(number_at(text, 11, 2), 0, 23) || !in_range(number_at(text, 14, 2), 0, 59) ||
        !in_range(number_at(text, 17, 2), 0, 60)) {
        return false;
    }
    std::size_t at = 19;
    if (text[at] == '.') {
        const std::size_t first_digit = ++at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
        if (at == first_digit) return false;
    }
    if (at + 1 == text.size()) return text[at] == 'Z' || text[at] == 'z';
    return at + 6 == text.size() && (text[at] == '+' || text[at] == '-') &&
           in_range(number_at(text, at + 1, 2), 0, 23) && text[at + 3] == ':' &&
           in_range(number_at(text, at + 4, 2), 0, 59);
}

}  // namespace outpost
