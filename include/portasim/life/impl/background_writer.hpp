#pragma once
// Writes chunks to a sink on a thread of its own, for runs whose host thread is busy while
// the device computes: over MPI the host drives the halo exchange of every generation, so a
// sink written on that thread would stall compute for as long as the write takes. The host
// thread fills one of two buffers (by a gather or a copy out of pinned memory) and posts it;
// the writer writes it while the next chunk is computed. Only the writer thread calls the
// sink, so a sink need not be thread-safe; MPI is never called from the writer.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "portasim/life/simulation.hpp"

namespace portasim::life::impl {

class BackgroundWriter {
 public:
  explicit BackgroundWriter(ChunkSink& sink) : m_sink(sink), m_thread([this] { work(); }) {}
  BackgroundWriter(const BackgroundWriter&) = delete;
  BackgroundWriter& operator=(const BackgroundWriter&) = delete;
  ~BackgroundWriter() {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      m_stop = true;
    }
    m_changed.notify_all();
    m_thread.join();
  }

  // The buffer of the next chunk, `bytes` long, once the write that last used it is done.
  // Rethrows the exception of a write that failed.
  std::uint8_t* next_buffer(std::size_t bytes) {
    Job& job = m_jobs[m_posted % 2];
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_written + 1 >= m_posted || m_error; });
    rethrow_error();
    job.data.resize(bytes);
    return job.data.data();
  }

  // Writes the buffer last returned by next_buffer() as `chunk` (its data pointer is set
  // here), with its generation numbers.
  void post(const Chunk& chunk, std::vector<std::int64_t> generations) {
    {
      std::lock_guard<std::mutex> lock(m_mutex);
      Job& job = m_jobs[m_posted % 2];
      job.chunk = chunk;
      job.generations = std::move(generations);
      ++m_posted;
    }
    m_changed.notify_all();
  }

  // Waits for every posted write; rethrows the exception of one that failed.
  void finish() {
    std::unique_lock<std::mutex> lock(m_mutex);
    m_changed.wait(lock, [&] { return m_written == m_posted || m_error; });
    rethrow_error();
  }

  // Host time the writer spent in the sink.
  double write_seconds() const {
    std::lock_guard<std::mutex> lock(m_mutex);
    return m_seconds;
  }

 private:
  struct Job {
    Chunk chunk;
    std::vector<std::int64_t> generations;
    std::vector<std::uint8_t> data;
  };

  void rethrow_error() {
    if (m_error) std::rethrow_exception(m_error);
  }

  void work() {
    std::unique_lock<std::mutex> lock(m_mutex);
    while (true) {
      m_changed.wait(lock, [&] { return m_stop || m_written < m_posted; });
      // Stopped: a run that ends normally has waited in finish(); one that failed writes
      // nothing more.
      if (m_stop) return;
      Job& job = m_jobs[m_written % 2];
      lock.unlock();
      const auto began = std::chrono::steady_clock::now();
      std::exception_ptr error;
      try {
        Chunk chunk = job.chunk;
        chunk.data = job.data.data();
        chunk.generations = job.generations.data();
        m_sink.write(chunk);
      } catch (...) {
        error = std::current_exception();
      }
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
      lock.lock();
      m_seconds += seconds;
      if (error) {
        m_error = error;
        m_written = m_posted;  // nothing after a failed write is written
      } else {
        ++m_written;
      }
      m_changed.notify_all();
    }
  }

  ChunkSink& m_sink;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  Job m_jobs[2];
  std::int64_t m_posted = 0, m_written = 0;
  double m_seconds = 0;
  std::exception_ptr m_error;
  bool m_stop = false;
  std::thread m_thread;  // last: started once every member above exists
};

}  // namespace portasim::life::impl
