// The listening AF_UNIX stream socket of the ingestion server: takes over a
// stale socket file, refuses to steal a live one, sets the file mode, and on
// close removes the file only if it is still the one it created.
#ifndef OUTPOST_INGEST_LISTEN_SOCKET_H
#define OUTPOST_INGEST_LISTEN_SOCKET_H

#include <sys/types.h>
#include <sys/un.h>

#include <memory>
#include <string>

#include "outpost/status.h"

namespace outpost::ingest {

// Fills `address` for `path`. kInvalidArgument if empty or too long.
Status unix_address(const std::string& path, struct sockaddr_un& address);

class ListenSocket final {
  public:
    // Errors: kInvalidArgument (bad path, a non-socket file in the way),
    // kBusy (a live server answers there), kIoError (with errno text).
    static Result<std::unique_ptr<ListenSocket>> open(const std::string& path, unsigned mode,
                                                      int backlog);
    ~ListenSocket();  // calls close()
    ListenSocket(const ListenSocket&) = delete;
    ListenSocket& operator=(const ListenSocket&) = delete;

    int fd() const { return fd_; }
    // Closes the descriptor and unlinks the socket file if it is still ours.
    void close();

  private:
    ListenSocket(std::string path, int fd, dev_t device, ino_t inode)
        : path_(std::move(path)), fd_(fd), device_(device), inode_(inode) {}

    const std::string path_;
    int fd_;
    const dev_t device_;  // identity of the file we bound, to unlink only ours
    const ino_t inode_;
};

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_LISTEN_SOCKET_H
