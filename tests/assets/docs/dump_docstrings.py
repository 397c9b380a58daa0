"""Dump every public __doc__ (audeval.__all__, audeval.separation.__all__, audeval.plot.__all__) to a file.

Run from a worktree root, before and after a docstring change, and diff the two files:
    PYTHONPATH=. python tests/assets/docs/dump_docstrings.py /tmp/before.txt
"""
import sys, inspect
import audeval, audeval.separation, audeval.plot
out = []
for mod in [audeval, audeval.separation] + ([audeval.plot] if hasattr(audeval, "plot") else []):
    for name in sorted(getattr(mod, "__all__", [])):
        obj = getattr(mod, name)
        out.append(f"===== {mod.__name__}.{name}\n{obj.__doc__}\n")
        if inspect.isclass(obj):
            for m, v in sorted(vars(obj).items()):
                if not m.startswith("_") and getattr(v, "__doc__", None):
                    out.append(f"===== {mod.__name__}.{name}.{m}\n{getattr(obj, m).__doc__}\n")
open(sys.argv[1], "w").write("".join(out))
print(audeval.__file__, len(out))
