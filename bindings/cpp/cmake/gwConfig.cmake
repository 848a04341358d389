# find_package(gw CONFIG) for an installed gw (`make install`):
#   gw::gw          libgw.so, with the include directory holding gw.h and gw/gw.hpp: for C
#   gw::gw_static   libgw.a, plus the system libraries Rust's std needs: for C
#   gw::cpp         gw::gw plus cxx_std_17, which the C++ binding (gw/gw.hpp) needs: for C++
#   gw::cpp_static  gw::gw_static plus cxx_std_17
# gw::gw and gw::gw_static carry no C++ requirement, so a C-only project (project(app C))
# links them; C++ code links gw::cpp (or gw::cpp_static) and gets C++17 with it.
#
# The install prefix is found from this file's own place (PREFIX/lib/cmake/gw), so a tree
# staged with DESTDIR or moved elsewhere works as it is.
get_filename_component(_gw_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

foreach(_gw_file include/gw.h include/gw/gw.hpp lib/libgw.so lib/libgw.a)
    if(NOT EXISTS "${_gw_prefix}/${_gw_file}")
        set(gw_FOUND FALSE)
        set(gw_NOT_FOUND_MESSAGE "gw: ${_gw_prefix}/${_gw_file} is missing; reinstall gw")
        unset(_gw_prefix)
        return()
    endif()
endforeach()

include(CMakeFindDependencyMacro)
find_dependency(Threads)

if(NOT TARGET gw::gw)
    add_library(gw::gw SHARED IMPORTED)
    set_target_properties(gw::gw PROPERTIES
        # The link to libgw.so.X.Y.Z; programs record its SONAME (libgw.so.X).
        IMPORTED_LOCATION "${_gw_prefix}/lib/libgw.so"
        INTERFACE_INCLUDE_DIRECTORIES "${_gw_prefix}/include")
endif()

if(NOT TARGET gw::gw_static)
    add_library(gw::gw_static STATIC IMPORTED)
    set_target_properties(gw::gw_static PROPERTIES
        IMPORTED_LOCATION "${_gw_prefix}/lib/libgw.a"
        IMPORTED_LINK_INTERFACE_LANGUAGES "C"
        INTERFACE_INCLUDE_DIRECTORIES "${_gw_prefix}/include"
        INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
endif()

# The C++ binding is header-only: the same libraries, plus the C++ standard it needs.
if(NOT TARGET gw::cpp)
    add_library(gw::cpp INTERFACE IMPORTED)
    set_target_properties(gw::cpp PROPERTIES
        INTERFACE_COMPILE_FEATURES cxx_std_17
        INTERFACE_LINK_LIBRARIES gw::gw)
endif()

if(NOT TARGET gw::cpp_static)
    add_library(gw::cpp_static INTERFACE IMPORTED)
    set_target_properties(gw::cpp_static PROPERTIES
        INTERFACE_COMPILE_FEATURES cxx_std_17
        INTERFACE_LINK_LIBRARIES gw::gw_static)
endif()

unset(_gw_prefix)
