"""deploy/crontab is the schedule the README asks operators to cron: every
command it runs exists and parses its arguments, and every command the README
says to cron is in it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parents[2]
FIELDS = re.compile(r"^(\S+\s+){5}(?P<command>.+)$")


def _jobs() -> list[list[str]]:
    jobs = []
    for line in (ROOT / "deploy" / "crontab").read_text().splitlines():
        if not line.strip() or line.startswith("#") or re.match(r"^[A-Z_]+=", line):
            continue
        match = FIELDS.match(line)
        assert match, f"not a crontab line: {line!r}"
        words = shlex.split(match["command"].split("manage.py", 1)[1])
        jobs.append(words)
    return jobs


@pytest.mark.parametrize("words", _jobs(), ids=lambda words: words[0])
def test_every_scheduled_command_exists_and_takes_its_arguments(words: list[str]) -> None:
    name, *arguments = words
    app = get_commands()[name]
    command = load_command_class(app, name)
    command.create_parser("manage.py", name).parse_args(arguments)


def test_every_command_the_readme_says_to_cron_is_scheduled() -> None:
    readme = (ROOT / "README.md").read_text()
    told = set(re.findall(r"manage\.py (\w+)(?:[^`]*)`\s*\(\s*(?:from\s+)?cron", readme))
    told |= set(re.findall(r"`manage\.py (\w+)[^`]*` \(cron it", readme))
    scheduled = {words[0] for words in _jobs()}
    assert told, "the README names no command to cron: this test reads it wrongly"
    assert told <= scheduled, f"the README says to cron {sorted(told - scheduled)}"
