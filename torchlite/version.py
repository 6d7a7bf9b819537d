"""The package's version: the one place it is written (pyproject.toml reads it at build time,
as torch/version.py is the source of torch.__version__)."""
__version__ = "0.1.0"
