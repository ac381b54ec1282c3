"""Pure game rules: imports only the standard library and msgspec."""
