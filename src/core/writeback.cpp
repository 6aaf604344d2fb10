#include "portasim/core/writeback.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace portasim::io {

void start_writeback(int fd) noexcept {
#if defined(__linux__)
  // Offset 0 and length 0: the whole file. A failure only means the pages are written
  // later, by the usual writeback or a flush, so it is not reported.
  (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
  (void)fd;
#endif
}

BackgroundWriteback::BackgroundWriteback() : m_thread([this] { work(); }) {}

BackgroundWriteback::~BackgroundWriteback() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_changed.notify_all();
  m_thread.join();
}

void BackgroundWriteback::start(std::string path) {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_paths.push_back(std::move(path));
  }
  m_changed.notify_all();
}

void BackgroundWriteback::work() {
  for (;;) {
    std::string path;
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      m_changed.wait(lock, [&] { return m_stop || !m_paths.empty(); });
      if (m_paths.empty()) return;  // stopped, and nothing is left
      path = std::move(m_paths.front());
      m_paths.pop_front();
    }
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    start_writeback(fd);
    ::close(fd);
  }
}

}  // namespace portasim::io
