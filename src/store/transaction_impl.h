// The Transaction handed to Store::transact bodies.
#ifndef OUTPOST_STORE_TRANSACTION_IMPL_H
#define OUTPOST_STORE_TRANSACTION_IMPL_H

#include <string>
#include <vector>

#include "outpost/store.h"
#include "store/store_core.h"

namespace outpost::store {

class TransactionImpl final : public Transaction {
public:
    explicit TransactionImpl(BatchContext& context);
    Status execute(const std::string& sql, const std::vector<SqlValue>& params) override;
    Result<RecordedEvent> enqueue(const Event& event) override;
    const std::vector<RecordedEvent>& recorded() const { return recorded_; }

private:
    BatchContext& context_;
    std::vector<RecordedEvent> recorded_;
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_TRANSACTION_IMPL_H
