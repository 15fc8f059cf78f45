# mcpspec's coverage wrapper for Python servers (`mcpspec fuzz --coverage python`).
#
# Run as `python WRAPPER [-m module | script.py] ARGS...`: it runs the module or script as
# Python would (as __main__, with the same argv and sys.path[0]) and appends each source line
# the process runs for the first time to the file named by MCPSPEC_COVERAGE_FILE, as
# "LINE<TAB>FILENAME\n". The file is the side channel: stdin, stdout and stderr stay the
# server's. Each write happens before the code that follows it runs, so whatever the server
# answered has its lines in the file already.
#
# Python 3.12 and later: sys.monitoring LINE events, each disabled once seen (a line costs
# one event per process). Before 3.12: sys.settrace, with code objects whose lines were all
# seen no longer traced. The standard library is not measured: only the server and its
# packages.
import os
import sys
import sysconfig

_out = os.environ.pop("MCPSPEC_COVERAGE_FILE", None)
if not _out:
    sys.stderr.write("mcpspec coverage wrapper: MCPSPEC_COVERAGE_FILE is not set\n")
    sys.exit(2)
_fd = os.open(_out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
_here = os.path.abspath(__file__)
_stdlib = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
)
_site = tuple(
    os.path.join(os.path.realpath(p), "")
    for p in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
)
_measured = {}
_seen = set()


def _measures(filename):
    """Whether a file is the server's or a package's, not the standard library's or ours."""
    known = _measured.get(filename)
    if known is None:
        if filename.startswith("<") or os.path.abspath(filename) == _here:
            known = False
        else:
            real = os.path.realpath(filename)
            # A venv's site-packages may sit under the base interpreter's stdlib folder.
            known = real.startswith(_site) or not real.startswith(_stdlib)
        _measured[filename] = known
    return known


def _record(filename, line):
    key = (filename, line)
    if key in _seen:
        return
    _seen.add(key)
    os.write(_fd, b"%d\t%s\n" % (line, os.fsencode(filename).replace(b"\n", b" ")))


def _start_monitoring():
    mon = sys.monitoring
    tool = mon.COVERAGE_ID
    try:
        mon.use_tool_id(tool, "mcpspec")
    except ValueError:
        return False

    def on_line(code, line):
        if _measures(code.co_filename):
            _record(code.co_filename, line)
        return mon.DISABLE

    mon.register_callback(tool, mon.events.LINE, on_line)
    mon.set_events(tool, mon.events.LINE)
    return True


def _start_tracing():
    import threading

    # Each code object gets a tracer of its own over the set of its lines not seen yet, and
    # is no longer traced once the set is empty: the cost of a line event is one call and
    # one set lookup, and code whose every line ran costs nothing.
    tracers = {}

    def lines_of(code):
        try:
            return {line for _, _, line in code.co_lines() if line is not None}
        except AttributeError:
            import dis

            return {line for _, line in dis.findlinestarts(code)}

    def tracer_of(code):
        filename = code.co_filename
        rest = lines_of(code)
        # A function's `def` line (or its first decorator's) starts its code object but is
        # not run as a line of its body: it would keep the function traced for ever.
        if code.co_name != "<module>":
            rest.discard(code.co_firstlineno)

        def local(frame, event, arg):
            if event == "line":
                line = frame.f_lineno
                if line in rest:
                    rest.discard(line)
                    _record(filename, line)
                    if not rest:
                        tracers[code] = None
                        return None
            return local

        return local if rest else None

    def on_call(frame, event, arg):
        code = frame.f_code
        try:
            return tracers[code]
        except KeyError:
            tracer = tracer_of(code) if _measures(code.co_filename) else None
            tracers[code] = tracer
            return tracer

    threading.settrace(on_call)
    sys.settrace(on_call)


def _main():
    args = sys.argv[1:]
    if not args:
        sys.stderr.write("usage: python WRAPPER (-m module | script.py) [args...]\n")
        sys.exit(2)
    if not (hasattr(sys, "monitoring") and _start_monitoring()):
        _start_tracing()
    import runpy

    if args[0] == "-m" and len(args) > 1:
        sys.argv = [args[1]] + args[2:]
        sys.path[0] = os.getcwd()
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = args
        sys.path[0] = os.path.dirname(os.path.abspath(args[0]))
        runpy.run_path(args[0], run_name="__main__")


_main()
