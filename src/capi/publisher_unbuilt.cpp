// The publisher calls in a build without MQTT (-Dmqtt=disabled): declared
// by outpost_c.h as always, answering OUTPOST_NOT_BUILT. No handle can
// exist, so stop, status and free only ever see NULL.
#include <cstring>

#include "capi/error.h"

using namespace outpost::capi;

extern "C" {

outpost_code outpost_publisher_start(outpost_store*, const outpost_publisher_options*,
                                     outpost_publisher** publisher_out, outpost_error* error) {
    if (publisher_out != nullptr) *publisher_out = nullptr;
    return fail(error, OUTPOST_NOT_BUILT,
                "this Outpost was built without MQTT (-Dmqtt=disabled): there is no publisher");
}

outpost_code outpost_publisher_stop(outpost_publisher*, uint32_t, outpost_error* error) {
    return fail(error, OUTPOST_INVALID_ARGUMENT, "outpost_publisher_stop: publisher is NULL");
}

outpost_code outpost_publisher_get_status_sized(outpost_publisher*, outpost_publisher_status* status,
                                                size_t struct_size, outpost_error* error) {
    if (status != nullptr) std::memset(status, 0, struct_size);
    return fail(error, OUTPOST_INVALID_ARGUMENT, "outpost_publisher_get_status: publisher is NULL");
}

void outpost_publisher_free(outpost_publisher*) {}

}  // extern "C"
