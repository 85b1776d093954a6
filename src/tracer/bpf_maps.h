// Reading and clearing the kernel clock's maps from user space (BpfLoader): a hash map's
// rows, a per-CPU value's slots, and the rows with the sums the threads still alive keep in
// their slots (syscall_clock.bpf.c). Only where the build has libbpf.
#pragma once

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "tracer/bpf/clock_abi.h"

namespace iobench::tracing {

/// Every (key, value) of a hash map.
template <typename Key, typename Value>
void walk_hash(int fd, const std::function<void(const Key&, const Value&)>& f) {
  Key key{}, next{};
  const void* prev = nullptr;  // null: the first key
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    Value value{};
    if (bpf_map_lookup_elem(fd, &next, &value) == 0) f(next, value);
    key = next;
    prev = &key;
  }
}

/// Per-CPU values come as one slot per possible CPU, each rounded up to 8 bytes.
template <typename T>
std::vector<T> per_cpu(int map_fd, std::uint32_t key) {
  const int cpus = libbpf_num_possible_cpus();
  std::vector<T> values(static_cast<std::size_t>(cpus > 0 ? cpus : 1));
  static_assert(sizeof(T) % 8 == 0);
  if (bpf_map_lookup_elem(map_fd, &key, values.data()) != 0) values.clear();
  return values;
}

/// Deletes every key of a hash map (keys collected first: deleting while walking skips some).
template <typename Key>
void clear_hash(int fd) {
  std::vector<Key> keys;
  Key next{};
  const void* prev = nullptr;
  while (bpf_map_get_next_key(fd, prev, &next) == 0) {
    keys.push_back(next);
    prev = &keys.back();
  }
  for (const Key& k : keys) bpf_map_delete_elem(fd, &k);
}

/// Every per-CPU value of an array map set to zero.
template <typename T>
void zero_per_cpu(int fd, std::uint32_t entries) {
  const int cpus = libbpf_num_possible_cpus();
  const std::vector<T> zeros(static_cast<std::size_t>(cpus > 0 ? cpus : 1));
  for (std::uint32_t key = 0; key < entries; ++key)
    bpf_map_update_elem(fd, &key, zeros.data(), BPF_ANY);
}

/// A map key's bytes, to find a row by (the keys have no padding the program leaves unset:
/// it builds them whole).
template <typename Key>
std::string bytes_of(const Key& k) {
  return {reinterpret_cast<const char*>(&k), sizeof k};
}

/// Each row of a hash map with the sums the threads still alive hold for it added
/// (clock_abi.h, clock_thread): after the tree is gone there are none.
template <typename Key, typename Stat, typename Tally>
void with_tallies(int rows_fd, int threads_fd, const Tally clock_thread::*tally,
                  const std::function<void(Stat&, const Tally&)>& add,
                  const std::function<void(const Key&, const Stat&)>& f) {
  std::vector<Tally> alive;
  walk_hash<std::uint32_t, clock_thread>(threads_fd,
                                         [&](const std::uint32_t&, const clock_thread& t) {
                                           if ((t.*tally).row != 0) alive.push_back(t.*tally);
                                         });
  if (alive.empty()) {
    walk_hash(rows_fd, f);
    return;
  }
  std::map<std::string, std::pair<Key, Stat>> rows;
  walk_hash<Key, Stat>(rows_fd, [&](const Key& k, const Stat& v) {
    rows.emplace(bytes_of(k), std::pair{k, v});
  });
  for (const Tally& t : alive)
    if (auto row = rows.find(bytes_of(t.key)); row != rows.end()) add(row->second.second, t);
  for (const auto& [bytes, row] : rows) f(row.first, row.second);
}

}  // namespace iobench::tracing
