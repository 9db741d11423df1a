// outpost-torture --mode vm-run: boots the gateway VM once, runs the
// workload, shuts it down, and prints what the emulated Cortex-A72 did with
// it. The block log has every byte the guest wrote, so bytes per alarm are
// exact at the block layer (ext4's journal and metadata included); the
// guest reports where the store's files lie so the bytes can be split.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "proof/child.h"
#include "proof/observer.h"
#include "proof/vm/campaign.h"
#include "proof/vm/crash_state.h"
#include "proof/vm/disk_layout.h"
#include "proof/vm/recording.h"

namespace outpost::torture::vm {
namespace {

struct BlockFigures {
    uint64_t flushes = 0;
    uint64_t writes = 0;
    uint64_t bytes = 0;  // file system part of the disk only
    uint64_t wal_bytes = 0;
    uint64_t db_bytes = 0;
    uint64_t shm_bytes = 0;  // SQLite's wal-index, written back by the kernel
    // Flushes between the guest's first and last evidence record: the
    // workload's own, without boot, the store's open and the shutdown.
    uint64_t workload_flushes = 0;
    // Each of those by what the file system wrote since the flush before it.
    uint64_t wal_flushes = 0;           // WAL blocks only: a commit
    uint64_t wal_metadata_flushes = 0;  // WAL blocks and journal or metadata
    uint64_t database_flushes = 0;      // database blocks: a checkpoint
    uint64_t metadata_flushes = 0;      // journal, metadata or -shm only
    uint64_t empty_flushes = 0;         // nothing in the file system
};

bool inside(const std::vector<Extent>& extents, uint64_t offset) {
    for (const Extent& extent : extents) {
        if (offset >= extent.offset && offset < extent.offset + extent.length) return true;
    }
    return false;
}

BlockFigures block_figures(const Recording& recording) {
    BlockFigures figures;
    const BlockLog& log = *recording.log;
    const auto none = std::vector<Extent>{};
    const auto find = [&](const char* name) -> const std::vector<Extent>& {
        auto found = recording.extents.find(name);
        return found == recording.extents.end() ? none : found->second;
    };
    const std::vector<Extent>& wal = find("wal");
    const std::vector<Extent>& db = find("db");
    const std::vector<Extent>& shm = find("shm");
    const std::vector<LogEntry>& entries = log.entries();
    // The workload runs from the first evidence record (beyond the file
    // system) to the last one.
    size_t first_record = entries.size();
    size_t last_record = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].is_write() && entries[i].sector * log.sector_size() >= kFsBytes) {
            first_record = std::min(first_record, i);
            last_record = i;
        }
    }
    bool wrote_wal = false, wrote_db = false, wrote_other = false;
    for (size_t i = 0; i < entries.size(); ++i) {
        const LogEntry& entry = entries[i];
        if (entry.is_flush()) {
            figures.flushes++;
            if (i > first_record && i < last_record) {
                figures.workload_flushes++;
                if (wrote_db) {
                    figures.database_flushes++;
                } else if (wrote_wal) {
                    (wrote_other ? figures.wal_metadata_flushes : figures.wal_flushes)++;
                } else {
                    (wrote_other ? figures.metadata_flushes : figures.empty_flushes)++;
                }
            }
            wrote_wal = wrote_db = wrote_other = false;
        }
        if (!entry.is_write()) continue;
        bool counted = false;
        for (uint64_t s = 0; s < entry.sectors; ++s) {
            const uint64_t offset = (entry.sector + s) * log.sector_size();
            if (offset >= kFsBytes) continue;
            counted = true;
            figures.bytes += log.sector_size();
            if (inside(wal, offset)) {
                figures.wal_bytes += log.sector_size();
                wrote_wal = true;
            } else if (inside(db, offset)) {
                figures.db_bytes += log.sector_size();
                wrote_db = true;
            } else {
                if (inside(shm, offset)) figures.shm_bytes += log.sector_size();
                wrote_other = true;
            }
        }
        if (counted) figures.writes++;
    }
    return figures;
}

}  // namespace

int vm_run(const CampaignOptions& options) {
    std::string error;
    const auto images = VmImages::in(options.vm_dir, &error);
    const std::string scratch = images ? make_scratch_dir(options.dir) : "";
    std::unique_ptr<MqttObserver> observer;
    if (images && !scratch.empty()) observer = MqttObserver::start(scratch, &error);
    if (!observer) {
        std::fprintf(stderr, "outpost-torture vm-run: %s\n", error.c_str());
        if (!scratch.empty()) remove_tree(scratch);
        return 2;
    }
    RecordingPlan plan;
    plan.naive = options.naive;
    plan.prefix = "run";
    plan.alarms = options.alarms_per_run;
    plan.connections = options.workers;
    plan.rate = options.alarm_rate;
    plan.retention = options.sent_retention;
    plan.shipped_settings = true;  // flash figures: outpostd as a gateway runs it
    plan.mark_delay_ms = options.mark_delay_ms;
    plan.commit_wait_us = options.commit_wait_us;
    if (!options.mount_options.empty()) plan.mount_options = options.mount_options;
    auto recording = plan.naive.empty()
                         ? record(*images, plan, *observer, scratch + "/recording", &error)
                         : record_naive(*images, plan, scratch + "/recording", &error);
    if (!recording) {
        std::fprintf(stderr, "outpost-torture vm-run: %s\n", error.c_str());
        remove_tree(scratch);
        return 1;
    }
    const auto& numbers = recording->evidence.figures();
    auto number = [&](const char* name) {
        auto found = numbers.find(name);
        return found == numbers.end() ? 0.0 : static_cast<double>(found->second);
    };
    const double alarms = number("acknowledged");
    const BlockFigures block = block_figures(*recording);
    auto per_alarm = [&](double value) { return alarms > 0 ? value / alarms : 0.0; };
    auto rate = [&](const char* ms) { return number(ms) > 0 ? alarms * 1000 / number(ms) : 0.0; };
    nlohmann::json out = {
        {"machine",
         "QEMU TCG (qemu-system-aarch64, virt, 2 x Cortex-A72, 1 GiB) on this host: an "
         "emulator, not a Raspberry Pi; rates are the emulator's, bytes are exact"},
        {"program", plan.naive.empty() ? "outpostd" : "naive SQLite, " + plan.naive},
        {"alarms", alarms},
        {"connections", options.workers},
        {"alarms_per_s_recorded", rate("record_ms")},
        {"alarms_per_s_published", rate("publish_ms")},
        {"block_bytes_per_alarm", per_alarm(static_cast<double>(block.bytes))},
        {"wal_block_bytes_per_alarm", per_alarm(static_cast<double>(block.wal_bytes))},
        {"db_block_bytes_per_alarm", per_alarm(static_cast<double>(block.db_bytes))},
        {"shm_block_bytes_per_alarm", per_alarm(static_cast<double>(block.shm_bytes))},
        {"other_block_bytes_per_alarm",
         per_alarm(static_cast<double>(block.bytes - block.wal_bytes - block.db_bytes -
                                       block.shm_bytes))},
        {"flushes_per_alarm", per_alarm(static_cast<double>(block.flushes))},
        // The same between the first alarm and the last: what each further
        // alarm costs, without the fixed cost of boot, open and shutdown.
        {"workload_flushes_per_alarm", per_alarm(static_cast<double>(block.workload_flushes))},
        // Those by what the file system wrote since the flush before: WAL
        // blocks only (a commit), WAL and journal or metadata, database
        // blocks (a checkpoint), journal, metadata or -shm only, nothing.
        {"workload_flushes_wal_only_per_alarm", per_alarm(static_cast<double>(block.wal_flushes))},
        {"workload_flushes_wal_and_metadata_per_alarm",
         per_alarm(static_cast<double>(block.wal_metadata_flushes))},
        {"workload_flushes_database_per_alarm",
         per_alarm(static_cast<double>(block.database_flushes))},
        {"workload_flushes_metadata_only_per_alarm",
         per_alarm(static_cast<double>(block.metadata_flushes))},
        {"workload_flushes_nothing_written_per_alarm",
         per_alarm(static_cast<double>(block.empty_flushes))},
        {"flushes_outside_workload", block.flushes - block.workload_flushes},
        {"writes_per_alarm", per_alarm(static_cast<double>(block.writes))},
        {"alarm_rate", options.alarm_rate},
        {"sent_retention_s", options.sent_retention},
        {"outpostd_settings", "outpostd's defaults but the retention"},
        {"mount_options", plan.mount_options},
        {"mark_delay_ms", options.mark_delay_ms >= 0 ? nlohmann::json(options.mark_delay_ms)
                                                     : nlohmann::json("default")},
        {"commit_wait_us", options.commit_wait_us >= 0 ? nlohmann::json(options.commit_wait_us)
                                                       : nlohmann::json("default")},
        // The store's own counters: its transactions, and the pages each wrote.
        {"transactions_per_alarm", per_alarm(number("commits"))},
        {"pages_per_transaction",
         number("commits") > 0 ? number("wal_frames") / number("commits") : 0.0},
        {"checkpoint_pages_per_alarm", per_alarm(number("checkpoint_pages"))},
        {"vm_seconds", recording->vm_seconds},
        {"problems", recording->problems}};
    std::printf("%s\n", out.dump(2).c_str());
    const bool ok = recording->problems.empty();
    if (ok || !options.keep_failures) remove_tree(scratch);
    return ok ? 0 : 1;
}

}  // namespace outpost::torture::vm
