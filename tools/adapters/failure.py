"""How the Python adapters reject a call: AdapterError carries the
protocol's error kind ("unsupported" for the unsupported answer) and the
message; fail raises it. Plain Python, for every adapter's environment.
"""


class AdapterError(Exception):
    """A rejection with its protocol kind ("unsupported" for the
    unsupported answer)."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def fail(kind, message):
    raise AdapterError(kind, message)
