# The workbench tools' build (src/tools): SQLite for `kforge history`, the generated build facts (git revision,
# asm manifest path), and build/asm/ for `kforge asm`: every kernel translation unit of src/depthwise and src/dense
# compiled for sm_90a to PTX and cubin with the library's flags, and manifest.json recording the exact ptxas
# command line nvcc runs, so that re-assembling the PTX reproduces nvcc's cubin byte for byte.
# Included at the end of CMakeLists.txt, once every target exists.

# --- SQLite: the static archive when there is one (binaries built here run on machines without libsqlite3.so.0).
find_library(SQLite3_LIBRARY NAMES libsqlite3.a sqlite3)
find_package(SQLite3 REQUIRED)
if(SQLite3_LIBRARY MATCHES "\\.a$")
  set_property(TARGET SQLite::SQLite3 APPEND PROPERTY INTERFACE_LINK_LIBRARIES ${CMAKE_DL_LIBS} m Threads::Threads)
endif()
target_link_libraries(kforge PRIVATE SQLite::SQLite3)

set(KFORGE_ASM_DIR ${CMAKE_BINARY_DIR}/asm)

# --- Build facts: regenerated at every build (the revision changes without reconfiguring); the file is rewritten
# only when its content changes, so an unchanged revision rebuilds nothing.
set(KFORGE_BUILD_INFO_CPP ${CMAKE_BINARY_DIR}/generated/build_info.cpp)
add_custom_target(kforge_build_info
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUT=${KFORGE_BUILD_INFO_CPP}
          -DASM_MANIFEST=${KFORGE_ASM_DIR}/manifest.json -P ${CMAKE_SOURCE_DIR}/cmake/kforge_build_info.cmake
  BYPRODUCTS ${KFORGE_BUILD_INFO_CPP}
  VERBATIM)
target_sources(kforge PRIVATE ${KFORGE_BUILD_INFO_CPP})
add_dependencies(kforge kforge_build_info)

# --- kforge asm: PTX + cubin of each kernel unit (about one more sm_90a compile of each; KFORGE_ASM=OFF skips it,
# and the Asm tests then skip).
option(KFORGE_ASM "build PTX and cubin of every kernel translation unit for kforge asm" ON)
if(NOT KFORGE_ASM)
  return()
endif()

string(TOUPPER "${CMAKE_BUILD_TYPE}" _kf_config)
separate_arguments(_kf_cuda_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS} ${CMAKE_CUDA_FLAGS_${_kf_config}}")
list(APPEND _kf_cuda_flags ${KFORGE_CUDA_FLAGS} ${CMAKE_CUDA20_STANDARD_COMPILE_OPTION})
set(_kf_gencode -gencode arch=compute_90a,code=sm_90a)

# nvcc's dry run prints the ptxas command line these flags produce (e.g. -lineinfo becomes --generate-line-info):
# record it without its input and output. ptxas writes its options into the cubin (.note.nv.tkinfo), so only
# this exact list reproduces nvcc's bytes.
execute_process(COMMAND ${CMAKE_CUDA_COMPILER} -dryrun -cubin ${_kf_gencode} ${_kf_cuda_flags} kforge_probe.cu
                        -o kforge_probe.cubin
                WORKING_DIRECTORY ${CMAKE_BINARY_DIR} ERROR_VARIABLE _kf_dryrun OUTPUT_QUIET)
if(NOT _kf_dryrun MATCHES "#\\$ ptxas ([^\n]*)")
  message(FATAL_ERROR "kforge asm: `nvcc -dryrun` printed no ptxas command line:\n${_kf_dryrun}")
endif()
string(REGEX REPLACE "\"[^\"]*\"" "" _kf_ptxas_line "${CMAKE_MATCH_1}")
separate_arguments(_kf_ptxas_args UNIX_COMMAND "${_kf_ptxas_line}")
list(REMOVE_ITEM _kf_ptxas_args -o)
if(NOT _kf_dryrun MATCHES "#\\$ _HERE_=([^\n]*)")
  message(FATAL_ERROR "kforge asm: `nvcc -dryrun` did not say where its tools are:\n${_kf_dryrun}")
endif()
set(_kf_ptxas ${CMAKE_MATCH_1}/ptxas)

# The library's own include folders and definitions, as its objects are compiled.
set(_kf_kforge_defs $<TARGET_PROPERTY:kforge,COMPILE_DEFINITIONS>)
# (kforge_sm90's folders add the CUTLASS headers its units need.)
set(_kf_includes "$<TARGET_PROPERTY:kforge,INCLUDE_DIRECTORIES>$<SEMICOLON>$<TARGET_PROPERTY:kforge_sm90,INCLUDE_DIRECTORIES>")
set(_kf_unit_flags ${_kf_cuda_flags} "-I$<JOIN:$<REMOVE_DUPLICATES:${_kf_includes}>,$<SEMICOLON>-I>"
                   "$<$<BOOL:${_kf_kforge_defs}>:-D$<JOIN:${_kf_kforge_defs},$<SEMICOLON>-D>>")

get_target_property(_kf_sources kforge SOURCES)
get_target_property(_kf_sm90_sources kforge_sm90 SOURCES)
list(APPEND _kf_sources ${_kf_sm90_sources})
set(_kf_outputs "")
set(_kf_units_json "")
foreach(_kf_src IN LISTS _kf_sources)
  get_filename_component(_kf_abs ${_kf_src} ABSOLUTE BASE_DIR ${CMAKE_SOURCE_DIR})
  file(RELATIVE_PATH _kf_rel ${CMAKE_SOURCE_DIR} ${_kf_abs})
  if(NOT _kf_rel MATCHES "^src/(depthwise|dense)/[^/]+\\.cu$")
    continue()
  endif()
  get_filename_component(_kf_stem ${_kf_rel} NAME_WE)
  set(_kf_cubin ${KFORGE_ASM_DIR}/${_kf_stem}.cubin)
  set(_kf_keep ${KFORGE_ASM_DIR}/keep-${_kf_stem})
  # One nvcc run: the cubin, and (--keep) the very PTX ptxas assembled it from. The cubin comes first in OUTPUT:
  # Ninja matches it against the depfile's target.
  add_custom_command(
    OUTPUT ${_kf_cubin} ${KFORGE_ASM_DIR}/${_kf_stem}.ptx
    COMMAND ${CMAKE_COMMAND} -E make_directory ${_kf_keep}
    COMMAND ${CMAKE_CUDA_COMPILER} ${_kf_unit_flags} ${_kf_gencode} -cubin --keep --keep-dir ${_kf_keep}
            -MD -MF ${KFORGE_ASM_DIR}/${_kf_stem}.d ${_kf_abs} -o ${_kf_cubin}
    COMMAND ${CMAKE_COMMAND} -E copy ${_kf_keep}/${_kf_stem}.ptx ${KFORGE_ASM_DIR}/${_kf_stem}.ptx
    COMMAND ${CMAKE_COMMAND} -E rm -rf ${_kf_keep}
    DEPENDS ${_kf_abs}
    DEPFILE ${KFORGE_ASM_DIR}/${_kf_stem}.d
    COMMENT "kforge asm: ${_kf_rel} -> PTX and cubin for sm_90a"
    COMMAND_EXPAND_LISTS VERBATIM)
  list(APPEND _kf_outputs ${_kf_cubin} ${KFORGE_ASM_DIR}/${_kf_stem}.ptx)
  if(_kf_units_json)
    string(APPEND _kf_units_json ",\n")
  endif()
  string(APPEND _kf_units_json
         "    {\"source\": \"${_kf_rel}\", \"ptx\": \"${_kf_stem}.ptx\", \"cubin\": \"${_kf_stem}.cubin\"}")
endforeach()

list(JOIN _kf_ptxas_args "\", \"" _kf_args_json)
file(CONFIGURE OUTPUT ${KFORGE_ASM_DIR}/manifest.json CONTENT "{
  \"arch\": \"sm_90a\",
  \"ptxas\": \"${_kf_ptxas}\",
  \"ptxas_args\": [\"${_kf_args_json}\"],
  \"units\": [
${_kf_units_json}
  ]
}
")

add_custom_target(kforge_asm DEPENDS ${_kf_outputs})
# The Asm tests re-assemble every unit.
add_dependencies(kforge_tests kforge_asm)
