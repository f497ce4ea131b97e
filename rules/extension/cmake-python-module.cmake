cmake_minimum_required(VERSION 3.18)
project(lab_ops LANGUAGES CXX)
# ruleid: cmake-python-module
pybind11_add_module(fastops src/bind.cpp src/kernels.cu)
# ruleid: cmake-python-module
nanobind_add_module(nbops NB_STATIC src/nb.cpp)
# ruleid: cmake-python-module
Python_add_library(pyops MODULE WITH_SOABI src/py.cpp)
add_library(pyngp SHARED src/python_api.cu)
# ruleid: cmake-python-module
pybind11_extension(pyngp)
# ok: cmake-python-module
add_library(ngp STATIC src/testbed.cu)
# ok: cmake-python-module
# pybind11_add_module(old src/old.cpp)   (commented out)
# ok: cmake-python-module
find_package(pybind11 CONFIG REQUIRED)
