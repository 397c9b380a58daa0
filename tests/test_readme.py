"""The README's Python example runs and prints what the README says."""

import ast
import os
import re


README = os.path.join(os.path.dirname(__file__), "..", "README.md")


def _python_blocks():
    with open(README, encoding="utf-8") as file:
        text = file.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_starts_with_the_two_commands():
    with open(README, encoding="utf-8") as file:
        text = file.read()
    first_block = re.search(r"```bash\n(.*?)```", text, flags=re.S).group(1).strip().splitlines()
    assert first_block == [
        "pip install . && audeval example",
        'pip install -e ".[tests]" && python -m pytest',
    ]
    with open(os.path.join(os.path.dirname(__file__), "..", ".ci", "run"), encoding="utf-8") as file:
        assert first_block[1] in file.read()


def test_readme_python_example():
    """Each statement followed by a ``# value`` comment must evaluate to that value."""
    blocks = _python_blocks()
    assert blocks
    for block in blocks:
        namespace: dict = {}
        statements = ast.parse(block).body
        lines = block.splitlines()
        for statement in statements:
            code = ast.get_source_segment(block, statement)
            after = lines[statement.end_lineno] if statement.end_lineno < len(lines) else ""
            if isinstance(statement, ast.Expr) and after.startswith("# "):
                value = eval(compile(ast.Expression(statement.value), "README", "eval"), namespace)
                assert value == ast.literal_eval(after[2:]), code
            else:
                exec(compile(ast.Module([statement], []), "README", "exec"), namespace)
