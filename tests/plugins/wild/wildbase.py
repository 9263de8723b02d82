"""wildbase: the shared, boring part of the "plugins in the wild" test plugins.

Each `entire-agent-<name>` beside this file is a complete Entire CLI external
agent plugin written from the specification (protocol text, implementation
guide, docs/host.md notes). They share this conforming base and each changes
one thing: the pattern of a working public plugin that it models (see
tests/plugins/README.md, "Plugins in the wild").

The base plugin: JSONL transcripts, sessions stored under
$HOME/.<name>/sessions/<repo-key>/<session-id>.jsonl, no optional capability.
A plugin that declares `hooks` installs them into
$ENTIRE_REPO_ROOT/<config_dir>/<hooks_file> and keeps the user's data (the
same careful approach as tests/plugins/entire-agent-pyconform).

Errors are one line on stderr and exit 1; an unknown or missing subcommand
exits 2. Standard library only; Python 3.9+; fast to import.
The I/O helpers and the chunker are in wildio.py, imported back here.
"""

import base64
import binascii
import json
import os
import re
import sys

PROTOCOL_VERSION = 1

# Event types (protocol "Event Object").
SESSION_START = 1
TURN_START = 2
TURN_END = 3
COMPACTION = 4
SESSION_END = 5
SUBAGENT_START = 6
SUBAGENT_END = 7
from wildio import *  # noqa: E402,F401,F403 (the helpers, re-exported)
from wildio import _B64_RE, _DIGITS_RE, _reject_constant  # noqa: E402,F401


# --------------------------------------------------------------------------
# the plugin


class Plugin:
    """A conforming plugin; subclasses change one pattern.

    Subcommands are the methods `cmd_<subcommand with _ for ->`.
    """

    name = "wild"
    agent_type = "Wild"
    description = "a fictional agent used to test agent-conform"
    capabilities = {}
    # (hook name, config key in the hooks file, event type)
    hooks = []
    hooks_file = "hooks.json"
    transcript_ext = ".jsonl"

    # ---------------------------------------------------------------- basics

    @property
    def config_dir(self):
        return "." + self.name

    @property
    def hook_command_prefix(self):
        return "entire hooks %s " % self.name

    @property
    def state_key(self):
        return "_entire_%s" % self.name.replace("-", "_")

    def info(self):
        info = {
            "protocol_version": PROTOCOL_VERSION,
            "name": self.name,
            "type": self.agent_type,
            "description": self.description,
            "is_preview": True,
            "protected_dirs": [self.config_dir],
            "hook_names": [h[0] for h in self.hooks] if self.capabilities.get("hooks") else [],
            "capabilities": dict(self.capabilities),
        }
        return info

    def emit(self, obj):
        """Print one JSON value as the answer."""
        write_json(obj)

    def flags(self, args, value_flags=(), bool_flags=(), required=()):
        return parse_flags(args, value_flags, bool_flags, required)

    def session_dir(self, repo_path):
        return os.path.join(home_dir(), self.config_dir, "sessions", repo_key(repo_path))

    # ------------------------------------------------- always required

    def cmd_info(self, args):
        self.flags(args)
        self.emit(self.info())

    def cmd_detect(self, args):
        self.flags(args)
        self.emit({"present": os.path.isdir(os.path.join(repo_root(), self.config_dir))})

    def cmd_get_session_id(self, args):
        self.flags(args)
        hook_input = parse_json_object(read_stdin(), "hook input")
        session_id = get_str(hook_input, "session_id", "hook input")
        if not session_id:
            raise PluginError("hook input has no session_id")
        self.emit({"session_id": session_id})

    def cmd_get_session_dir(self, args):
        flags = self.flags(args, ("repo-path",), required=("repo-path",))
        self.emit({"session_dir": self.session_dir(flags["repo-path"])})

    def cmd_resolve_session_file(self, args):
        flags = self.flags(args, ("session-dir", "session-id"), required=("session-dir", "session-id"))
        session_id = flags["session-id"]
        check_session_id(session_id)
        path = os.path.normpath(os.path.join(flags["session-dir"], session_id + self.transcript_ext))
        self.emit({"session_file": path})

    def decode_session(self, data):
        """The AgentSession on stdin, type-checked as the host's decoder would."""
        what = "agent session"
        session = parse_json_object(data, what)
        for key in ("session_id", "agent_name", "repo_path", "start_time"):
            get_str(session, key, what)
        for key in ("modified_files", "new_files", "deleted_files"):
            get_str_list(session, key, what)
        return session

    def cmd_write_session(self, args):
        self.flags(args)
        session = self.decode_session(read_stdin())
        session_ref = get_str(session, "session_ref", "agent session")
        if not session_ref:
            raise PluginError("agent session has no session_ref")
        check_session_ref(session_ref)
        if session.get("native_data") is None:
            raise PluginError("agent session has no native_data to write")
        data = b64decode_strict(session["native_data"], "native_data")
        try:
            os.makedirs(os.path.dirname(os.path.abspath(session_ref)), exist_ok=True)
            atomic_write(session_ref, data)
        except OSError as exc:
            raise PluginError("failed to write session %s: %s" % (session_ref, one_line(exc.strerror or exc)))

    def empty_list(self):
        """What an empty array prints as."""
        return []

    def cmd_read_session(self, args):
        self.flags(args)
        what = "hook input"
        hook_input = parse_json_object(read_stdin(), what)
        session_id = get_str(hook_input, "session_id", what)
        session_ref = get_str(hook_input, "session_ref", what)
        if not session_ref:
            raise PluginError("hook input has no session_ref")
        check_session_ref(session_ref)
        data = read_file(session_ref, "session")
        self.emit({
            "session_id": session_id,
            "agent_name": self.name,
            "repo_path": repo_root(),
            "session_ref": session_ref,
            "start_time": "",
            "native_data": b64encode(data),
            "modified_files": self.empty_list(),
            "new_files": self.empty_list(),
            "deleted_files": self.empty_list(),
        })

    def cmd_read_transcript(self, args):
        flags = self.flags(args, ("session-ref",), required=("session-ref",))
        ref = check_session_ref(flags["session-ref"])
        write_bytes(read_file(ref, "transcript"))

    def chunk(self, content, max_size):
        return chunk_jsonl(content, max_size)

    def cmd_chunk_transcript(self, args):
        flags = self.flags(args, ("max-size",), required=("max-size",))
        max_size = parse_max_size(flags["max-size"])
        chunks = self.chunk(read_stdin(), max_size)
        self.emit({"chunks": [b64encode(c) for c in chunks]})

    def decode_chunks(self, data):
        """The chunks of {"chunks": [...]}, as bytes; refuses anything else."""
        obj = parse_json_object(data, "chunks input")
        if "chunks" not in obj:
            raise PluginError("invalid chunks input: missing \"chunks\"")
        chunks = obj["chunks"]
        if not isinstance(chunks, list):
            raise PluginError("invalid chunks input: \"chunks\" must be an array")
        return [b"" if c is None else b64decode_strict(c, "chunk %d" % i)
                for i, c in enumerate(chunks)]

    def reassemble(self, chunks):
        return reassemble_jsonl(chunks)

    def cmd_reassemble_transcript(self, args):
        self.flags(args)
        write_bytes(self.reassemble(self.decode_chunks(read_stdin())))

    def resume_command(self, session_id):
        import shlex  # noqa: PLC0415 - imported when needed: a fast start

        return "%s --resume %s" % (self.name, shlex.quote(session_id))

    def cmd_format_resume_command(self, args):
        flags = self.flags(args, ("session-id",), required=("session-id",))
        self.emit({"command": self.resume_command(flags["session-id"])})

    # --------------------------------------------------- hook installation

    def hooks_path(self):
        return os.path.join(repo_root(), self.config_dir, self.hooks_file)

    def own_command(self, hook_name):
        return self.hook_command_prefix + hook_name

    def is_own_entry(self, entry):
        return (isinstance(entry, dict) and isinstance(entry.get("command"), str)
                and entry["command"].startswith(self.hook_command_prefix))

    def load_hooks_config(self, path):
        """The parsed hooks file, or None when it does not exist."""
        data = read_file_or_none(path, "hooks file")
        if data is None:
            return None
        if not data.strip():
            return {}
        try:
            config = json.loads(data.decode("utf-8"), parse_constant=_reject_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            raise PluginError("%s is not valid JSON (%s); fix or remove it by hand" % (path, one_line(exc)))
        if not isinstance(config, dict):
            raise PluginError("%s must contain a JSON object; fix or remove it by hand" % path)
        hooks = config.get("hooks")
        if hooks is not None:
            if not isinstance(hooks, dict):
                raise PluginError("%s: \"hooks\" must be an object; fix it by hand" % path)
            for _, key, _ in self.hooks:
                if key in hooks and hooks[key] is not None and not isinstance(hooks[key], list):
                    raise PluginError("%s: \"hooks.%s\" must be an array; fix it by hand" % (path, key))
        return config

    @staticmethod
    def dump_config(config):
        return (json.dumps(config, indent=2) + "\n").encode("utf-8")

    def cmd_install_hooks(self, args):
        flags = self.flags(args, bool_flags=("local-dev", "force"))
        force = flags.get("force", False)
        # --local-dev is accepted and ignored: hooks always call the installed `entire`.
        config_dir = os.path.join(repo_root(), self.config_dir)
        path = self.hooks_path()
        config = self.load_hooks_config(path)
        created_dir = not os.path.isdir(config_dir)
        original = None
        if config is None:
            config = {}
            state = {"created_file": True, "created_dir": created_dir,
                     "created_hooks": True, "created_lists": []}
        else:
            original = self.dump_config(config)
            state = config.get(self.state_key)
            if not isinstance(state, dict):
                state = {"created_file": False, "created_dir": False,
                         "created_hooks": "hooks" not in config, "created_lists": []}
        if config.get("hooks") is None:
            config["hooks"] = {}
        hooks = config["hooks"]
        created_lists = [k for k in state.get("created_lists", []) if isinstance(k, str)]
        installed = 0
        for hook_name, key, _ in self.hooks:
            if hooks.get(key) is None:
                hooks[key] = []
                if key not in created_lists:
                    created_lists.append(key)
            entries = hooks[key]
            if force:
                entries[:] = [e for e in entries if not self.is_own_entry(e)]
            command = self.own_command(hook_name)
            if not any(isinstance(e, dict) and e.get("command") == command for e in entries):
                entries.append({"command": command})
                installed += 1
        state["created_lists"] = created_lists
        if state.get("created_file") or state.get("created_hooks") or created_lists:
            config[self.state_key] = state
        new = self.dump_config(config)
        if new != original:
            try:
                os.makedirs(config_dir, exist_ok=True)
                atomic_write(path, new)
            except OSError as exc:
                raise PluginError("failed to write %s: %s" % (path, one_line(exc.strerror or exc)))
        self.emit({"hooks_installed": installed})

    def cmd_uninstall_hooks(self, args):
        self.flags(args)
        config_dir = os.path.join(repo_root(), self.config_dir)
        path = self.hooks_path()
        config = self.load_hooks_config(path)
        if config is None:
            return
        changed = self.state_key in config
        state = config.pop(self.state_key, None)
        if not isinstance(state, dict):
            state = {}
        created_lists = state.get("created_lists") or []
        hooks = config.get("hooks")
        if isinstance(hooks, dict):
            for key in list(hooks.keys()):
                entries = hooks[key]
                if not isinstance(entries, list):
                    continue
                kept = [e for e in entries if not self.is_own_entry(e)]
                if len(kept) != len(entries):
                    hooks[key] = kept
                    changed = True
                if not kept and key in created_lists:
                    del hooks[key]
                    changed = True
            if not hooks and state.get("created_hooks"):
                del config["hooks"]
                changed = True
        if not changed:
            return  # nothing of ours in the file: leave it byte for byte
        try:
            if state.get("created_file") and not config:
                os.unlink(path)
                if state.get("created_dir"):
                    try:
                        os.rmdir(config_dir)  # only succeeds when empty
                    except OSError:
                        pass
            else:
                atomic_write(path, self.dump_config(config))
        except OSError as exc:
            raise PluginError("failed to update %s: %s; remove the %s entries by hand"
                              % (path, one_line(exc.strerror or exc), self.name))

    def cmd_are_hooks_installed(self, args):
        self.flags(args)
        config = self.load_hooks_config(self.hooks_path())
        installed = False
        if config is not None and isinstance(config.get("hooks"), dict):
            for entries in config["hooks"].values():
                if isinstance(entries, list) and any(self.is_own_entry(e) for e in entries):
                    installed = True
                    break
        self.emit({"installed": installed})

    def guide_parse_hook(self, args):
        """`parse-hook` for the guide's Claude Code shaped payloads
        (`session_id`, `transcript_path`, `prompt`) and the hooks of
        `self.hooks`: a payload without a session id, or a TurnStart/TurnEnd
        without a transcript path, gives `null`."""
        flags = self.flags(args, ("hook",), required=("hook",))
        event_type = {h[0]: h[2] for h in self.hooks}.get(flags["hook"])
        data = read_stdin()
        if event_type is None:
            write_json(None)  # not a hook of ours: no lifecycle significance
            return
        if not data.strip():
            raise PluginError("empty hook input")
        what = "hook payload"
        payload = parse_json_object(data, what)
        session_id = get_str(payload, "session_id", what)
        transcript = get_str(payload, "transcript_path", what)
        prompt = get_str(payload, "prompt", what)
        if not session_id:
            write_json(None)  # nothing to attach the event to
            return
        event = {"type": event_type, "session_id": session_id, "timestamp": now_rfc3339()}
        if event_type in (TURN_START, TURN_END):
            if not transcript:
                write_json(None)  # the host needs the transcript of a turn
                return
            event["session_ref"] = transcript
        if event_type == TURN_START and prompt:
            event["prompt"] = prompt
        write_json(event)

    # ------------------------------------------------------------- dispatch

    def command(self, subcommand):
        """The method of a subcommand this plugin implements, or None.

        Optional subcommands exist only when their capability is declared.
        """
        optional = {
            "hooks": ("parse-hook", "install-hooks", "uninstall-hooks", "are-hooks-installed"),
            "transcript_analyzer": ("get-transcript-position", "extract-modified-files",
                                    "extract-prompts", "extract-summary"),
            "transcript_preparer": ("prepare-transcript",),
            "token_calculator": ("calculate-tokens",),
            "subagent_aware_extractor": ("extract-all-modified-files", "calculate-total-tokens"),
            "compact_transcript": ("compact-transcript",),
        }
        for capability, subcommands in optional.items():
            if subcommand in subcommands and not self.capabilities.get(capability):
                return None
        if not re.match(r"\A[a-z][a-z-]*\Z", subcommand):
            return None
        return getattr(self, "cmd_" + subcommand.replace("-", "_"), None)

    def main(self, argv):
        try:
            if not argv:
                raise UsageError("missing subcommand")
            method = self.command(argv[0])
            if method is None:
                raise UsageError("unknown subcommand: %s" % argv[0])
            method(argv[1:])
            return 0
        except UsageError as exc:
            return self.error(exc, 2)
        except PluginError as exc:
            return self.error(exc, 1)
        except BrokenPipeError:
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except OSError:
                pass
            return self.error("broken pipe while writing output", 1)
        except KeyboardInterrupt:
            return self.error("interrupted", 1)
        except MemoryError:
            return self.error("out of memory", 1)
        except Exception as exc:  # noqa: BLE001 - never show a traceback
            return self.error("%s: %s" % (type(exc).__name__, exc), 1)

    def error(self, msg, code):
        try:
            sys.stderr.write("entire-agent-%s: %s\n" % (self.name, one_line(msg)))
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - nothing left to report to
            pass
        return code


def run(plugin):
    """Run a plugin on this process's arguments and exit."""
    sys.exit(plugin.main(sys.argv[1:]))
