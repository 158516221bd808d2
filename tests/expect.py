"""Assertions shared by the CLI tests."""

from __future__ import annotations


def one_line_error(result, code: int, *fragments: str) -> None:
    """A user error: exit ``code``, exactly one ``irscope: error:`` line holding ``fragments``, no traceback."""
    assert result.exit_code == code, (result.exit_code, result.stderr)
    errors = [line for line in result.stderr.splitlines() if line.startswith("irscope: error:")]
    assert len(errors) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in errors[0], errors[0]
