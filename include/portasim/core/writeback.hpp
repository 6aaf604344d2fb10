#pragma once
// Starting the write of finished files to their disk without making their writer wait.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace portasim::io {

// Asks the operating system to begin writing the dirty pages of the open file `fd` to its
// disk now (Linux: sync_file_range with SYNC_FILE_RANGE_WRITE; elsewhere nothing). The call
// can take as long as the disk needs to accept the pages, so a writer that must not slow
// down leaves it to a BackgroundWriteback. It promises nothing about durability; fsync does.
void start_writeback(int fd) noexcept;

// A thread that starts the writeback of each file handed to it, in order. A writer of many
// large files hands each one over as it finishes it: the disk then works while the next file
// is produced, where it would otherwise sit idle until the page cache is flushed at the end
// (the kernel starts on its own only past a share of memory). The writer itself keeps
// writing into the page cache at memory speed. A file that cannot be opened any more is
// skipped: the hint is only ever an early start.
class BackgroundWriteback {
 public:
  BackgroundWriteback();
  BackgroundWriteback(const BackgroundWriteback&) = delete;
  BackgroundWriteback& operator=(const BackgroundWriteback&) = delete;
  // Waits until every file handed over has had its writeback started; starting one can
  // itself wait while the disk's queue is full. It does not wait for the data to land.
  ~BackgroundWriteback();

  void start(std::string path);

 private:
  void work();

  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<std::string> m_paths;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace portasim::io
