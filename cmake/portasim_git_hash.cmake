# cmake -DGIT=<git executable> -DSOURCE_DIR=... -DOUT=... -P portasim_git_hash.cmake
# Writes OUT, a header defining PORTASIM_GIT_HASH as the commit the sources are at, with
# "-dirty" when tracked files differ from it. A build step, not a configure step, so that a
# benchmark's output names the commit that was built rather than the one configured. OUT is
# rewritten only when the text changes, so an unchanged commit recompiles nothing.
if(NOT GIT)
  set(GIT git)
endif()
execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" rev-parse --short HEAD
                OUTPUT_VARIABLE hash OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(hash)
  execute_process(COMMAND "${GIT}" -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND hash "-dirty")
  endif()
endif()
set(text "#pragma once\n#define PORTASIM_GIT_HASH \"${hash}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
