/*
 * raise_alarm: records one alarm through outpostd's ingestion socket, in
 * plain C with nothing but libc, the way firmware that cannot link C++ does
 * it. See firmware_glue/ingest-protocol.md for the protocol.
 *
 *   raise_alarm [-s SOCKET] [-k IDEMPOTENCY_KEY] DEVICE_ID ALARM_TYPE SEVERITY [TEXT]
 *
 * Prints the eventId (the alarm is durable) and exits 0; prints outpostd's
 * answer or the socket error on stderr and exits 1 otherwise. If no answer
 * arrives the alarm may or may not be recorded: send it again with the same
 * key. A real client would use a JSON parser; this one looks for two fields.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define DEFAULT_SOCKET "/run/outpost/outpostd.sock"
#define MAX_LINE 8192

/* Appends `text` to `out` as a JSON string; returns 0 if it did not fit. */
static int append_json_string(char* out, size_t size, const char* text) {
    size_t used = strlen(out);
    if (used + 1 >= size) return 0;
    out[used++] = '"';
    for (const unsigned char* c = (const unsigned char*)text; *c; ++c) {
        char escaped[8];
        if (*c == '"' || *c == '\\') {
            snprintf(escaped, sizeof escaped, "\\%c", *c);
        } else if (*c < 0x20) {
            snprintf(escaped, sizeof escaped, "\\u%04x", *c);
        } else {
            escaped[0] = (char)*c;
            escaped[1] = '\0';
        }
        size_t length = strlen(escaped);
        if (used + length + 2 >= size) return 0;
        memcpy(out + used, escaped, length);
        used += length;
    }
    out[used++] = '"';
    out[used] = '\0';
    return 1;
}

static int append(char* out, size_t size, const char* text) {
    size_t used = strlen(out);
    size_t length = strlen(text);
    if (used + length + 1 > size) return 0;
    memcpy(out + used, text, length + 1);
    return 1;
}

static int connect_socket(const char* path) {
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address.sun_path) {
        fprintf(stderr, "raise_alarm: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
        /* ENOENT: outpostd not started; ECONNREFUSED: stale socket, not
         * running; EACCES: not in the socket's group. */
        fprintf(stderr, "raise_alarm: cannot connect to %s: %s\n", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

/* Sends `request` and reads one answer line into `answer`. */
static int exchange(int fd, const char* request, char* answer, size_t size) {
    size_t length = strlen(request);
    for (size_t sent = 0; sent < length;) {
        ssize_t n = send(fd, request + sent, length - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        sent += (size_t)n;
    }
    size_t used = 0;
    while (used + 1 < size) {
        ssize_t n = read(fd, answer + used, size - 1 - used);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        used += (size_t)n;
        answer[used] = '\0';
        char* newline = strchr(answer, '\n');
        if (newline) {
            *newline = '\0';
            return 1;
        }
    }
    return 0;
}

int main(int argc, char** argv) {
    const char* socket_path = DEFAULT_SOCKET;
    const char* key = NULL;
    int option;
    while ((option = getopt(argc, argv, "s:k:")) != -1) {
        if (option == 's')
            socket_path = optarg;
        else if (option == 'k')
            key = optarg;
        else
            return 2;
    }
    if (argc - optind < 3 || argc - optind > 4) {
        fprintf(
            stderr,
            "usage: raise_alarm [-s SOCKET] [-k KEY] DEVICE_ID ALARM_TYPE SEVERITY [TEXT]\n"
            "SEVERITY: info, warning, minor, major or critical. SOCKET defaults to " DEFAULT_SOCKET
            ".\n");
        return 2;
    }
    char request[MAX_LINE] = "{\"op\":\"raise_alarm\",\"alarm\":{\"deviceId\":";
    int fits = append_json_string(request, sizeof request, argv[optind]) &&
               append(request, sizeof request, ",\"alarmType\":") &&
               append_json_string(request, sizeof request, argv[optind + 1]) &&
               append(request, sizeof request, ",\"severity\":") &&
               append_json_string(request, sizeof request, argv[optind + 2]);
    if (fits && argc - optind == 4) {
        fits = append(request, sizeof request, ",\"text\":") &&
               append_json_string(request, sizeof request, argv[optind + 3]);
    }
    if (fits && key) {
        fits = append(request, sizeof request, ",\"idempotencyKey\":") &&
               append_json_string(request, sizeof request, key);
    }
    if (!fits || !append(request, sizeof request, "}}\n")) {
        fprintf(stderr, "raise_alarm: arguments too long\n");
        return 2;
    }

    int fd = connect_socket(socket_path);
    if (fd < 0) return 1;
    char answer[MAX_LINE];
    int answered = exchange(fd, request, answer, sizeof answer);
    close(fd);
    if (!answered) {
        fprintf(stderr,
                "raise_alarm: no answer from outpostd: the alarm may or may not be "
                "recorded; send it again with the same -k KEY\n");
        return 1;
    }
    const char* event_id = strstr(answer, "\"eventId\":\"");
    if (!strstr(answer, "\"ok\":true") || !event_id) {
        fprintf(stderr, "raise_alarm: outpostd refused: %s\n", answer);
        return 1;
    }
    event_id += strlen("\"eventId\":\"");
    printf("%.36s\n", event_id);
    return 0;
}
