"""`pip install` of the module (the metadata is in pyproject.toml): the optional extension
bloomtool._speedups is compiled when a C compiler and the Python headers are there (Debian:
python3-dev); when it cannot be, pip installs the module without it (optional=True), and the
module's pure-Python code does the same work, only slower on long lists of keys."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("bloomtool._speedups", ["bloomtool/_speedups.c"], optional=True)])
