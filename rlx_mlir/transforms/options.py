"""Pass-option checks shared by the RLX passes, so a bad option reads the same everywhere."""

from __future__ import annotations

from collections.abc import Sequence


def check_choice(pass_name: str, option: str, value: str, choices: Sequence[str]) -> None:
    """Reject a value outside `choices` with a message that lists the valid ones."""
    if value not in choices:
        raise ValueError(
            f"{pass_name}: option '{option}' must be one of {', '.join(choices)}; got '{value}'"
        )
