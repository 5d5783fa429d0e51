//===- Store.h - A key-value store and the bootstrap over it ----*- C++ -*-===//
//
// `Store` is what a launcher's rendezvous service offers: set a key, get a
// key waiting until some rank sets it, add to a counter (torch.distributed's
// Store: TCPStore, FileStore, PrefixStore; etcd; a Redis). `StoreBootstrap`
// is a Bootstrap over any Store, so a team can join through the store its
// launcher already runs instead of Weave's Unix-socket rendezvous. Two
// stores ship: InProcessStore (threads of one process: tests) and FileStore
// (a directory every process sees). Python plugs a torch.distributed store
// in through weave._cuda (Team.multi_process_with_store). No CUDA here.
//
//===----------------------------------------------------------------------===//

#ifndef WEAVE_RUNTIME_STORE_H
#define WEAVE_RUNTIME_STORE_H

#include "weave/runtime/Bootstrap.h"

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace weave {

/// A key-value store shared by the ranks of a team. Implementations are
/// safe to call from several threads.
class Store {
public:
  virtual ~Store();
  /// Sets `key` to `value` (replacing an earlier value).
  virtual Status set(const std::string &key,
                     const std::vector<uint8_t> &value) = 0;
  /// The value of `key`, waiting until it is set; ErrorCode::Timeout when it
  /// is not set within `timeout`.
  virtual Expected<std::vector<uint8_t>>
  get(const std::string &key, std::chrono::milliseconds timeout) = 0;
  /// Adds `delta` to the counter at `key` (0 when unset) and returns the new
  /// value, atomically across ranks.
  virtual Expected<int64_t> add(const std::string &key, int64_t delta) = 0;
  /// Removes `key`. False when this store cannot remove keys (the key stays;
  /// StoreBootstrap then leaves one key per rank and collective behind).
  virtual Expected<bool> erase(const std::string &key);
};

/// A store in this process's memory: ranks are threads (tests, and teams
/// whose members share one process).
class InProcessStore final : public Store {
public:
  Status set(const std::string &key,
             const std::vector<uint8_t> &value) override;
  Expected<std::vector<uint8_t>>
  get(const std::string &key, std::chrono::milliseconds timeout) override;
  Expected<int64_t> add(const std::string &key, int64_t delta) override;
  Expected<bool> erase(const std::string &key) override;
  /// How many keys it holds (tests check that collectives clean up).
  size_t size() const;

private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, std::vector<uint8_t>> values_;
};

/// A store in a directory (one file per key): the processes of one machine,
/// or of several where the directory is on a shared file system. `set`
/// writes a temporary file and renames it (a reader sees a whole value or
/// none), `add` holds an flock on the counter's file, `get` polls.
class FileStore final : public Store {
public:
  /// Creates `directory` if missing (mode 0700; see prepareRendezvousDir).
  static Expected<std::shared_ptr<FileStore>> open(const std::string &directory);

  Status set(const std::string &key,
             const std::vector<uint8_t> &value) override;
  Expected<std::vector<uint8_t>>
  get(const std::string &key, std::chrono::milliseconds timeout) override;
  Expected<int64_t> add(const std::string &key, int64_t delta) override;
  Expected<bool> erase(const std::string &key) override;

private:
  explicit FileStore(std::string directory) : directory_(std::move(directory)) {}
  /// The file of `key`: its bytes, with any not in [A-Za-z0-9_.-] as %XX.
  std::string pathOf(const std::string &key) const;
  std::string directory_;
};

struct StoreBootstrapOptions {
  int rank = 0;
  int worldSize = 1;
  /// Deadline of the rendezvous and of every collective.
  std::chrono::milliseconds timeout{60000};
  /// Prefix of every key this team uses. Teams sharing a store at the same
  /// time need different prefixes (as torch's PrefixStore gives them).
  std::string prefix = "weave";
};

/// A Bootstrap over a Store. Collective n (counted from the rendezvous, 0)
/// sets `<prefix>/<n>/<rank>` and gets every rank's key; the last rank to
/// finish reading counts itself in `<prefix>/<n>/done` and erases the
/// round's keys, so a store that can erase holds no key between
/// collectives.
class StoreBootstrap final : public Bootstrap {
public:
  /// Rendezvous: every rank announces its world size, all before the
  /// deadline (a missing rank gives ErrorCode::Timeout naming it).
  static Expected<std::unique_ptr<StoreBootstrap>>
  connect(std::shared_ptr<Store> store, const StoreBootstrapOptions &options);

  int rank() const override { return options_.rank; }
  int worldSize() const override { return options_.worldSize; }
  const char *name() const override { return "store"; }

  Expected<std::vector<std::vector<uint8_t>>>
  allGather(const std::vector<uint8_t> &mine) override;

private:
  StoreBootstrap(std::shared_ptr<Store> store, StoreBootstrapOptions options)
      : store_(std::move(store)), options_(std::move(options)) {}
  std::string keyOf(uint64_t round, const std::string &what) const;

  std::shared_ptr<Store> store_;
  StoreBootstrapOptions options_;
  uint64_t round_ = 0;
};

} // namespace weave

#endif // WEAVE_RUNTIME_STORE_H
