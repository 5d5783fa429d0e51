"""The one exception type of the weave package."""


class WeaveError(RuntimeError):
    """An error of the Weave runtime or compiler.

    ``code`` is the runtime's error code name (``InvalidArgument``,
    ``CompileError``, ``DriverError``, ...); ``str(error)`` is the runtime's
    message, located where the runtime or compiler knows where (a compile
    error carries ``file:line:col`` diagnostics).
    """

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message
