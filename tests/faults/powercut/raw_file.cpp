#include "raw_file.h"

#include <fstream>
#include <iterator>

namespace outpost::testing {

RawFile::RawFile(const std::string& vfs_name, const std::string& path, int type_flag)
    : vfs_(sqlite3_vfs_find(vfs_name.c_str())), name_(path) {
    name_.push_back('\0');  // c_str() then ends in two NULs, like a pager's name
    if (vfs_ == nullptr) return;
    storage_.assign(static_cast<std::size_t>(vfs_->szOsFile), 0);
    int out_flags = 0;
    open_rc_ = vfs_->xOpen(vfs_, name_.c_str(), file(),
                           type_flag | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &out_flags);
    open_ = open_rc_ == SQLITE_OK && file()->pMethods != nullptr;
}

RawFile::~RawFile() {
    close();
}

int RawFile::write(long long offset, const ByteString& bytes) {
    if (!open_) return SQLITE_MISUSE;
    return file()->pMethods->xWrite(file(), bytes.data(), static_cast<int>(bytes.size()), offset);
}

int RawFile::sync() {
    if (!open_) return SQLITE_MISUSE;
    return file()->pMethods->xSync(file(), SQLITE_SYNC_NORMAL);
}

int RawFile::truncate(long long size) {
    if (!open_) return SQLITE_MISUSE;
    return file()->pMethods->xTruncate(file(), size);
}

int RawFile::read(long long offset, int size, ByteString* out) {
    if (!open_) return SQLITE_MISUSE;
    out->assign(static_cast<std::size_t>(size), 0);
    return file()->pMethods->xRead(file(), out->data(), size, offset);
}

int RawFile::size(long long* out) {
    if (!open_) return SQLITE_MISUSE;
    sqlite3_int64 size = 0;
    const int rc = file()->pMethods->xFileSize(file(), &size);
    *out = size;
    return rc;
}

int RawFile::lock(int level) {
    if (!open_) return SQLITE_MISUSE;
    return file()->pMethods->xLock(file(), level);
}

int RawFile::close() {
    if (!open_) return SQLITE_OK;
    open_ = false;
    return file()->pMethods->xClose(file());
}

ByteString filled(std::size_t size, unsigned char byte) {
    return ByteString(size, byte);
}

ByteString read_host_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return ByteString(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace outpost::testing
