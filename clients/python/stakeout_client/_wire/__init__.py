"""Generated from openapi/v1.json by clients/python/generate.py: do not edit."""
