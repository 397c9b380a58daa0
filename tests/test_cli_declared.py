"""CLI flags made from the declared options (issue 31, item 5).

For every subcommand in ``audeval._cli.parser.DECLARED``, each flag whose destination is a field of the
family's declaration has the field's doc text, its choices (or fewer), a default the field allows,
and refuses what the field refuses, with the field's own message.
"""

from __future__ import annotations

import argparse

import pytest

from audeval._cli.declared import plain
from audeval._cli.messages import UsageError
from audeval._cli.parser import DECLARED, build_parser, parse


PARSER = build_parser()


def _declared_actions(command):
    """The metric flags of a subcommand that are declared options (not those of kind ``"any"``,
    such as ``--threshold``, which take their own command-line form)."""
    declaration = DECLARED[command]
    (metric,) = [g for g in PARSER.commands[command]._action_groups if g.title == "metric"]
    for action in metric._group_actions:
        field = declaration.fields.get(action.dest)
        if field is not None and field.kind != "any":
            yield field, action


CASES = [
    pytest.param(command, field, action, id=f"{command}-{field.name}")
    for command in DECLARED
    for field, action in _declared_actions(command)
]


def test_every_declared_subcommand_has_declared_flags():
    assert {case.values[0] for case in CASES} == set(DECLARED)
    assert len(CASES) >= 3 + 16, len(CASES)


@pytest.mark.parametrize("command, field, action", CASES)
def test_a_flag_is_its_field(command, field, action):
    assert action.option_strings[-1].endswith(field.name.replace("_", "-"))
    if field.kind == "choice":
        assert set(action.choices) <= set(field.choices)
        if len(action.choices) == len([c for c in field.choices if c is not None]):
            assert plain(field.doc) in action.help
    else:
        assert plain(field.doc) in action.help
    if action.default is not None and field.kind != "bool":
        field.check(action.default)  # a default the field allows


BAD = {"real": "-1", "seconds": "-1", "choice": "no-such-choice"}


@pytest.mark.parametrize(
    "command, field, action",
    [case for case in CASES if case.values[1].kind in BAD and case.values[1].low != float("-inf")],
)
def test_a_flag_refuses_what_its_field_refuses(command, field, action):
    argv = [command, "t", "p"] if command != "scores" else [command, "t", "s"]
    with pytest.raises(UsageError, match=action.option_strings[-1]):
        parse(PARSER, [*argv, action.option_strings[-1], BAD[field.kind]])


def test_a_real_flag_gives_the_fields_message():
    with pytest.raises(UsageError, match=r"dtc_threshold must be in \[0, 1\]; got 2.0"):
        parse(PARSER, ["scores", "t", "s", "--dtc-threshold", "2"])
    args = parse(PARSER, ["scores", "t", "s", "--cttc-threshold", "none", "--max-fpr", "0.1"])
    assert args.cttc_threshold is None and args.max_fpr == 0.1
    args = parse(PARSER, ["segments", "--example", "--time-resolution", "exact"])
    assert args.time_resolution is None


def test_plain_strips_markup():
    assert plain('``"sed_eval"`` and :math:`\\beta`; ``None``: no') == "'sed_eval' and beta; 'none': no"
    assert isinstance(PARSER, argparse.ArgumentParser)
