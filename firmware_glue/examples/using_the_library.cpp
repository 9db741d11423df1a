// The README's "Using the library" example as a whole program: scripts/test
// builds it against a staged install (meson install --destdir) with nothing
// but `pkg-config --cflags --libs outpost`, runs it, and checks that the
// README's code block is this file's, line for line.
//
//   using_the_library DB_PATH
//
// Opens (creates) the store at DB_PATH, records one alarm, starts the
// publisher towards tcp://127.0.0.1:1883 (no broker is needed: the alarm
// stays PENDING), prints the alarm's eventId and seq, and stops. Exits 0 on
// success, 1 with the error on stderr otherwise.
#include <cstdio>
#include <string>

#include "outpost/publisher.h"
#include "outpost/store.h"

namespace {

outpost::Status run(const std::string& db_path) {
    // README: begin
    outpost::StoreOptions options;
    options.gateway_id = "gw-0042";
    auto store = outpost::Store::open(db_path, options);  // e.g. /var/lib/outpost/outbox.db
    if (!store) return store.status();                    // .to_string() says what and why

    outpost::Alarm alarm;
    alarm.device_id = "pump-3";
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = outpost::Severity::kCritical;
    alarm.value = 97.5;
    alarm.idempotency_key = "boot-17/alarm-5";      // optional: makes retries safe
    auto recorded = (*store)->record_alarm(alarm);  // returns once durable
    if (!recorded) return recorded.status();
    // recorded->event_id (UUIDv7), recorded->seq (per device)

    outpost::PublisherOptions publisher_options;
    publisher_options.endpoint.uri = "tcp://127.0.0.1:1883";
    auto publisher = outpost::Publisher::start(**store, publisher_options);
    if (!publisher) return publisher.status();
    // README: end

    std::printf("recorded %s seq %lld\n", recorded->event_id.c_str(),
                static_cast<long long>(recorded->seq));
    return (*publisher)->stop();
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fputs("usage: using_the_library DB_PATH\n", stderr);
        return 2;
    }
    auto status = run(argv[1]);
    if (!status) {
        std::fprintf(stderr, "using_the_library: %s\n", status.to_string().c_str());
        return 1;
    }
    return 0;
}
