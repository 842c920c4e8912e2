#pragma once
// A mutex the compiler can reason about: with clang, -Wthread-safety (scripts/tidy passes it)
// checks that every member marked GUARDED_BY(mu) is touched only with mu held, and that functions
// marked REQUIRES/EXCLUDES are called accordingly. std::mutex carries no such annotations in
// libstdc++, so classes that own a lock use these wrappers (abseil's Mutex is the model; the
// macro names are clang's documented ones). Other compilers see plain std::mutex.

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define KARPENTER_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define KARPENTER_THREAD_ANNOTATION(x)
#endif

#define CAPABILITY(x) KARPENTER_THREAD_ANNOTATION(capability(x))
#define SCOPED_CAPABILITY KARPENTER_THREAD_ANNOTATION(scoped_lockable)
#define GUARDED_BY(x) KARPENTER_THREAD_ANNOTATION(guarded_by(x))
#define PT_GUARDED_BY(x) KARPENTER_THREAD_ANNOTATION(pt_guarded_by(x))
#define REQUIRES(...) KARPENTER_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define EXCLUDES(...) KARPENTER_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ACQUIRE(...) KARPENTER_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define RELEASE(...) KARPENTER_THREAD_ANNOTATION(release_capability(__VA_ARGS__))

namespace karpenter {

class CAPABILITY("mutex") Mutex {
 public:
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds `mu` for its scope. Waits on a CondVar release and retake it.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ACQUIRE(mu) : lock_(mu.mu_) {}
  ~MutexLock() RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  friend class CondVar;
  std::unique_lock<std::mutex> lock_;
};

// A condition variable waited on with a MutexLock held. No predicate overloads: the condition is
// checked in a loop by the caller, where the analysis sees the lock held (it cannot in a lambda).
class CondVar {
 public:
  void Wait(MutexLock& lock) { cv_.wait(lock.lock_); }
  // False once `deadline` passed; it may also return early: recheck the condition.
  template <typename Clock, typename Duration>
  bool WaitUntil(MutexLock& lock, const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv_.wait_until(lock.lock_, deadline) == std::cv_status::no_timeout;
  }
  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace karpenter
