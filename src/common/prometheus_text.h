// The Prometheus text exposition format (0.0.4), as every Outpost program
// writes it: each family with # HELP and # TYPE, names outpost_*, units in
// the name (seconds, bytes), counters ending in _total, label values escaped.
// outpostd (daemon/prometheus.cpp) and outpost-bridge (bridge/ops/metrics.cpp)
// choose their families; this class only spells them.
#ifndef OUTPOST_COMMON_PROMETHEUS_TEXT_H
#define OUTPOST_COMMON_PROMETHEUS_TEXT_H

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace outpost {

inline constexpr char kPrometheusContentType[] = "text/plain; version=0.0.4; charset=utf-8";

// Label pairs in the order written: {{"client_id", "bridge-1"}}.
using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

// Builds one scrape's text. Not thread-safe; one per scrape.
class PrometheusText final {
  public:
    // One family with a single unlabelled sample.
    template <typename Number>
    void gauge(const char* name, const char* help, Number value) {
        family(name, "gauge", help);
        sample(name, "", value);
    }
    template <typename Number>
    void counter(const char* name, const char* help, Number value) {
        family(name, "counter", help);
        sample(name, "", value);
    }
    // The # HELP and # TYPE lines; the samples follow with sample().
    void family(const char* name, const char* type, const char* help);
    // `labels` is "" or already rendered ("{reason=\"x\"}", see labels()).
    template <typename Number>
    void sample(const char* name, const std::string& labels, Number value) {
        out_ << name << labels << ' ' << value << '\n';
    }
    // Milliseconds as seconds; negative (unknown) values are left out.
    void seconds_gauge(const char* name, const char* help, int64_t milliseconds);
    // "{a=\"1\",b=\"x\\\"y\"}" with \, " and newline escaped; "" for none.
    static std::string labels(const PrometheusLabels& pairs);
    // A number the way Prometheus parses it ("0.000128", "+Inf").
    static std::string number(double value);

    std::string text() const { return out_.str(); }

  private:
    std::ostringstream out_;
};

}  // namespace outpost

#endif  // OUTPOST_COMMON_PROMETHEUS_TEXT_H
