"""neurontui: a terminal trace explorer for PyTorch on AWS Trainium."""

__version__ = "0.1.0"
