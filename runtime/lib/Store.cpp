//===- Store.cpp - Key-value stores and the bootstrap over them -----------===//

#include "weave/runtime/Store.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace weave {

namespace {

using Clock = std::chrono::steady_clock;

Error systemError(const std::string &what) {
  return Error(ErrorCode::System, what + ": " + std::strerror(errno));
}

std::string msText(std::chrono::milliseconds ms) {
  return std::to_string(ms.count()) + " ms";
}

std::chrono::milliseconds remaining(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - Clock::now());
  return left.count() < 0 ? std::chrono::milliseconds(0) : left;
}

Status writeAll(int fd, const uint8_t *data, size_t size,
                const std::string &path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return systemError("file store: writing '" + path + "'");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return ok();
}

Expected<std::vector<uint8_t>> readAll(int fd, const std::string &path) {
  std::vector<uint8_t> bytes;
  uint8_t buffer[4096];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return systemError("file store: reading '" + path + "'");
    if (n == 0)
      return bytes;
    bytes.insert(bytes.end(), buffer, buffer + n);
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Store, InProcessStore
//===----------------------------------------------------------------------===//

Store::~Store() = default;

Expected<bool> Store::erase(const std::string &) { return false; }

Status InProcessStore::set(const std::string &key,
                           const std::vector<uint8_t> &value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    values_[key] = value;
  }
  changed_.notify_all();
  return ok();
}

Expected<std::vector<uint8_t>>
InProcessStore::get(const std::string &key, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!changed_.wait_for(lock, timeout,
                         [&] { return values_.count(key) != 0; }))
    return Error(ErrorCode::Timeout, "in-process store: key '" + key +
                                         "' not set within " +
                                         msText(timeout));
  return values_[key];
}

Expected<int64_t> InProcessStore::add(const std::string &key, int64_t delta) {
  int64_t value;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<uint8_t> &bytes = values_[key];
    std::string text(bytes.begin(), bytes.end());
    value = (text.empty() ? 0 : std::stoll(text)) + delta;
    text = std::to_string(value);
    bytes.assign(text.begin(), text.end());
  }
  changed_.notify_all();
  return value;
}

Expected<bool> InProcessStore::erase(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  values_.erase(key);
  return true;
}

size_t InProcessStore::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return values_.size();
}

//===----------------------------------------------------------------------===//
// FileStore
//===----------------------------------------------------------------------===//

Expected<std::shared_ptr<FileStore>>
FileStore::open(const std::string &directory) {
  WEAVE_TRY(prepareRendezvousDir(directory));
  return std::shared_ptr<FileStore>(new FileStore(directory));
}

std::string FileStore::pathOf(const std::string &key) const {
  static const char *hex = "0123456789ABCDEF";
  std::string name;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '_' || c == '-' || c == '.')
      name += static_cast<char>(c);
    else
      name += {'%', hex[c >> 4], hex[c & 15]};
  }
  // "." and ".." name directories; the temporaries and locks end in '~'.
  return directory_ + "/k" + name;
}

Status FileStore::set(const std::string &key,
                      const std::vector<uint8_t> &value) {
  std::string path = pathOf(key);
  std::string temporary =
      path + "." + std::to_string(::getpid()) + "." +
      std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id())) +
      "~";
  UniqueFd fd(::open(temporary.c_str(),
                     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd.valid())
    return systemError("file store: creating '" + temporary + "'");
  Status written = writeAll(fd.get(), value.data(), value.size(), temporary);
  fd.reset();
  if (written && ::rename(temporary.c_str(), path.c_str()) != 0)
    written = systemError("file store: renaming '" + temporary + "'");
  if (!written)
    ::unlink(temporary.c_str());
  return written;
}

Expected<std::vector<uint8_t>>
FileStore::get(const std::string &key, std::chrono::milliseconds timeout) {
  std::string path = pathOf(key);
  auto deadline = Clock::now() + timeout;
  // Polls: 0.1 ms at first (a rendezvous of a few ranks completes in a few
  // ms), growing to 10 ms (a rank that waits long costs little CPU).
  auto pause = std::chrono::microseconds(100);
  while (true) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.valid())
      return readAll(fd.get(), path);
    if (errno != ENOENT)
      return systemError("file store: opening '" + path + "'");
    if (Clock::now() >= deadline)
      return Error(ErrorCode::Timeout, "file store: key '" + key +
                                           "' not set within " +
                                           msText(timeout));
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10000));
  }
}

Expected<int64_t> FileStore::add(const std::string &key, int64_t delta) {
  // Counters live beside the values (a '~' suffix no pathOf() name has), so
  // that a reader never sees one half-written; the lock is the file's flock.
  std::string path = pathOf(key) + "+~";
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid())
    return systemError("file store: opening counter '" + path + "'");
  while (::flock(fd.get(), LOCK_EX) != 0)
    if (errno != EINTR)
      return systemError("file store: locking counter '" + path + "'");
  WEAVE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, readAll(fd.get(), path));
  std::string text(bytes.begin(), bytes.end());
  int64_t value = (text.empty() ? 0 : std::stoll(text)) + delta;
  text = std::to_string(value);
  if (::ftruncate(fd.get(), 0) != 0 || ::lseek(fd.get(), 0, SEEK_SET) != 0)
    return systemError("file store: rewriting counter '" + path + "'");
  WEAVE_TRY(writeAll(fd.get(), reinterpret_cast<const uint8_t *>(text.data()),
                     text.size(), path));
  return value; // closing the descriptor releases the lock
}

Expected<bool> FileStore::erase(const std::string &key) {
  for (const std::string &path : {pathOf(key), pathOf(key) + "+~"})
    if (::unlink(path.c_str()) != 0 && errno != ENOENT)
      return systemError("file store: removing '" + path + "'");
  return true;
}

//===----------------------------------------------------------------------===//
// StoreBootstrap
//===----------------------------------------------------------------------===//

std::string StoreBootstrap::keyOf(uint64_t round,
                                  const std::string &what) const {
  return options_.prefix + "/" + std::to_string(round) + "/" + what;
}

Expected<std::unique_ptr<StoreBootstrap>>
StoreBootstrap::connect(std::shared_ptr<Store> store,
                        const StoreBootstrapOptions &options) {
  if (!store)
    return Error(ErrorCode::InvalidArgument, "store bootstrap: no store");
  WEAVE_TRY(checkRank("store bootstrap", options.rank, options.worldSize));
  std::unique_ptr<StoreBootstrap> boot(
      new StoreBootstrap(std::move(store), options));
  // The rendezvous is collective 0: every rank's world size.
  WEAVE_ASSIGN_OR_RETURN(std::vector<uint64_t> sizes,
                         boot->allGatherU64(uint64_t(options.worldSize)));
  for (size_t r = 0; r < sizes.size(); ++r)
    if (sizes[r] != uint64_t(options.worldSize))
      return Error(ErrorCode::InvalidArgument,
                   "store bootstrap: rank " + std::to_string(r) +
                       " announced world size " + std::to_string(sizes[r]) +
                       ", rank " + std::to_string(options.rank) +
                       " expects " + std::to_string(options.worldSize));
  return boot;
}

Expected<std::vector<std::vector<uint8_t>>>
StoreBootstrap::allGather(const std::vector<uint8_t> &mine) {
  uint64_t round = round_++;
  int size = options_.worldSize;
  std::vector<std::vector<uint8_t>> all(size);
  if (size == 1) {
    all[0] = mine;
    return all;
  }
  auto deadline = Clock::now() + options_.timeout;
  std::string what =
      round == 0 ? "join the rendezvous" : "reach collective " +
                                               std::to_string(round);
  Status published =
      store_->set(keyOf(round, std::to_string(options_.rank)), mine);
  if (!published)
    return std::move(published).takeError().addContext(
        "store bootstrap: rank " + std::to_string(options_.rank) +
        " publishing its payload");
  for (int r = 0; r < size; ++r) {
    Expected<std::vector<uint8_t>> value =
        store_->get(keyOf(round, std::to_string(r)), remaining(deadline));
    if (value) {
      all[r] = std::move(*value);
      continue;
    }
    if (value.error().code() != ErrorCode::Timeout)
      return std::move(value).takeError().addContext(
          "store bootstrap: waiting for rank " + std::to_string(r));
    // Past the deadline: name every rank still missing, not just this one.
    std::string missing = std::to_string(r);
    for (int later = r + 1; later < size; ++later)
      if (!store_->get(keyOf(round, std::to_string(later)),
                       std::chrono::milliseconds(0)))
        missing += ", " + std::to_string(later);
    return Error(ErrorCode::Timeout,
                 "store bootstrap: rank(s) " + missing + " did not " + what +
                     " within " + msText(options_.timeout) + " (keys '" +
                     keyOf(round, "<rank>") + "')");
  }
  // Every rank has read every key once all have counted themselves here.
  WEAVE_ASSIGN_OR_RETURN(int64_t done, store_->add(keyOf(round, "done"), 1));
  if (done == size) {
    for (int r = 0; r < size; ++r) {
      WEAVE_ASSIGN_OR_RETURN(bool erased,
                             store_->erase(keyOf(round, std::to_string(r))));
      if (!erased)
        return all; // a store that keeps its keys
    }
    WEAVE_TRY(store_->erase(keyOf(round, "done")));
  }
  return all;
}

} // namespace weave
