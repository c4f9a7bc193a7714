"""Chat messages in the OpenAI / Hugging Face form, shared by the training exports
(``trajectories`` and ``step_samples``): ``role`` is ``system``, ``user``, ``assistant`` or ``tool``;
an assistant message that calls a tool has ``tool_calls`` (each with the function's ``name`` and its
``arguments`` as JSON text) and an empty ``content``; a tool message names the call it answers
(``tool_call_id``) and the tool (``name``). Absent fields are null."""

import polars as pl

ROLES = ["system", "user", "assistant", "tool"]
TOOL_CALL = pl.Struct({"id": pl.Utf8, "type": pl.Utf8,
                       "function": pl.Struct({"name": pl.Utf8, "arguments": pl.Utf8})})
MESSAGE = pl.Struct({"role": pl.Utf8, "content": pl.Utf8, "tool_calls": pl.List(TOOL_CALL),
                     "tool_call_id": pl.Utf8, "name": pl.Utf8})
MESSAGES = pl.List(MESSAGE)


def roles_are_known(column: str) -> pl.Expr:
    """Every message of the list column ``column`` has a known role."""
    return pl.col(column).list.eval(pl.element().struct.field("role").is_in(ROLES)).list.all()
