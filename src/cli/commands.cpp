#include "cli/commands.h"

namespace outpost::cli {

const std::vector<Command>& all_commands() {
    static const std::vector<Command> commands = {
        {"status",
         "backlog, sent, dead, database size vs quota, lease holder",
         "Usage: outpostctl --db PATH status [--json] [--quota-bytes N]\n"
         "       outpostctl status --socket PATH [--db PATH] [--json]\n"
         "With --db: prints the outbox backlog (pending), sent and dead counts, the\n"
         "oldest pending id, the database size against the quota (--quota-bytes,\n"
         "default the store's default) and the publisher lease holder and epoch\n"
         "(--json: {\"gateway_id\", \"store\": {...}, \"lease\": {...}}, where \"store\"\n"
         "has the same fields as in outpostd's status).\n"
         "With --socket: asks the running outpostd (its socket is\n"
         "/run/outpost/outpostd.sock unless configured otherwise) for its live\n"
         "status and prints whatever it reports; with --db as well, the database\n"
         "part follows (--json: {\"daemon\": ..., \"database\": ...}).\n",
         {{"--socket"}, {}, 0},
         run_status},
        {"list",
         "outbox rows in one state, oldest first",
         "Usage: outpostctl --db PATH list [--state pending|sent|dead] [--limit N]\n"
         "                                 [--after ID] [--json]\n"
         "Lists outbox rows in STATE (default pending) with id > ID (default 0),\n"
         "at most N (default 100), in commit order.\n",
         {{"--state", "--limit", "--after"}, {}, 0},
         run_list},
        {"show",
         "one event's row fields and envelope",
         "Usage: outpostctl --db PATH show EVENT_ID [--json]\n"
         "Prints the outbox row of EVENT_ID and the exact envelope it publishes.\n"
         "Exit 3 if there is no such event.\n",
         {{}, {}, 1},
         run_show},
        {"replay",
         "send DEAD (or SENT) events again with the same eventId",
         "Usage: outpostctl --db PATH replay EVENT_ID --reason TEXT [--actor WHO] [--json]\n"
         "       outpostctl --db PATH replay --all-dead --reason TEXT [--actor WHO] [--json]\n"
         "Moves the event (or every DEAD event) back to pending with the same\n"
         "eventId and envelope. The store records the replay count, time,\n"
         "reason and actor (who asked; default \"outpostctl by USER (uid N)\").\n"
         "Exit 3 if there is no such event.\n",
         {{"--reason", "--actor"}, {"--all-dead"}, 1},
         run_replay},
        {"purge",
         "delete DEAD events (does not ask)",
         "Usage: outpostctl --db PATH purge --dead [--json]\n"
         "Deletes every DEAD event and its alarm record, without asking, and\n"
         "prints how many were deleted.\n",
         {{}, {"--dead"}, 0},
         run_purge},
        {"raise-alarm",
         "record an alarm durably and print its eventId",
         "Usage: outpostctl --db PATH raise-alarm --device D --type T --gateway GW\n"
         "           [--severity info|warning|minor|major|critical] [--value V]\n"
         "           [--unit U] [--text X] [--key IDEMPOTENCY_KEY] [--json]\n"
         "       outpostctl raise-alarm --socket PATH --device D --type T [...]\n"
         "Records the alarm and its outbox event in one durable transaction and\n"
         "prints the eventId only once that has succeeded. With --db, opens the\n"
         "database itself and creates it for gateway GW if it does not exist.\n"
         "With --socket, sends the alarm to the running outpostd instead (its\n"
         "socket is /run/outpost/outpostd.sock unless configured otherwise), which\n"
         "records it for its own gateway. Severity defaults to major. If no answer\n"
         "comes back, the alarm may or may not be recorded: retry with the same --key.\n",
         {{"--device", "--type", "--gateway", "--severity", "--value", "--unit", "--text", "--key",
           "--socket"},
          {},
          0},
         run_raise_alarm},
    };
    return commands;
}

}  // namespace outpost::cli
