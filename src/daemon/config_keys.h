// outpostd's configuration keys, one row each (common/config_keys.h): what
// --help prints, what docs/reference/outpostd.md documents and what
// parse_daemon_config reads; the unit test of the table holds the parser
// to it, tests/docs/check_reference.py the page.
#ifndef OUTPOST_DAEMON_CONFIG_KEYS_H
#define OUTPOST_DAEMON_CONFIG_KEYS_H

#include "common/config_keys.h"
#include "daemon/config.h"

namespace outpost::daemon {

// Every key, with its value in `shown`: with daemon_config_defaults(), the
// table of defaults --help prints.
ConfigKeys daemon_config_keys(const DaemonConfig& shown = daemon_config_defaults());

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_CONFIG_KEYS_H
