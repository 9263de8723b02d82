"""wildio: the I/O helpers and the JSONL chunking of the wild test plugins.

Split out of wildbase.py, which imports every name back, so that a plugin's
`wildbase.X` keeps working: errors, reading stdin and writing JSON, strict
base64, flags, atomic writes, and the chunker (ours and the host's own).
Standard library only.
"""

import base64
import binascii
import json
import os
import re
import sys


_B64_RE = re.compile(r"\A[A-Za-z0-9+/]*={0,2}\Z")
_DIGITS_RE = re.compile(r"\A[0-9]+\Z")


class PluginError(Exception):
    """An error reported as a one-line message on stderr with exit status 1."""


class UsageError(Exception):
    """Unknown or missing subcommand: exit status 2."""


# --------------------------------------------------------------------------
# I/O helpers


def one_line(msg):
    return " ".join(str(msg).split()) or "error"


def write_bytes(data):
    """Write all of data to stdout (fd 1), binary-safe."""
    sys.stdout.flush()
    fd = sys.stdout.fileno()
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view[:1 << 20])
        except InterruptedError:
            continue
        if n <= 0:
            raise BrokenPipeError("short write to stdout")
        view = view[n:]


def write_json(obj):
    write_bytes((json.dumps(obj) + "\n").encode("utf-8"))


def read_stdin():
    return sys.stdin.buffer.read()


def _reject_constant(name):
    raise ValueError("invalid JSON literal %s" % name)


def parse_json(data, what):
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise PluginError("invalid %s: not valid UTF-8" % what)
    try:
        return json.loads(data, parse_constant=_reject_constant)
    except ValueError as exc:
        raise PluginError("invalid %s: %s" % (what, one_line(exc)))
    except RecursionError:
        raise PluginError("invalid %s: nesting too deep" % what)


def parse_json_object(data, what, allow_null=False):
    if not data.strip():
        raise PluginError("empty %s" % what)
    obj = parse_json(data, what)
    if obj is None and allow_null:
        return {}
    if not isinstance(obj, dict):
        raise PluginError("invalid %s: expected a JSON object" % what)
    return obj


def get_str(obj, key, what):
    """Optional string field; null or missing gives ""."""
    val = obj.get(key)
    if val is None:
        return ""
    if not isinstance(val, str):
        raise PluginError("invalid %s: %s must be a string" % (what, key))
    return val


def get_str_list(obj, key, what):
    val = obj.get(key)
    if val is None:
        return []
    if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
        raise PluginError("invalid %s: %s must be an array of strings" % (what, key))
    return val


def b64encode(data):
    return base64.b64encode(data).decode("ascii")


def b64decode_strict(s, what):
    """Standard base64 with padding (RFC 4648 section 4), nothing else."""
    if not isinstance(s, str):
        raise PluginError("invalid %s: expected a base64 string" % what)
    if len(s) % 4 != 0 or not _B64_RE.match(s):
        raise PluginError("invalid %s: not standard padded base64" % what)
    try:
        return base64.b64decode(s, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PluginError("invalid %s: %s" % (what, one_line(exc)))


def now_rfc3339():
    import datetime  # noqa: PLC0415 - imported when needed: a fast start

    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def repo_root():
    root = os.environ.get("ENTIRE_REPO_ROOT", "") or os.getcwd()
    return os.path.abspath(root)


def home_dir():
    home = os.environ.get("HOME", "") or os.path.expanduser("~")
    if not home or home == "~":
        raise PluginError("cannot determine home directory: HOME is not set")
    return os.path.normpath(os.path.abspath(home))


def repo_key(repo_path):
    key = re.sub(r"[^A-Za-z0-9]", "-", os.path.normpath(os.path.abspath(repo_path)))
    return key.strip("-") or "root"


def check_session_ref(ref, what="session_ref"):
    """Reject references that could escape their base directory."""
    if not ref:
        raise PluginError("%s is empty" % what)
    if "\x00" in ref:
        raise PluginError("%s contains a NUL byte" % what)
    parts = ref.replace("\\", "/").split("/")
    if ".." in parts:
        raise PluginError("%s must not contain a '..' component: %s" % (what, ref))
    if os.path.isabs(ref) and "." in parts:
        raise PluginError("%s must not contain a '.' component: %s" % (what, ref))
    return ref


def check_session_id(session_id):
    if not session_id:
        raise PluginError("session id is empty")
    if "/" in session_id or "\\" in session_id or ".." in session_id:
        raise PluginError("invalid session id %r: must not contain '/', '\\' or '..'" % session_id)
    if "\x00" in session_id or os.path.isabs(session_id):
        raise PluginError("invalid session id %r" % session_id)


def read_file(path, what):
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except IsADirectoryError:
        raise PluginError("failed to read %s: %s is a directory" % (what, path))
    except OSError as exc:
        raise PluginError("failed to read %s %s: %s" % (what, path, one_line(exc.strerror or exc)))


def read_file_or_none(path, what):
    """The file's bytes; None when it does not exist."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        raise PluginError("failed to read %s: %s is a directory" % (what, path))
    except OSError as exc:
        raise PluginError("failed to read %s %s: %s" % (what, path, one_line(exc.strerror or exc)))


def atomic_write(path, data):
    import tempfile  # noqa: PLC0415 - imported when needed: a fast start

    directory = os.path.dirname(os.path.abspath(path))
    try:
        mode = os.stat(path).st_mode & 0o7777  # keep an existing file's mode
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def parse_flags(args, value_flags=(), bool_flags=(), required=()):
    """Parse `--flag value` / `--flag=value` / `--bool`. Anything else is an error."""
    values = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if not arg.startswith("--") or arg == "--":
            raise PluginError("unexpected argument: %s" % arg)
        name, eq, inline = arg[2:].partition("=")
        if name in value_flags:
            if eq:
                values[name] = inline
            else:
                if i + 1 >= len(args):
                    raise PluginError("flag needs a value: --%s" % name)
                i += 1
                values[name] = args[i]
        elif name in bool_flags:
            if eq and inline.lower() not in ("true", "1", "false", "0"):
                raise PluginError("invalid boolean value for --%s: %s" % (name, inline))
            values[name] = not eq or inline.lower() in ("true", "1")
        else:
            raise PluginError("unknown flag: --%s" % name)
        i += 1
    for name in required:
        if name not in values:
            raise PluginError("required flag missing: --%s" % name)
        if values[name] == "":
            raise PluginError("flag --%s must not be empty" % name)
    return values


def parse_max_size(raw):
    if not _DIGITS_RE.match(raw) or int(raw) <= 0:
        raise PluginError("--max-size must be an integer greater than 0, got %r" % raw)
    return int(raw)


def parse_offset(raw, flag="offset"):
    if not _DIGITS_RE.match(raw):
        raise PluginError("--%s must be a non-negative integer, got %r" % (flag, raw))
    return int(raw)


# --------------------------------------------------------------------------
# JSONL chunking


def chunk_jsonl(content, max_size):
    """A JSONL chunker with a byte-exact round trip through reassembly (join
    on \\n). A line counts with its newline; a final line without one counts
    as it is. A line longer than max_size is an error."""
    if not content:
        return []
    pieces = content.split(b"\n")
    lines = [p + b"\n" for p in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    chunks = []
    current = []
    size = 0
    for number, line in enumerate(lines, 1):
        if len(line) > max_size:
            raise PluginError(
                "JSONL line %d is %d bytes, larger than the maximum chunk size %d; "
                "cannot split a single JSON object" % (number, len(line), max_size))
        if current and size + len(line) > max_size:
            chunk = b"".join(current)
            chunks.append(chunk[:-1] if chunk.endswith(b"\n") else chunk)
            current = []
            size = 0
        current.append(line)
        size += len(line)
    if current:
        chunks.append(b"".join(current))
    return chunks


def host_chunk_jsonl(content, max_size):
    """The host's own default JSONL chunker (docs/host.md "Chunking").

    Empty input gives zero chunks. The content is split at \\n and EVERY
    piece gets a \\n appended before it is measured, the last one too: a
    final piece of exactly max_size bytes is refused even without a newline,
    and after a final newline the empty last piece still counts one byte. A
    chunk is closed when the next line does not fit; every chunk, the last
    one included, drops its final \\n, which joining the chunks with \\n puts
    back. Byte-exact for any input: the pieces of the split, each followed by
    \\n, joined and minus the very last \\n, are the input.
    """
    if not content:
        return []
    chunks = []
    current = bytearray()
    for number, piece in enumerate(content.split(b"\n"), 1):
        line = piece + b"\n"
        if len(line) > max_size:
            raise PluginError(
                "JSONL line %d exceeds maximum chunk size (%d bytes > %d bytes); "
                "cannot split a single JSON object" % (number, len(line), max_size))
        if current and len(current) + len(line) > max_size:
            chunks.append(bytes(current[:-1]))
            current = bytearray()
        current += line
    if current:
        chunks.append(bytes(current[:-1]))
    return chunks


def reassemble_jsonl(chunks):
    """The host's ReassembleJSONL: the chunks joined with \\n."""
    return b"\n".join(chunks)
