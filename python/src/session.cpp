#include "session.hpp"

#include <memory>
#include <stdexcept>

#include "portasim/core/instance_pool.hpp"
#include "portasim/core/runtime.hpp"

namespace portasim::python {

namespace {

// Members go down in reverse: the pool before the runtime.
struct Session {
  Runtime runtime;
  InstancePool<Exec> pool{1};
};

std::unique_ptr<Session>& session_slot() {
  static std::unique_ptr<Session> session;
  return session;
}
bool ended = false;

}  // namespace

const Exec& instance() {
  auto& session = session_slot();
  if (!session) {
    if (ended)
      throw std::runtime_error("portasim: the Kokkos runtime has ended (interpreter exit)");
    session = std::make_unique<Session>();
    py::module_::import("atexit").attr("register")(py::cpp_function([] {
      session_slot().reset();
      ended = true;
    }));
  }
  return session->pool[0];
}

}  // namespace portasim::python
