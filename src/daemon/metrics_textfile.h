// The node-exporter textfile collector: the metrics are written to
// "<path>.tmp" and renamed over <path>, so the collector never reads half a
// file. No fsync: the figures are rebuilt every interval, and a gateway's
// flash should not pay for them. The temporary file is always created new
// (O_EXCL | O_NOFOLLOW, mode 0644 for the collector): a symbolic link
// planted at "<path>.tmp" is replaced, never written through.
#ifndef OUTPOST_DAEMON_METRICS_TEXTFILE_H
#define OUTPOST_DAEMON_METRICS_TEXTFILE_H

#include <string>

#include "outpost/status.h"

namespace outpost::daemon {

// kIoError naming the path and errno; the old file stays in place then.
Status write_metrics_textfile(const std::string& path, const std::string& text);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_METRICS_TEXTFILE_H
