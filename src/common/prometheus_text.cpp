#include "common/prometheus_text.h"

#include <cmath>
#include <cstdio>

namespace outpost {

void PrometheusText::family(const char* name, const char* type, const char* help) {
    out_ << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

void PrometheusText::seconds_gauge(const char* name, const char* help, int64_t milliseconds) {
    family(name, "gauge", help);
    if (milliseconds < 0) return;
    char text[32];
    std::snprintf(text, sizeof text, "%.3f", static_cast<double>(milliseconds) / 1000.0);
    out_ << name << ' ' << text << '\n';
}

std::string PrometheusText::labels(const PrometheusLabels& pairs) {
    if (pairs.empty()) return "";
    std::string text = "{";
    for (const auto& [name, value] : pairs) {
        if (text.size() > 1) text += ',';
        text += name + "=\"";
        for (const char c : value) {
            if (c == '\\' || c == '"') {
                text += '\\';
                text += c;
            } else if (c == '\n') {
                text += "\\n";
            } else {
                text += c;
            }
        }
        text += '"';
    }
    return text + "}";
}

std::string PrometheusText::number(double value) {
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

}  // namespace outpost
