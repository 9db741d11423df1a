#include "publish/inbox.h"

#include <utility>

namespace outpost::publish {

void Inbox::post_commit() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (mail_.committed) return;  // already pending: no need to wake twice
        mail_.committed = true;
    }
    posted_.notify_one();
}

void Inbox::post_stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        mail_.stop = true;
    }
    posted_.notify_one();
}

void Inbox::post_link_event(LinkEvent event) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        mail_.link_events.push_back(std::move(event));
    }
    posted_.notify_one();
}

void Inbox::post_marks(MarkReport report) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        mail_.marks.push_back(std::move(report));
    }
    posted_.notify_one();
}

void Inbox::post_confirms(ConfirmReport report) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        mail_.confirms.push_back(std::move(report));
    }
    posted_.notify_one();
}

Mail Inbox::wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (mail_.empty() && timeout.count() > 0) {
        posted_.wait_for(lock, timeout, [&] { return !mail_.empty(); });
    }
    Mail taken = std::move(mail_);
    mail_ = Mail();
    return taken;
}

}  // namespace outpost::publish
