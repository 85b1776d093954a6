// Keeps the machine's idle CPUs from halting while a traced program makes calls quickly.
//
// Untraced, a program making one call after another keeps its CPU busy. Traced, it stops at
// every call and waits for the tracer, and the tracer waits for it: each side's CPU goes idle
// thousands of times a second. On a VM an idle CPU halts (a VM exit), and waking it costs
// tens to hundreds of microseconds, twice per stop, around the very calls being timed. One
// SCHED_IDLE thread per CPU spins while stops keep coming: the scheduler treats such a CPU
// as idle (the program's threads are placed where they would be, and preempt the spinner at
// once), but it never halts. The spinners park after a pause in the stops, so a program that
// mostly computes or sleeps costs them nothing. README "How it measures" ("Idle CPUs").
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

namespace iobench::tracing {

/// When a spinner parks, decided at each look of its loop from the stops seen and its clock
/// (the caller's): after a pause of kLingerNs in the stops while it ran; a look that comes
/// long after the last (it was off its CPU: the program and the tracer ran there) is a busy
/// CPU, not an idle one.
class ParkWatch {
 public:
  static constexpr std::int64_t kLingerNs = 2'000'000;
  static constexpr std::int64_t kStarvedNs = 100'000;

  ParkWatch(std::uint64_t stops, std::int64_t now) noexcept : seen_(stops), last_(now), ran_(now) {}
  /// Whether to park now, at a look that saw `stops` at `now`.
  bool should_park(std::uint64_t stops, std::int64_t now) noexcept {
    const bool starved = now - ran_ > kStarvedNs;
    ran_ = now;
    if (stops != seen_ || starved) {
      seen_ = stops;
      last_ = now;
      return false;
    }
    return now - last_ > kLingerNs;
  }
  /// Back from a park (or a park given up): the pause starts again from here.
  void restart(std::uint64_t stops, std::int64_t now) noexcept { *this = ParkWatch(stops, now); }

 private:
  std::uint64_t seen_;
  std::int64_t last_, ran_;
};

class IdleSpinners {
 public:
  /// Starts one spinner per CPU of the caller's affinity mask when it has two or more (with
  /// one CPU, tracer and tracee take turns on it and it never idles); none if !enable.
  explicit IdleSpinners(bool enable);
  /// Stops and joins them.
  ~IdleSpinners();
  IdleSpinners(const IdleSpinners&) = delete;
  IdleSpinners& operator=(const IdleSpinners&) = delete;

  /// A stop happened: spinners keep spinning (parked ones are woken). Cheap: one atomic
  /// increment, plus a futex wake only when a spinner has parked since the last one. The
  /// wake claims the parked: a woken spinner that has no CPU yet (the one beside the program
  /// waits behind it) is not woken again at every stop.
  void touch() noexcept {
    if (!shared_) return;
    shared_->stops.fetch_add(1);
    if (shared_->parked.load() > 0 && shared_->parked.exchange(0) > 0) {
      shared_->generation.fetch_add(1);
      shared_->generation.notify_all();
    }
  }

  std::size_t count() const noexcept { return threads_.size(); }

 private:
  struct Shared {
    std::atomic<std::uint64_t> stops{0};
    std::atomic<std::uint32_t> generation{0};  // bumped to wake parked spinners
    std::atomic<int> parked{0};                // spinners parked and not yet woken
    std::atomic<bool> quit{false};
  };
  static void spin(Shared& s, int cpu) noexcept;

  std::unique_ptr<Shared> shared_;
  std::vector<std::thread> threads_;
};

}  // namespace iobench::tracing
