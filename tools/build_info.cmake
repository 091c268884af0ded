# Writes the build's provenance (version, commit, build type) into OUT, run at every build so
# that a new commit shows without a reconfigure; OUT is rewritten only when its text changes,
# so an unchanged commit rebuilds nothing. A source tree without git says "unknown".
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  # Uncommitted changes to tracked files: the commit alone does not say what was built.
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE "${OUT}.new"
"#include \"tools/scenario/build_info.hpp\"\nnamespace clustersim {\nconst BuildInfo& build_info() {\n    static const BuildInfo info{\"${VERSION}\", \"${commit}\", \"${BUILD_TYPE}\"};\n    return info;\n}\n}  // namespace clustersim\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
file(REMOVE "${OUT}.new")
