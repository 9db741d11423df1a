#include "cli/commands.h"

namespace outpost::cli {

const std::vector<Command>& all_commands() {
    static const std::vector<Command> commands = {
        {"status",
         "backlog, sent, dead, database size vs quota, lease holder",
         "Usage: outpostctl --db PATH status [--json] [--quota-bytes N]\n"
         "Prints the outbox backlog (pending), sent and dead counts, the oldest\n"
         "pending id, the database size against the quota (--quota-bytes, default\n"
         "the store's default) and the publisher lease holder and epoch.\n",
         {{}, {}, 0},
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
         "Usage: outpostctl --db PATH replay EVENT_ID --reason TEXT [--json]\n"
         "       outpostctl --db PATH replay --all-dead --reason TEXT [--json]\n"
         "Moves the event (or every DEAD event) back to pending with the same\n"
         "eventId and envelope. The store records the replay count, time and\n"
         "reason. Exit 3 if there is no such event.\n",
         {{"--reason"}, {"--all-dead"}, 1},
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
         "Records the alarm and its outbox event in one durable transaction and\n"
         "prints the eventId only once that has succeeded. Creates the database\n"
         "for gateway GW if it does not exist. Severity defaults to major.\n",
         {{"--device", "--type", "--gateway", "--severity", "--value", "--unit", "--text", "--key"},
          {},
          0},
         run_raise_alarm},
    };
    return commands;
}

}  // namespace outpost::cli
