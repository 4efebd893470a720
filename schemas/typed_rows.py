"""Arrow fields from a table's row type.

Each table has one row type, a ``TypedDict`` (``ChunkRow``, ``DocumentRow``,
``ErrorRow``, ``ChangeRow``) whose fields read ``Annotated[python type, arrow type]``
in column order; a column is nullable exactly when its python type admits ``None``.
The Arrow schema is derived from it, so the two cannot drift. A ``TypedDict``
because a row stays a plain ``dict`` at run time: Beam encodes it as it always did,
a row read back from Parquet has the same type, and building one costs no more
than the dict literal it replaces. Beam sees a ``TypedDict`` as ``Dict[str, Any]``.
"""

from typing import Annotated, Any, NotRequired, Required, get_args, get_origin, get_type_hints

import pyarrow as pa


def column_hints(row_type: type) -> dict[str, tuple[Any, pa.DataType]]:
    """``{column: (python type, arrow type)}`` of a row type, in column order."""
    out = {}
    for name, hint in get_type_hints(row_type, include_extras=True).items():
        while get_origin(hint) in (NotRequired, Required):
            hint = get_args(hint)[0]
        if get_origin(hint) is not Annotated:
            raise TypeError(f"{row_type.__name__}.{name}: annotate as "
                            "Annotated[python type, arrow type]")
        python_type, arrow_type = get_args(hint)[:2]
        out[name] = (python_type, arrow_type)
    return out


def arrow_fields(row_type: type) -> list[pa.Field]:
    """The Arrow fields of a row type's columns, in order."""
    return [pa.field(name, arrow_type, nullable=type(None) in get_args(python_type))
            for name, (python_type, arrow_type) in column_hints(row_type).items()]
