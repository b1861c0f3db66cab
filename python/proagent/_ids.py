"""The built-in layouts, which have registered Gymnasium ids (from the native module)."""

from ._native import builtin_layouts as _builtin

_LAYOUTS = _builtin()
CLASSIC_LAYOUTS = tuple(_LAYOUTS["overcooked"])
V2_LAYOUTS = tuple(_LAYOUTS["overcooked_v2"])
