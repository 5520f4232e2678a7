/* What the library's sources take from the config.h that configure
 * writes, for the Python build, which runs no configure: setup.py passes
 * the version read from configure.ac's AC_INIT. */
#ifndef FPREF_PYTHON_CONFIG_H
#define FPREF_PYTHON_CONFIG_H
#ifndef PACKAGE_VERSION
#error "PACKAGE_VERSION comes from python/setup.py (configure.ac's AC_INIT)"
#endif
#endif
